"""The step that names a background run, finished even when the caller leaves during it, then the run cancelled.

A background run bills once the server accepts its create, and its id, the one handle to cancel it by, comes
back only with the create's answer. A caller who left meanwhile (Ctrl-C, a cancelled task, `asyncio.run`
ending) would lose the id, and the run would go on, billed. So that step goes on to its end, and `left` gets
its result (and cancels the run) before the caller's leaving goes on.

- sync: Ctrl-C is held while the step runs, when Python's own handler is installed; a second one raises at once.
- threads: within `leaving_together` (a model's `batch`, its `n` answers), threads started with the caller's context
  learn that it left (`CALLER_LEFT`) from SIGINT's byte on the wakeup fd, at once: the main thread, waiting for
  them, may run its handler only once they are done (always so after `_thread.interrupt_main()`).
- async: the step runs in a task of its own, awaited through `asyncio.shield`, whose cancel at `asyncio.run`'s
  end is refused (`_Guarded.cancel`), so `asyncio.run` waits for it; the request's timeout bounds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar, copy_context
from types import FrameType
from typing import Any, TypeVar

from langchain_perplexity_strict._once import log
from langchain_perplexity_strict._transport._loops import hold_open

T = TypeVar("T")
R = TypeVar("R")
logger = logging.getLogger(__name__)


CALLER_LEFT: ContextVar[threading.Event | None] = ContextVar("perplexity_caller_left", default=None)
"""Set, within `leaving_together`, once the caller left by Ctrl-C: worker threads read it."""


def pause(seconds: float) -> None:
    """`time.sleep(seconds)`, cut short by `KeyboardInterrupt` when the caller leaves by Ctrl-C meanwhile."""
    left = CALLER_LEFT.get()
    if left is None:
        time.sleep(seconds)
    elif left.wait(seconds):
        raise KeyboardInterrupt


@contextlib.contextmanager
def leaving_together() -> Iterator[None]:
    """Within: a Ctrl-C (a signal, or `_thread.interrupt_main()`) is seen by the threads started with this context."""
    nested = CALLER_LEFT.get() is not None or threading.current_thread() is not threading.main_thread()
    if nested or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:  # not Python's own: its choice
        yield
        return
    left, (reader, writer) = threading.Event(), socket.socketpair()
    writer.setblocking(False)
    previous = signal.set_wakeup_fd(writer.fileno())
    threading.Thread(target=_watch, args=(reader, left, previous), daemon=True).start()
    token = CALLER_LEFT.set(left)
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)  # first: raising (another thread), `writer` stays open, never a stray fd
        writer.close()  # the watcher reads the end, and stops
        CALLER_LEFT.reset(token)


def _watch(reader: socket.socket, left: threading.Event, previous: int) -> None:
    """Set `left` once SIGINT's byte arrives; every byte goes on to the wakeup fd set before (an event loop's)."""
    with reader:
        while data := reader.recv(64):
            if signal.SIGINT in data:
                left.set()
            if previous >= 0:
                with contextlib.suppress(OSError):
                    os.write(previous, data)


def together(one: Callable[[int], T], n: int) -> list[T]:
    """`[one(i) for i in range(n)]`, concurrently, leaving together on Ctrl-C."""
    with leaving_together(), ThreadPoolExecutor(max_workers=min(n, 16)) as pool:
        context = copy_context()
        return list(pool.map(lambda i: context.copy().run(one, i), range(n)))


def guarded(step: Callable[[], T], left: Callable[[T], None], then: Callable[[T], R]) -> R:
    """`then(step())`, with Ctrl-C held during `step`; if Ctrl-C came meanwhile, `left(result)`, then it is raised.

    A `KeyboardInterrupt` out of `then`, which takes the run over, also gets `left(result)` (one cancel per run).
    """
    worker = threading.current_thread() is not threading.main_thread()
    if not worker and signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return then(step())  # the application's own handler (or SIGINT ignored): its choice
    pressed: list[int] = []
    caller = CALLER_LEFT.get()

    def hold(signum: int, frame: FrameType | None) -> None:
        if pressed:  # pressed twice: leave now, the run's id unknown
            raise KeyboardInterrupt
        pressed.append(signum)
        log(
            logger,
            logging.WARNING,
            "Ctrl-C: waiting for the answer naming the Perplexity run, to cancel it (Ctrl-C again: leave now)",
        )

    # Signal handlers run in the main thread only; a worker's caller may leave meanwhile (`leaving_together`).
    previous = None if worker else signal.signal(signal.SIGINT, hold)
    try:
        result = step()
    except BaseException as error:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        if pressed and not isinstance(error, KeyboardInterrupt):
            raise KeyboardInterrupt from error  # the step failed (no run to cancel); the caller still leaves
        raise
    try:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)  # within the `try`: a Ctrl-C from here on reaches `except`
        if pressed or (caller is not None and caller.is_set()):  # pressed while held (up to the line above), or left
            raise KeyboardInterrupt
        return then(result)
    except KeyboardInterrupt:
        left(result)
        raise


_RUN_ENDS = getattr(getattr(asyncio.runners, "_cancel_all_tasks", None), "__code__", None)
"""What `asyncio.run` (and `asyncio.Runner`) calls as it ends: cancel every task left, then wait for them."""


class _Guarded(asyncio.Task):
    """A task that `asyncio.run`'s end does not cancel, so it waits for it; other cancels are honoured."""

    def cancel(self, msg: Any = None) -> bool:
        if _RUN_ENDS is not None and sys._getframe(1).f_code is _RUN_ENDS:
            return False
        return super().cancel(msg)


async def aguarded(step: Callable[[], Awaitable[T]], left: Callable[[T], Coroutine[Any, Any, None]]) -> T:
    """Async twin of `guarded`: `step()` goes on when the caller is cancelled, and then `left(result)`."""
    gone = False

    async def run() -> T:
        result = await step()
        if gone:
            await left(result)
        return result

    task: asyncio.Task[T] = _Guarded(run(), loop=asyncio.get_running_loop())
    hold_open(task)
    task.add_done_callback(_retrieved)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        if not task.done():
            gone = True  # read by `run` once the step is done (one thread: no race with it)
        elif task.exception() is None:  # done in the same turn of the loop as the caller's cancel
            later = _Guarded(left(task.result()), loop=asyncio.get_running_loop())
            hold_open(later)
            later.add_done_callback(_retrieved)
        raise


def _retrieved(task: asyncio.Future[Any]) -> None:
    """Mark the guarded step's failure retrieved: the caller who awaited it raised it; one who left needs none."""
    if not task.cancelled():
        task.exception()
