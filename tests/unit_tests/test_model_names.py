"""Sonar model names on the Agent API: mapped per Perplexity's migration table, one warning per model instance."""

from __future__ import annotations

import warnings

import pytest

from langchain_perplexity_strict import ChatPerplexityStrict


def test_sonar_names_map_to_the_agent_api_once_with_a_warning() -> None:
    llm = ChatPerplexityStrict(model="sonar-deep-research", api_key="unused")
    with pytest.warns(UserWarning, match="preset 'medium'"):
        body = llm.request_body("deep")
    assert body["preset"] == "medium"
    assert "model" not in body
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert llm.request_body("again")["preset"] == "medium"  # the second time, silently
