"""Server-sent events, decoded as each network read completes them.

Not openai's `SSEDecoder`: it drops a last event that arrives without its blank line, and on the Agent API (no
`[DONE]`) that terminal event is the only sign the answer is whole (`test_sse.py` shows the two side by side).
The common case (one `data:` line per event, `\\n` line ends) skips the line-by-line parsing: this runs for
every event of every stream.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_perplexity_strict.errors import PerplexityResponseError, reported_error

_BOUNDARY = re.compile(rb"\r\n\r\n|\n\n|\r\r")
_raw_decode = json.JSONDecoder().raw_decode  # json.loads minus its whitespace and type handling


class SSEBatcher:
    """Turns the bytes of a stream into batches of JSON events."""

    def __init__(self) -> None:
        self._buffer = b""
        self.done = False

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """The complete events in what has arrived so far (the rest is kept for the next read)."""
        if self.done:
            return []
        buffer = self._buffer + data if self._buffer else data
        if b"\r" in buffer:
            *complete, self._buffer = _BOUNDARY.split(buffer)
        else:
            *complete, self._buffer = buffer.split(b"\n\n")
        events = []
        for block in complete:
            if block.startswith(b"data: ") and b"\n" not in block:
                data = block[6:]  # the common case: one data line
            else:
                data = b"\n".join(
                    line[5:].removeprefix(b" ") for line in block.splitlines() if line.startswith(b"data:")
                )
            if not data:
                continue  # comments, `event:` or `id:` lines only
            if data.startswith(b"[DONE]"):
                self.done = True
                break
            try:  # the common case: one JSON value in UTF-8, no whitespace around it
                text = data.decode()
                event, end = _raw_decode(text)
            except ValueError:
                text, end = "", -1
            if end != len(text):
                event = _decode(data)
            # An OpenAI-style error event ({"error": {...}} with no type) ends the stream; the Agent
            # API's response.failed carries an error too, and its reader raises with the details.
            if isinstance(event, dict) and isinstance(event.get("error"), dict) and "type" not in event:
                message = event["error"].get("message") or "an error occurred during streaming"
                msg = f"Perplexity stream error: {message}"
                raise reported_error(msg, event["error"])
            events.append(event)
        return events

    def close(self) -> list[dict[str, Any]]:
        """At the end of the stream: an event that ended without its blank line, if any."""
        rest, self._buffer = self._buffer, b""
        return self.feed(rest + b"\n\n") if rest.strip() else []


def _decode(data: bytes) -> Any:
    try:  # whitespace around the value, or not JSON: json.loads accepts the one and explains the other
        return json.loads(data)
    except ValueError as error:
        msg = f"Perplexity sent a stream event that is not valid JSON ({error}): {data[:200]!r}"
        raise PerplexityResponseError(msg) from error
