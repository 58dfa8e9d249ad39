"""Embeddings of a large corpus: `max_concurrency` requests in flight, sync and async, both classes, in order.

What each test checks follows from the emulator's events: a `hold` fault keeps each answer back until
`release()`, so `wait_holding(n)` is true only when n requests are in flight at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from langchain_perplexity_strict import PerplexityContextualizedEmbeddings, PerplexityEmbeddings
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import KEY

TEXTS = [f"text {n} about topic {n % 7}" for n in range(12)]
DOCUMENTS = [[f"doc {n} chunk {c}" for c in range(3)] for n in range(12)]


def _classes(emu: PerplexityEmulator, **settings: Any) -> dict[str, tuple[Any, Callable[[Any], Any], Any]]:
    """Each class with `settings`, the call that embeds a corpus, and the corpus (one request per item)."""
    connection = {"api_key": KEY, "base_url": emu.base_url, "max_retries": 0}
    plain = PerplexityEmbeddings(**connection, model="pplx-embed-v1-0.6b", chunk_size=1, **settings)
    contextual = PerplexityContextualizedEmbeddings(**connection, model="pplx-embed-context-v1-0.6b", **settings)
    # A request holds at most 120,000 tokens (counted as UTF-8 bytes): two 40,000-byte documents per request.
    long_documents = [[f"{n}" + "a" * 40_000, "short"] for n in range(6)]
    return {
        "embeddings": (plain, plain.embed_documents, TEXTS[:4]),
        "contextualized": (contextual, contextual.embed_in_context, long_documents),
    }


def _in_thread(call: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    return thread, out


@pytest.mark.parametrize("kind", ["embeddings", "contextualized"])
def test_sync_calls_keep_max_concurrency_requests_in_flight(emu: PerplexityEmulator, kind: str) -> None:
    _, call, corpus = _classes(emu, max_concurrency=3)[kind]
    emu.inject(*[Fault("hold")] * 3)
    thread, out = _in_thread(lambda: call(corpus))
    try:
        assert emu.wait_holding(3, timeout=30), "three requests were never in flight at once"
        assert emu.holding == 3
    finally:
        emu.release()
    thread.join(30)
    assert len(out[0]) == len(corpus)


@pytest.mark.parametrize("kind", ["embeddings", "contextualized"])
async def test_async_calls_keep_max_concurrency_requests_in_flight(emu: PerplexityEmulator, kind: str) -> None:
    model, _, corpus = _classes(emu, max_concurrency=3)[kind]
    emu.inject(*[Fault("hold")] * 3)
    call = model.aembed_documents if kind == "embeddings" else model.aembed_in_context
    task = asyncio.ensure_future(call(corpus))
    try:
        assert await asyncio.to_thread(emu.wait_holding, 3, 30), "three requests were never in flight at once"
    finally:
        emu.release()
    assert len(await task) == len(corpus)


def test_max_concurrency_one_sends_one_after_another(emu: PerplexityEmulator) -> None:
    _, call, corpus = _classes(emu, max_concurrency=1)["embeddings"]
    emu.inject(Fault("hold"))
    thread, out = _in_thread(lambda: call(corpus))
    try:
        assert emu.wait_holding(1, timeout=30)
        assert len([r for r in emu.requests if r.path == "/v1/embeddings"]) == 1  # the second waits for the first
    finally:
        emu.release()
    thread.join(30)
    assert len(out[0]) == len(corpus)


@pytest.mark.parametrize("kind", ["embeddings", "contextualized"])
async def test_the_order_is_kept_whichever_answer_comes_first(emu: PerplexityEmulator, kind: str) -> None:
    """The first request's answer is held back until the others are answered: the vectors stay in input order."""
    _, call, corpus = _classes(emu, max_concurrency=1)[kind]
    expected = call(corpus)
    _, call, _ = _classes(emu, max_concurrency=4)[kind]
    emu.clear()
    emu.inject(Fault("hold"))
    thread, out = _in_thread(lambda: call(corpus))
    assert emu.wait_holding(1, timeout=30)
    posted = len(corpus) if kind == "embeddings" else 3
    while len([r for r in emu.requests if r.method == "POST"]) < posted:  # the others are sent meanwhile
        await asyncio.sleep(0.01)
    emu.release()
    thread.join(30)
    assert out[0] == expected
    for request in emu.requests:
        published_schema.validate(
            "EmbeddingsRequestInput" if kind == "embeddings" else "ContextualizedEmbeddingsRequestInput", request.body
        )


def test_a_failed_request_fails_the_call_and_sends_no_more(emu: PerplexityEmulator) -> None:
    model = PerplexityEmbeddings(api_key=KEY, base_url=emu.base_url, max_retries=0, chunk_size=1, max_concurrency=2)
    emu.inject(Fault("server_error", status=500))
    with pytest.raises(Exception, match="HTTP 500"):
        model.embed_documents(TEXTS)
    assert len(emu.requests) < len(TEXTS)


@pytest.mark.parametrize("value", [0, 17, -1, 2.0, "4", True, None])
@pytest.mark.parametrize("cls", [PerplexityEmbeddings, PerplexityContextualizedEmbeddings])
def test_max_concurrency_is_bounded_and_strict(cls: type, value: Any) -> None:
    with pytest.raises(ValueError, match=r"max_concurrency=.*expected an integer from 1 to 16"):
        cls(api_key=KEY, max_concurrency=value)
