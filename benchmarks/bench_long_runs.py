"""A long research run streamed through a proxy that drops idle connections.

Goals (issue 21): the run completes with text identical to the uninterrupted
run, 0 duplicated characters, exactly 1 create request, at least 3 drops, and
at most 2 extra requests per drop. The run is time-compressed: the emulator's
research run takes `RUN_SECONDS` instead of minutes, its silent research
steps last a few tenths of a second, and the proxy drops a connection after
`IDLE_SECONDS` without bytes (a load balancer's 60 seconds, compressed alike).
The proxy is a loopback TCP relay here, so the client sees real connection
closes; the uninterrupted baseline is the same run streamed directly, in the
same process and the same minute.
"""

from __future__ import annotations

import asyncio
import selectors
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from benchmarks.common import verdict
from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.errors import PerplexityStreamError
from langchain_perplexity_strict.testing import PerplexityEmulator

RUN_SECONDS = 4.0
IDLE_SECONDS = 0.3
QUESTION = "Why is the sky blue? See https://example.com/sky"


class IdleDroppingProxy:
    """A TCP relay on loopback that closes a connection once no byte has crossed it for `idle` seconds."""

    def __init__(self, upstream: tuple[str, int], idle: float) -> None:
        self.upstream = upstream
        self.idle = idle
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.mid_stream_drops = 0
        """Connections closed for idleness while an event stream was under way on them."""
        self.idle_drops = 0
        """All connections closed for idleness (a pooled keep-alive connection counts too)."""
        self.lock = threading.Lock()
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def close(self) -> None:
        self.running = False
        self.listener.close()

    def _accept(self) -> None:
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        server = socket.create_connection(self.upstream)
        streaming = False
        with selectors.DefaultSelector() as selector, client, server:
            selector.register(client, selectors.EVENT_READ, server)
            selector.register(server, selectors.EVENT_READ, client)
            while True:
                ready = selector.select(timeout=self.idle)
                if not ready:  # idle too long: drop both sides, as an idle-timeout proxy does
                    with self.lock:
                        self.idle_drops += 1
                        self.mid_stream_drops += streaming
                    return
                for key, _ in ready:
                    source: socket.socket = key.fileobj  # type: ignore[assignment]
                    try:
                        data = source.recv(65536)
                    except OSError:
                        return
                    if not data:
                        return
                    if source is server and b"text/event-stream" in data:
                        streaming = True
                    key.data.sendall(data)


@contextmanager
def proxied(emu: PerplexityEmulator) -> Iterator[IdleDroppingProxy]:
    proxy = IdleDroppingProxy(("127.0.0.1", emu.port), IDLE_SECONDS)
    try:
        yield proxy
    finally:
        proxy.close()


def stream(base_url: str, mode: str, **settings: Any) -> tuple[list[str], dict[str, Any], float]:
    """One streamed research run: each chunk's text, the final metadata, and the wall time."""
    llm = ChatPerplexityStrict(api_key="k", base_url=base_url, background=True, **settings)  # type: ignore[arg-type]
    started = time.perf_counter()
    if mode == "stream":
        chunks = list(llm.stream(QUESTION))
    else:

        async def gather() -> list[Any]:
            return [c async for c in llm.astream(QUESTION)]

        chunks = asyncio.run(gather())
    return [c.text for c in chunks], chunks[-1].response_metadata, time.perf_counter() - started


def without_resuming(emu: PerplexityEmulator, mode: str) -> str:
    """What the caller gets through the same proxy when nothing is resumed (`max_resumes=0`)."""
    emu.clear()
    received: list[str] = []
    with proxied(emu) as proxy:
        llm = ChatPerplexityStrict(api_key="k", base_url=proxy.base_url, background=True, max_resumes=0)  # type: ignore[arg-type]
        try:
            for chunk in llm.stream(QUESTION):
                received.append(chunk.text)
        except PerplexityStreamError as error:
            return f"{type(error).__name__} at the first drop, {len(''.join(received))} characters received"
    return f"completed with {len(''.join(received))} characters (no drop happened)"


def run() -> dict[str, Any]:
    results: dict[str, Any] = {}
    with PerplexityEmulator(api_key="k", run_duration=RUN_SECONDS) as emu:
        for mode in ("stream", "astream"):
            emu.clear()
            texts, _, baseline_seconds = stream(emu.base_url, mode)
            baseline = "".join(texts)
            emu.clear()
            with proxied(emu) as proxy:
                texts, metadata, seconds = stream(proxy.base_url, mode)
            kinds = [r.kind for r in emu.requests]
            streamed = "".join(texts)
            duplicated = sum(len(t) for t in texts) - len(baseline) if streamed == baseline else None
            drops = proxy.mid_stream_drops
            extra = len(kinds) - kinds.count("create")
            per_drop = extra / drops if drops else float("inf")
            print(f"{mode}: a {RUN_SECONDS:.0f} s research run (minutes, time-compressed), proxy idle limit "
                  f"{IDLE_SECONDS} s")  # fmt: skip
            print(f"  uninterrupted baseline: {len(baseline)} characters in {baseline_seconds:.2f} s, 1 request")
            enough = verdict(drops, 3, lower_is_better=False)
            print(f"  through the proxy: {drops} mid-stream drops (goal >= 3, {enough}); "
                  f"{len(metadata.get('resumes', []))} resumes noted in response_metadata")  # fmt: skip
            print(f"  text identical to the baseline: {streamed == baseline}; duplicated characters: {duplicated} "
                  f"(goal 0, {verdict(duplicated if duplicated is not None else 1, 0)})")  # fmt: skip
            print(f"  create requests: {kinds.count('create')} (goal 1, {verdict(kinds.count('create'), 1)}); "
                  f"extra requests: {extra} ({kinds.count('resume')} resumes, {kinds.count('retrieve')} status "
                  f"checks) = {per_drop:.2f} per drop (goal <= 2, {verdict(per_drop, 2)})")  # fmt: skip
            print(f"  wall time: {seconds:.2f} s, {seconds / baseline_seconds:.2f}x the baseline")
            if mode == "stream":
                print(f"  the same proxy without resuming (max_resumes=0): {without_resuming(emu, mode)}")
            results[mode] = {"drops": drops, "duplicated": duplicated, "creates": kinds.count("create"),
                             "per_drop": per_drop, "identical": streamed == baseline}  # fmt: skip
    return results


if __name__ == "__main__":
    run()
