"""One regression history per class of failure applications hit, on both surfaces, invoke and stream.

The emulator is strict: a history the package did not repair is a 400 here,
so passing means the conversation went through.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:ChatPerplexityStrict compacted the conversation:UserWarning"),
]

CALL = {"name": "lookup", "args": {"q": "x"}, "id": "call_1", "type": "tool_call"}
CALLS = [CALL, {**CALL, "id": "call_2"}]

HISTORIES: dict[str, list[Any]] = {
    "two_text_blocks": [HumanMessage("hi"), AIMessage([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
                        HumanMessage("more")],
    "reasoning_only_answer": [HumanMessage("hi"), AIMessage([{"type": "reasoning", "reasoning": "r"}]),
                              HumanMessage("again")],
    "empty_block_list": [HumanMessage("hi"), AIMessage([]), HumanMessage("again")],
    "bare_string_in_blocks": [HumanMessage(["look", {"type": "text", "text": "here"}])],
    "own_v1_answer_then_assistant": [
        HumanMessage("hi"),
        AIMessage([{"type": "text", "text": "a", "annotations": []}], response_metadata={"output_version": "v1"}),
        AIMessage("and more"), HumanMessage("ok")],
    "chunk_next_to_message": [HumanMessage("hi"), AIMessageChunk(content="a"), AIMessage("b"), HumanMessage("c")],
    "role_aliases": [ChatMessage(role="human", content="hi"), ChatMessage(role="ai", content="yo"),
                     ChatMessage(role="User", content="q"), ChatMessage(role="Assistant", content="a"),
                     HumanMessage("end")],
    "refusal_and_server_tools": [HumanMessage("hi"), AIMessage([
        {"type": "refusal", "refusal": "no"}, {"type": "web_search_call", "id": "ws", "status": "completed"},
        {"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": "but"}]), HumanMessage("why")],
    "input_text_blocks": [HumanMessage([{"type": "input_text", "text": "hi"}])],
    "injected_between_call_and_result": [HumanMessage("go"), AIMessage("", tool_calls=[CALL]),
                                         SystemMessage("reminder"), ToolMessage("r", tool_call_id="call_1")],
    "call_never_answered": [HumanMessage("go"), AIMessage("", tool_calls=CALLS),
                            ToolMessage("r", tool_call_id="call_1"), HumanMessage("and?")],
    "invalid_tool_calls": [HumanMessage("go"), AIMessage("", invalid_tool_calls=[
        {"type": "invalid_tool_call", "name": "f", "args": "{", "id": "bad", "error": "json"}]), HumanMessage("?")],
    "starts_with_tool_result": [ToolMessage("r", tool_call_id="call_0"), AIMessage("done"), HumanMessage("next")],
    "two_calls_then_results": [HumanMessage("go"), AIMessage("", tool_calls=[CALL]),
                               AIMessage("", tool_calls=[{**CALL, "id": "call_2"}]),
                               ToolMessage("r1", tool_call_id="call_1"), ToolMessage("r2", tool_call_id="call_2")],
    "tool_result_blocks": [HumanMessage("go"), AIMessage("", tool_calls=[CALL]),
                           ToolMessage([{"type": "input_text", "text": "r"}], tool_call_id="call_1")],
}  # fmt: skip
SURFACES = [("agent", "perplexity/sonar"), ("chat_completions", "sonar")]


@pytest.mark.parametrize("name", sorted(HISTORIES))
@pytest.mark.parametrize(("api", "model"), SURFACES)
@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_history_goes_through(emu: PerplexityEmulator, name: str, api: str, model: str, mode: str) -> None:
    llm = ChatPerplexityStrict(api=api, model=model, api_key="test-key", base_url=emu.base_url)  # type: ignore[arg-type]
    history = HISTORIES[name]
    if mode == "invoke":
        assert (await llm.ainvoke(history)).text
    else:
        assert "".join(c.text for c in llm.stream(history))


def test_tool_result_text_blocks_go_as_text(emu: PerplexityEmulator) -> None:
    llm = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url)
    body = llm.request_body(HISTORIES["tool_result_blocks"])
    assert body["input"][-1]["output"] == "r"


def test_unknown_constructor_arguments_are_refused_with_a_suggestion() -> None:
    with pytest.raises(ValueError, match=r"temprature=0.5 is not an argument.*Did you mean 'temperature'"):
        ChatPerplexityStrict(api_key="k", temprature=0.5)  # type: ignore[call-arg]
    assert ChatPerplexityStrict(api_key="k", max_output_tokens=100).max_tokens == 100  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="n=2 cannot be streamed"):
        ChatPerplexityStrict(api_key="k", n=2, streaming=True)
    with pytest.raises(ValueError, match="stop=5 is not accepted"):
        list(ChatPerplexityStrict(api_key="k").stream("hi", stop=5))  # type: ignore[arg-type]


def test_preset_with_an_explicit_model_sends_both(emu: PerplexityEmulator) -> None:
    body = ChatPerplexityStrict(api_key="k", model="openai/gpt-5.1", preset="low").request_body("hi")
    assert (body["model"], body["preset"]) == ("openai/gpt-5.1", "low")
    assert "model" not in ChatPerplexityStrict(api_key="k", preset="low").request_body("hi")


def test_a_copy_posts_where_its_settings_say(emu: PerplexityEmulator) -> None:
    original = ChatPerplexityStrict(api_key="test-key", base_url="http://127.0.0.1:9")
    copy = original.model_copy(update={"base_url": emu.base_url})
    assert copy.invoke("hi").text
    other = copy.model_copy(update={"api": "chat_completions", "model": "sonar"})
    emu.clear()
    other.invoke("hi")
    assert emu.requests[-1].path == "/chat/completions"


def test_compaction_never_flips_a_late_system_message_back_to_system(emu: PerplexityEmulator) -> None:
    """Roles are decided on the whole history first; compaction then trims what was normalized."""
    history: list[Any] = [HumanMessage("first " * 200), AIMessage("answer " * 200), SystemMessage("be brief")]
    llm = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, max_input_tokens=400)
    for turn in range(3):
        history.append(HumanMessage(f"question {turn}"))
        reply = llm.invoke(history)  # the emulator refuses a message that changes role between turns
        history.append(reply)
    sent = emu.requests[-1].body["input"]
    assert all(item.get("role") != "system" for item in sent)


def test_a_large_tool_image_is_sent_and_counted_as_an_image(emu: PerplexityEmulator) -> None:
    image = {"type": "image", "base64": "A" * 600_000, "mime_type": "image/png"}
    history = [HumanMessage("go"), AIMessage("", tool_calls=[CALL]), ToolMessage([image], tool_call_id="call_1")]
    llm = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url)
    output = llm.request_body(history)["input"][-1]["output"]
    assert output[0]["type"] == "input_image" and output[0]["image_url"].startswith("data:image/png;base64,")
    assert llm.get_num_tokens_from_messages(llm.normalize(history).messages) < 1_000  # an image, not 150k of text


def test_remove_message_gets_the_packages_own_error() -> None:
    from langchain_core.messages import RemoveMessage

    llm = ChatPerplexityStrict(api_key="k", max_input_tokens=1000)
    with pytest.raises(ValueError, match=r"messages\[1\]: unknown message type RemoveMessage"):
        llm.request_body([HumanMessage("hi"), RemoveMessage(id="x")])


def test_structured_output_from_a_dict_schema_by_function_calling(emu: PerplexityEmulator) -> None:
    schema = {"title": "city", "description": "A city.", "type": "object", "properties": {"name": {"type": "string"}}}
    llm = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url)
    assert llm.with_structured_output(schema, method="function_calling").invoke("the city 'Lyon'") == {"name": "Lyon"}


def test_pdf_blocks_go_as_input_files(emu: PerplexityEmulator) -> None:
    pdf = {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf", "filename": "a.pdf"}
    llm = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url)
    llm.invoke([HumanMessage([{"type": "text", "text": "summarize"}, pdf])])
    part = emu.requests[-1].body["input"][0]["content"][1]
    assert part == {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}
