"""Outputs a langchain-perplexity 1.4.2 or `ChatOpenAI`-on-Perplexity user reads, where they read them.

Each test is one habit from those packages' sources (langchain-perplexity's `ChatPerplexity._generate`,
`_stream` and its Responses converters, its `PerplexitySearchResults`, retriever and embeddings;
langchain-openai's `_create_chat_result` and `_construct_lc_result_from_responses_api`), checked on
both surfaces, and on invoke and stream, sync and async, where the habit has them. The rows of
docs/migration.md for them are in `migration_rows_outputs.py`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.messages.tool import ToolMessage
from langchain_core.outputs import LLMResult

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY, make

QUESTION = "What is new in Python 3.13?"
MODES = ("invoke", "stream", "ainvoke", "astream")
SURFACES = ("agent", "chat_completions")


@pytest.fixture(scope="module")
def models(emulator: PerplexityEmulator) -> dict[str, ChatPerplexityStrict]:
    """One model per surface for the module (the chat-completions one a reasoning model, which searches)."""
    return {
        "agent": make(emulator),
        "chat_completions": make(emulator, "chat_completions", model="sonar-reasoning-pro"),
        "plain_sonar": make(emulator, "chat_completions"),
    }


async def answer(model: Any, mode: str, question: str = QUESTION) -> BaseMessage:
    """The whole answer, however it was asked for (a stream's chunks added up)."""
    if mode == "invoke":
        return model.invoke(question)
    if mode == "ainvoke":
        return await model.ainvoke(question)
    chunks: list[AIMessageChunk] = (
        list(model.stream(question)) if mode == "stream" else [c async for c in model.astream(question)]
    )
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    return merged


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("surface", SURFACES)
async def test_search_results_read_by_key_and_by_attribute(
    models: dict[str, ChatPerplexityStrict], surface: str, mode: str
) -> None:
    """langchain-perplexity's chat-completions invoke gave the SDK's objects (`r.url`), everything else dicts
    (`r["url"]`): every answer's records serve both, and are still the dicts Perplexity sent."""
    message = await answer(models[surface], mode)
    results = message.additional_kwargs["search_results"]
    assert results, "the emulator searches for every question"
    for record in results:
        assert record.url == record["url"] and record.title == record["title"]
        assert record.date == record.get("date") and record.model_dump() == dict(record)
        assert isinstance(record, dict) and json.loads(json.dumps(record)) == dict(record)
    assert message.additional_kwargs["citations"] == [r["url"] for r in results]


def test_a_search_result_without_a_published_field_reads_none_and_a_typo_raises(
    models: dict[str, ChatPerplexityStrict],
) -> None:
    record = models["agent"].invoke(QUESTION).additional_kwargs["search_results"][0]
    missing = {k: v for k, v in record.items() if k != "date"}
    rebuilt = type(record)(missing)
    assert rebuilt.date is None  # as the SDK model's optional field
    with pytest.raises(AttributeError, match="has no field 'ulr'"):
        _ = rebuilt.ulr


@pytest.mark.parametrize("mode", MODES)
async def test_images_on_the_agent_api_come_from_image_search(emulator: PerplexityEmulator, mode: str) -> None:
    """Sonar's `additional_kwargs["images"]` (`image_url`, `origin_url`, `height`, `width`): on the Agent API the
    `image_search` tool's results, the same records, also kept whole in `image_search_results`."""
    model = make(emulator).bind_tools([{"type": "image_search"}])
    message = await answer(model, mode, "pictures of cats")
    images = message.additional_kwargs["images"]
    items = message.additional_kwargs["image_search_results"]
    assert images == [result for item in items for result in item["results"]]
    assert {"image_url", "origin_url", "height", "width"} <= set(images[0])


@pytest.mark.parametrize("mode", MODES)
async def test_reasoning_steps_on_chat_completions(models: dict[str, ChatPerplexityStrict], mode: str) -> None:
    """A reasoning model's `reasoning_steps` (`ReasoningStepOutputOutput`): `additional_kwargs["reasoning_steps"]`,
    where langchain-perplexity put them, once each though the stream repeats them."""
    message = await answer(models["chat_completions"], mode)
    steps = message.additional_kwargs["reasoning_steps"]
    assert len(steps) == 1 and steps[0]["type"] == "web_search"
    assert steps[0]["web_search"]["search_keywords"] == [QUESTION]
    assert [r["url"] for r in steps[0]["web_search"]["search_results"]] == message.additional_kwargs["citations"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("surface", SURFACES)
async def test_response_metadata_model_object_and_model_name(
    models: dict[str, ChatPerplexityStrict], surface: str, mode: str
) -> None:
    """langchain-perplexity's Agent API path and `ChatOpenAI`'s Responses path: `model`, `object`, `id`, `status`
    and `model_name`. Chat completions (langchain-perplexity, `ChatOpenAI`): `model_name`, `id`, `finish_reason`,
    and `model` too."""
    metadata = (await answer(models[surface], mode)).response_metadata
    served = "perplexity/sonar" if surface == "agent" else "sonar-reasoning-pro"
    assert metadata["model"] == metadata["model_name"] == served
    assert metadata["id"] and metadata["finish_reason"] == "stop"
    if surface == "agent":
        assert metadata["object"] == "response" and metadata["status"] == "completed"


@pytest.mark.parametrize("mode", MODES)
async def test_search_counts_in_response_metadata(models: dict[str, ChatPerplexityStrict], mode: str) -> None:
    """langchain-perplexity's `response_metadata["num_search_queries"]` and `["search_context_size"]`."""
    metadata = (await answer(models["chat_completions"], mode)).response_metadata
    assert metadata["num_search_queries"] == 1 and metadata["search_context_size"] == "low"


@pytest.mark.parametrize("mode", MODES)
async def test_citation_and_reasoning_tokens_where_both_packages_put_them(
    models: dict[str, ChatPerplexityStrict], mode: str
) -> None:
    """Citation tokens: `response_metadata["citation_tokens"]`, and langchain-perplexity's
    `output_token_details["citation_tokens"]` (deprecated), never in `input_token_details`, which are parts of
    `input_tokens` (Perplexity counts citation tokens apart: here more of them than input tokens);
    reasoning tokens: `output_token_details["reasoning"]` whenever Perplexity reports the count, 0 included
    (as langchain-perplexity and `ChatOpenAI` do)."""
    for model, reasoning in ((models["chat_completions"], True), (models["plain_sonar"], False)):
        message = await answer(model, mode)
        usage = message.usage_metadata
        sent = message.response_metadata["token_usage"]
        assert usage is not None and sent["citation_tokens"] > 0
        assert message.response_metadata["citation_tokens"] == sent["citation_tokens"]
        assert sent["citation_tokens"] > usage["input_tokens"]  # so not a part of it
        assert "citation" not in usage.get("input_token_details", {})
        details = usage.get("input_token_details", {})
        assert sum(v for v in details.values() if isinstance(v, int)) <= usage["input_tokens"]
        assert usage["output_token_details"]["citation_tokens"] == sent["citation_tokens"]  # type: ignore[typeddict-item]
        assert usage["output_token_details"]["reasoning"] == sent["reasoning_tokens"]
        assert (sent["reasoning_tokens"] > 0) is reasoning


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("surface", SURFACES)
async def test_token_usage_in_response_metadata(
    models: dict[str, ChatPerplexityStrict], surface: str, mode: str
) -> None:
    """`ChatOpenAI`'s `response_metadata["token_usage"]`: the usage as Perplexity sent it."""
    message = await answer(models[surface], mode)
    assert message.usage_metadata is not None
    assert message.response_metadata["token_usage"]["total_tokens"] == message.usage_metadata["total_tokens"]


@pytest.mark.parametrize("surface", SURFACES)
def test_token_usage_in_llm_output_for_callbacks(models: dict[str, ChatPerplexityStrict], surface: str) -> None:
    """`ChatOpenAI`'s `LLMResult.llm_output["token_usage"]`, which callback handlers read in `on_llm_end`."""
    seen: list[LLMResult] = []

    class Handler(BaseCallbackHandler):
        def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
            seen.append(response)

    message = models[surface].invoke(QUESTION, config={"callbacks": [Handler()]})
    assert seen and seen[0].llm_output is not None
    assert seen[0].llm_output["token_usage"] == message.response_metadata["token_usage"]


def _summed(*usages: dict[str, Any]) -> dict[str, Any]:
    """The token counts of `usages` added up (the test's own sum, over the top-level integers)."""
    keys = {k for u in usages for k, v in u.items() if isinstance(v, int) and not isinstance(v, bool)}
    return {k: sum(u.get(k, 0) for u in usages) for k in keys}


@pytest.mark.parametrize("how", ["generate", "agenerate"])
@pytest.mark.parametrize("surface", SURFACES)
async def test_generate_llm_output_as_chat_openai_gives_it(
    models: dict[str, ChatPerplexityStrict], surface: str, how: str
) -> None:
    """`ChatOpenAI`'s `generate(...).llm_output`: `token_usage` summed over the prompts, and `model_name`
    (langchain-openai's `_combine_llm_outputs`); langchain-core's default gave `{}`."""
    from langchain_core.messages import HumanMessage

    model = models[surface]
    prompts = [[HumanMessage(QUESTION)], [HumanMessage("And in 3.12?")]]
    result = model.generate(prompts) if how == "generate" else await model.agenerate(prompts)
    output = result.llm_output
    assert output is not None and set(output) == {"token_usage", "model_name"}
    assert output["model_name"] == result.generations[0][0].message.response_metadata["model_name"]
    sent = [g[0].message.response_metadata["token_usage"] for g in result.generations]
    total = output["token_usage"]
    assert {k: total[k] for k in _summed(*sent)} == _summed(*sent)
    assert total["total_tokens"] == sum(g[0].message.usage_metadata["total_tokens"] for g in result.generations)
    cost = [u["cost"]["total_cost"] for u in sent]
    assert total["cost"]["total_cost"] == pytest.approx(sum(cost))  # costs are floats: summed too
    # batch: each input's own llm_output reaches the callbacks, with the same keys
    seen: list[LLMResult] = []

    class Handler(BaseCallbackHandler):
        def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
            seen.append(response)

    answers = model.batch([QUESTION, "And in 3.12?"], config={"callbacks": [Handler()]})
    assert len(seen) == 2 and all(r.llm_output and r.llm_output["token_usage"]["total_tokens"] > 0 for r in seen)
    assert sorted(r.llm_output["token_usage"]["total_tokens"] for r in seen if r.llm_output) == sorted(
        a.usage_metadata["total_tokens"] for a in answers if a.usage_metadata
    )


@pytest.fixture(scope="module")
def search_tools(emulator: PerplexityEmulator) -> dict[str, PerplexitySearchResults]:
    return {
        "default": PerplexitySearchResults(api_key=KEY, base_url=emulator.base_url),  # type: ignore[arg-type]
        "results": PerplexitySearchResults(api_key=KEY, base_url=emulator.base_url, content_as="results"),  # type: ignore[arg-type]
        "text": PerplexitySearchResults(api_key=KEY, base_url=emulator.base_url, content_as="text"),  # type: ignore[arg-type]
    }


async def test_search_tool_results_as_a_list_of_dicts(search_tools: dict[str, PerplexitySearchResults]) -> None:
    """langchain-perplexity's `PerplexitySearchResults().invoke("q")` returned `list[dict]`: `content_as="results"`;
    in a tool call the model reads that list as JSON, or by default the numbered text."""
    tool = search_tools["results"]
    for results in (tool.invoke("cats"), await tool.ainvoke("cats")):
        assert isinstance(results, list) and results[0]["url"].startswith("https://")
        assert {"title", "url", "snippet", "date", "last_updated"} <= set(results[0])
    call = {"type": "tool_call", "id": "call_1", "name": tool.name, "args": {"query": "cats"}}
    message = tool.invoke(call)
    assert isinstance(message, ToolMessage)
    assert json.loads(str(message.content)) == message.artifact["results"]  # the model reads them as JSON
    text = search_tools["text"].invoke(call)  # the default: numbered text for the model, the answer as artifact
    assert isinstance(text, ToolMessage) and str(text.content).startswith("[1] ")
    assert text.artifact["results"] == message.artifact["results"]


def test_search_tool_text_warns_a_direct_call_once(search_tools: dict[str, PerplexitySearchResults]) -> None:
    """The default content is numbered text for a model: an application's own `tool.invoke("q")` is told, once
    per tool, how to get the list; a tool call (an agent's) and an explicit `content_as` are not."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = search_tools["default"].invoke("cats")
        search_tools["default"].invoke("dogs")
        search_tools["text"].invoke("cats")
        call = {"type": "tool_call", "id": "call_1", "name": "perplexity_search_results_json", "args": {"query": "x"}}
        fresh = search_tools["default"].model_copy()
        fresh.invoke(call)
    assert isinstance(first, str) and first.startswith("[1] ")
    told = [str(w.message) for w in caught if "content_as='results'" in str(w.message)]
    assert len(told) == 1, told


def test_retriever_documents_carry_over(emulator: PerplexityEmulator) -> None:
    """langchain-perplexity's retriever: `page_content` the snippet; `title`, `url`, `date`, `last_updated` in
    the metadata."""
    retriever = PerplexitySearchRetriever(api_key=KEY, base_url=emulator.base_url, k=2)  # type: ignore[arg-type]
    documents = retriever.invoke("cats")
    assert len(documents) == 2
    for document in documents:
        assert {"title", "url", "date", "last_updated"} <= set(document.metadata)
        assert document.page_content and document.metadata["url"].startswith("https://")


def test_embeddings_carry_over(emulator: PerplexityEmulator) -> None:
    """langchain-perplexity's embeddings: `list[float]` per text, the int8 values as sent (-128 to 127)."""
    embeddings = PerplexityEmbeddings(api_key=KEY, base_url=emulator.base_url, dimensions=128)  # type: ignore[arg-type]
    vectors = embeddings.embed_documents(["a", "b"])
    query = embeddings.embed_query("a")
    assert len(vectors) == 2 and len(query) == 128 and query == vectors[0]
    assert all(isinstance(v, float) and -128 <= v <= 127 for v in query)
    assert any(abs(v) > 1 for v in query)  # the int8 values, not unit-normalized floats


def iter_rows() -> Iterator[dict[str, str]]:
    from tests.integration_tests.migration_rows_outputs import ROWS

    yield from ROWS


def test_every_output_row_names_a_test_here_or_in_the_reader_tests() -> None:
    """Until the shared renderer's check runs over every rows module, this one keeps these rows honest."""
    import importlib

    for row in iter_rows():
        path, name = row["test"].split("::")
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        assert callable(getattr(module, name, None)), row["test"]
        assert row["now"].startswith(("carries over: ", "refused before sending: ", "warned once: ")), row
        assert set(row) == {"group", "kind", "habit", "now", "instead", "defaults", "test"}, row
