"""What the package says on the side of a call, never raising into it: warnings once per owner, log records.

A warning is given once per owner (a model instance), never kept quiet because another owner gave the
same. Python's `warnings.warn` keeps what it showed in the blamed module's `__warningregistry__`, keyed by
text and line, so under the `default` filter a second model's identical warning from the same call site
would never show. Here each owner keeps what it said, and `warnings.warn_explicit` gets no registry (a
fresh one per call) and no module globals (it asks their loader for the source line, which raises under
`-c`, stdin and `-m`): the caller's filters still apply (`ignore`, `once` across the process), and the
warning points at the caller's line. A filter that makes it an error raises it: Python's own contract.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import traceback
import warnings
import weakref
from typing import Any

_INTERNAL = frozenset({"langchain_perplexity_strict", "langchain_core", "pydantic", "asyncio"})
"""Packages whose frames are skipped to find the caller's line (asyncio: a task's is the loop that ran it)."""


def _module(frame: Any) -> str:
    """The frame's module name as `warnings.warn` reads it: `<string>` when `__name__` is missing or no text."""
    name = dict.get(frame.f_globals, "__name__")  # `exec` globals may be a dict subclass, or hold anything
    return name if isinstance(name, str) else "<string>"


def _caller() -> tuple[str, int, str]:
    """The file, line and module of the first frame outside this package, langchain-core and pydantic."""
    frame = sys._getframe(2)
    while frame.f_back is not None and _module(frame).partition(".")[0] in _INTERNAL:
        frame = frame.f_back
    return frame.f_code.co_filename, frame.f_lineno or 0, _module(frame)


class OncePerOwner:
    """What each owner has warned about, by owner: a shallow copy of the owner (`model_copy`) may share
    this object, and still warns on its own."""

    def __init__(self) -> None:
        self._by_owner: dict[int, tuple[weakref.ref[Any], set[str]]] = {}
        self._lock = threading.Lock()

    def warn(self, owner: object, key: str, message: str, category: type[Warning] = UserWarning) -> None:
        """Warn `message` unless `owner` already warned under `key`; a warning raised as an error is not said."""
        with self._lock:
            record = self._by_owner.get(id(owner))
            if record is None or record[0]() is not owner:  # a new owner, or one at a dead owner's address
                record = self._by_owner[id(owner)] = (weakref.ref(owner), set())
            if key in record[1]:
                return
            record[1].add(key)
        try:
            warnings.warn_explicit(message, category, *_caller())
        except BaseException:
            record[1].discard(key)  # `-W error`: the next call raises it again, as `warnings.warn` would
            raise


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """A warning at the caller's line (the first frame outside this package), however deep the package is."""
    warnings.warn_explicit(message, category, *_caller())


def log(logger: logging.Logger, level: int, message: str, *args: object) -> None:
    """Log a record on the side of a call: an application's handler or filter that raises is reported as
    logging's own handlers report their failures (`Handler.handleError`), never raised into the call."""
    try:
        logger.log(level, message, *args, stacklevel=2)
    except Exception:
        if logging.raiseExceptions:
            with contextlib.suppress(Exception):  # no stderr (a windowed app), or a closed one
                traceback.print_exc(file=sys.stderr)


def warn_deprecated_name(message: str) -> None:
    """Warn once per use of a name a module's `__getattr__` keeps for one release, at the line that uses it.

    `from package import name` looks `name` up twice: importlib's `_handle_fromlist` asks `hasattr` before
    the import itself reads it. That first look stays silent, so one import gives one warning.
    """
    asker = sys._getframe(2)  # the frame that called the module's `__getattr__`
    if asker.f_globals.get("__name__") == "importlib._bootstrap":
        return
    warnings.warn(message, DeprecationWarning, stacklevel=3)
