"""Streams whose bytes arrive in network reads a test chooses.

Chunks follow events, not reads (a reader's `feed`), so no chunking test needs a scripted split; the
chunking property (tests/unit_tests/test_stream_chunking.py) uses these to serve drawn splits and show it.
What still follows the reads is whether a run is over when the caller leaves: the
follower notes a terminal event as soon as a read brings it, and a run whose end has arrived is not cancelled.
The tests of cancelling a background run (long runs) script the reads so the terminal event has not arrived,
where a loaded machine may read a paced socket's last events at once.
"""

from __future__ import annotations

from typing import Any

from langchain_perplexity_strict import ChatPerplexityStrict
from tests import loopback
from tests.integration_tests.factory import KEY


class Reads:
    """A stream whose bytes arrive in the given network reads (sync and async)."""

    def __init__(self, reads: list[bytes]) -> None:
        self.response = self
        self.reads = reads

    def iter_bytes(self) -> Any:
        return iter(self.reads)

    async def aiter_bytes(self) -> Any:
        for read in self.reads:
            yield read

    def close(self) -> None:
        pass


class AsyncReads(Reads):
    async def close(self) -> None:  # type: ignore[override]
        pass


def recorded_reads(llm: ChatPerplexityStrict, question: str) -> dict[str, list[bytes]]:
    """The server's stream bytes for `question` (as `llm` would ask it): all in one read, and one event per read."""
    body = llm.request_body(question, stream=True)
    path = "/v1/responses" if llm.api == "agent" else "/chat/completions"
    raw = loopback.post(llm.base_url + path, json=body, headers={"Authorization": f"Bearer {KEY}"}).content
    events = [part + b"\n\n" for part in raw.split(b"\n\n") if part]
    assert len(events) > 5
    return {"one read": [raw], "one event per read": events}


def replay(llm: ChatPerplexityStrict, reads: list[bytes]) -> None:
    """Make every stream `llm` opens, sync or async, arrive in `reads`."""

    async def astream(*_: Any, **__: Any) -> AsyncReads:
        return AsyncReads(reads)

    llm.transport.stream = lambda *_, **__: Reads(reads)  # type: ignore[method-assign]
    llm.transport.astream = astream  # type: ignore[method-assign]
