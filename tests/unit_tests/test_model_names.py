"""Sonar model names on the Agent API: mapped per Perplexity's migration table, one warning per model instance."""

from __future__ import annotations

import warnings

import pytest

from langchain_perplexity_strict import ChatPerplexityStrict


def test_sonar_names_map_to_the_agent_api_once_with_a_warning() -> None:
    llm = ChatPerplexityStrict(model="sonar-deep-research", api_key="unused")
    with pytest.warns(UserWarning, match="effort 'medium'"):
        body = llm.request_body("deep")
    assert body["effort"] == "medium"  # the table's preset, under the name Perplexity now gives it
    assert "model" not in body and "preset" not in body
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert llm.request_body("again")["effort"] == "medium"  # the second time, silently


def test_an_agent_api_slug_with_a_sonar_twin_goes_to_chat_completions_as_its_sonar_name() -> None:
    llm = ChatPerplexityStrict(api="chat_completions", model="perplexity/sonar", api_key="unused")
    with pytest.warns(UserWarning, match="sent as 'sonar'"):
        assert llm.request_body("hi")["model"] == "sonar"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert llm.request_body("again")["model"] == "sonar"


@pytest.mark.parametrize("model", ["openai/gpt-5.1", "anthropic/claude-sonnet-4-5", "perplexity/sonar-pro"])
@pytest.mark.parametrize("how", ["request_body", "bind", "stream"])
def test_other_agent_api_slugs_are_refused_on_chat_completions_before_sending(model: str, how: str) -> None:
    llm = ChatPerplexityStrict(api="chat_completions", model=model, api_key="unused", base_url="http://127.0.0.1:9")
    with pytest.raises(ValueError, match=rf"model='{model}' is an Agent API model slug.*api='agent'"):
        if how == "request_body":
            llm.request_body("hi")
        elif how == "bind":
            llm.bind(temperature=0.5).invoke("hi")
        else:
            list(llm.stream("hi"))


@pytest.mark.parametrize("model", ["sonar", "sonar-pro", "sonar-deep-research", "my-gateway-model"])
def test_sonar_and_gateway_names_go_to_chat_completions_as_given(model: str) -> None:
    llm = ChatPerplexityStrict(api="chat_completions", model=model, api_key="unused")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert llm.request_body("hi")["model"] == model
