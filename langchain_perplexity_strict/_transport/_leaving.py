"""Close an async call's stream when its caller closes the model's `astream`, not when the loop gets to it.

langchain-core's `astream` does not close `_astream` when its caller calls `aclose()`: the loop's finalizer
does, later, and never when `asyncio.run` ends first, so a background run's cancel would not go out. The
chat model's `astream` opens a scope here; the first stream opened in it is closed (its run cancelled) as
the scope ends, then langchain-core's `astream`, so its callbacks end the run at once.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextvars import ContextVar
from typing import Any

from langchain_perplexity_strict._transport._resume import AsyncStreamFollower

_SCOPE: ContextVar[list[AsyncStreamFollower] | None] = ContextVar("perplexity_stream_scope", default=None)


def opened(follower: AsyncStreamFollower) -> AsyncStreamFollower:
    """Record `follower` in the current scope, unless that scope has its stream already.

    Only the first is taken: a task started while an `astream` is suspended copies its context, scope
    included, and must not have its own stream closed by that `astream`.
    """
    scope = _SCOPE.get()
    if scope is not None and not scope:
        scope.append(follower)
    return follower


class StreamScope:
    """The stream one `astream` call opens: entered before the call's first step, closed as it ends.

    A plain object, not an async context manager: it is closed from the `finally` of the model's
    `astream`, also when the event loop finalizes that generator at shutdown.
    """

    def __init__(self) -> None:
        self.followers: list[AsyncStreamFollower] = []
        self.token = _SCOPE.set(self.followers)

    async def close(self, outer: AsyncIterator[Any] | None = None) -> None:
        """Close the stream opened in this scope (cancelling a background run the caller left), then `outer`
        (langchain-core's `astream`, so its callbacks end the run now: a stream left early reports
        `on_llm_error` with the chunks received, their cost included)."""
        try:
            with contextlib.suppress(ValueError):  # ended from another context (a finalizer's): nothing to restore
                _SCOPE.reset(self.token)
            for follower in self.followers:
                await follower.close()
        finally:
            aclose = getattr(outer, "aclose", None)  # an async generator's
            if aclose is not None:
                await aclose()
