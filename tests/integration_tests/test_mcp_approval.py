"""The MCP approval round trip in ChatOpenAI's form, alone and as a LangGraph human-in-the-loop interrupt."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, interrupt

from langchain_perplexity_strict import ChatPerplexityStrict, mcp_tool
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import make

DOCS = mcp_tool("docs", "https://mcp.example.com", require_approval="always")
QUESTION = "search the docs for the release date"


def approval_requests(message: AIMessage) -> list[dict[str, Any]]:
    """The `mcp_approval_request` blocks of an answer, as ChatOpenAI apps find them (`content_blocks`)."""
    return [
        b["value"] for b in message.content_blocks
        if b["type"] == "non_standard" and b["value"].get("type") == "mcp_approval_request"
    ]  # fmt: skip


def approval(request: dict[str, Any], approve: bool) -> HumanMessage:
    """The app's answer, as ChatOpenAI takes it: a user message holding `mcp_approval_response` blocks."""
    return HumanMessage([{"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": approve}])


@pytest.mark.parametrize("version", ["v0", "v1"])
def test_an_approval_request_is_an_answer_with_the_request_as_a_block(emu: PerplexityEmulator, version: str) -> None:
    answer = make(emu, output_version=version).bind_tools([DOCS]).invoke(QUESTION)
    [request] = approval_requests(answer)
    assert request["server_label"] == "docs" and request["name"] == "search"
    assert answer.response_metadata["status"] == "requires_action"
    if version == "v0":
        assert answer.additional_kwargs["mcp_approval_request"] == [request]
    else:
        assert {"type": "non_standard", "value": request} in answer.content


@pytest.mark.parametrize("version", ["v0", "v1"])
@pytest.mark.parametrize("approve", [True, False])
def test_the_reply_sends_the_request_and_the_response_as_published_input_items(
    emu: PerplexityEmulator, version: str, approve: bool
) -> None:
    llm = make(emu, output_version=version).bind_tools([DOCS])
    first = llm.invoke(QUESTION)
    [request] = approval_requests(first)
    final = llm.invoke([HumanMessage(QUESTION), first, approval(request, approve)])
    body = emu.requests[-1].body
    published_schema.agent_request(body)
    assert body["input"][-2:] == [
        {key: request[key] for key in ("type", "id", "name", "arguments", "server_label") if key in request},
        {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": approve},
    ]
    calls = [b for b in final.content_blocks if b["type"] == "server_tool_call" and b["name"] == "remote_mcp"]
    if approve:
        [call] = calls
        assert call["extras"]["approval_request_id"] == request["id"]
        assert final.response_metadata["status"] == "completed"
    else:
        assert not calls and "not approved" in final.text


@pytest.mark.parametrize("version", ["v0", "v1"])
def test_with_use_previous_response_id_only_the_response_is_sent(emu: PerplexityEmulator, version: str) -> None:
    """The stored response holds the request: the continuation sends the app's response alone."""
    llm = make(emu, output_version=version, use_previous_response_id=True).bind_tools([DOCS])
    first = llm.invoke(QUESTION)
    [request] = approval_requests(first)
    final = llm.invoke([HumanMessage(QUESTION), first, approval(request, True)])
    body = emu.requests[-1].body
    assert body["previous_response_id"] == first.response_metadata["id"]
    assert body["input"] == [{"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": True}]
    assert final.response_metadata["status"] == "completed"


def test_a_reply_with_text_beside_the_approval_is_refused_before_sending(emu: PerplexityEmulator) -> None:
    """The approval response is the user's turn: text beside it would be a second user turn in a row."""
    llm = make(emu).bind_tools([DOCS])
    first = llm.invoke(QUESTION)
    [request] = approval_requests(first)
    reply = HumanMessage([{"type": "text", "text": "go ahead"}, *approval(request, True).content])  # type: ignore[list-item]
    emu.clear()
    with pytest.raises(ValueError, match="send only the mcp_approval_response blocks"):
        llm.invoke([HumanMessage(QUESTION), first, reply])
    assert not emu.requests


# ---- LangGraph: interrupt for the human, resume with their decision ------------------------------


def build_graph(llm: Any) -> Any:
    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [llm.invoke(state["messages"])]}

    async def aagent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await llm.ainvoke(state["messages"])]}

    def ask_human(state: MessagesState) -> dict[str, list[BaseMessage]]:
        requests = approval_requests(state["messages"][-1])  # type: ignore[arg-type]
        decisions = interrupt([{"tool": r["name"], "server": r["server_label"], "arguments": r["arguments"]}
                               for r in requests])  # fmt: skip
        reply = [{"type": "mcp_approval_response", "approval_request_id": r["id"], "approve": bool(d)}
                 for r, d in zip(requests, decisions, strict=True)]  # fmt: skip
        return {"messages": [HumanMessage(reply)]}  # type: ignore[arg-type]

    def route(state: MessagesState) -> str:
        return "ask_human" if approval_requests(state["messages"][-1]) else END  # type: ignore[arg-type]

    graph = StateGraph(MessagesState)
    graph.add_node("agent", RunnableLambda(agent, afunc=aagent))
    graph.add_node("ask_human", ask_human)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["ask_human", END])
    graph.add_edge("ask_human", "agent")
    return graph.compile(checkpointer=InMemorySaver())


def model(emu: PerplexityEmulator) -> ChatPerplexityStrict:
    return make(emu)


def test_langgraph_interrupts_for_approval_and_resumes(emu: PerplexityEmulator) -> None:
    app = build_graph(model(emu).bind_tools([DOCS]))
    config = {"configurable": {"thread_id": "approve-sync"}}
    paused = app.invoke({"messages": [HumanMessage(QUESTION)]}, config)
    [pending] = paused["__interrupt__"]
    assert pending.value == [{"tool": "search", "server": "docs", "arguments": '{"query": "search the docs for the '
                              'release date"}'}]  # fmt: skip
    done = app.invoke(Command(resume=[True]), config)
    final = done["messages"][-1]
    assert any(b["type"] == "server_tool_result" for b in final.content_blocks)
    assert final.response_metadata["status"] == "completed"
    published_schema.agent_request(emu.requests[-1].body)


async def test_langgraph_interrupts_for_approval_and_resumes_async(emu: PerplexityEmulator) -> None:
    app = build_graph(model(emu).bind_tools([DOCS]))
    config = {"configurable": {"thread_id": "approve-async"}}
    paused = await app.ainvoke({"messages": [HumanMessage(QUESTION)]}, config)
    assert paused["__interrupt__"]
    done = await app.ainvoke(Command(resume=[False]), config)
    final = done["messages"][-1]
    assert "not approved" in final.text
    assert not [b for b in final.content_blocks if b["type"] == "server_tool_call" and b["name"] == "remote_mcp"]
