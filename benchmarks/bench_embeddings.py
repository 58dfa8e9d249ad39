"""Embeddings: decoding int8 vectors against numpy, and embedding end to end against a raw client.

Decoding: 10,000 `base64_int8` embeddings of 1,024 dimensions (random bytes).
The baseline is numpy on the same strings, `np.frombuffer(b64decode(s), np.int8)`,
carried to what `Embeddings.embed_documents` must return (`list[float]`,
`.astype(float).tolist()`), since a vector store is handed lists. The bare
`frombuffer` (an array view, no Python floats) is printed too, as the floor
no list-returning decoder can reach.

End to end: 10,000 texts through `PerplexityEmbeddings.embed_documents`
against the emulator (in its own process), against the same openai client
posting the same batch bodies, built in advance, and decoding with numpy into
the same lists. Runs alternate, so a burst of load hits both.

In flight: against a latency-bound emulator (every answer waits `LATENCY`
seconds first, as a distant server does), `embed_documents` with
`max_concurrency=4` against the same raw client posting the same batch
bodies one after another. Goal: at least 3x faster.
"""

from __future__ import annotations

import base64
import os
import statistics
import time
from typing import Any

import numpy as np

from benchmarks.common import best_time, emulator_process, verdict
from langchain_perplexity_strict import PerplexityEmbeddings
from langchain_perplexity_strict._embeddings._request import decode_int8
from langchain_perplexity_strict._transport import encode_body
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator

COUNT = 10_000
DIMENSIONS = 1024
ROUNDS = 3


def _numpy_lists(encoded: list[str]) -> list[list[float]]:
    return [np.frombuffer(base64.b64decode(s), np.int8).astype(float).tolist() for s in encoded]


def measure_decoding() -> dict[str, float]:
    encoded = [base64.b64encode(os.urandom(DIMENSIONS)).decode() for _ in range(COUNT)]
    assert [decode_int8(s) for s in encoded[:10]] == _numpy_lists(encoded[:10])
    ours = best_time(lambda: [decode_int8(s) for s in encoded])
    numpy_lists = best_time(lambda: _numpy_lists(encoded))
    numpy_views = best_time(lambda: [np.frombuffer(base64.b64decode(s), np.int8) for s in encoded])
    ratio = ours / numpy_lists
    print(
        f"decode {COUNT:,} int8 x {DIMENSIONS}: ours {ours * 1000:.0f} ms, numpy to lists "
        f"{numpy_lists * 1000:.0f} ms -> {ratio:.2f}x (goal <= 1.5: {verdict(ratio, 1.5)})"
    )
    print(
        f"  floor, numpy frombuffer views without lists: {numpy_views * 1000:.0f} ms "
        f"(ours is {ours / numpy_views:.1f}x; a list of floats costs more than a view)"
    )
    return {"decode_ratio": ratio, "decode_vs_views": ours / numpy_views}


def measure_end_to_end(base_url: str) -> dict[str, float]:
    texts = [f"document {n} about topic {n % 97} and subject {n % 13}" for n in range(COUNT)]
    embeddings = PerplexityEmbeddings(api_key="k", base_url=base_url, model="pplx-embed-v1-0.6b")
    client = embeddings.transport.chat_openai.root_client  # the same openai client, for the same HTTP stack
    bodies = [encode_body(b) for b in embeddings._bodies(texts)]  # the bytes ours sends

    def raw() -> list[list[float]]:
        vectors: list[list[float]] = []
        for body in bodies:
            answer: Any = client.post("/v1/embeddings", content=body, cast_to=object)
            vectors += _numpy_lists([item["embedding"] for item in answer["data"]])
        return vectors

    assert raw()[:3] == embeddings.embed_documents(texts[:3])
    ours_times, raw_times = [], []
    for i in range(ROUNDS * 2):
        fn = (lambda: embeddings.embed_documents(texts)) if i % 2 == 0 else raw
        start = time.perf_counter()
        fn()
        (ours_times if i % 2 == 0 else raw_times).append(time.perf_counter() - start)
    ours, baseline = statistics.median(ours_times), statistics.median(raw_times)
    ratio = ours / baseline
    print(
        f"embed {COUNT:,} texts ({len(bodies)} requests) against the emulator: ours {ours:.2f} s, raw client "
        f"{baseline:.2f} s -> {ratio:.2f}x (goal <= 1.1: {verdict(ratio, 1.1)})"
    )
    return {"end_to_end_ratio": ratio}


LATENCY = 0.2
"""Seconds each emulated answer waits before it is sent."""
IN_FLIGHT = 4
BATCHES = 24
PER_BATCH = 16


def measure_in_flight() -> dict[str, float]:
    texts = [f"chunk {n} of a large corpus about topic {n % 31}" for n in range(BATCHES * PER_BATCH)]
    with PerplexityEmulator() as emu:
        emu.set_fault_rates({Fault("delay", seconds=LATENCY): 1.0})  # every request: a latency-bound server
        embeddings = PerplexityEmbeddings(
            api_key="k",
            base_url=emu.base_url,
            model="pplx-embed-v1-0.6b",
            dimensions=128,
            chunk_size=PER_BATCH,
            max_concurrency=IN_FLIGHT,
        )
        client = embeddings.transport.chat_openai.root_client
        bodies = [encode_body(b) for b in embeddings._bodies(texts)]  # the same batches, the same bytes

        def raw() -> list[list[float]]:
            vectors: list[list[float]] = []
            for body in bodies:  # one after another
                answer: Any = client.post("/v1/embeddings", content=body, cast_to=object)
                vectors += [decode_int8(item["embedding"]) for item in answer["data"]]
            return vectors

        assert raw() == embeddings.embed_documents(texts)  # the same vectors, in the same order
        emu.clear()
        ours_times, raw_times = [], []
        for i in range(4):
            fn = (lambda: embeddings.embed_documents(texts)) if i % 2 == 0 else raw
            start = time.perf_counter()
            fn()
            (ours_times if i % 2 == 0 else raw_times).append(time.perf_counter() - start)
        posted = len([r for r in emu.requests if r.path == "/v1/embeddings"])
    ours, baseline = statistics.median(ours_times), statistics.median(raw_times)
    speedup = baseline / ours
    print(
        f"embed {len(texts):,} texts in {len(bodies)} requests ({posted} posted in 4 runs), each answer "
        f"{LATENCY * 1000:.0f} ms late: max_concurrency={IN_FLIGHT} {ours:.2f} s, raw client one after another "
        f"{baseline:.2f} s -> {speedup:.2f}x faster (goal >= 3: {verdict(speedup, 3, lower_is_better=False)})"
    )
    return {"in_flight_speedup": speedup}


def run() -> dict[str, float]:
    results = measure_decoding()
    with emulator_process() as base_url:
        results.update(measure_end_to_end(base_url))
    results.update(measure_in_flight())
    return results


if __name__ == "__main__":
    run()
