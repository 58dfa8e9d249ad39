"""Sonar model names on the Agent API: mapped per Perplexity's migration table, with one warning per name."""

from __future__ import annotations

import warnings

import pytest

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict._request import _model_names


def test_sonar_names_map_to_the_agent_api_once_with_a_warning() -> None:
    # The warning is once per process; another test in this worker may have spent it already.
    _model_names._warned.discard("sonar-deep-research")
    llm = ChatPerplexityStrict(model="sonar-deep-research", api_key="unused")
    with pytest.warns(UserWarning, match="preset 'medium'"):
        body = llm.request_body("deep")
    assert body["preset"] == "medium"
    assert "model" not in body
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert llm.request_body("again")["preset"] == "medium"  # the second time, silently
