"""The emulator's state: scripted and random faults, the request log, remembered roles."""

from __future__ import annotations

import random
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_perplexity_strict.testing.clock import Clock, RealClock
from langchain_perplexity_strict.testing.conversation import ConversationRules, RoleMemory
from langchain_perplexity_strict.testing.errors import BodyForm
from langchain_perplexity_strict.testing.runs import RunStore

FaultKind = Literal[
    "rate_limit",
    "server_error",
    "delay",
    "reset",
    "cut_stream",
    "failed",
    "incomplete",
    "malformed_json",
    "stall",
    "idle_drop",
    "drop",
    "hold",
    "hold_stream",
    "context_overflow",
    "error_body",
    "error_event",
]
HOLD_LIMIT = 60.0
"""Seconds a `hold` waits for `release()` when its `seconds` is 0 (a test that forgot to release ends)."""


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour, applied to one request.

    `rate_limit`: 429 with `Retry-After: seconds` and `X-RateLimit-*`.
    `server_error`: `status` (500, 502 or 503). `delay`: wait
    `seconds` before answering. `reset`: close the connection with a TCP
    reset after `after_events` stream events (or mid-body). `cut_stream`:
    end the stream cleanly after `after_events` events, before the terminal
    one. `failed` / `incomplete`: HTTP 200 with status `failed` (Agent
    API; the published statuses have no `incomplete`, so a cut answer is a
    failure with error code `max_output_tokens`; on chat completions
    `incomplete` is `finish_reason: length` and
    `failed` a 500). `malformed_json`: a body (or event) that is not JSON.
    `stall`: after `after_events` stream events, send no bytes for `seconds`
    (the run goes on meanwhile), then the rest. `idle_drop`: close the
    stream cleanly once it has been silent for `seconds`, as a proxy with an
    idle timeout does; `set_fault_rates({Fault("idle_drop", seconds=s): 1.0})`
    puts every connection behind such a proxy. `drop`: close the connection
    with a TCP reset once the request is read, before any byte of the answer
    (no status line: the client cannot tell whether the request was acted on).
    `hold`: once the request is read (and recorded), answer nothing until
    `PerplexityEmulator.release()` is called (or `seconds` pass, when not 0;
    `HOLD_LIMIT` otherwise): a test acts while an answer is on its way, at a
    moment the server marks, not a moment a clock guesses. A held create has
    started no run yet; it starts once released. `hold_stream`: the same,
    on a stream, after `after_events` events (its head sent).
    `context_overflow`: Sonar's recorded 400 `too_many_prompt_tokens`, on either surface.
    `error_body`: HTTP `status` with a body in `form` (`errors.error_body`: `json`, `typed` (type `code`),
    `detail`, `html`, `text`, `empty`). `error_event`: on an Agent API stream, an `error` event with `code` after
    `after_events` events, then the end. `code` is also a `failed` run's error code.
    """

    kind: FaultKind
    status: int = 500
    seconds: float = 0.0
    after_events: int = 3
    code: str = "server_error"
    form: BodyForm = "json"


@dataclass
class RecordedRequest:
    """A request the emulator received, for assertions."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    conversation: list[dict[str, Any]] | None = None
    """Agent API: the whole conversation the request stands for (a stored response's, then its input)."""
    query: str = ""
    """The query string (`stream=true&starting_after=N` on a resumed stream)."""

    @property
    def kind(self) -> str:
        """`create`, `retrieve`, `resume` (a retrieve with `stream=true`), `cancel`, `chat` or `other`."""
        if self.method == "POST" and self.path in ("/v1/responses", "/v1/agent"):
            return "create"
        if self.method == "POST" and self.path.startswith("/v1/responses/") and self.path.endswith("/cancel"):
            return "cancel"
        if self.method == "GET" and self.path.startswith("/v1/responses/"):
            return "resume" if "stream=true" in self.query.lower() else "retrieve"
        if self.method == "POST" and self.path in ("/chat/completions", "/v1/chat/completions", "/v1/sonar"):
            return "chat"
        return "other"


@dataclass
class EmulatorState:
    """What the server threads share (guarded by `lock`)."""

    api_key: str | None
    rules: ConversationRules
    track_roles: bool
    sonar_retired: bool
    sonar_function_tools: bool
    agent_models: tuple[str, ...]
    event_delay: float
    openai_events: bool = False
    run_duration: float = 0.0
    queue_time: float = 0.0
    resumable_streams: bool = True
    unknown_output_items: bool = False
    dialect: str = "live"
    """`live`: what the live API sends (`.dialect`); `schema`: the bare published shapes."""
    clock: Clock = field(default_factory=RealClock)
    """What runs and batches keep time by (`.clock`)."""
    runs: RunStore = field(default_factory=RunStore)
    roles: RoleMemory = field(default_factory=RoleMemory)
    requests: list[RecordedRequest] = field(default_factory=list)
    scripted: deque[Fault] = field(default_factory=deque)
    disconnects: int = 0
    holding: int = 0
    """Answers held (`hold`, `hold_stream`) until `release()`."""
    releases: int = 0
    held: threading.Condition = field(default_factory=threading.Condition)
    fault_rates: dict[Fault, float] = field(default_factory=dict)
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    lock: threading.Lock = field(default_factory=threading.Lock)
    stored: OrderedDict[str, tuple[str, list[dict[str, Any]]]] = field(default_factory=OrderedDict)
    """Completed responses, each with the API key that made it and the conversation a continuation of it
    would start from (oldest first). Another key does not find it."""
    stored_limit: int = 10_000

    def remember_response(self, response_id: str, conversation: list[dict[str, Any]], account: str = "") -> None:
        with self.lock:
            self.stored[response_id] = (account, conversation)
            while len(self.stored) > self.stored_limit:
                self.stored.popitem(last=False)

    def stored_conversation(self, response_id: str, account: str = "") -> list[dict[str, Any]] | None:
        with self.lock:
            owner, conversation = self.stored.get(response_id, (None, None))
            return conversation if owner == account else None

    def hold(self, fault: Fault) -> None:
        """Wait, answering nothing, until the next `release()` (or the fault's bound)."""
        limit = fault.seconds or HOLD_LIMIT
        with self.held:
            ticket = self.releases
            self.holding += 1
            self.held.notify_all()
            try:
                self.held.wait_for(lambda: self.releases != ticket, timeout=limit)
            finally:
                self.holding -= 1

    def next_fault(self) -> Fault | None:
        with self.lock:
            if self.scripted:
                return self.scripted.popleft()
            for fault, rate in self.fault_rates.items():
                if self.rng.random() < rate:
                    return fault
        return None
