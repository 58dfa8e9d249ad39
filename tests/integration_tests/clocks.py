"""Moving an emulator's `ManualClock` from the test, at moments the emulator marks."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from langchain_perplexity_strict.testing import ManualClock, PerplexityEmulator


@contextlib.contextmanager
def advance_once_waited(emu: PerplexityEmulator, seconds: float) -> Iterator[None]:
    """Move `emu`'s (manual) clock `seconds` ahead once a stream waits on it, from a thread: the run's events up to
    then go out (1 s into a 2.1 s run: its first text), and it goes on no further."""
    clock = emu.clock
    assert isinstance(clock, ManualClock)
    done = threading.Event()

    def advance() -> None:
        while not done.is_set():
            if clock.wait_waiting(1, timeout=0.05):
                clock.advance(seconds)
                return

    mover = threading.Thread(target=advance)
    mover.start()
    try:
        yield
    finally:
        done.set()  # nothing waited if the call failed first
        mover.join()
