"""200 concurrent astream calls through one model instance, against two baselines measured in the same run.

The goals (issue 12): at least 1.5x the throughput of plain ``ChatOpenAI`` on
the Agent API (what a user would otherwise use), and at least 0.95 of a
minimal LangChain chat model over the raw openai client (what langchain-core
itself costs any integration). Reference lines: the raw ``AsyncOpenAI``
client posting the same prebuilt bodies, and its typed ``responses.create``.
Every client gets the same answers (web search off, so no client reads
search events the others do not get).
Rounds alternate which client goes first, and each starts from a collected
heap; the figure is the median of the per-round ratios, because single rounds
on a shared machine swing widely. A loop-lag probe and asyncio debug mode
watch for anything that blocks the event loop; full garbage collections are
timed too, because they hold the loop as long as a blocking call would.
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import logging
import pstats
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import openai
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI

from benchmarks.common import emulator_process, verdict
from langchain_perplexity_strict import ChatPerplexityStrict

CONCURRENCY = 200
ROUNDS = 24  # each one phase per client
TYPED_ROUNDS = 3  # the typed client is a reference line, and slow
SLOW = 0.1  # seconds: asyncio debug mode's threshold for a slow callback, here


class SlowCallbacks(logging.Handler):
    """Counts asyncio debug mode's "Executing ... took N seconds" warnings (slow callbacks)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "took" in record.getMessage():
            self.count += 1


@contextmanager
def long_collections() -> Iterator[list[float]]:
    """Durations of garbage collections over ``SLOW`` seconds while the block runs."""
    durations: list[float] = []
    started = [0.0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        elif (duration := time.perf_counter() - started[0]) > SLOW:
            durations.append(duration)

    gc.callbacks.append(callback)
    try:
        yield durations
    finally:
        gc.callbacks.remove(callback)


async def lag_probe(stop: asyncio.Event, lags: list[float]) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.005)
        lags.append(time.perf_counter() - start - 0.005)


async def through_langchain(model: BaseChatModel, i: int) -> int:
    chunks = 0
    async for _ in model.astream(f"question {i}"):
        chunks += 1
    return chunks


async def raw(client: openai.AsyncOpenAI, body: dict[str, Any]) -> int:
    events = 0
    stream = await client.post(
        "/responses", body=body, cast_to=object, stream=True, stream_cls=openai.AsyncStream[object]
    )
    async for _ in stream:
        events += 1
    return events


async def typed(client: openai.AsyncOpenAI, body: dict[str, Any]) -> int:
    """The raw client the way its users call it: the typed ``responses.create``."""
    events = 0
    fields = {k: v for k, v in body.items() if k != "stream"}
    async for _ in await client.responses.create(**fields, stream=True):
        events += 1
    return events


class MinimalChatModel(BaseChatModel):
    """The least a LangChain chat model can do over the raw client: a reference, not a product.

    It posts the prebuilt body and yields each text delta as a chunk: no
    normalization, no request building, no sources, usage or errors. What it
    costs over the raw client is what langchain-core's per-call machinery
    (callbacks, tracing checks, message chunks) costs any integration.
    """

    client: Any
    bodies: list[dict[str, Any]]

    @property
    def _llm_type(self) -> str:
        return "minimal-reference"

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise NotImplementedError

    async def _astream(
        self, messages: list[BaseMessage], *args: Any, **kwargs: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        body = self.bodies[int(messages[-1].text.split()[-1])]
        stream = await self.client.post(
            "/responses", body=body, cast_to=object, stream=True, stream_cls=openai.AsyncStream[object]
        )
        async for event in stream:
            if event.get("type") == "response.output_text.delta":
                yield ChatGenerationChunk(message=AIMessageChunk(content=event["delta"]))
        yield ChatGenerationChunk(message=AIMessageChunk(content="", chunk_position="last"))


class Clients:
    """The ways of making the same 200 requests, built before any event loop runs (as an app would)."""

    def __init__(self, base_url: str) -> None:
        self.model = ChatPerplexityStrict(api_key="k", base_url=base_url, max_retries=0, timeout=60, web_search=False)  # type: ignore[arg-type]
        self.chat_openai = ChatOpenAI(
            model="perplexity/sonar", api_key="k", base_url=base_url + "/v1", use_responses_api=True,  # type: ignore[arg-type]
            max_retries=0, timeout=60,
        )  # fmt: skip
        self.client = openai.AsyncOpenAI(api_key="k", base_url=base_url + "/v1", max_retries=0, timeout=60)
        self.bodies = [self.model.request_body(f"question {i}", stream=True) for i in range(CONCURRENCY)]
        self.minimal = MinimalChatModel(client=self.client, bodies=self.bodies)

    def calls(self, label: str, count: int = CONCURRENCY) -> list[Awaitable[int]]:
        if label in ("ours", "minimal", "chatopenai"):
            model = {"ours": self.model, "minimal": self.minimal, "chatopenai": self.chat_openai}[label]
            return [through_langchain(model, i) for i in range(count)]
        call: Callable[[openai.AsyncOpenAI, dict[str, Any]], Awaitable[int]] = raw if label == "raw" else typed
        return [call(self.client, body) for body in self.bodies[:count]]

    async def warm_up(self) -> None:
        for label in ("ours", "raw", "typed", "minimal", "chatopenai"):
            await together(self.calls(label, 1))


async def phase(clients: Clients, label: str) -> tuple[float, int, float]:
    """One client's 200 concurrent streams: (streams per second, errors, largest loop lag)."""
    gc.collect()  # each client starts from a clean heap, not with the garbage of the one before it
    stop, lags = asyncio.Event(), []
    probe = asyncio.create_task(lag_probe(stop, lags))
    start = time.perf_counter()
    outcomes = await asyncio.gather(*clients.calls(label), return_exceptions=True)
    elapsed = time.perf_counter() - start
    stop.set()
    await probe
    errors = sum(isinstance(o, BaseException) for o in outcomes)
    return CONCURRENCY / elapsed, errors, max(lags, default=0.0)


async def measure(clients: Clients) -> dict[str, list[tuple[float, int, float]]]:
    await clients.warm_up()
    results: dict[str, list[tuple[float, int, float]]] = {
        "ours": [], "raw": [], "minimal": [], "chatopenai": [], "typed": [], "ours_vs_typed": []
    }  # fmt: skip
    for round_ in range(ROUNDS):
        order = ("raw", "ours", "minimal", "chatopenai")
        for label in order if round_ % 2 == 0 else reversed(order):
            results[label].append(await phase(clients, label))
    for round_ in range(TYPED_ROUNDS):
        for label in ("typed", "ours") if round_ % 2 == 0 else ("ours", "typed"):
            results["typed" if label == "typed" else "ours_vs_typed"].append(await phase(clients, label))
    await clients.client.close()
    return results


def median_ratio(a: list[tuple[float, int, float]], b: list[tuple[float, int, float]]) -> float:
    """The median over rounds of the throughput ratio a/b within a round."""
    return statistics.median(x[0] / y[0] for x, y in zip(a, b, strict=True))


def compare(base_url: str, label: str) -> dict[str, float]:
    clients = Clients(base_url)
    measured = asyncio.run(measure(clients))
    ours_runs = measured["ours"]
    errors = sum(o[1] for o in ours_runs + measured["ours_vs_typed"])
    vs_chat_openai = median_ratio(ours_runs, measured["chatopenai"])
    vs_minimal = median_ratio(ours_runs, measured["minimal"])
    lag = statistics.median(o[2] for o in ours_runs)
    print(
        f"{CONCURRENCY} concurrent astream calls, {label}: ours {statistics.median(o[0] for o in ours_runs):.0f} "
        f"streams/s (median of {ROUNDS} alternating rounds); errors {errors} (goal 0)\n"
        f"  against plain ChatOpenAI on the Agent API: median ratio {vs_chat_openai:.2f} "
        f"(goal >= 1.5, {verdict(vs_chat_openai, 1.5, lower_is_better=False)})\n"
        f"  against a minimal LangChain chat model over the raw client: median ratio {vs_minimal:.2f} "
        f"(goal >= 0.95, {verdict(vs_minimal, 0.95, lower_is_better=False)})\n"
        f"  for reference: against the raw AsyncOpenAI client posting prebuilt bodies "
        f"{median_ratio(ours_runs, measured['raw']):.2f}; the minimal model against it "
        f"{median_ratio(measured['minimal'], measured['raw']):.2f}; ours against the raw client's typed "
        f"responses.create {median_ratio(measured['ours_vs_typed'], measured['typed']):.2f}; "
        f"median largest loop lag {lag * 1e3:.0f} ms"
    )
    return {"vs_chat_openai": vs_chat_openai, "vs_minimal": vs_minimal, "errors": errors}


async def together(calls: list[Awaitable[int]]) -> list[int]:
    return await asyncio.gather(*calls)


def debug_pass(clients: Clients, label: str) -> tuple[int, int]:
    """200 concurrent streams in asyncio debug mode: (slow callbacks, garbage collections over ``SLOW``)."""
    slow = SlowCallbacks()
    loop = asyncio.new_event_loop()
    loop.set_debug(True)
    loop.slow_callback_duration = SLOW
    loop.run_until_complete(together(clients.calls(label, 1)))  # warm-up: connections, first use
    logging.getLogger("asyncio").addHandler(slow)
    try:
        gc.collect()
        with long_collections() as collections:
            loop.run_until_complete(together(clients.calls(label)))
    finally:
        loop.close()
        logging.getLogger("asyncio").removeHandler(slow)
    return slow.count, len(collections)


PARTS = {
    "the model's own code": ("langchain_perplexity_strict", "bench_concurrency"),
    "langchain-core": ("langchain_core",),
    "openai": ("/openai/",),
}


def cpu_split(clients: Clients, label: str, rounds: int = 3) -> tuple[float, dict[str, float]]:
    """CPU ms per stream, and the share of it spent in each of `PARTS` (own time, under cProfile)."""
    loop = asyncio.new_event_loop()
    loop.run_until_complete(together(clients.calls(label)))  # warm-up
    profile, start = cProfile.Profile(), time.process_time()
    profile.enable()
    for _ in range(rounds):
        loop.run_until_complete(together(clients.calls(label)))
    profile.disable()
    streams = rounds * CONCURRENCY
    total = (time.process_time() - start) * 1e3 / streams
    loop.close()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    parts = {
        part: sum(v[2] for k, v in stats.items() if any(m in k[0] for m in marks)) * 1e3 / streams
        for part, marks in PARTS.items()
    }
    return total, parts


def run() -> dict[str, Any]:
    results: dict[str, Any] = {}
    with emulator_process() as base_url:
        # Instant answers: the client's own CPU is the bottleneck (the worst case for any wrapper).
        results["instant"] = compare(base_url, "answers sent instantly")
        # Passes in debug mode count callbacks that held the loop over 100 ms, for both clients.
        ours_slow, ours_gc = debug_pass(Clients(base_url), "ours")
        raw_slow, raw_gc = debug_pass(Clients(base_url), "raw")
        print(f"callbacks that held the event loop over 100 ms (asyncio debug mode): ours {ours_slow}, "
              f"raw AsyncOpenAI {raw_slow}; full garbage collections over 100 ms in the same passes: "
              f"ours {ours_gc}, raw {raw_gc} (a collection holds the loop as a blocking call would)")  # fmt: skip
        # Where a stream's CPU goes: the minimal model shares langchain-core and the event loop with ours.
        clients = Clients(base_url)
        for label in ("ours", "minimal"):
            total, parts = cpu_split(clients, label)
            split = ", ".join(f"{part} {ms:.2f}" for part, ms in parts.items())
            print(f"CPU per stream under cProfile, {label}: {total:.2f} ms, of it in {split} ms")
    with emulator_process("--event-delay", "0.01") as base_url:
        # Paced like token generation (10 ms between events): latency, not client CPU, sets the pace.
        results["paced"] = compare(base_url, "events paced 10 ms apart")
    return results


if __name__ == "__main__":
    run()
