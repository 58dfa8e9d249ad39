"""Search and embeddings against the emulator: LangChain's standard suites, then this package's behaviour."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from langchain.agents import create_agent
from langchain_core.documents import Document
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_tests.integration_tests import (
    EmbeddingsIntegrationTests,
    RetrieversIntegrationTests,
    ToolsIntegrationTests,
)
from langchain_text_splitters import RecursiveCharacterTextSplitter

from langchain_perplexity_strict import (
    PerplexityContextualizedEmbeddings,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import KEY, make

_emulator: PerplexityEmulator | None = None


@pytest.fixture(scope="module", autouse=True)
def _running_emulator() -> Iterator[None]:
    global _emulator
    with PerplexityEmulator(api_key=KEY) as emu:
        _emulator = emu
        yield
    _emulator = None


def _connection() -> dict[str, Any]:
    assert _emulator is not None
    return {"api_key": KEY, "base_url": _emulator.base_url}


class TestEmbeddingsStandard(EmbeddingsIntegrationTests):
    @property
    def embeddings_class(self) -> type[PerplexityEmbeddings]:
        return PerplexityEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {**_connection(), "model": "pplx-embed-v1-0.6b"}


class TestBinaryEmbeddingsStandard(TestEmbeddingsStandard):
    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {**_connection(), "encoding_format": "base64_binary", "dimensions": 256}


class TestContextualizedEmbeddingsStandard(EmbeddingsIntegrationTests):
    @property
    def embeddings_class(self) -> type[PerplexityContextualizedEmbeddings]:
        return PerplexityContextualizedEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return _connection()


class TestRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        return PerplexitySearchRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return _connection()

    @property
    def retriever_query_example(self) -> str:
        return "langchain retrievers"


class TestSearchToolStandard(ToolsIntegrationTests):
    @property
    def tool_constructor(self) -> type[BaseTool]:
        return PerplexitySearchResults

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return _connection()

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"query": ["langchain retrievers", "vector stores"], "max_results": 2, "country": "US"}


# -- retriever -----------------------------------------------------------------------------------


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def _last_body() -> Any:
    assert _emulator is not None
    return _emulator.requests[-1].body


def test_retriever_sends_every_setting_and_reads_every_result_field() -> None:
    retriever = PerplexitySearchRetriever(
        **_connection(), k=3, search_after_date="01/02/2025", search_mode="academic", display_server_time=True
    )
    docs = retriever.invoke("python release", search_type="fast")
    assert _last_body() == {
        "query": "python release", "max_results": 3, "search_after_date_filter": "01/02/2025",
        "search_mode": "academic", "search_type": "fast", "display_server_time": True,
    }  # fmt: skip
    assert len(docs) == 3
    assert set(docs[0].metadata) == {"url", "title", "date", "last_updated", "search_id", "server_time"}
    assert docs[0].metadata["search_id"].startswith("search-")
    assert "python release" in docs[0].page_content


async def test_retriever_multi_query_and_async() -> None:
    retriever = PerplexitySearchRetriever(**_connection(), k=2)
    docs = await retriever.ainvoke(["first topic", "second topic"])  # type: ignore[arg-type]
    assert [d.metadata["url"].split("/")[3] for d in docs] == ["first-topic"] * 2 + ["second-topic"] * 2


def test_bad_per_call_value_is_refused_before_sending() -> None:
    assert _emulator is not None
    retriever = PerplexitySearchRetriever(**_connection())
    before = len(_emulator.requests)
    with pytest.raises(ValueError, match=r"search_recency_filter='minute'.*hour, day, week, month, year"):
        retriever.invoke("q", search_recency_filter="minute")
    assert len(_emulator.requests) == before


def test_http_errors_are_the_chat_models() -> None:
    assert _emulator is not None
    retriever = PerplexitySearchRetriever(api_key="wrong", base_url=_emulator.base_url, max_retries=0)
    with pytest.raises(openai.AuthenticationError, match=r"Perplexity emulator search API answered HTTP 401"):
        retriever.invoke("q")
    embeddings = PerplexityEmbeddings(api_key="wrong", base_url=_emulator.base_url, max_retries=0)
    with pytest.raises(openai.AuthenticationError, match=r"Perplexity emulator embeddings API answered HTTP 401"):
        embeddings.embed_query("q")


@pytest.mark.usefixtures("quick_client_retries")
def test_rate_limits_and_server_errors_are_retried_as_for_the_chat_model() -> None:
    assert _emulator is not None
    _emulator.inject(Fault("rate_limit", seconds=0.1), Fault("server_error", status=503))
    before = len(_emulator.requests)
    assert len(PerplexitySearchRetriever(**_connection(), k=1).invoke("q")) == 1
    assert len(_emulator.requests) - before == 3
    _emulator.inject(Fault("server_error", status=502))
    assert len(PerplexityEmbeddings(**_connection(), dimensions=128).embed_query("q")) == 128
    assert len(_emulator.requests) - before == 5


# -- tool ----------------------------------------------------------------------------------------------


def test_tool_returns_text_and_the_answer_as_artifact() -> None:
    tool = PerplexitySearchResults(**_connection(), max_results=2, search_mode="web")
    message = tool.invoke({"type": "tool_call", "id": "c1", "name": tool.name, "args": {"query": "hello world"}})
    assert isinstance(message, ToolMessage)
    assert message.content.startswith("[1] hello world (1)\nURL: https://example.com/hello-world/1-1\n")
    assert message.artifact["id"].startswith("search-")
    assert [r["url"] for r in message.artifact["results"]] == [
        "https://example.com/hello-world/1-1", "https://example.com/hello-world/1-2",
    ]  # fmt: skip
    assert _last_body() == {"query": "hello world", "max_results": 2, "search_mode": "web"}


def test_tool_hands_a_bad_argument_back_to_the_model() -> None:
    tool = PerplexitySearchResults(**_connection())
    message = tool.invoke(
        {"type": "tool_call", "id": "c2", "name": tool.name, "args": {"query": "q", "country": "USA"}}
    )
    assert message.status == "error"
    assert "country='USA'" in message.content and "ISO 3166-1 alpha-2" in message.content


def test_tool_in_create_agent_with_this_packages_model() -> None:
    assert _emulator is not None
    tool = PerplexitySearchResults(**_connection())
    agent = create_agent(make(_emulator, web_search=False), tools=[tool])
    prompt = (
        'Find 3 results with perplexity_search_results_json: query "python 3.13 release", country "US", '
        'domain "python.org", after "01/01/2024", before "12/31/2025", language "en"'
    )
    result = agent.invoke({"messages": [HumanMessage(prompt)]})
    tool_messages = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert len(tool_messages) == 1 and tool_messages[0].status == "success"
    assert tool_messages[0].artifact["results"][0]["url"] == "https://example.com/python-3-13-release/1-1"
    assert "[1] python 3.13 release (1)" in tool_messages[0].content
    assert result["messages"][-1].content


# -- embeddings -------------------------------------------------------------------------------------


def test_shared_words_are_nearer_in_both_encodings() -> None:
    for encoding in ("base64_int8", "base64_binary"):
        embeddings = PerplexityEmbeddings(**_connection(), encoding_format=encoding)
        cat, kitten, stocks = embeddings.embed_documents(["the cat sat", "the cat slept", "stocks fell sharply"])
        assert _cosine(cat, kitten) > _cosine(cat, stocks)
        assert len(cat) == 2560


def test_int8_values_are_the_signed_bytes_sent() -> None:
    vector = PerplexityEmbeddings(**_connection(), dimensions=128).embed_query("scale check")
    assert len(vector) == 128 and all(-128.0 <= v <= 127.0 and v == int(v) for v in vector)
    assert max(abs(v) for v in vector) > 1.0  # not rescaled to [-1, 1]


def test_batches_keep_order_and_sum_usage() -> None:
    assert _emulator is not None
    texts = [f"text number {n}" for n in range(1100)]
    embeddings = PerplexityEmbeddings(**_connection(), dimensions=128)
    before = len(_emulator.requests)
    result = embeddings.embed(texts)
    # Up to max_concurrency requests are in flight at once, so they arrive in any order; the vectors keep it.
    assert sorted(len(r.body["input"]) for r in _emulator.requests[before:]) == [76, 512, 512]
    assert result.requests == 3 and len(result.vectors) == 1100
    assert result.vectors[700] == embeddings.embed_query("text number 700")
    assert result.usage["prompt_tokens"] == 3 * 1100
    assert result.usage["cost"]["currency"] == "USD" and result.usage["cost"]["total_cost"] > 0


async def test_async_batches_keep_order() -> None:
    embeddings = PerplexityEmbeddings(**_connection(), dimensions=128, chunk_size=7)
    texts = [f"async text {n}" for n in range(50)]
    vectors = await embeddings.aembed_documents(texts)
    assert vectors == embeddings.embed_documents(texts)
    assert (await embeddings.aembed([])).vectors == []


def test_contextualized_chunks_know_their_document() -> None:
    embeddings = PerplexityContextualizedEmbeddings(**_connection(), model="pplx-embed-context-v1-0.6b")
    in_cats, in_stocks = embeddings.embed_in_context([["the report", "cats purr"], ["the report", "stocks fell"]])
    assert len(in_cats) == 2 and len(in_cats[0]) == 1024
    assert in_cats[0] != in_stocks[0]  # the same chunk, different documents
    result = embeddings.embed_contexts([["a"], ["b", "c"]])
    assert [len(d) for d in result.vectors] == [1, 2] and result.usage["prompt_tokens"] == 3
    with pytest.raises(ValueError, match=r"documents\[1\]=\[\]"):
        embeddings.embed_in_context([["a"], []])


def test_text_splitter_output_indexes_in_context() -> None:
    embeddings = PerplexityContextualizedEmbeddings(**_connection())
    documents = [
        Document("Cats purr when content. Cats sleep most of the day in the sun.", metadata={"source": "cats"}),
        Document("Stocks fell today. Bond yields rose and markets were volatile.", metadata={"source": "markets"}),
    ]
    splitter = RecursiveCharacterTextSplitter(chunk_size=30, chunk_overlap=0)
    chunks = embeddings.split_documents(documents, splitter)
    assert len(chunks) > 2 and {c.metadata["source"] for c in chunks} == {"cats", "markets"}
    in_context = embeddings.embed_in_context([[c.page_content for c in chunks if c.metadata["source"] == "cats"]])
    store = InMemoryVectorStore(embeddings)
    store.add_documents(chunks)
    cat_vectors = [v["vector"] for v in store.store.values() if v["metadata"]["source"] == "cats"]
    assert cat_vectors == in_context[0]  # the store got the in-context vectors, not one-chunk ones
    assert store.similarity_search("why do cats sleep", k=1)[0].metadata["source"] == "cats"
