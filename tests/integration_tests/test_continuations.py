"""`use_previous_response_id`: long conversations send only what is new, and never change what the model sees."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import make
from tests.integration_tests.tools import add

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:The class `InMemoryChatMessageHistory` was deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:ChatPerplexityStrict compacted the conversation:UserWarning"),
]


def semantic(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items with function-call arguments parsed (the server's JSON spacing may differ from ours)."""
    return [{**i, "arguments": json.loads(i["arguments"])} if i.get("type") == "function_call" else i for i in items]


def whole_input(llm: ChatPerplexityStrict, history: list[BaseMessage]) -> Any:
    """The `input` of the whole normalized conversation: what the model sends without continuations."""
    return llm.model_copy(update={"use_previous_response_id": False}).request_body(history)["input"]


def reply(model: Any, history: list[BaseMessage]) -> AIMessage:
    answer = model.invoke(history)
    history.append(answer)
    return answer


def test_later_turns_send_only_what_is_new(emu: PerplexityEmulator) -> None:
    llm = make(emu, use_previous_response_id=True)
    history: list[BaseMessage] = [SystemMessage("Be brief."), HumanMessage("What is the sky?")]
    first = reply(llm, history)
    assert "previous_response_id" not in emu.requests[-1].body
    assert first.response_metadata["perplexity_context"]["items"] == 3
    history.append(HumanMessage("And the sea?"))
    second = reply(llm, history)
    body = emu.requests[-1].body
    assert body["previous_response_id"] == first.response_metadata["id"]
    assert body["input"] == [{"role": "user", "content": "And the sea?"}]
    assert second.response_metadata["continuation"] == {
        "previous_response_id": first.response_metadata["id"], "items_sent": 1, "items_in_conversation": 4
    }  # fmt: skip
    assert semantic(emu.requests[-1].conversation or []) == semantic(whole_input(llm, history[:-1]))


def test_off_by_default_and_refused_on_chat_completions(emu: PerplexityEmulator) -> None:
    llm = make(emu)
    history: list[BaseMessage] = [HumanMessage("hi")]
    reply(llm, history)
    history.append(HumanMessage("again"))
    reply(llm, history)
    assert "previous_response_id" not in emu.requests[-1].body
    with pytest.raises(ValueError, match="use_previous_response_id=True is not accepted on api='chat_completions'"):
        make(emu, "chat_completions", use_previous_response_id=True)


@pytest.mark.parametrize(
    "change",
    ["edit_an_earlier_message", "other_model", "stop_cut_the_answer", "drop_the_record"],
)
def test_anything_but_an_intact_history_sends_everything(emu: PerplexityEmulator, change: str) -> None:
    llm = make(emu, use_previous_response_id=True)
    history: list[BaseMessage] = [HumanMessage("What is the sky?")]
    if change == "stop_cut_the_answer":
        history.append(llm.invoke(history, stop=["agree"]))
    else:
        reply(llm, history)
    if change == "edit_an_earlier_message":
        history[0] = HumanMessage("What is the sea?")
    if change == "other_model":
        llm = make(emu, model="openai/gpt-5.1", use_previous_response_id=True)
    if change == "drop_the_record":
        history[-1] = AIMessage(history[-1].content, response_metadata={"id": history[-1].response_metadata["id"]})
    history.append(HumanMessage("More?"))
    reply(llm, history)
    body = emu.requests[-1].body
    assert "previous_response_id" not in body
    assert body["input"] == whole_input(llm, history[:-1])


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
async def test_a_forgotten_response_is_retried_with_everything(emu: PerplexityEmulator, mode: str) -> None:
    llm = make(emu, use_previous_response_id=True)
    history: list[BaseMessage] = [HumanMessage("What is the sky?")]
    reply(llm, history)
    emu.clear()  # the server forgets every stored response
    history.append(HumanMessage("And the sea?"))
    if mode == "invoke":
        answer: Any = llm.invoke(history)
    elif mode == "ainvoke":
        answer = await llm.ainvoke(history)
    elif mode == "stream":
        answer = None
        for chunk in llm.stream(history):
            answer = chunk if answer is None else answer + chunk
    else:
        answer = None
        async for chunk in llm.astream(history):
            answer = chunk if answer is None else answer + chunk
    assert answer.text
    assert "fallback" in answer.response_metadata["continuation"]
    assert [r.body.get("previous_response_id") is not None for r in emu.requests] == [True, False]
    assert emu.requests[-1].body["input"] == whole_input(llm, history)


def test_other_errors_are_not_retried(emu: PerplexityEmulator) -> None:
    llm = make(emu, use_previous_response_id=True, max_retries=0)
    history: list[BaseMessage] = [HumanMessage("What is the sky?")]
    reply(llm, history)
    history.append(HumanMessage("More?"))
    emu.inject(Fault("server_error", status=500))
    with pytest.raises(Exception, match="500"):
        llm.invoke(history)
    assert len(emu.requests) == 2


def test_tools_checkpoints_and_serialization(emu: PerplexityEmulator) -> None:
    llm = make(emu, model="google/gemini-2.5-pro", max_tokens=500, use_previous_response_id=True).bind_tools([add])
    history: list[BaseMessage] = [HumanMessage("call add with 2 and 3")]
    call = reply(llm, history)
    assert call.tool_calls and call.additional_kwargs["thought_signatures"]
    history = messages_from_dict(messages_to_dict(history))  # what a checkpointer stores and loads
    history.append(ToolMessage("5", tool_call_id=call.tool_calls[0]["id"]))
    reply(llm, history)
    body = emu.requests[-1].body
    assert body["previous_response_id"] == call.response_metadata["id"]
    assert body["input"] == [{"type": "function_call_output", "call_id": call.tool_calls[0]["id"], "output": "5",
                              "name": "add"}]  # fmt: skip


def test_compaction_applies_to_what_is_sent(emu: PerplexityEmulator) -> None:
    """The server holds its own context (compacted or not); the client's budget bounds what it sends."""
    llm = make(emu, use_previous_response_id=True, max_input_tokens=300)
    history: list[BaseMessage] = [HumanMessage("old " * 600), AIMessage("Noted."), HumanMessage("What is the sky?")]
    with pytest.warns(UserWarning, match="compacted"):
        first = reply(llm, history)  # the first turn sends everything, compacted to the budget
    assert first.response_metadata["compaction"]["dropped"]
    history.append(HumanMessage("short?"))
    second = reply(llm, history)
    assert emu.requests[-1].body["input"] == [{"role": "user", "content": "short?"}]
    assert "compaction" not in second.response_metadata
    # What follows the stored answer no longer fits the budget: compacted and sent whole.
    history += [HumanMessage("filler " * 300), AIMessage("Another model's answer."), HumanMessage("And?")]
    reply(llm, history)
    assert "previous_response_id" not in emu.requests[-1].body


def test_in_a_langgraph_agent_with_a_checkpointer(emu: PerplexityEmulator) -> None:
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    agent = create_agent(make(emu, use_previous_response_id=True), tools=[add], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    agent.invoke({"messages": [("human", "call add with 2 and 3")]}, config)
    agent.invoke({"messages": [("human", "call add with 10 and 20")]}, config)
    continued = [r.body.get("previous_response_id") is not None for r in emu.requests]
    assert continued[0] is False and all(continued[1:]) and len(continued) >= 4


turns = st.lists(st.sampled_from(["user", "user", "system", "two_users", "tool_question"]), min_size=2, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=turns)
def test_the_server_sees_the_whole_normalized_conversation_every_turn(emu: PerplexityEmulator, plan: list[str]) -> None:
    """Property: what the emulator reconstructs from a continuation is the whole normalized conversation."""
    emu.clear()
    llm: Any = ChatPerplexityStrict(
        api_key="test-key", base_url=emu.base_url, use_previous_response_id=True
    ).bind_tools([add])
    history: list[BaseMessage] = [HumanMessage("Hello?")]
    for turn, kind in enumerate(plan):
        answer = llm.invoke(history)
        expected = whole_input(llm.bound, history)
        assert semantic(emu.requests[-1].conversation or []) == semantic(expected)
        assert (emu.requests[-1].body.get("previous_response_id") is not None) == (turn > 0)
        history.append(answer)
        if answer.tool_calls:
            history += [ToolMessage("42", tool_call_id=c["id"]) for c in answer.tool_calls]
            continue
        if kind == "system":
            history.append(SystemMessage(f"note {turn}"))
        if kind == "two_users":
            history.append(HumanMessage(f"first {turn}"))
        history.append(HumanMessage(f"call add with {turn} and 1" if kind == "tool_question" else f"q {turn}?"))


async def test_runnable_with_message_history_streaming_async(emu: PerplexityEmulator) -> None:
    """RunnableWithMessageHistory stores the streamed AIMessageChunk; the next turn continues from it."""
    from langchain_core.chat_history import InMemoryChatMessageHistory
    from langchain_core.runnables.history import RunnableWithMessageHistory

    store = InMemoryChatMessageHistory()
    chat = RunnableWithMessageHistory(make(emu, use_previous_response_id=True), lambda: store)
    for question in ("What is the sky?", "And the sea?", "And the sun?"):
        async for _ in chat.astream(question):
            pass
    bodies = [r.body for r in emu.requests]
    assert "previous_response_id" not in bodies[0]
    assert all(
        b["input"] == [{"role": "user", "content": q}]
        for b, q in zip(bodies[1:], ("And the sea?", "And the sun?"), strict=True)
    )
