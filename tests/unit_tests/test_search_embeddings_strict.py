"""Search and embeddings: what is refused before anything is sent, and how (no server needed).

Each finding of a first-use review is tested in every form it takes: the
constructor and a call refuse the same values, connection settings fail at
construction, misspelt arguments get the closest name, wrong shapes are a
clear error, documented limits are checked.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.documents import Document

from langchain_perplexity_strict import (
    PerplexityContextualizedEmbeddings,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict._accepts import check_connection_setting
from langchain_perplexity_strict._embeddings._request import MAX_INPUT_TOKENS, check_texts, min_tokens
from langchain_perplexity_strict._request._filters import domains_problem, parse_date
from langchain_perplexity_strict._search._request import search_body

KEY = {"api_key": "k"}
CLASSES = [PerplexitySearchRetriever, PerplexitySearchResults, PerplexityEmbeddings, PerplexityContextualizedEmbeddings]

# -- finding 3: one strict rule for the constructor and the call --------------------------------------------

NOT_COERCED = [
    ("k", "3"),
    ("k", True),
    ("k", 3.0),
    ("max_tokens", "10"),
    ("max_tokens_per_page", True),
    ("display_server_time", "yes"),
    ("display_server_time", 1),
    ("search_mode", 1),
    ("country", "ZZ"),
    ("search_domain_filter", ["https://python.org"]),
    ("search_domain_filter", ("python.org",)),
    ("search_language_filter", ["xx"]),
    ("search_after_date_filter", "2025-03-01"),
]


@pytest.mark.parametrize(("field", "value"), NOT_COERCED)
def test_the_retriever_constructor_refuses_what_a_call_refuses(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=re.escape(f"{field}={value!r}")):
        PerplexitySearchRetriever(**KEY, **{field: value})
    retriever = PerplexitySearchRetriever(**KEY)
    with pytest.raises(ValueError, match=re.escape(f"{field}={value!r}")):
        retriever.invoke("q", **{field: value})


@pytest.mark.parametrize(("field", "value"), [(f, v) for f, v in NOT_COERCED if f != "k"] + [("max_results", "3")])
def test_the_tool_constructor_refuses_what_the_model_may_not_pass(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=field):
        PerplexitySearchResults(**KEY, **{field: value})
    if field in PerplexitySearchResults(**KEY).args:  # a per-call argument: handed back to the model, not sent
        message = PerplexitySearchResults(**KEY).invoke(
            {
                "type": "tool_call",
                "id": "c",
                "name": "perplexity_search_results_json",
                "args": {"query": "q", field: value},
            }
        )
        assert message.status == "error" and f"{field}={value!r}" in message.content


@pytest.mark.parametrize("cls", [PerplexityEmbeddings, PerplexityContextualizedEmbeddings])
@pytest.mark.parametrize(
    ("field", "value"),
    [("dimensions", "512"), ("dimensions", True), ("dimensions", 512.0), ("model", 1), ("encoding_format", 1)],
)
def test_embeddings_settings_are_not_coerced(cls: type, field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=field):
        cls(**KEY, **{field: value})


def test_embeddings_chunk_size_is_not_coerced() -> None:
    with pytest.raises(ValueError, match="chunk_size"):
        PerplexityEmbeddings(**KEY, chunk_size="5")


# -- finding 2 and 4: the Search API's documented rules ---------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        {"search_after_date_filter": "3/1/2025"},  # the date guide's own example
        {"search_after_date_filter": "03/01/2025", "search_before_date_filter": "3/1/2025"},  # same day: a range
        {"last_updated_after_filter": "1/31/2025", "last_updated_before_filter": "12/1/2025"},
        {"search_recency_filter": "week", "search_after_date_filter": "3/1/2025"},  # not refused by the Search API
        {"search_domain_filter": ["python.org", "docs.python.org/3/"]},
        {"search_domain_filter": ["-reddit.com", "-pinterest.com"]},
        {"country": "gb", "search_language_filter": ["EN", "fr"]},
    ],
)
def test_documented_search_values_are_accepted_as_given(values: dict[str, Any]) -> None:
    assert search_body({"query": "q", **values}) == {"query": "q", **values}
    PerplexitySearchRetriever(**KEY, **values)


@pytest.mark.parametrize(("after", "before"), [
    ("search_after_date_filter", "search_before_date_filter"),
    ("last_updated_after_filter", "last_updated_before_filter"),
])  # fmt: skip
def test_an_after_date_later_than_the_before_date_is_refused_in_every_path(after: str, before: str) -> None:
    fragment = rf"{after}='3/2/2025' is later than {before}='03/01/2025'"
    with pytest.raises(ValueError, match=fragment):
        search_body({"query": "q", after: "3/2/2025", before: "03/01/2025"})
    with pytest.raises(ValueError, match=fragment):
        PerplexitySearchRetriever(**KEY, **{after: "3/2/2025", before: "03/01/2025"})
    retriever = PerplexitySearchRetriever(**KEY, **{after: "3/2/2025"})  # one from the constructor, one per call
    with pytest.raises(ValueError, match=fragment):
        retriever.invoke("q", **{before: "03/01/2025"})
    tool = PerplexitySearchResults(**KEY, **{after: "3/2/2025"})
    if before in tool.args:
        message = tool.invoke({"type": "tool_call", "id": "c", "name": tool.name,
                               "args": {"query": "q", before: "03/01/2025"}})  # fmt: skip
        assert message.status == "error" and "is later than" in message.content


def test_shared_filter_rules() -> None:
    assert parse_date("3/1/2025") == parse_date("03/01/2025") is not None
    assert parse_date("2/30/2025") is None and parse_date("2025-03-01") is None and parse_date(None) is None
    assert domains_problem(["a.com"] * 20) is None
    assert "at most 20" in (domains_problem(["a.com"] * 21) or "")
    assert "without it, such as 'a.com/x'" in (domains_problem(["http://a.com/x"]) or "")


# -- finding 5: connection settings checked at construction ---------------------------------------------


BAD_CONNECTION = [
    ("timeout", -1), ("timeout", 0), ("timeout", -0.5), ("timeout", math.nan), ("timeout", math.inf),
    ("timeout", True), ("timeout", "10"),
    ("base_url", "not a url"), ("base_url", ""), ("base_url", "ftp://host"), ("base_url", "http://"),
    ("base_url", "api.perplexity.ai"), ("base_url", 3),
    ("max_retries", -1), ("max_retries", "2"), ("max_retries", True), ("max_retries", 1.5),
]  # fmt: skip


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize(("field", "value"), BAD_CONNECTION)
def test_unusable_connection_settings_fail_at_construction_naming_the_field(cls: type, field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=f"{field}="):
        cls(**KEY, **{field: value})
    with pytest.raises(ValueError, match=f"^{field}="):
        check_connection_setting(field, value)


@pytest.mark.parametrize(
    ("field", "value"),
    [("timeout", 0.5), ("timeout", 30), ("timeout", None), ("base_url", "http://127.0.0.1:8080/v1"),
     ("base_url", "https://api.perplexity.ai"), ("max_retries", 0)],
)  # fmt: skip
def test_usable_connection_settings_are_accepted(field: str, value: Any) -> None:
    check_connection_setting(field, value)
    assert getattr(PerplexityEmbeddings(**KEY, **{field: value}), field) == value


# -- finding 7 and 8: misspelt arguments, and client= ---------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "wrong", "right"),
    [
        (PerplexityEmbeddings, "dimensons", "dimensions"),
        (PerplexityContextualizedEmbeddings, "encoding", "encoding_format"),
        (PerplexitySearchRetriever, "kk", "k"),
        (PerplexitySearchRetriever, "search_recency", "search_recency_filter"),
        (PerplexitySearchResults, "max_result", "max_results"),
        (PerplexitySearchResults, "timout", "timeout"),
    ],
)
def test_a_misspelt_argument_names_the_closest_one(cls: type, wrong: str, right: str) -> None:
    with pytest.raises(ValueError, match=rf"{wrong}=3 is not an argument of {cls.__name__}\. Did you mean '{right}'\?"):
        cls(**KEY, **{wrong: 3})


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("name", ["client", "async_client"])
def test_client_is_refused_with_what_to_pass_instead(cls: type, name: str) -> None:
    with pytest.raises(
        ValueError, match=rf"\b{name} is not an argument of {cls.__name__} \(.*api_key=\.\.\., base_url="
    ):
        cls(**KEY, **{name: object()})


# -- finding 6: wrong shapes -------------------------------------------------------------------------------


def _run(call: Callable[[], Any]) -> Any:
    result = call()
    return asyncio.run(result) if asyncio.iscoroutine(result) else result


_E = PerplexityEmbeddings(**KEY)
_C = PerplexityContextualizedEmbeddings(**KEY)
WRONG_SHAPES: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("embed_documents(str)", lambda: _E.embed_documents("abc"), TypeError, r"texts='abc': expected a list of texts"),
    ("aembed_documents(str)", lambda: _E.aembed_documents("abc"), TypeError, r"texts='abc'"),
    ("embed(str)", lambda: _E.embed("abc"), TypeError, r"texts='abc'"),  # type: ignore[arg-type]
    ("aembed(str)", lambda: _E.aembed("abc"), TypeError, r"texts='abc'"),  # type: ignore[arg-type]
    ("embed_documents(bytes)", lambda: _E.embed_documents(b"abc"), TypeError, r"texts=b'abc'"),  # type: ignore[arg-type]
    ("embed_documents(dict)", lambda: _E.embed_documents({"a": 1}), TypeError, r"texts=\{"),  # type: ignore[arg-type]
    ("embed_documents([int])", lambda: _E.embed_documents([1]), TypeError, r"texts\[0\]=1: expected a string"),  # type: ignore[list-item]
    ("embed_documents([''])", lambda: _E.embed_documents([""]), ValueError, r"texts\[0\]=''"),
    ("embed_query(list)", lambda: _E.embed_query(["abc"]), TypeError, r"text=\['abc'\]: expected a string"),  # type: ignore[arg-type]
    ("aembed_query(list)", lambda: _E.aembed_query(["abc"]), TypeError, r"text=\['abc'\]"),  # type: ignore[arg-type]
    ("embed_in_context([str])", lambda: _C.embed_in_context(["abc"]), TypeError,
     r"documents\[0\]='abc': expected a list of chunk strings"),
    ("aembed_in_context([str])", lambda: _C.aembed_in_context(["abc"]), TypeError, r"documents\[0\]='abc'"),
    ("embed_in_context(str)", lambda: _C.embed_in_context("abc"), TypeError, r"documents='abc'"),
    ("embed_contexts([[...], str])", lambda: _C.embed_contexts([["a"], "bc"]), TypeError, r"documents\[1\]='bc'"),
    ("embed_in_context([[int]])", lambda: _C.embed_in_context([[1]]), TypeError, r"documents\[0\]\[0\]=1"),  # type: ignore[list-item]
    ("contextual embed_documents(str)", lambda: _C.embed_documents("abc"), TypeError, r"texts='abc'"),
    ("contextual aembed_documents(str)", lambda: _C.aembed_documents("abc"), TypeError, r"texts='abc'"),
    ("contextual embed_query(list)", lambda: _C.embed_query(["a"]), TypeError, r"text=\['a'\]"),  # type: ignore[arg-type]
    ("split_documents(Document)", lambda: _C.split_documents(Document("x"), object()), TypeError,
     r"not one Document"),  # type: ignore[arg-type]
    ("split_documents([str])", lambda: _C.split_documents(["x"], object()), TypeError,
     r"documents\[0\]='x': expected a langchain_core Document"),  # type: ignore[list-item]
    ("asplit_documents(Document)", lambda: _C.asplit_documents(Document("x"), object()), TypeError,
     r"not one Document"),  # type: ignore[arg-type]
    ("split_documents(splitter without split_*)", lambda: _C.split_documents([Document("x")], object()), TypeError,
     r"splitter=.*expected a LangChain text splitter"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "fragment"), [c[1:] for c in WRONG_SHAPES], ids=[c[0] for c in WRONG_SHAPES])
def test_a_wrong_shape_is_a_clear_error_naming_the_argument(
    call: Callable[[], Any], error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error, match=fragment):
        _run(call)


# -- finding 4: documented embeddings limits -------------------------------------------------------------------


def test_min_tokens_is_a_lower_bound_counting_word_runs() -> None:
    assert min_tokens("Hello, world!") == 2
    assert min_tokens("foo_bar 3.14 ...") == 3
    assert min_tokens("") == 0


def test_a_text_over_32k_tokens_is_refused_only_when_its_word_count_proves_it() -> None:
    check_texts(["w " * MAX_INPUT_TOKENS], "texts")  # at the limit by the lower bound: sent, Perplexity decides
    over = "w " * (MAX_INPUT_TOKENS + 1)
    with pytest.raises(ValueError, match=r"texts\[1\]: at least 32,769 tokens .* at most 32K"):
        _E.embed_documents(["short", over])
    with pytest.raises(ValueError, match=r"documents\[0\]: at least 32,769 tokens"):
        _C.embed_in_context([["w " * 20_000, "w " * (MAX_INPUT_TOKENS + 1 - 20_000)]])  # the sum of its chunks


def test_a_document_over_16000_chunks_is_refused_before_sending() -> None:
    with pytest.raises(ValueError, match=r"documents\[1\] has 16,001 chunks; Perplexity takes at most 16,000"):
        _C.embed_in_context([["a"], ["x"] * 16_001])
