"""What the package says on the side of a call, never raising into it: warnings once per owner, log records.

`warnings.warn`'s registry would hide a second model's identical warning, so each owner keeps what it said.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import traceback
import warnings
import weakref
from contextvars import ContextVar
from typing import Any

_INTERNAL = frozenset({__name__.partition(".")[0], "langchain_core", "langchain", "langgraph", "pydantic", "asyncio"})
"""Packages skipped to find the caller's line: this one, LangChain's, asyncio (a task's caller is the loop's)."""
_CALLER: ContextVar[tuple[str, int, str] | None] = ContextVar("perplexity_caller", default=None)
"""The line of the call under way (`calling`): its threads' and tasks' stacks lack it."""


def _module(frame: Any) -> str:
    name = dict.get(frame.f_globals, "__name__")
    return name if isinstance(name, str) else "<string>"


def _caller() -> tuple[str, int, str]:
    frame = sys._getframe(2)
    while frame.f_back is not None and _module(frame).partition(".")[0] in _INTERNAL:
        frame = frame.f_back
    return _CALLER.get() or (frame.f_code.co_filename, frame.f_lineno or 0, _module(frame))


def calling() -> contextlib.ExitStack:
    """Within: warnings name this caller's line, also in the threads and tasks it starts (their stacks lack it)."""
    stack = contextlib.ExitStack()
    stack.callback(_CALLER.reset, _CALLER.set(_caller()))
    return stack


class OncePerOwner:
    """What each owner has warned about; copies sharing it still warn on their own."""

    def __init__(self) -> None:
        self._by_owner: dict[int, tuple[weakref.ref[Any], set[str]]] = {}
        self._lock = threading.Lock()

    def warn(self, owner: object, key: str, message: str, category: type[Warning] = UserWarning) -> None:
        with self._lock:
            record = self._by_owner.get(id(owner))
            if record is None or record[0]() is not owner:  # new, or at a dead owner's address
                record = self._by_owner[id(owner)] = (weakref.ref(owner), set())
            if key in record[1]:
                return
            record[1].add(key)
        try:
            warn(message, category)
        except BaseException:
            record[1].discard(key)  # `-W error`: raise again next time
            raise


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """A warning at the caller's line, the first frame outside `_INTERNAL`."""
    warnings.warn_explicit(message, category, *_caller())


def log(logger: logging.Logger, level: int, message: str, *args: object) -> None:
    """Log a record; a failing handler is reported, never raised into the call."""
    try:
        logger.log(level, message, *args, stacklevel=2)
    except Exception:
        if logging.raiseExceptions:
            with contextlib.suppress(Exception):  # no or closed stderr
                traceback.print_exc(file=sys.stderr)


def warn_deprecated_name(message: str) -> None:
    """Warn at the line using a deprecated name; importlib's `hasattr` before `from x import name` stays silent."""
    if sys._getframe(2).f_globals.get("__name__") != "importlib._bootstrap":
        warnings.warn(message, DeprecationWarning, stacklevel=3)
