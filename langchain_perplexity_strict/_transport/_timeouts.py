"""The request timeout in every form `ChatOpenAI` takes, given to the client as its own library's `Timeout`.

openai's client runs on httpx before openai 3 and on httpx2 from it, and refuses the other library's
`Timeout`. `openai.Timeout` is always the library's own, so a pair, or a `Timeout` of either library,
is rebuilt as one (`_accepts.TIMEOUT` checked it first).
"""

from __future__ import annotations

from typing import Any

import openai


def client_timeout(value: Any) -> Any:
    """`value` as openai's client takes it: seconds or None unchanged, anything else an `openai.Timeout`."""
    if isinstance(value, tuple):
        return openai.Timeout(value)
    if value is None or isinstance(value, (int, float, openai.Timeout)):
        return value
    return openai.Timeout(connect=value.connect, read=value.read, write=value.write, pool=value.pool)


def timeout_seconds(value: Any) -> float | None:
    """The longest part of a timeout, in seconds: what bounds a background run's wait (None: unbounded)."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    value = client_timeout(value)
    return max((p for p in (value.connect, value.read, value.write, value.pool) if p is not None), default=None)
