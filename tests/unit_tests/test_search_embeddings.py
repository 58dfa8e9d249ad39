"""Search and embeddings without a server: LangChain's standard unit suites, decoding, batching, checks."""

from __future__ import annotations

import base64
import random
from typing import Any

import pytest
from langchain_core.tools import BaseTool
from langchain_tests.unit_tests import EmbeddingsUnitTests, ToolsUnitTests

from langchain_perplexity_strict import (
    PerplexityContextualizedEmbeddings,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict._embeddings._request import batches, decode_binary, decode_int8, text_cost
from langchain_perplexity_strict._search._request import search_body, to_documents, to_text

ENV = ({"PPLX_API_KEY": "env-key"}, {}, {"api_key": "env-key"})


class TestEmbeddingsUnit(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[PerplexityEmbeddings]:
        return PerplexityEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {"api_key": "test-key", "model": "pplx-embed-v1-0.6b"}

    @property
    def init_from_env_params(self) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
        return ENV


class TestContextualizedEmbeddingsUnit(TestEmbeddingsUnit):
    @property
    def embeddings_class(self) -> type[PerplexityContextualizedEmbeddings]:  # type: ignore[override]
        return PerplexityContextualizedEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {"api_key": "test-key", "model": "pplx-embed-context-v1-0.6b"}


class TestSearchToolUnit(ToolsUnitTests):
    @property
    def tool_constructor(self) -> type[BaseTool]:
        return PerplexitySearchResults

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {"api_key": "test-key", "max_results": 3}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"query": "langchain retrievers", "max_results": 2, "search_recency_filter": "week"}

    @property
    def init_from_env_params(self) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
        return ENV


# -- decoding: the published encodings, checked against numpy on random bytes --------------------
# (numpy is imported by these two tests, not by the module: each xdist worker imports every module to collect it)


@pytest.mark.parametrize("size", [1, 2, 128, 1024, 2560])
def test_int8_decodes_as_numpy_does(size: int) -> None:
    import numpy as np

    raw = bytes(random.Random(size).randrange(256) for _ in range(size))
    decoded = decode_int8(base64.b64encode(raw).decode())
    assert decoded == np.frombuffer(raw, dtype=np.int8).astype(float).tolist()
    assert all(isinstance(v, float) for v in decoded)


def test_binary_is_lsb_first_plus_minus_one() -> None:
    import numpy as np

    raw = bytes(random.Random(7).randrange(256) for _ in range(32))
    bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
    assert decode_binary(base64.b64encode(raw).decode()) == [1.0 if b else -1.0 for b in bits]
    assert decode_binary(base64.b64encode(b"\x01").decode()) == [1.0] + [-1.0] * 7
    assert len(decode_binary(base64.b64encode(raw).decode(), dimensions=250)) == 250


@pytest.mark.parametrize("bad", ["not base64!", 12, None])
def test_a_malformed_embedding_is_a_clear_error(bad: Any) -> None:
    from langchain_perplexity_strict.errors import PerplexityResponseError

    with pytest.raises(PerplexityResponseError, match="embedding"):
        decode_int8(bad)


# -- batching within the documented limits ----------------------------------------------------------


def test_batches_respect_count_cost_and_chunks_and_keep_order() -> None:
    costs = [10] * 1100
    groups = batches(costs, 512, 10**9)
    assert [len(g) for g in groups] == [512, 512, 76]
    assert [i for g in groups for i in g] == list(range(1100))
    assert [len(g) for g in batches([60_000, 60_000, 1], 512, 120_000)] == [2, 1]
    assert [len(g) for g in batches([200_000, 1], 512, 120_000)] == [1, 1]  # alone, the API decides
    assert [len(g) for g in batches([1, 1, 1], 512, 10**9, [9_000, 9_000, 1], 16_000)] == [1, 2]
    assert batches([], 512, 120_000) == []


def test_text_cost_bounds_tokens_by_bytes() -> None:
    assert text_cost("abc") == 5
    assert text_cost("é") == 4


# -- construction and request checks --------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"model": "pplx-embed-context-v1-4b"}, "PerplexityContextualizedEmbeddings"),
        ({"model": "text-embedding-3-small"}, "Accepted: pplx-embed-v1-0.6b, pplx-embed-v1-4b"),
        ({"model": "pplx-embed-v1-0.6b", "dimensions": 2048}, "from 128 to 1024"),
        ({"dimensions": 64}, "from 128 to 2560"),
        ({"encoding_format": "float"}, "encoding_format"),
        ({"chunk_size": 513}, "chunk_size"),
        ({"unknown": 1}, "unknown"),
    ],
)
def test_embeddings_settings_are_checked(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        PerplexityEmbeddings(api_key="k", **kwargs)


def test_no_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PPLX_API_KEY", raising=False)
    monkeypatch.delenv("PERPLEXITY_API_KEY", raising=False)
    for cls in (PerplexityEmbeddings, PerplexitySearchRetriever, PerplexitySearchResults):
        with pytest.raises(ValueError, match="api_key: no key given"):
            cls()


def test_langchain_perplexity_argument_names_still_work() -> None:
    retriever = PerplexitySearchRetriever(
        pplx_api_key="k", search_after_date="01/02/2025", search_before_date="02/03/2025", request_timeout=5
    )
    assert retriever.search_after_date_filter == "01/02/2025"
    assert retriever.search_before_date_filter == "02/03/2025"
    assert retriever.timeout == 5
    assert PerplexitySearchRetriever(api_key="k", max_results=4).k == 4
    assert PerplexityEmbeddings(pplx_api_key="k").api_key.get_secret_value() == "k"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("query", "", "query=''"),
        ("query", ["a"] * 6, "1 to 5"),
        ("max_results", 0, "from 1 to 20"),
        ("max_results", True, "from 1 to 20"),
        ("max_tokens", 2_000_000, "1,000,000"),
        ("country", "USA", "ISO 3166-1 alpha-2"),
        ("country", "ZZ", "ISO 3166-1 alpha-2"),
        ("country", 1, "ISO 3166-1 alpha-2"),
        (
            "search_domain_filter",
            ["https://python.org"],
            "has a protocol; give the domain without it, such as 'python.org'",
        ),
        ("search_domain_filter", ["-http://x.com"], "has a protocol"),
        ("search_domain_filter", ["python.org", "-x.com"], "mixes included and excluded"),
        ("search_domain_filter", ["-"], "is empty"),
        ("search_domain_filter", "python.org", "a list of domain strings"),
        ("search_language_filter", ["xx"], "ISO 639-1"),
        ("search_language_filter", ["en"] * 21, "at most 20"),
        ("search_domain_filter", ["a.com"] * 21, "at most 20"),
        ("search_language_filter", ["english"], "ISO 639-1"),
        ("search_recency_filter", "minute", "hour, day, week, month, year"),
        ("search_after_date_filter", "2025-01-02", "M/D/YYYY or MM/DD/YYYY"),
        ("last_updated_before_filter", "02/30/2025", "M/D/YYYY or MM/DD/YYYY"),
        ("search_before_date_filter", 20250101, "M/D/YYYY or MM/DD/YYYY"),
        ("search_mode", "news", "web, academic, sec"),
        ("search_type", "pro", "web, fast, people"),
        ("search_context_size", "huge", "low, medium, high"),
        ("display_server_time", "yes", "True or False"),
        ("search_after", "01/01/2025", "not a Search API field"),
    ],
)
def test_search_values_are_checked_with_field_value_and_accepted(field: str, value: Any, fragment: str) -> None:
    values = {"query": "q", field: value}
    with pytest.raises(ValueError, match=fragment) as caught:
        search_body(values)
    assert field in str(caught.value)


def test_search_body_maps_old_names_and_copies_lists() -> None:
    domains = ["python.org"]
    body = search_body({"query": "q", "search_after_date": "01/02/2025", "search_domain_filter": domains})
    assert body == {"query": "q", "search_after_date_filter": "01/02/2025", "search_domain_filter": domains}
    body["search_domain_filter"].append("x.org")
    assert domains == ["python.org"]


def test_documents_and_text_from_an_answer() -> None:
    answer = {
        "id": "s1",
        "server_time": "now",
        "results": [
            {"title": "T", "url": "https://a", "snippet": "S", "date": "2025-01-01", "last_updated": None},
            {"title": "U", "url": "https://b", "snippet": "R"},
        ],
    }
    docs = to_documents(answer)
    assert [d.page_content for d in docs] == ["S", "R"]
    assert docs[0].metadata == {
        "url": "https://a", "title": "T", "date": "2025-01-01", "last_updated": None, "search_id": "s1",
        "server_time": "now",
    }  # fmt: skip
    assert to_text(answer) == "[1] T\nURL: https://a\nPublished 2025-01-01\nS\n\n[2] U\nURL: https://b\nR"
    grouped = {"id": "s2", "results": [[answer["results"][0]], [answer["results"][1]]]}
    assert [d.metadata["url"] for d in to_documents(grouped)] == ["https://a", "https://b"]
