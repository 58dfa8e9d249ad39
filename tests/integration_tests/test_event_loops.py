"""Async calls work on every event loop, not only the first (langchain-ai/langchain#35783).

`ChatOpenAI` shares one async HTTP client per server across the process; its pooled
connections belong to the loop that opened them, so a second `asyncio.run` (a script
that calls it twice, a notebook helper, a thread per request, a task-queue worker)
failed with `RuntimeError: Event loop is closed`. Each form is tried on both surfaces,
with ainvoke and astream, on one model and on a new model after the first loop closed.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from langchain_perplexity_strict import ChatPerplexityStrict, PerplexityEmbeddings, PerplexitySearchRetriever
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY, make

SURFACES = ["agent", "chat_completions"]


async def _ask(model: ChatPerplexityStrict, how: str) -> str:
    if how == "ainvoke":
        return str((await model.ainvoke("Hello")).content)
    return "".join([str(chunk.content) async for chunk in model.astream("Hello")])


@pytest.mark.parametrize("how", ["ainvoke", "astream"])
@pytest.mark.parametrize("api", SURFACES)
def test_asyncio_run_again_on_the_same_model(emu: PerplexityEmulator, api: str, how: str) -> None:
    model = make(emu, api)
    answers = [asyncio.run(_ask(model, how)) for _ in range(3)]
    assert all(answers) and len(set(answers)) == 1


@pytest.mark.parametrize("api", SURFACES)
def test_a_new_model_on_a_new_loop_after_the_first_loop_closed(emu: PerplexityEmulator, api: str) -> None:
    first = asyncio.run(_ask(make(emu, api), "ainvoke"))
    assert asyncio.run(_ask(make(emu, api), "ainvoke")) == first


def test_one_model_from_threads_each_with_its_own_loop(emu: PerplexityEmulator) -> None:
    model = make(emu)
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda _: asyncio.run(_ask(model, "astream")), range(8)))
    assert all(answers) and len(set(answers)) == 1


def test_search_and_embeddings_on_a_second_loop(emu: PerplexityEmulator) -> None:
    retriever = PerplexitySearchRetriever(api_key=KEY, base_url=emu.base_url)
    embeddings = PerplexityEmbeddings(api_key=KEY, base_url=emu.base_url)

    async def both() -> tuple[Any, Any]:
        return await retriever.ainvoke("LangChain"), await embeddings.aembed_query("LangChain")

    first, second = asyncio.run(both()), asyncio.run(both())
    assert first == second and first[0] and first[1]


def test_the_loops_client_keeps_the_models_settings(emu: PerplexityEmulator) -> None:
    """Key, server, timeout and retries are the model's on every loop's client."""
    model = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, timeout=7.5, max_retries=4)
    own = model.transport.chat_openai.root_async_client

    async def settings() -> tuple[Any, ...]:
        client = model.transport.async_client()
        return client.api_key, client.base_url, client.timeout, client.max_retries, client._client is own._client

    for _ in range(2):
        assert asyncio.run(settings()) == (own.api_key, own.base_url, own.timeout, 4, False)
