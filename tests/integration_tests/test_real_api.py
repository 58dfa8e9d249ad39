"""Against the real Perplexity API: runs only when a key is set, the base URL is Perplexity's and the
server there does not say it is the emulator (so the emulator's answers are never taken for live ones)."""

from __future__ import annotations

import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.cli._which_server import why_not_perplexity

NOT_LIVE = why_not_perplexity()
pytestmark = [
    pytest.mark.real_api,
    pytest.mark.skipif(NOT_LIVE is not None, reason=f"not Perplexity's live API: {NOT_LIVE}"),
]

MESSY = [
    SystemMessage("Answer in one sentence."),
    AIMessage("Hi! What would you like to know?"),
    HumanMessage("What is the capital of France?"),
    HumanMessage("And its population?"),
    SystemMessage("Cite a source."),
]


def test_agent_api_invoke_and_stream() -> None:
    model = ChatPerplexityStrict(max_tokens=256)
    answer = model.invoke(MESSY)
    assert answer.content
    assert answer.usage_metadata and answer.usage_metadata["total_tokens"] > 0
    assert answer.response_metadata["model_provider"] == "perplexity"
    full = None
    for chunk in model.stream(MESSY):
        full = chunk if full is None else full + chunk
    assert full is not None and full.content


def test_chat_completions_answers_or_says_it_ended() -> None:
    model = ChatPerplexityStrict(api="chat_completions", model="sonar", max_tokens=256)
    try:
        answer = model.invoke(MESSY)
    except openai.PermissionDeniedError as error:
        assert "api='agent'" in str(error)
    else:
        assert answer.content
