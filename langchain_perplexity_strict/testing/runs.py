"""Responses as runs on the emulator's clock: background mode, retrieval, resumable streams, cancellation.

A run is one response and the events that stream it, each due at an offset
after the run starts: reasoning and tool steps are slow, text is fast, so a
research run has long silent stretches (what an idle-dropping proxy cuts).
`run_duration` stretches the whole schedule (time-compressed research: a
second can stand for minutes). Nothing runs in the background: a run's state
is computed from the clock when asked, so an abandoned run costs nothing. The
clock is the machine's unless a test gave the emulator a `ManualClock`
(`.clock`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_perplexity_strict.testing.clock import Clock, RealClock

FINAL = ("completed", "failed", "cancelled", "requires_action")
# How long each kind of event takes to arrive, relative to the others (chosen here).
_WEIGHTS = {
    "response.reasoning.started": 1.0,
    "response.reasoning.search_queries": 1.0,
    "response.reasoning.search_results": 2.0,
    "response.reasoning.fetch_url_queries": 1.0,
    "response.reasoning.fetch_url_results": 2.0,
    "response.reasoning.image_search_queries": 1.0,
    "response.reasoning.image_search_results": 2.0,
    "response.skill.loaded": 0.5,
    "response.output_item.added": 1.0,
    "response.output_text.delta": 0.05,
}


def schedule(events: list[dict[str, Any]], duration: float) -> list[float]:
    """When each event is due, in seconds after the run starts; the last at `duration`."""
    weights = [_WEIGHTS.get(e["type"], 0.0) for e in events]
    total = sum(weights) or 1.0
    offsets, elapsed = [], 0.0
    for weight in weights:
        elapsed += weight
        offsets.append(duration * elapsed / total)
    return offsets


@dataclass
class Run:
    """One response on the clock. `events` hold increasing `sequence_number`s: 1..n in the published schema's
    dialect, from 0 with gaps in the live one (`.dialect`)."""

    response: dict[str, Any]
    make_events: Callable[[], list[dict[str, Any]]]
    duration: float
    queued_for: float = 0.0
    background: bool = False
    account: str = ""
    """The API key that created it: only that key retrieves, resumes or cancels it."""
    clock: Clock = field(default_factory=RealClock)
    started: float = field(init=False)
    """When it started: `clock`'s time when it was made."""
    cancelled_at: float | None = None
    _events: list[dict[str, Any]] | None = None
    _offsets: list[float] = field(default_factory=list)
    changed: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.changed = self.clock.condition()  # a `ManualClock`'s own: its moves wake the run's waits
        self.started = self.clock.now()

    @property
    def id(self) -> str:
        return str(self.response["id"])

    def events(self) -> list[dict[str, Any]]:
        """Every event of the run (computed on first use; fixed once the run is cancelled)."""
        with self.changed:
            if self._events is None:
                self._events = self.make_events()
                self._offsets = [self.queued_for + o for o in schedule(self._events, self.duration)]
                if self.queued_for and self._offsets:
                    # `response.created` (status `queued`) goes out when the run is accepted, as a
                    # non-streamed background create answers at once; the run's work waits for the queue.
                    self._offsets[0] = 0.0
            return self._events

    def index_after(self, after: int | None) -> int:
        """The index of the first event numbered above `after` (`starting_after`; None: the first event)."""
        events = self.events()
        if after is None:
            return 0
        return next((i for i, e in enumerate(events) if e["sequence_number"] > after), len(events))

    def last_number(self) -> int:
        """The `sequence_number` of the run's last event."""
        return int(self.events()[-1]["sequence_number"])

    def due(self, now: float | None = None) -> int:
        """How many events have happened by `now`."""
        events = self.events()
        elapsed = (self.clock.now() if now is None else now) - self.started
        with self.changed:
            return sum(1 for offset in self._offsets if offset <= elapsed) if events else 0

    def due_at(self, index: int) -> float:
        """The time on `clock` event `index` happens."""
        self.events()
        with self.changed:
            return self.started + self._offsets[index]

    def status(self, now: float | None = None) -> str:
        now = self.clock.now() if now is None else now
        if self.cancelled_at is not None:
            return "cancelled"
        if self.background and now - self.started < self.queued_for:
            return "queued"
        if self.due(now) < len(self.events()):
            return "in_progress"
        return str(self.response["status"])

    def snapshot(self) -> dict[str, Any]:
        """`ResponsesResponseOutput` as of now: the items finished so far, no usage until the end."""
        now = self.clock.now()
        status = self.status(now)
        if status == self.response["status"]:
            return self.response
        if status == "cancelled":
            return dict(self.events()[-1]["response"])
        done = [e["item"] for e in self.events()[: self.due(now)] if e["type"] == "response.output_item.done"]
        shell = {**self.response, "status": status, "output": done, "usage": None}
        shell.pop("error", None)
        return shell

    def cancel(self) -> None:
        """Stop the run now: its stream ends with `response.completed` carrying status `cancelled`."""
        now = self.clock.now()
        if self.status(now) in FINAL:
            return
        events = self.events()
        with self.changed:
            kept = events[: self.due(now)]
            done = [e["item"] for e in kept if e["type"] == "response.output_item.done"]
            final = {**self.response, "status": "cancelled", "output": done, "usage": None}
            final.pop("error", None)
            number = kept[-1]["sequence_number"] + 1 if kept else events[0]["sequence_number"]
            terminal = {"type": "response.completed", "sequence_number": number, "response": final}
            self._events = [*kept, terminal]
            self._offsets = [*self._offsets[: len(kept)], now - self.started]
            self.cancelled_at = now
            self.changed.notify_all()

    def wait_until(self, index: int, deadline: float) -> bool:
        """Block until event `index` has happened (True) or `deadline` passes (False), both on `clock`; a cancel
        wakes it."""
        with self.changed:
            while True:
                events = self.events()
                now = self.clock.now()
                if index < len(events) and self.started + self._offsets[index] <= now:
                    return True
                if index >= len(events) or now >= deadline:
                    return False
                self.clock.wait(self.changed, min(deadline, self.started + self._offsets[index]))


class RunStore:
    """The runs the emulator can still be asked about, oldest forgotten first."""

    def __init__(self, limit: int = 10_000) -> None:
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def add(self, run: Run) -> None:
        with self._lock:
            self._runs[run.id] = run
            while len(self._runs) > self._limit:
                self._runs.popitem(last=False)

    def get(self, response_id: str) -> Run | None:
        with self._lock:
            return self._runs.get(response_id)

    def clear(self) -> None:
        with self._lock:
            self._runs.clear()
