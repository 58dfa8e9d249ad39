"""Issue 6 §3: 200 concurrent astream calls through one model instance vs the raw openai.AsyncOpenAI client.

The baseline posts the same request bodies with the same client library, as
cheaply as it can (a prebuilt body, no conversion); a second line compares
with the raw client's typed ``responses.create``, the way its users call it. A loop-lag probe and
asyncio debug mode watch for anything that blocks the event loop.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import statistics
import time
from typing import Any

import openai

from benchmarks.common import emulator_process, verdict
from langchain_perplexity_strict import ChatPerplexityStrict

CONCURRENCY = 200
ROUNDS = 8


class SlowCallbacks(logging.Handler):
    """Counts asyncio debug mode's "Executing ... took N seconds" warnings (slow callbacks)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "took" in record.getMessage():
            self.count += 1


async def lag_probe(stop: asyncio.Event, lags: list[float]) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.005)
        lags.append(time.perf_counter() - start - 0.005)


async def ours(model: ChatPerplexityStrict, i: int) -> int:
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


async def measure(base_url: str) -> dict[str, Any]:
    model = ChatPerplexityStrict(api_key="k", base_url=base_url, max_retries=0, timeout=60)  # type: ignore[arg-type]
    client = openai.AsyncOpenAI(api_key="k", base_url=base_url + "/v1", max_retries=0, timeout=60)
    bodies = [model.request_body(f"question {i}", stream=True) for i in range(CONCURRENCY)]
    await ours(model, -1)
    await raw(client, bodies[0])
    await typed(client, bodies[0])
    results: dict[str, Any] = {}
    for round_ in range(ROUNDS):
        for label in ("raw", "ours", "typed") if round_ % 2 == 0 else ("typed", "ours", "raw"):
            gc.collect()  # each client starts from a clean heap, not with the garbage of the one before it
            stop, lags = asyncio.Event(), []
            probe = asyncio.create_task(lag_probe(stop, lags))
            start = time.perf_counter()
            if label == "ours":
                outcomes = await asyncio.gather(*(ours(model, i) for i in range(CONCURRENCY)), return_exceptions=True)
            elif label == "raw":
                outcomes = await asyncio.gather(*(raw(client, b) for b in bodies), return_exceptions=True)
            else:
                outcomes = await asyncio.gather(*(typed(client, b) for b in bodies), return_exceptions=True)
            elapsed = time.perf_counter() - start
            stop.set()
            await probe
            errors = [o for o in outcomes if isinstance(o, BaseException)]
            results.setdefault(label, []).append((CONCURRENCY / elapsed, len(errors), max(lags, default=0.0)))
    await client.close()
    return results


async def debug_pass(base_url: str) -> None:
    model = ChatPerplexityStrict(api_key="k", base_url=base_url, max_retries=0, timeout=60)  # type: ignore[arg-type]
    await ours(model, -1)
    await asyncio.gather(*(ours(model, i) for i in range(CONCURRENCY)))


def compare(base_url: str, label: str) -> dict[str, Any]:
    """Median over rounds of the per-round ratio: on a shared 2-core machine single runs swing widely."""
    measured = asyncio.run(measure(base_url))
    pairs = list(zip(measured["ours"], measured["raw"], measured["typed"], strict=True))
    ratios = sorted(o[0] / r[0] for o, r, _ in pairs)
    typed_ratios = sorted(o[0] / t[0] for o, _, t in pairs)
    ratio = statistics.median(ratios)
    errors = sum(o[1] for o, _, _ in pairs)
    lag = statistics.median(o[2] for o, _, _ in pairs)
    raw_lag = statistics.median(r[2] for _, r, _ in pairs)
    ours_rate = statistics.median(o[0] for o, _, _ in pairs)
    raw_rate = statistics.median(r[0] for _, r, _ in pairs)
    print(f"{CONCURRENCY} concurrent astream calls, {label}: ours {ours_rate:.0f} streams/s, raw AsyncOpenAI "
          f"{raw_rate:.0f} streams/s (medians of {len(pairs)} rounds); median ratio {ratio:.2f} "
          f"(range {ratios[0]:.2f}-{ratios[-1]:.2f}; goal >= 0.9, {verdict(ratio, 0.9, lower_is_better=False)}); "
          f"errors {errors} (goal 0); median largest loop lag {lag * 1e3:.0f} ms "
          f"(raw client: {raw_lag * 1e3:.0f} ms); "
          f"against the raw client's typed responses.create: median ratio "
          f"{statistics.median(typed_ratios):.2f}")  # fmt: skip
    return {"ratio": ratio, "ratio_range": (ratios[0], ratios[-1]), "errors": errors, "loop_lag_s": lag,
            "raw_loop_lag_s": raw_lag, "ratio_vs_typed_client": statistics.median(typed_ratios)}  # fmt: skip


def run() -> dict[str, Any]:
    results: dict[str, Any] = {}
    with emulator_process() as base_url:
        # Instant answers: the client's own CPU is the bottleneck (the worst case for any wrapper).
        instant = compare(base_url, "answers sent instantly")
        # A separate pass in debug mode counts callbacks that held the loop over 100 ms.
        slow = SlowCallbacks()
        logging.getLogger("asyncio").addHandler(slow)
        loop = asyncio.new_event_loop()
        loop.set_debug(True)
        loop.slow_callback_duration = 0.1
        try:
            loop.run_until_complete(debug_pass(base_url))
        finally:
            loop.close()
            logging.getLogger("asyncio").removeHandler(slow)
        print(f"callbacks that held the event loop over 100 ms (asyncio debug mode): {slow.count}")
    with emulator_process("--event-delay", "0.01") as base_url:
        # Paced like token generation (10 ms between events): latency, not client CPU, sets the pace.
        paced = compare(base_url, "events paced 10 ms apart")
    results.update({f"instant_{k}": v for k, v in instant.items()})
    results.update({f"paced_{k}": v for k, v in paced.items()})
    results["slow_callbacks"] = slow.count
    return results


if __name__ == "__main__":
    run()
