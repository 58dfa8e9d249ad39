"""A loopback server that answers every request with a body the test chose, and records what was sent.

The emulator answers from its own model of Perplexity; the properties over
generated responses need the opposite: any valid response, replayed as it
is, to see what the package's readers make of it. Invoke gets the response
as JSON; a stream gets the test's events as server-sent events (with
`data: [DONE]` after chat-completion chunks, as Sonar ends its streams).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Replay:
    """What the server answers next: `response` (invoke) and `events` (stream), and the bodies received."""

    def __init__(self) -> None:
        self.response: Any = {}
        self.events: list[dict[str, Any]] = []
        self.done_marker = False
        self.split_reads = False
        """In-process: each event is its own network read (as a slow server delivers them), not one read."""
        self.bodies: list[dict[str, Any]] = []
        self.base_url = ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    replay: Replay

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.replay.bodies.append(body)
        if body.get("stream"):
            chunks = [b"data: " + json.dumps(e).encode() + b"\n\n" for e in self.replay.events]
            if self.replay.done_marker:
                chunks.append(b"data: [DONE]\n\n")
            payload = b"".join(chunks)
            content_type = "text/event-stream"
        else:
            payload = json.dumps(self.replay.response).encode()
            content_type = "application/json"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextmanager
def replay_server() -> Iterator[Replay]:
    """A running replay server on 127.0.0.1; `replay.base_url` is its root."""
    replay = Replay()
    handler = type("_Bound", (_Handler,), {"replay": replay})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    replay.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield replay
    finally:
        server.shutdown()
        server.server_close()


class _Bytes:
    """What the package reads of an HTTP response while streaming: its bytes, one read per piece."""

    def __init__(self, pieces: list[bytes]) -> None:
        self._pieces = pieces

    def iter_bytes(self) -> Iterator[bytes]:
        yield from self._pieces


class _Stream:
    def __init__(self, pieces: list[bytes]) -> None:
        self.response = _Bytes(pieces)

    def close(self) -> None:
        return None


class ReplayTransport:
    """The replay in-process: the model's transport answers from `replay` without a socket.

    For properties that run thousands of examples: the loopback round trip, not the
    package, would be most of their time. The bytes a stream yields are the same
    server-sent events `replay_server` writes.
    """

    def __init__(self, real: Any, replay: Replay) -> None:
        self.key = real.key
        self.chat_openai = real.chat_openai  # its client settings (timeouts) are read, never its connection
        self.hints = real.hints  # what the followed stream adds to an error message
        self.replay = replay

    def send(self, path: str, body: bytes, fallback: Any = None, **options: Any) -> tuple[Any, bool]:
        self.replay.bodies.append(json.loads(body))
        return json.loads(json.dumps(self.replay.response)), False

    def open_stream(self, path: str, body: bytes, fallback: Any = None, **options: Any) -> tuple[Any, bool]:
        self.replay.bodies.append(json.loads(body))
        chunks = [b"data: " + json.dumps(e).encode() + b"\n\n" for e in self.replay.events]
        if self.replay.done_marker:
            chunks.append(b"data: [DONE]\n\n")
        return _Stream(chunks if self.replay.split_reads else [b"".join(chunks)]), False


def in_process(model: Any, replay: Replay) -> Any:
    """`model` answering from `replay` in-process (see `ReplayTransport`)."""
    model._transport = ReplayTransport(model.transport, replay)
    return model
