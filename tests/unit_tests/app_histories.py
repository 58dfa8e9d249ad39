"""Hypothesis strategies for the histories LangChain applications really build.

Not only strings and the plain classes: block lists of every standard and
provider block type, stream chunk classes, ``ChatMessage`` role aliases, the
package's own v1 answers, other providers' server-tool and reasoning blocks,
tool rounds with injected, missing, orphaned and invalid parts, and
histories cut at the front as ``trim_messages`` leaves them.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    HumanMessageChunk,
    SystemMessage,
    ToolMessage,
)

words = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=8)
PNG = "iVBORw0KGgo="
_ids = itertools.count()


def text_blocks() -> st.SearchStrategy[Any]:
    return st.one_of(
        words,  # a bare string inside a block list
        words.map(lambda t: {"type": "text", "text": t}),
        words.map(lambda t: {"type": "text", "text": t, "annotations": [{"type": "citation", "url": "https://a"}]}),
        words.map(lambda t: {"type": "input_text", "text": t}),
        words.map(lambda t: {"type": "output_text", "text": t, "annotations": []}),
    )


def media_blocks() -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from(
        [
            {"type": "image_url", "image_url": {"url": "https://img.example/x.png"}},
            {"type": "image_url", "image_url": f"data:image/png;base64,{PNG}"},
            {"type": "image", "url": "https://img.example/y.png"},
            {"type": "image", "base64": PNG, "mime_type": "image/png"},
            {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            {"type": "input_image", "image_url": "https://img.example/z.png", "detail": "high"},
            {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf", "filename": "a.pdf"},
            {"type": "file", "url": "https://files.example/a.pdf"},
        ]
    )


# Blocks Perplexity cannot take: left out (and reported), never a crash.
unsupported_blocks = st.sampled_from(
    [
        {"type": "video_url", "video_url": {"url": "https://v.example/a.mp4"}},
        {"type": "input_audio", "input_audio": {"data": "AA==", "format": "wav"}},
        {"type": "file", "file_id": "file_1"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "server_tool_call", "id": "st_1", "name": "web_search", "args": {}},
        {"type": "server_tool_result", "tool_call_id": "st_1", "status": "success"},
        {"type": "code_interpreter_call", "id": "ci_1"},
    ]
)
assistant_only_blocks = st.one_of(
    words.map(lambda t: {"type": "refusal", "refusal": t}),
    st.sampled_from(
        [
            {"type": "reasoning", "reasoning": "hmm"},
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "s"}]},
            {"type": "thinking", "thinking": "let me think", "signature": "sig"},
            {"type": "redacted_thinking", "data": "xyz"},
            {"type": "tool_use", "id": "toolu_x", "name": "f", "input": {}},
        ]
    ),
)

user_content = st.one_of(words, st.lists(st.one_of(text_blocks(), media_blocks(), unsupported_blocks), max_size=4))
ai_content = st.one_of(
    words, st.just(""), st.lists(st.one_of(text_blocks(), assistant_only_blocks, media_blocks(), unsupported_blocks),
                                 max_size=4)
)  # fmt: skip
tool_content = st.one_of(
    words,
    st.lists(
        st.one_of(words.map(lambda t: {"type": "text", "text": t}), st.just({"type": "image", "base64": PNG,
                                                                             "mime_type": "image/png"})),
        max_size=3,
    ),
)  # fmt: skip


# Strategies are built once, here, not at every draw: a strategy built inside a draw (a `sampled_from` of a
# list is never cached by hypothesis) is checked afresh each time, which cost a third of the draw's time.
booleans = st.booleans()
user_kinds = st.sampled_from(["human", "human", "chunk", "chat"])
user_roles = st.sampled_from(["user", "human", "User", "HUMAN"])
assistant_kinds = st.sampled_from(["ai", "ai", "chunk", "chat", "v1"])
assistant_roles = st.sampled_from(["ai", "assistant", "Assistant"])
one_in_ten = st.integers(0, 9)
one_to_three = st.integers(1, 3)
defects = st.sampled_from(["none", "none", "injected", "missing", "orphan", "reversed"])
turn_kinds = st.sampled_from(["user", "user", "ai", "tools", "system"])
system_counts = st.integers(0, 2)
one_in_five = st.integers(0, 4)


@st.composite
def user_message(draw: st.DrawFn) -> BaseMessage:
    content = draw(user_content)
    kind = draw(user_kinds)
    if kind == "chunk":
        return HumanMessageChunk(content=content)
    if kind == "chat":
        return ChatMessage(content=content, role=draw(user_roles))
    return HumanMessage(content)


def _assistant(draw: st.DrawFn, tool_calls: list[dict[str, Any]] | None) -> BaseMessage:
    content = draw(ai_content)
    kind = draw(assistant_kinds)
    if tool_calls or kind == "ai":
        invalid = (
            [{"type": "invalid_tool_call", "name": "f", "args": "{not json", "id": f"bad_{next(_ids)}", "error": "x"}]
            if draw(one_in_ten) == 0
            else []
        )
        return AIMessage(content, tool_calls=tool_calls or [], invalid_tool_calls=invalid)
    if kind == "chunk":
        return AIMessageChunk(content=content)
    if kind == "chat":
        return ChatMessage(content=content, role=draw(assistant_roles))
    return AIMessage(  # the package's own output_version="v1" answer
        [{"type": "reasoning", "reasoning": "r"}, {"type": "text", "text": draw(words), "annotations": []}],
        response_metadata={"output_version": "v1", "model_provider": "perplexity"},
    )


@st.composite
def assistant_message(draw: st.DrawFn) -> BaseMessage:
    """An assistant turn without tool calls, in any of the forms applications hand back."""
    return _assistant(draw, None)


def system_message(text: str, developer: bool) -> BaseMessage:
    if developer:
        return SystemMessage(text, additional_kwargs={"__openai_role__": "developer"})
    return SystemMessage(text)


@st.composite
def tool_round(draw: st.DrawFn) -> list[BaseMessage]:
    """An assistant turn with calls and its results, possibly broken as real applications break it."""
    ids = [f"call_{next(_ids)}" for _ in range(draw(one_to_three))]
    calls = [{"name": "lookup", "args": {"q": draw(words)}, "id": i, "type": "tool_call"} for i in ids]
    messages: list[BaseMessage] = [_assistant(draw, calls)]
    results = [ToolMessage(draw(tool_content), tool_call_id=i, name="lookup") for i in ids]
    defect = draw(defects)
    if defect == "missing":
        results = results[:-1]
    if defect == "reversed":
        results.reverse()
    if defect == "injected":  # an after_model middleware's message between the call and its results
        messages.append(system_message(draw(words), False))
    if defect == "orphan":
        results.append(ToolMessage(draw(words), tool_call_id=f"orphan_{next(_ids)}"))
    return messages + results


user_messages = user_message()
assistant_messages = assistant_message()
tool_rounds = tool_round()


@st.composite
def app_histories(draw: st.DrawFn, max_turns: int = 10) -> list[BaseMessage]:
    """A history as an application hands it to a chat model."""
    messages: list[BaseMessage] = [system_message(draw(words), draw(booleans)) for _ in range(draw(system_counts))]
    for _ in range(draw(st.integers(1, max_turns))):
        kind = draw(turn_kinds)
        if kind == "user":
            messages.append(draw(user_messages))
        elif kind == "ai":
            messages.append(draw(assistant_messages))
        elif kind == "system":
            messages.append(system_message(draw(words), draw(booleans)))
        else:
            messages.extend(draw(tool_rounds))
    if draw(one_in_five) == 0:  # cut at the front, as trim_messages leaves a history
        messages = messages[draw(st.integers(0, len(messages) - 1)) :]
    if draw(booleans):
        messages.append(draw(user_messages))
    return messages
