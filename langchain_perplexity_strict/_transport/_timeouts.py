"""The request timeout in every form `ChatOpenAI` takes: given to the client, and as a bound in seconds.

`ChatOpenAI`'s `timeout` is `float | tuple[float, float] | Any`: seconds, a
`(connect, read)` pair, or an `httpx.Timeout`. Every class checks it by one
rule (`_accepts.TIMEOUT`) before it gets here.
"""

from __future__ import annotations

import math
from typing import Any

import httpx


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
