"""Warnings given once per owner (a model instance): never kept quiet because another owner gave the same.

Two things would otherwise share a warning between owners: a record of what was said kept by text or
name (a module-level set), and Python's own registry, which the `default` filter keys by text and the
line that warned, so a second model's identical warning from the same call site is never shown. Here
each owner keeps what it said, and its own registry (`warnings.warn_explicit`): the caller's filters
still apply (`ignore`, `error`, `once` across the process), and the warning points at the caller's line.
"""

from __future__ import annotations

import sys
import threading
import warnings
import weakref
from typing import Any

_INTERNAL = ("langchain_perplexity_strict", "langchain_core", "pydantic")
"""Modules whose frames are skipped to find the caller's line."""


def _caller() -> tuple[str, int, str, dict[str, Any]]:
    """The file, line, module and globals of the first frame outside this package and langchain-core."""
    frame = sys._getframe(1)
    while frame.f_back is not None and str(frame.f_globals.get("__name__", "")).startswith(_INTERNAL):
        frame = frame.f_back
    return frame.f_code.co_filename, frame.f_lineno, str(frame.f_globals.get("__name__", "")), frame.f_globals


class OncePerOwner:
    """What each owner has warned about, by owner: a shallow copy of the owner (`model_copy`) may share
    this object, and still warns on its own."""

    def __init__(self) -> None:
        self._by_owner: dict[int, tuple[weakref.ref[Any], set[str], dict[Any, Any]]] = {}
        self._lock = threading.Lock()

    def warn(self, owner: object, key: str, message: str, category: type[Warning] = UserWarning) -> None:
        """Warn `message` unless `owner` already warned under `key`."""
        with self._lock:
            record = self._by_owner.get(id(owner))
            if record is None or record[0]() is not owner:  # a new owner, or one at a dead owner's address
                record = self._by_owner[id(owner)] = (weakref.ref(owner), set(), {})
            if key in record[1]:
                return
            record[1].add(key)
        filename, lineno, module, module_globals = _caller()
        registry = record[2]
        warnings.warn_explicit(message, category, filename, lineno, module, registry, module_globals)


def warn_deprecated_name(message: str) -> None:
    """Warn once per use of a name a module's `__getattr__` keeps for one release, at the line that uses it.

    `from package import name` looks `name` up twice: importlib's `_handle_fromlist` asks `hasattr` before
    the import itself reads it. That first look stays silent, so one import gives one warning.
    """
    asker = sys._getframe(2)  # the frame that called the module's `__getattr__`
    if asker.f_globals.get("__name__") == "importlib._bootstrap":
        return
    warnings.warn(message, DeprecationWarning, stacklevel=3)
