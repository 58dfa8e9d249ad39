"""A local HTTP server that behaves like Perplexity, as strictly as public sources allow.

Standard library only. Start it in-process (`with PerplexityEmulator() as
emu: ...`) or from the command line (`python -m langchain_perplexity_strict
emulator --port N`). `emu.base_url` is the server root, as
`https://api.perplexity.ai` is for the real service.

Switches for what public sources leave unverified (docs/perplexity-rules.md lists
them) are constructor arguments with documented defaults:

- `sonar_retired` (default off): chat completions answer
  `403 chat_completions_not_available`, as the real service does since
  2026-09-27 (the reply wording unverified).
- `sonar_function_tools` (default off): chat completions refuse `tools`
  (the Sonar models have no client-side function tools; unverified).
- `conversation_rules`: `require_user_first` (unverified) and
  `allow_user_after_tool` (the mid-2025 error wording), both on.
- `openai_events` (default off): streams add OpenAI Responses events
  Perplexity does not send (`response.content_part.*`, ...), to show a
  client ignores what it does not know.
- `track_roles` (default on): a message sent again under another role in
  the same conversation is refused (unverified).

Long runs (docs/emulator.md): every Agent API response is a run on the
emulator's clock, kept for `GET /v1/responses/{id}` (add `stream=true&
starting_after=N` for its events after `sequence_number` N) and `POST
/v1/responses/{id}/cancel`.

- `run_duration` (default 0): seconds a background run or a stream takes
  from its first event to its last (slow reasoning and tool steps, fast
  text); a few seconds stand for a long research run.
- `queue_time` (default 0): seconds a background run stays `queued`.
- `resumable_streams` (default on): a plain (not background) stream can
  be streamed again by id; off, only background responses can (a 400).
- `unknown_output_items` (default off): answers carry one published
  `unknown` output item, as for an item newer than the schema.

Test machinery, not a rule: `clock` (default the machine's) is what runs
and batches keep time by. A `ManualClock` moves only when the test says
(`clock.advance(s)`), or with `autojump=True` to each moment a stream waits
for: a test sees a run queued, under way or cut by an idle drop at moments it
marks, without waiting out `run_duration` (`.clock`).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import threading
from collections.abc import Iterable, Iterator
from http.server import ThreadingHTTPServer
from typing import Any

from langchain_perplexity_strict.testing import (
    agent_api,
    chat_completions,
    decisions,
    embeddings,
    models,
    response_files,
    search,
)
from langchain_perplexity_strict.testing.batches import BatchRoutes
from langchain_perplexity_strict.testing.clock import ManualClock, RealClock
from langchain_perplexity_strict.testing.conversation import (
    ConversationRules,
    RoleMemory,
    check_conversation,
    turns_from_agent_input,
    turns_from_chat_messages,
)
from langchain_perplexity_strict.testing.dialect import DIALECTS, Dialect, live_id, live_response
from langchain_perplexity_strict.testing.errors import APIError, failure_message
from langchain_perplexity_strict.testing.handler import EMULATOR_HEADER, Reset
from langchain_perplexity_strict.testing.run_routes import RESPONSES_PREFIX, cancel_path
from langchain_perplexity_strict.testing.state import EmulatorState as _State
from langchain_perplexity_strict.testing.state import Fault, RecordedRequest

# Perplexity's error reference: 413 payload_too_large above 32 MiB (docs/perplexity-rules.md).
MAX_BODY_BYTES = 32 * 1024 * 1024
AGENT_PATHS = ("/v1/responses", "/v1/agent")
CHAT_PATHS = ("/chat/completions", "/v1/chat/completions", "/v1/sonar")
JSON_ROUTES = {
    **search.ROUTES,
    **embeddings.ROUTES,
    **decisions.ROUTES,
}  # one JSON answer per request, no conversation state
# How often the serving thread looks for a `stop()`: socketserver's default of 0.5 s made every stop
# (each test's own emulator) wait half a second; an idle check this often costs next to nothing.
SHUTDOWN_POLL = 0.05


class PerplexityEmulator:
    """A strict Perplexity stand-in on 127.0.0.1; see the module docstring."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        conversation_rules: ConversationRules | None = None,
        track_roles: bool = True,
        sonar_retired: bool = False,
        sonar_function_tools: bool = False,
        agent_models: Iterable[str] = agent_api.AGENT_MODELS,
        event_delay: float = 0.0,
        seed: int = 0,
        openai_events: bool = False,
        run_duration: float = 0.0,
        queue_time: float = 0.0,
        resumable_streams: bool = True,
        unknown_output_items: bool = False,
        dialect: Dialect = "live",
        clock: ManualClock | None = None,
    ) -> None:
        if dialect not in DIALECTS:
            msg = f"dialect: {dialect!r} is not accepted; expected one of {', '.join(DIALECTS)}"
            raise ValueError(msg)
        self._state = _State(
            api_key=api_key,
            rules=conversation_rules or ConversationRules(),
            track_roles=track_roles,
            sonar_retired=sonar_retired,
            sonar_function_tools=sonar_function_tools,
            agent_models=tuple(agent_models),
            event_delay=event_delay,
            openai_events=openai_events,
            rng=random.Random(seed),
            run_duration=run_duration,
            queue_time=queue_time,
            resumable_streams=resumable_streams,
            unknown_output_items=unknown_output_items,
            dialect=dialect,
            clock=clock or RealClock(),
        )
        self._host = host
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> PerplexityEmulator:
        """Bind and serve in a background thread. After `stop()`, it binds the port it had again (the
        state is kept), so a test can take the server away and bring it back at the same `base_url`."""
        handler = type("_BoundHandler", (_Handler,), {"state": self._state})
        server = _Server((self._host, self._port), handler)
        self._port = int(server.server_address[1])
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, args=(SHUTDOWN_POLL,), name="perplexity-emulator", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> PerplexityEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (the command line)."""
        handler = type("_BoundHandler", (_Handler,), {"state": self._state})
        self._server = _Server((self._host, self._port), handler)
        try:
            self._server.serve_forever()
        finally:
            self._server.server_close()

    @property
    def port(self) -> int:
        """The bound port."""
        if self._server is None:
            msg = "the emulator is not running; use it as a context manager or call start()"
            raise RuntimeError(msg)
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """The server root, like `https://api.perplexity.ai`."""
        return f"http://{self._host}:{self.port}"

    # -- test controls -----------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order."""
        with self._state.lock:
            return list(self._state.requests)

    def clear(self) -> None:
        """Forget recorded requests, scripted faults, remembered roles and stored responses; release held answers."""
        with self._state.lock:
            self._state.stored.clear()
            self._state.runs.clear()
            self._state.requests.clear()
            self._state.scripted.clear()
            self._state.roles = RoleMemory()
            self._state.disconnects = 0
        self.release()  # an answer still held from before goes on (to a client long gone)

    @property
    def clock(self) -> RealClock | ManualClock:
        """What runs and batches keep time by: the machine's clock, or the `ManualClock` given. Set it to give
        the runs started from then on another clock (those under way keep theirs)."""
        return self._state.clock

    @clock.setter
    def clock(self, value: ManualClock | None) -> None:
        self._state.clock = value or RealClock()

    @property
    def disconnects(self) -> int:
        """How many clients closed their connection before the answer was fully written."""
        with self._state.lock:
            return self._state.disconnects

    def inject(self, *faults: Fault) -> None:
        """Apply `faults` to the next answered requests, one each, in order."""
        with self._state.lock:
            self._state.scripted.extend(faults)

    @property
    def holding(self) -> int:
        """How many answers a `hold` or `hold_stream` fault keeps back now (each request read and recorded)."""
        with self._state.held:
            return self._state.holding

    def wait_holding(self, count: int = 1, timeout: float = 30.0) -> bool:
        """Block until `count` answers are held (True), or `timeout` seconds pass (False)."""
        with self._state.held:
            return self._state.held.wait_for(lambda: self._state.holding >= count, timeout=timeout)

    def release(self) -> None:
        """Let every answer held now (`hold`, `hold_stream`) go on."""
        with self._state.held:
            self._state.releases += 1
            self._state.held.notify_all()

    def set_fault_rates(self, rates: dict[Fault, float]) -> None:
        """Apply each fault to a request with the given probability (seeded)."""
        with self._state.lock:
            self._state.fault_rates = dict(rates)

    @property
    def sonar_retired(self) -> bool:
        """Whether chat completions answer 403 as the real service does."""
        return self._state.sonar_retired

    @sonar_retired.setter
    def sonar_retired(self, value: bool) -> None:
        self._state.sonar_retired = value


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True


class _Handler(BatchRoutes):
    """Routes requests to the Agent API, chat completions and the stored responses."""

    # -- routing -----------------------------------------------------------------

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if self._serve_batches("GET", path):  # the Batch API (.batches)
            return
        self._record("GET", path, None).query = query
        with self._answered():
            if path in models.PATHS:  # no auth needed (docs.perplexity.ai, "Models")
                listed = models.model_list(self.state.agent_models)
                # The serving process, so `perplexity-strict emulator --background` can reuse this one.
                self._send_json(200, listed, {EMULATOR_HEADER + "-pid": str(os.getpid())})
            elif response_files.parse(path):
                self._files(path)
            elif path.startswith(RESPONSES_PREFIX):
                self._retrieve(path, query)
            else:
                raise APIError(404, "not_found", f"no route for GET {path}")

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if self._serve_batches("POST", path):  # the Batch API (.batches): a multipart upload, read there
            return
        with self._answered():
            body = self._read_body(path)
            if path in AGENT_PATHS:
                self._agent(body, self._last_record)
            elif path in CHAT_PATHS:
                self._chat(body)
            elif cancel_path(path):
                self._cancel(path)
            elif path in JSON_ROUTES:
                answer = JSON_ROUTES[path](body)
                fault = self.state.next_fault()
                self._pre_answer_fault(fault)
                self._answer_json(answer, fault)  # malformed_json and reset act here as on chat answers
            else:
                raise APIError(404, "not_found", f"no route for POST {path}")

    @contextlib.contextmanager
    def _answered(self) -> Iterator[None]:
        """Around one route: a refusal is answered in Perplexity's error shape; a reset or a client gone is not."""
        try:
            yield
        except APIError as error:
            self._send_error(error)
        except Reset:
            pass
        except (BrokenPipeError, ConnectionResetError):
            self._client_left()

    def _client_left(self) -> None:
        """The client went away mid-answer (for example after a stop matched, or to resume)."""
        with self.state.lock:
            self.state.disconnects += 1
        self.close_connection = True

    def _read_body(self, path: str) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            remaining = length
            while remaining > 0:  # drain, so the client sees the answer, not a broken pipe
                remaining -= len(self.rfile.read(min(remaining, 1 << 20)) or b"x" * remaining)
            self._record("POST", path, None)
            self.close_connection = True
            raise APIError(
                413,
                "payload_too_large",
                f"request body of {length} bytes exceeds 32 MiB",
            )
        self._quickack()
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            self._record("POST", path, raw.decode("utf-8", "replace"))
            raise APIError(400, "invalid_request", "invalid request body: not JSON") from None
        self._last_record = self._record("POST", path, body)
        self._check_auth()
        return body

    # -- Agent API ---------------------------------------------------------------

    def _agent(self, body: Any, record: RecordedRequest) -> None:
        served = agent_api.validate_request(body, self.state.agent_models)
        conversation = self._conversation(body)
        record.conversation = conversation
        if isinstance(body["input"], list) or "previous_response_id" in body:
            # The rules apply to the whole conversation, a stored response's included.
            turns = turns_from_agent_input(conversation)
            check_conversation(turns, self.state.rules, agent_api.ERROR_TYPE)
            if self.state.track_roles:
                self.state.roles.check_and_remember(turns, agent_api.ERROR_TYPE, self._account())
        fault = self.state.next_fault()
        self._pre_answer_fault(fault)
        whole = {**body, "input": conversation}
        answer = agent_api.build_answer(whole, first_input=len(conversation) - len(self._input_items(body)))
        live = self.state.dialect == "live"
        response = agent_api.response_object(whole, served, answer, response_id=live_id("resp") if live else None)
        if fault is None or fault.kind not in ("failed", "incomplete"):
            stored = conversation + agent_api.output_as_input(response["output"])
            self.state.remember_response(response["id"], stored, self._account())
        if fault is not None and fault.kind in ("failed", "incomplete"):
            # ResponsesResponseOutput has no "incomplete" status: a run cut at the token
            # limit is served as failed, with the reason in the error's code.
            response["status"] = "failed"
            response["error"] = (
                {"code": "max_output_tokens", "type": "incomplete", "message": "the answer reached max_output_tokens"}
                if fault.kind == "incomplete"
                else {"code": fault.code, "type": fault.code, "message": failure_message(fault.code)}
            )
        if self.state.unknown_output_items:
            # An item type this schema version does not know, as the published `unknown` item carries it.
            at = next((i for i, o in enumerate(response["output"]) if o["type"] == "message"), len(response["output"]))
            note = {"note": "an output item newer than the published schema"}
            response["output"].insert(at, {"type": "unknown", "item_name": "emulated_future_item", "payload": note})
        if live:
            response = live_response(whole, response)
        self._serve_run(body, response, answer, fault)

    @staticmethod
    def _input_items(body: dict[str, Any]) -> list[dict[str, Any]]:
        return body["input"] if isinstance(body["input"], list) else [{"role": "user", "content": body["input"]}]

    def _conversation(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The conversation a request stands for: a stored response's (`previous_response_id`), then its input."""
        items = self._input_items(body)
        previous = body.get("previous_response_id")
        if previous is None:
            return list(items)
        stored = self.state.stored_conversation(previous, self._account())  # another key's is not found
        if stored is None:
            raise APIError(
                404,
                "not_found",
                f"previous_response_id {previous!r}: no stored response with this id",
                param="previous_response_id",
            )
        return stored + list(items)

    # -- chat completions ----------------------------------------------------------

    def _chat(self, body: Any) -> None:
        if self.state.sonar_retired:
            raise chat_completions.RETIRED
        chat_completions.validate_request(body, self.state.sonar_function_tools)
        turns = turns_from_chat_messages(body.get("messages"), chat_completions.ERROR_TYPE)
        check_conversation(turns, self.state.rules, chat_completions.ERROR_TYPE)
        if self.state.track_roles:
            self.state.roles.check_and_remember(turns, chat_completions.ERROR_TYPE, self._account())
        fault = self.state.next_fault()
        if fault is not None and fault.kind == "failed":
            fault = Fault("server_error", status=500)
        self._pre_answer_fault(fault)
        answer = chat_completions.build_answer(body)
        finish = "length" if fault is not None and fault.kind == "incomplete" else "stop"
        if not body.get("stream"):
            self._answer_json(chat_completions.completion(body, answer, finish_reason=finish), fault)
            return
        chunks = chat_completions.stream_chunks(body, answer, finish_reason=finish)
        events = [self._sse(c, fault) for c in chunks]
        events.append(b"data: [DONE]\n\n")
        self._stream(iter(events), fault)
