"""Issue 27, item 1: one mechanism checks every setting, wherever it comes from.

Each setting's rule is a strict pydantic type with the words a refusal shows
(`_accepts.Accepts`, its `TypeAdapter` built once). The forms covered here:

- the chat model's parameter table (`PARAMETERS`): every row has its rule on each
  surface, the per-surface ones (temperature, reasoning_effort, search_type,
  use_previous_response_id) differ there; the constructor and a call's check
  (`check_parameters`, also behind bind, bind_tools, configurable_fields,
  model_copy and init_chat_model, see test_one_setting_every_path.py) refuse a
  value with the same message, with no coercion;
- the Search API's fields (`FIELDS`, read from `SearchFilters`): every published
  `ApiSearchRequestInput` field has its rule; the retriever's and the tool's
  constructors and a call's body (`search_body`) refuse alike;
- the caller's value is validated, never converted or kept in a converted form;
- `max_retries` of every class, and the chat model's `max_input_tokens`, by the same rules;
- both embeddings classes' `dimensions`, `encoding_format` and `model` (which models a class serves,
  and their sizes, stay a rule of the class: they depend on each other).

The connection settings (`api_key`, `base_url`, `timeout` with `max_retries`) are `Accepts` rules too
(`_accepts.CONNECTION`), on every class and path: test_connection_settings_every_path.py. The built-in
tool shapes are pydantic's own schemas (test_builtin_tools_shapes.py). Not covered by this mechanism:
the embeddings classes' served-model and per-model dimension range (one rule over two settings).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from perplexity.generated import api as published

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict._accepts import Accepts
from langchain_perplexity_strict._request._parameter_table import PARAMETERS, check_parameters
from langchain_perplexity_strict._search._request import FIELDS, search_body

KEY = {"api_key": "pplx-test"}


def test_every_parameter_has_its_rule_on_both_surfaces() -> None:
    for name, parameter in PARAMETERS.items():
        for surface in ("agent", "chat_completions"):
            assert isinstance(parameter.accepts(surface), Accepts), (name, surface)  # type: ignore[arg-type]


def test_every_published_search_field_has_its_rule() -> None:
    assert set(FIELDS) == set(published.ApiSearchRequestInput.model_fields)
    assert all(isinstance(rule, Accepts) for rule in FIELDS.values())


# (surface, parameter, value, fragment): a value pydantic would coerce, or one a surface alone refuses.
REFUSED = [
    ("agent", "temperature", "0.5", "expected a number in [0, 2]"),
    ("agent", "temperature", True, "expected a number in [0, 2]"),
    ("chat_completions", "temperature", 2, "[0, 2) (chat_completions)"),
    ("agent", "max_tokens", 5.0, "expected an integer >= 1"),
    ("agent", "store", "yes", "expected True or False"),
    ("agent", "n", True, "expected an integer >= 1"),
    ("agent", "top_p", 1.5, "expected a number in [0, 1]"),
    ("agent", "stream_chunk_timeout", float("nan"), "expected a number of seconds >= 0"),
    ("agent", "max_resumes", -1, "expected an integer >= 0"),
    ("chat_completions", "use_previous_response_id", True, "True only on api='agent'"),
    ("chat_completions", "reasoning_effort", "none", "or minimal, low, medium, high (chat_completions)"),
    ("agent", "reasoning_effort", "extreme", "one of none, minimal"),
    ("chat_completions", "search_type", "web", "fast, pro or auto (chat_completions)"),
    ("agent", "search_type", "pro", "web or fast (agent)"),
    ("agent", "user_location", {"latitude": 91}, "latitude in [-90, 90]"),
    ("agent", "user_location", {"town": "Paris"}, "a dict with some of city"),
    ("agent", "user_location", {"city": 3}, "a dict with some of city"),
    ("agent", "models", [], "a list of 1 to 5 model slugs"),
    ("agent", "models", ["a"] * 6, "a list of 1 to 5 model slugs"),
    ("agent", "stop", [""], "a list of non-empty strings"),
    ("agent", "stop", ("a",), "a list of non-empty strings"),
    ("chat_completions", "frequency_penalty", 0, "a number > 0"),
    ("chat_completions", "presence_penalty", "1", "a number in [-2, 2]"),
    ("chat_completions", "top_k", 2049, "an integer in [0, 2048]"),
    ("agent", "search_after_date_filter", "2025-03-01", "a date as M/D/YYYY"),
    ("agent", "search_domain_filter", ["https://a.com"], "has a protocol"),
    ("agent", "search_recency_filter", "decade", "one of hour, day"),
    ("agent", "max_steps", 101, "an integer in [1, 100]"),
    ("agent", "language_preference", "", "a language name or code"),
    ("agent", "skills", [{"type": "nonsense"}], "a list of skills"),
    ("agent", "service_tier", "gold", "one of auto, default"),
]


@pytest.mark.parametrize(("surface", "name", "value", "fragment"), REFUSED)
def test_the_constructor_and_a_call_refuse_a_value_with_the_same_message(
    surface: str, name: str, value: Any, fragment: str
) -> None:
    with pytest.raises(ValueError) as at_call:
        check_parameters({name: value}, surface)  # type: ignore[arg-type]
    message = str(at_call.value)
    assert message.startswith(f"{name}=") and fragment in message, message
    with pytest.raises(ValueError) as at_construction:
        ChatPerplexityStrict(**KEY, api=surface, **{name: value})
    assert message in str(at_construction.value)


@pytest.mark.parametrize(
    ("surface", "name", "value"),
    [
        ("agent", "temperature", 2),
        ("chat_completions", "temperature", 1),
        ("agent", "temperature", 0),
        ("agent", "reasoning_effort", "xhigh"),
        ("chat_completions", "search_type", "pro"),
        ("agent", "user_location", {"city": "Paris", "latitude": 48.85, "longitude": 2}),
        ("agent", "stop", "END"),
        ("agent", "stream_chunk_timeout", 0),
        ("chat_completions", "frequency_penalty", 1.5),
        ("agent", "search_domain_filter", ["-a.com", "-b.org"]),
    ],
)
def test_an_accepted_value_is_kept_as_given(surface: str, name: str, value: Any) -> None:
    """An accepted value is kept as it was given (a number field keeps an int as its float, as `ChatOpenAI`'s)."""
    given = repr(value)
    check_parameters({name: value}, surface)  # type: ignore[arg-type]
    model = ChatPerplexityStrict(**KEY, api=surface, **{name: value})
    assert getattr(model, name) == value and repr(value) == given


SEARCH_REFUSED = [
    ("max_tokens", "10", "an integer from 1 to 1,000,000"),
    ("max_tokens_per_page", 0, "an integer from 1 to 1,000,000"),
    ("display_server_time", 1, "True or False"),
    ("country", "USA", "ISO 3166-1 alpha-2"),
    ("search_language_filter", ["en"] * 21, "at most 20 ISO 639-1"),
    ("search_language_filter", ["english"], "ISO 639-1"),
    ("search_domain_filter", ["a.com", "-b.com"], "mixes included and excluded"),
    ("search_recency_filter", "decade", "one of hour, day, week, month, year"),
    ("last_updated_before_filter", "13/01/2025", "M/D/YYYY"),
    ("search_mode", "news", "one of web, academic, sec"),
    ("search_context_size", True, "one of low, medium, high"),
    ("search_type", "pro", "one of web, fast, people"),
]


@pytest.mark.parametrize(("name", "value", "fragment"), SEARCH_REFUSED)
@pytest.mark.parametrize("owner", [PerplexitySearchRetriever, PerplexitySearchResults])
def test_a_search_field_is_refused_alike_by_the_constructors_and_a_call(
    owner: type, name: str, value: Any, fragment: str
) -> None:
    with pytest.raises(ValueError) as at_call:
        search_body({"query": "q", name: value})
    message = str(at_call.value)
    assert message.startswith(f"{name}=") and "Search API" in message and fragment in message, message
    with pytest.raises(ValueError) as at_construction:
        owner(**KEY, **{name: value})
    assert message in str(at_construction.value)


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ({"query": ""}, "a non-empty string, or a list of 1 to 5"),
        ({"query": ["a"] * 6}, "a list of 1 to 5"),
        ({"query": "q", "max_results": 21}, "an integer from 1 to 20"),
        ({"query": "q", "max_results": 2.0}, "an integer from 1 to 20"),
    ],
)
def test_the_query_and_its_result_count_are_checked_by_the_same_rules(values: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValueError, match="Search API") as refused:
        search_body(values)
    assert fragment in str(refused.value)


def test_a_search_filter_list_stays_the_callers() -> None:
    domains = ["a.com", "b.org"]
    retriever = PerplexitySearchRetriever(**KEY, search_domain_filter=domains)
    body = search_body({"query": "q", "search_domain_filter": domains})
    assert domains == ["a.com", "b.org"] and retriever.search_domain_filter == domains
    assert body["search_domain_filter"] is not domains


@pytest.mark.parametrize("value", ["3", True, -1, 2.0])
@pytest.mark.parametrize(
    "owner",
    [
        ChatPerplexityStrict,
        PerplexitySearchRetriever,
        PerplexitySearchResults,
        PerplexityEmbeddings,
        PerplexityContextualizedEmbeddings,
    ],
)
def test_max_retries_is_refused_alike_by_every_class(owner: type, value: Any) -> None:
    """One rule for `max_retries`: the chat model took `"3"` and `True` (as 3 and 1) where the others refused."""
    with pytest.raises(ValueError, match=re.escape(f"max_retries={value!r}: expected an integer >= 0.")):
        owner(**KEY, max_retries=value)


@pytest.mark.parametrize("value", ["9", 9.0, -1])
def test_the_chat_models_token_budget_is_not_coerced(value: Any) -> None:
    with pytest.raises(ValueError, match=re.escape(f"max_input_tokens={value!r}: expected an integer >= 0")):
        ChatPerplexityStrict(**KEY, max_input_tokens=value)


@pytest.mark.parametrize(
    ("name", "value", "fragment"),
    [
        ("dimensions", "512", "dimensions='512': expected an integer (128 up to the model's full size) or None."),
        ("dimensions", True, "dimensions=True: expected an integer"),
        ("encoding_format", "float", "encoding_format='float': expected one of base64_int8, base64_binary."),
        ("encoding_format", 3, "encoding_format=3: expected one of base64_int8, base64_binary."),
        ("model", 3, "model=3: expected a string."),
    ],
)
@pytest.mark.parametrize("owner", [PerplexityEmbeddings, PerplexityContextualizedEmbeddings])
def test_an_embeddings_setting_is_refused_by_its_rule(owner: type, name: str, value: Any, fragment: str) -> None:
    with pytest.raises(ValueError, match=re.escape(fragment)):
        owner(**KEY, **{name: value})
