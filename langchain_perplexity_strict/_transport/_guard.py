"""The step that names a background run, finished even when the caller leaves during it, then the run cancelled.

A background run bills from the moment the server accepts its create, and its id, the one handle to cancel it
by (`POST /v1/responses/{id}/cancel`), comes back only with the create's answer: the queued response, or a
stream's first event (`response.created`). A caller who left while that answer was on its way (Ctrl-C, a
cancelled task, `asyncio.wait_for` or `asyncio.timeout`, `asyncio.run` ending, an `abatch` cancelled) would
lose the id, and the run would go on, queued then billed, with no cancel ever sent. So that step is guarded:
it goes on to its end, and when the caller left meanwhile, `left` gets its result (and cancels the run)
before the caller's leaving goes on.

- sync: Ctrl-C (SIGINT, which Python delivers to the main thread) is held while the step runs, when Python's
  own handler is installed, and raised once `left` is done; a second Ctrl-C raises at once, the way out of a
  server that never answers. Other threads receive no Ctrl-C, and a handler of the application's is left alone.
- async: the step runs in a task of its own, which the caller awaits through `asyncio.shield`, so a cancelled
  caller does not cut the request. `asyncio.run` cancels every task left as it ends, then waits for them: that
  cancel the task refuses (`_Guarded.cancel`), so `asyncio.run` waits for it; the request's timeout bounds it.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Any, TypeVar

from langchain_perplexity_strict._transport._loops import hold_open

T = TypeVar("T")


def guarded(step: Callable[[], T], left: Callable[[T], None]) -> T:
    """`step()`, with Ctrl-C held until it is done; if Ctrl-C came meanwhile, `left(result)`, then it is raised."""
    if threading.current_thread() is not threading.main_thread():
        return step()  # Python runs signal handlers in the main thread only: no Ctrl-C interrupts this one
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return step()  # the application's own handler (or SIGINT ignored): its choice
    pressed: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        if pressed:  # pressed twice: leave now, the run's id unknown
            raise KeyboardInterrupt
        pressed.append(signum)

    signal.signal(signal.SIGINT, hold)
    try:
        result = step()
    except BaseException as error:
        if pressed and not isinstance(error, KeyboardInterrupt):
            raise KeyboardInterrupt from error  # the step failed (no run to cancel); the caller still leaves
        raise
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if pressed:
        left(result)
        raise KeyboardInterrupt
    return result


_RUN_ENDS = getattr(getattr(asyncio.runners, "_cancel_all_tasks", None), "__code__", None)
"""What `asyncio.run` (and `asyncio.Runner`) calls as it ends: cancel every task left, then wait for them."""


class _Guarded(asyncio.Task):
    """A task that `asyncio.run`'s end does not cancel, so it waits for it, as for a task that catches it.

    Other cancels are honoured: nothing else holds this task but the HTTP library, whose own timeouts cancel
    the task they run in (anyio's cancel scopes).
    """

    def cancel(self, msg: Any = None) -> bool:
        if _RUN_ENDS is not None and sys._getframe(1).f_code is _RUN_ENDS:
            return False
        return super().cancel(msg)


async def aguarded(step: Callable[[], Awaitable[T]], left: Callable[[T], Awaitable[None]]) -> T:
    """Async twin of `guarded`: `step()` goes on when the caller is cancelled, and then `left(result)`."""
    gone = False

    async def run() -> T:
        result = await step()
        if gone:
            await left(result)
        return result

    task: asyncio.Task[T] = _Guarded(run(), loop=asyncio.get_running_loop())
    hold_open(task)  # referenced until it ends, and the loop's connections open at its shutdown until then
    task.add_done_callback(_retrieved)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        if not task.done():
            gone = True  # read by `run` once the step is done (one thread: no race with it)
        elif task.exception() is None:  # done in the same turn of the loop as the caller's cancel

            async def late(result: T) -> None:
                await left(result)

            later = _Guarded(late(task.result()), loop=asyncio.get_running_loop())
            hold_open(later)
            later.add_done_callback(_retrieved)
        raise


def _retrieved(task: asyncio.Future[Any]) -> None:
    """Mark the guarded step's failure retrieved: the caller who awaited it raised it; one who left needs none."""
    if not task.cancelled():
        task.exception()
