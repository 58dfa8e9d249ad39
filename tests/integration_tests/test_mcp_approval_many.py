"""Several pending MCP approvals answered at once: approval responses in a row are one user turn."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import Command

from langchain_perplexity_strict import mcp_tool
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import make
from tests.integration_tests.test_mcp_approval import approval_requests, build_graph

SERVERS = [mcp_tool("docs", "https://mcp.example.com", require_approval="always"),
           mcp_tool("wiki", "https://wiki.example.com", require_approval="always")]  # fmt: skip
QUESTION = "search the docs for the release date"


def responses(requests: list[dict[str, Any]], decisions: list[bool]) -> list[dict[str, Any]]:
    return [{"type": "mcp_approval_response", "approval_request_id": r["id"], "approve": d}
            for r, d in zip(requests, decisions, strict=True)]  # fmt: skip


@pytest.mark.parametrize("decisions", [[True, True], [False, False], [True, False]], ids=["all", "none", "mixed"])
@pytest.mark.parametrize("messages", ["one", "two"])
@pytest.mark.parametrize("continued", [False, True])
def test_two_pending_approvals_answered_together(
    emu: PerplexityEmulator, decisions: list[bool], messages: str, continued: bool
) -> None:
    llm = make(emu, output_version="v1", use_previous_response_id=continued).bind_tools(SERVERS)
    first = llm.invoke(QUESTION)
    requests = approval_requests(first)
    assert len(requests) == 2 and first.response_metadata["status"] == "requires_action"
    blocks = responses(requests, decisions)
    replies = [HumanMessage(blocks)] if messages == "one" else [HumanMessage([b]) for b in blocks]  # type: ignore[list-item]
    final = llm.invoke([HumanMessage(QUESTION), first, *replies])
    body = emu.requests[-1].body
    published_schema.agent_request(body)
    assert [i for i in body["input"] if i.get("type") == "mcp_approval_response"] == blocks
    if continued:
        assert body["input"] == blocks and body["previous_response_id"] == first.id
    assert final.response_metadata["status"] == "completed"
    calls = [b for b in final.content_blocks if b["type"] == "server_tool_call" and b["name"] == "remote_mcp"]
    assert len(calls) == sum(decisions)
    assert ("not approved" in final.text) == (not all(decisions))


def test_a_pending_answer_has_no_empty_text_block_on_invoke_or_stream(emu: PerplexityEmulator) -> None:
    # web_search=False: the MCP servers alone (a bare model keeps its web_search beside bound built-ins, and a
    # streamed search step brings a reasoning block invoke lacks, a reader difference of its own).
    llm = make(emu, output_version="v1", web_search=False).bind_tools(SERVERS)
    invoked = llm.invoke(QUESTION)
    streamed: Any = None
    for chunk in llm.stream(QUESTION):
        streamed = chunk if streamed is None else streamed + chunk
    for message in (invoked, streamed):
        assert not [b for b in message.content if b["type"] == "text"]
    assert [b["type"] for b in invoked.content] == [b["type"] for b in streamed.content]


def test_langgraph_resumes_with_a_decision_for_each_pending_request(emu: PerplexityEmulator) -> None:
    app = build_graph(make(emu).bind_tools(SERVERS))
    config = {"configurable": {"thread_id": "two-pending"}}
    paused = app.invoke({"messages": [HumanMessage(QUESTION)]}, config)
    [pending] = paused["__interrupt__"]
    assert [p["server"] for p in pending.value] == ["docs", "wiki"]
    done = app.invoke(Command(resume=[True, False]), config)
    final: AIMessage = done["messages"][-1]
    assert final.response_metadata["status"] == "completed" and "not approved" in final.text
    published_schema.agent_request(emu.requests[-1].body)


@pytest.mark.parametrize("continued", [False, True])
def test_an_unknown_or_missing_request_is_refused_before_sending(emu: PerplexityEmulator, continued: bool) -> None:
    llm = make(emu, use_previous_response_id=continued).bind_tools(SERVERS)
    first = llm.invoke(QUESTION)
    pending = [r["id"] for r in approval_requests(first)]
    sent = len(emu.requests)
    bad = HumanMessage(responses([{"id": "mcpr_doesnotexist"}], [True]))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=rf"'mcpr_doesnotexist'\) names no pending mcp_approval_request; "
                       rf"pending: {pending[0]}, {pending[1]}"):  # fmt: skip
        llm.invoke([HumanMessage(QUESTION), first, bad])
    with pytest.raises(ValueError, match=r"\(approval_request_id='mcpr_x'\) has no mcp_approval_request before it"):
        llm.invoke([HumanMessage(QUESTION), HumanMessage(responses([{"id": "mcpr_x"}], [True]))])  # type: ignore[arg-type]
    assert len(emu.requests) == sent
