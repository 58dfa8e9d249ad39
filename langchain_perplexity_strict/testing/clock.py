"""The clock the emulator's runs keep time by: the machine's, or one a test moves (`ManualClock`).

A run's events are due at offsets from its start (`.runs`), a batch's statuses too (`.batches`); a stream
waits for each event, and an idle-dropping proxy (`Fault("idle_drop")`) for its silence, on this clock. By
default that is `time.monotonic`: a run of `run_duration` seconds takes that long. A test that wants what a
run does on the way, not how long it takes, gives the emulator a `ManualClock` instead: the run then moves
only when the test says (`advance`), with each request the emulator receives (`per_request`: a polled run
moves on poll by poll), or, with `autojump=True`, each wait ends at once at the moment it waited for, so a
stream goes through its silences, and the idle drops they cause, in no time and in the order the schedule
gives, whatever the machine's speed. What a test sees then follows from the requests it sends.

This is test machinery, not a rule of Perplexity's. Network faults (`stall`, `delay`, `hold`) and
`event_delay` stay in real seconds: they are about what a client's own timeouts see.
"""

from __future__ import annotations

import threading
import time

REAL_WAIT = 1.0
"""Real seconds a wait on a `ManualClock` sleeps before it looks again (a test that forgot to advance ends)."""


class RealClock:
    """`time.monotonic`: each run keeps its own condition, and waits until its moment comes."""

    def now(self) -> float:
        return time.monotonic()

    def condition(self) -> threading.Condition:
        return threading.Condition()

    def requested(self) -> None:
        """A request came in: the machine's clock takes no notice."""

    def wait(self, condition: threading.Condition, until: float) -> None:
        """Wait (`condition` held) until `until`, or until `condition` is notified."""
        condition.wait(max(0.0, until - time.monotonic()))


class ManualClock:
    """A clock that moves only when told: `advance(seconds)`, `per_request` seconds with each request the
    emulator receives (before it is answered), and (`autojump=True`) to each moment a stream waits for.

    Give it to `PerplexityEmulator(clock=...)` (or set `emu.clock`: runs started after keep time by the new
    one, those before by theirs). Its time starts at 0. Every run of that emulator shares one condition with
    the clock, so a move wakes every stream waiting on it. `waiting` counts the threads waiting on it now (a
    stream between two events, an idle drop's silence) and `wait_waiting(n)` blocks until there are `n`: a
    test moves the clock at a moment the emulator marks, not one a timer guesses.
    """

    def __init__(self, *, autojump: bool = False, per_request: float = 0.0) -> None:
        if per_request < 0:
            msg = f"per_request: {per_request!r} is negative; a clock only moves ahead"
            raise ValueError(msg)
        self.autojump = autojump
        self.per_request = per_request
        self._now = 0.0
        self._waiting = 0
        self._condition = threading.Condition()

    def now(self) -> float:
        with self._condition:
            return self._now

    def condition(self) -> threading.Condition:
        return self._condition

    def advance(self, seconds: float) -> None:
        """Move the clock `seconds` ahead, waking every wait on it."""
        if seconds < 0:
            msg = f"seconds: {seconds!r} is negative; a clock only moves ahead"
            raise ValueError(msg)
        with self._condition:
            self._now += seconds
            self._condition.notify_all()

    def requested(self) -> None:
        """A request came in: move `per_request` seconds ahead."""
        if self.per_request:
            self.advance(self.per_request)

    @property
    def waiting(self) -> int:
        """How many threads wait on the clock now."""
        with self._condition:
            return self._waiting

    def wait_waiting(self, count: int = 1, timeout: float = 30.0) -> bool:
        """Block until `count` threads wait on the clock (True), or `timeout` real seconds pass (False)."""
        with self._condition:
            return self._condition.wait_for(lambda: self._waiting >= count, timeout=timeout)

    def wait(self, condition: threading.Condition, until: float) -> None:
        """Wait (`condition` held: the clock's own) until the clock reaches `until`, or a notify (an advance, a
        cancel). With `autojump`, the clock moves to `until` at once (never back)."""
        if self.autojump:
            if until > self._now:
                self._now = until
            condition.notify_all()
            return
        self._waiting += 1
        condition.notify_all()  # a `wait_waiting` may be waiting for this one
        try:
            condition.wait(REAL_WAIT)
        finally:
            self._waiting -= 1


Clock = RealClock | ManualClock
