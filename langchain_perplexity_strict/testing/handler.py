"""The emulator's HTTP plumbing: JSON answers, errors, server-sent event streams, and the faults they suffer.

A stream is written either from a ready list of events (chat completions) or
from a run on the emulator's clock (the Agent API, `.runs`), which it follows
event by event, waiting for each to happen. The `Fault`s that act on a
stream: `reset` (a TCP reset) and `cut_stream` (a clean close) after
`after_events` events; `hold_stream` (nothing more after `after_events` events until the test releases it,
`PerplexityEmulator.release`); `stall` (no bytes for `seconds` after `after_events`
events, then the rest); `idle_drop` (closed cleanly, as an idle-timeout
proxy does, once the connection has been silent for `seconds`). A stream's
head goes out in one write with its first event when that event is ready,
else alone, before the stream goes quiet.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

from langchain_perplexity_strict.testing.errors import APIError, context_overflow, error_body, failure_message
from langchain_perplexity_strict.testing.runs import Run
from langchain_perplexity_strict.testing.state import EmulatorState, Fault, RecordedRequest

EMULATOR_HEADER = "x-perplexity-emulator"
"""A header on every response: this server is the emulator, not Perplexity."""


class Reset(Exception):
    """The connection was reset on purpose (a fault)."""


class BaseHandler(BaseHTTPRequestHandler):
    """HTTP plumbing shared by every route: JSON answers, errors, streams and the faults they suffer."""

    protocol_version = "HTTP/1.1"
    state: EmulatorState
    server_version = "PerplexityEmulator/1"
    _headers_buffer: list[bytes]
    """http.server's buffer of the response head, which its `flush_headers()` writes and empties."""

    def setup(self) -> None:
        super().setup()
        # Clients and this server both write headers and body separately; with
        # Nagle's algorithm on one side and delayed ACKs on the other, each
        # request would stall about 40 ms. NODELAY for our writes, QUICKACK
        # (Linux, re-armed before each read) for theirs.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._quickack()

    def _quickack(self) -> None:
        if hasattr(socket, "TCP_QUICKACK"):
            with contextlib.suppress(OSError):
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)

    def handle_one_request(self) -> None:
        self._quickack()
        super().handle_one_request()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read the request log instead."""

    def send_response(self, code: int, message: str | None = None) -> None:
        """Every response says it comes from the emulator, so clients never mistake it for Perplexity."""
        super().send_response(code, message)
        self.send_header(EMULATOR_HEADER, "1")

    # -- plumbing ----------------------------------------------------------------

    def _record(self, method: str, path: str, body: Any) -> RecordedRequest:
        """Records the request (`emu.requests`); a `ManualClock(per_request=s)` moves on with it."""
        record = RecordedRequest(method, path, dict(self.headers.items()), body)
        with self.state.lock:
            self.state.requests.append(record)
        self.state.clock.requested()
        return record

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_error(self, error: APIError) -> None:
        # A client that stopped waiting (a cancel sent on the way out) is gone: nobody to tell, nothing to log.
        body, content_type = error.body()
        with contextlib.suppress(ConnectionError):
            self.send_response(error.status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in error.headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

    def _reset(self) -> None:
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True
        raise Reset

    def _start_stream(self) -> None:
        """Begin a stream. Its head is held, to go out in one write with the first event when that event
        is ready (`_send_event`), or alone (`flush_headers`) just before the stream goes quiet, breaks or
        ends: a client never waits between a head and an event the server already had."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self._headers_buffer.append(b"\r\n")  # what end_headers() adds, without its flush
        self.close_connection = True

    def _send_event(self, data: bytes) -> None:
        """Write one event, with the stream's head if it is still held."""
        self._headers_buffer.append(data)
        self.flush_headers()
        self.wfile.flush()

    def _stream(self, events: Iterator[bytes], fault: Fault | None) -> None:
        self._start_stream()
        for n, data in enumerate(events):
            if fault is not None and n == fault.after_events:
                self.flush_headers()  # a reset, cut or stall follows: the head goes out first
                if fault.kind == "reset":
                    self._reset()
                if fault.kind == "cut_stream":
                    break
                if fault.kind == "stall":
                    time.sleep(fault.seconds)
            self._send_event(data)
            if self.state.event_delay:
                time.sleep(self.state.event_delay)
        self.flush_headers()  # a stream cut before its first event still has its head

    def _stream_run(self, run: Run, first: int, fault: Fault | None) -> None:
        """Stream `run`'s events from index `first` on, as they happen on the run's clock."""
        self._start_stream()
        sent = 0
        index = first
        stalled = False
        while True:
            if fault is not None and sent == fault.after_events:
                self.flush_headers()  # a reset, cut or stall follows: the head goes out first
                if fault.kind == "reset":
                    self._reset()
                if fault.kind == "cut_stream":
                    return
                if fault.kind == "error_event":  # numbered after the last event sent, so it is new
                    number = run.events()[index - 1].get("sequence_number", index - 1) + 1 if index else 0
                    self._send_event(self._sse(error_event(fault.code, number), None))
                    return
                if fault.kind == "hold_stream":
                    self.state.hold(fault)
                if fault.kind == "stall" and not stalled:
                    stalled = True
                    time.sleep(fault.seconds)  # no bytes; the run goes on meanwhile
            if not run.wait_until(index, deadline=0.0):  # not happened yet (or the run was all sent)
                self.flush_headers()  # the stream goes quiet or ends: the head goes out alone
                idle_limit = fault.seconds if fault is not None and fault.kind == "idle_drop" else None
                # The silence an idle drop waits out is the run's, on its clock (`.clock`).
                deadline = run.clock.now() + (idle_limit if idle_limit is not None else 3600.0)
                if not run.wait_until(index, deadline):
                    if index >= len(run.events()):
                        return  # the whole run was sent
                    if idle_limit is not None:
                        return  # an idle-timeout proxy closes the connection
                    continue
            self._send_event(self._sse(run.events()[index], fault))
            sent += 1
            index += 1
            if self.state.event_delay:
                time.sleep(self.state.event_delay)

    def _pre_answer_fault(self, fault: Fault | None) -> None:
        if fault is None:
            return
        if fault.kind == "rate_limit":
            reset = str(max(1, int(fault.seconds)))
            raise APIError(
                429,
                "request_rate_limit_exceeded",
                "Rate limit exceeded",
                headers={
                    "Retry-After": str(fault.seconds),
                    "X-RateLimit-Limit": "50",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": reset,
                },
            )
        if fault.kind == "server_error":
            kind = {
                500: "internal_error",
                502: "bad_gateway",
                503: "service_unavailable",
            }.get(fault.status, "internal_error")
            raise APIError(fault.status, kind, f"emulated {fault.status}")
        if fault.kind == "context_overflow":
            raise context_overflow()
        if fault.kind == "error_body":
            raise error_body(fault.status, fault.form, fault.code)
        if fault.kind == "delay":
            time.sleep(fault.seconds)
        if fault.kind == "hold":
            self.state.hold(fault)
        if fault.kind == "drop":
            self._reset()

    def _answer_json(self, payload: dict[str, Any], fault: Fault | None) -> None:
        if fault is not None and fault.kind == "malformed_json":
            self._send_json(200, b'{"id": "resp_broken", "output": [')
            return
        if fault is not None and fault.kind == "reset":
            body = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self._reset()
        self._send_json(200, payload)

    @staticmethod
    def _sse(event: dict[str, Any], fault: Fault | None) -> bytes:
        if fault is not None and fault.kind == "malformed_json":
            return b"data: {not json\n\n"
        return b"data: " + json.dumps(event).encode() + b"\n\n"


def error_event(code: str, sequence_number: int) -> dict[str, Any]:
    """A stream's `error` event, in the shape of OpenAI Responses' `ResponseErrorEvent` (`code`, `message`,
    `param`), which the Agent API follows; the live Agent API's own is unrecorded (docs/perplexity-rules.md)."""
    return {
        "type": "error",
        "code": code,
        "message": failure_message(code),
        "param": None,
        "sequence_number": sequence_number,
    }
