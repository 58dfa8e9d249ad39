"""MCP approvals in a history survive normalization in every form an app holds them, and go out as input items."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from langchain_perplexity_strict import ChatPerplexityStrict, normalize_messages
from tests import published_schema

REQUEST = {"type": "mcp_approval_request", "id": "mcpr_1", "name": "search", "arguments": '{"q": "x"}',
           "server_label": "docs"}  # fmt: skip
RESPONSE = {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}
SERVER_BLOCKS = [
    {"type": "server_tool_call", "id": "search_results_0", "name": "web_search", "args": {"queries": ["x"]}},
    {"type": "server_tool_result", "tool_call_id": "search_results_0", "status": "success", "output": {}},
    {"type": "non_standard", "value": {"type": "skill_loaded", "name": "office"}},
]
ANSWERS = {
    # How an app holds an answer that waits for approval.
    "v0": AIMessage("", additional_kwargs={"mcp_approval_request": [REQUEST]}),
    "v1": AIMessage(
        [*SERVER_BLOCKS, {"type": "non_standard", "value": REQUEST}, {"type": "text", "text": ""}],
        response_metadata={"output_version": "v1"},
    ),
    "chatopenai-responses": AIMessage([REQUEST]),  # ChatOpenAI's Responses answers keep the item itself
    "with-text": AIMessage("Let me check the docs.", additional_kwargs={"mcp_approval_request": [REQUEST]}),
}
REPLIES = {
    "bare": HumanMessage([RESPONSE]),  # type: ignore[list-item]
    "non_standard": HumanMessage([{"type": "non_standard", "value": RESPONSE}]),  # type: ignore[list-item]
}


def conversation(answer: str, reply: str) -> list[BaseMessage]:
    return [HumanMessage("search the docs"), ANSWERS[answer], REPLIES[reply]]


@pytest.mark.parametrize("reply", sorted(REPLIES))
@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_the_normalizer_keeps_requests_and_responses(answer: str, reply: str) -> None:
    result = normalize_messages(conversation(answer, reply))
    assert len(result.messages) == 3
    assert result.messages[1].additional_kwargs["mcp_approval_request"] == [REQUEST]
    assert RESPONSE in result.messages[2].content
    assert not [c for c in result.changes if "server_tool" in str(c) or "non_standard" in str(c)]


@pytest.mark.parametrize("reply", sorted(REPLIES))
@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_the_body_sends_the_request_then_the_response(answer: str, reply: str) -> None:
    llm = ChatPerplexityStrict(api_key="k", base_url="http://127.0.0.1:9")  # type: ignore[arg-type]
    body = llm.request_body(conversation(answer, reply))
    published_schema.agent_request(body)
    text: list[dict[str, Any]] = (
        [{"role": "assistant", "content": ANSWERS[answer].text}] if answer == "with-text" else []
    )
    assert body["input"] == [{"role": "user", "content": "search the docs"}, *text, REQUEST, RESPONSE]


def test_the_callers_messages_are_not_changed() -> None:
    messages = conversation("v1", "bare")
    before = [m.model_dump() for m in messages]
    normalize_messages(messages)
    assert [m.model_dump() for m in messages] == before
