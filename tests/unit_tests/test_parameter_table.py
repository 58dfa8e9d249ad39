"""The parameter table, without I/O."""

from __future__ import annotations

import pytest

from langchain_perplexity_strict._request._model_arguments import call_arguments
from langchain_perplexity_strict._request._parameter_row import place
from langchain_perplexity_strict._request._parameter_table import (
    CLIENT,
    PARAMETERS,
    PerplexityParameters,
    check_parameters,
)


def test_every_parameter_has_a_place_on_some_surface_and_a_description() -> None:
    for name, parameter in PARAMETERS.items():
        assert parameter.agent is not None or parameter.chat is not None, name
        assert parameter.accepted, name


# Options of the client itself, not of Perplexity: they have no table row and are never sent.
CLIENT_OPTIONS = {
    "api_key", "base_url", "streaming", "timeout", "max_retries", "model_kwargs",
    "max_input_tokens", "token_counter", "rules", "raise_on_length",
}  # fmt: skip


def test_every_setting_is_a_parameter_with_its_row_or_a_client_option() -> None:
    """The table is read from the fields: a new field without its `Parameter` would not be sent; caught here."""
    fields = set(PerplexityParameters.model_fields)
    assert fields - set(PARAMETERS) == CLIENT_OPTIONS
    assert set(PARAMETERS) <= fields
    assert PARAMETERS["search_after_date_filter"].agent == "web_search.filters.search_after_date_filter"


@pytest.mark.parametrize("name", sorted(n for n, p in PARAMETERS.items() if p.agent not in (None, CLIENT)))
def test_agent_paths_are_published_fields(name: str) -> None:
    """Each Agent API path starts with a ResponsesRequestInput field or the web_search tool."""
    from perplexity.generated import api

    top = PARAMETERS[name].agent.split(".")[0]  # type: ignore[union-attr]
    assert top == "web_search" or top in api.ResponsesRequestInput.model_fields, top


def test_place_builds_nested_objects() -> None:
    body: dict[str, object] = {}
    place(body, "reasoning.effort", "low")
    place(body, "web_search_options.user_location", {"city": "Paris"})
    assert body == {"reasoning": {"effort": "low"}, "web_search_options": {"user_location": {"city": "Paris"}}}


@pytest.mark.parametrize(
    ("values", "api", "fragment"),
    [
        ({"temperature": 2}, "chat_completions", "temperature=2 is not accepted on api='chat_completions'"),
        ({"top_k": 3}, "agent", "top_k=3 is not available on api='agent'"),
        ({"reasoning_effort": "max"}, "agent", "expected one of none, minimal"),
        ({"search_recency_filter": "day", "search_after_date_filter": "01/01/2025"}, "agent", "not both"),
        ({"use_previous_response_id": True}, "chat_completions", "True only on api='agent'"),
    ],
)
def test_check_names_the_field_the_value_and_what_is_accepted(values: dict, api: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        check_parameters(values, api)  # type: ignore[arg-type]


def test_call_arguments_split_and_refuse_unknown() -> None:
    call, params = call_arguments({"tools": [1], "temperature": 0.1, "ls_structured_output_format": {}}, "agent")
    assert call == {"tools": [1]} and params == {"temperature": 0.1}
    with pytest.raises(ValueError, match=r"temprature=0\.1 is not a parameter"):
        call_arguments({"temprature": 0.1}, "agent")
    with pytest.raises(ValueError, match="has no max_results"):  # another integration's name: its own entry
        call_arguments({"max_search_results": 5}, "agent")


def test_the_published_fields_model_kwargs_is_checked_against_are_the_sdks() -> None:
    """`PUBLISHED_FIELDS` is written out (the SDK is not a runtime dependency); here it meets Perplexity's models."""
    from perplexity.generated import api

    from langchain_perplexity_strict._request._parameter_table import PUBLISHED_FIELDS

    assert PUBLISHED_FIELDS["agent"] == set(api.ResponsesRequestInput.model_fields)
    assert PUBLISHED_FIELDS["chat_completions"] == set(api.ApiChatCompletionsRequestInput.model_fields)
