"""The request timeout in every form `ChatOpenAI` takes: checked, given to the client, and as a bound in seconds.

`ChatOpenAI`'s `timeout` is `float | tuple[float, float] | Any`: seconds, a
`(connect, read)` pair, or an `httpx.Timeout`. The chat model and the search
and embeddings classes check it with the same rule, so each refuses the same
values with the same message.
"""

from __future__ import annotations

import math
from typing import Any

import httpx

from langchain_perplexity_strict._redact import shown


def check_timeout(value: Any) -> None:
    """Raise `ValueError` naming `timeout` unless `value` is None or a timeout whose every part is seconds > 0."""
    if value is not None and not all(map(_seconds, _parts(value))):
        msg = (
            f"timeout={shown(value)}: expected seconds > 0 (finite), a (connect, read) pair of them, an httpx.Timeout "
            "whose set parts are, or None for the client's default (the forms ChatOpenAI takes)."
        )
        raise ValueError(msg)


def client_timeout(value: Any) -> Any:
    """The timeout as the client takes it: a (connect, read) pair as httpx reads one, else unchanged."""
    return httpx.Timeout(value) if isinstance(value, tuple) else value


def timeout_seconds(value: Any) -> float | None:
    """The longest part of a timeout, in seconds: what bounds a background run's wait (None: unbounded)."""
    return max(_parts(value), default=None) if value is not None else None


def _seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def _parts(value: Any) -> list[Any]:
    """The seconds in a timeout: itself, a pair's two, an httpx.Timeout's set parts ([None] for another form)."""
    if isinstance(value, httpx.Timeout):
        return [p for p in (value.connect, value.read, value.write, value.pool) if p is not None]
    if isinstance(value, tuple):
        return list(value) if len(value) == 2 else [None]
    return [value]
