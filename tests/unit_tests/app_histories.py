"""Hypothesis strategies for the histories LangChain applications really build.

Not only strings and the plain classes: block lists of every standard and
provider block type, stream chunk classes, ``ChatMessage`` role aliases, the
package's own v1 answers, other providers' server-tool and reasoning blocks,
tool rounds with injected, missing, orphaned and invalid parts, and
histories cut at the front as ``trim_messages`` leaves them.

Built for cheap draws: Hypothesis pays some tens of microseconds for every
choice it records and every strategy layer a value passes through, and drawing
the histories cost more than normalizing and checking them (the nested
``one_of``/``map``/``lists`` strategies this replaced took 94 choices a
history, these 64). So a block is one choice from a flat table
(`USER_BLOCKS`, `AI_BLOCKS`, `TOOL_BLOCKS`), plus a word when its shape holds
text; a message's class, role alias and content shape (a plain string, an
empty one, or a block list of a given length) are one choice (`USER_FORMS`,
`ASSISTANT_FORMS`); a tool round's size and defect are one (`ROUNDS`); a
system turn's developer flag is part of the turn's kind.

They reach the same histories as the nested strategies: each table is the
product of the alternatives those drew one by one, every block shape, fixed
block, class, role alias and defect is in it, and the ranges are the same
(0-4 blocks, 0-3 in a tool result, 1-3 calls a round, 1-10 turns, words of the
same alphabet and lengths). Only how often each comes up differs, and the
weights are kept near the old ones (half of the contents plain strings; a
third of an answer's empty, a third plain, a third block lists; text, media
and unsupported blocks a third each). Checked by mutation: each of ten rules
broken in turn (merging, demotion, tool-protocol repair and its placeholders,
a role alias, a lost merged part, a lost orphan id, lost tool-result text,
copying untouched messages, a chunk's role) fails
`test_normalizer_properties.py` with both strategies, after a few to a few
hundred examples.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
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

# The shapes of text in a block list: each builds its block around a drawn word.
TEXT_SHAPES: tuple[Callable[[str], Any], ...] = (
    lambda t: t,  # a bare string inside a block list
    lambda t: {"type": "text", "text": t},
    lambda t: {"type": "text", "text": t, "annotations": [{"type": "citation", "url": "https://a"}]},
    lambda t: {"type": "input_text", "text": t},
    lambda t: {"type": "output_text", "text": t, "annotations": []},
)
MEDIA_BLOCKS: tuple[dict[str, Any], ...] = (
    {"type": "image_url", "image_url": {"url": "https://img.example/x.png"}},
    {"type": "image_url", "image_url": f"data:image/png;base64,{PNG}"},
    {"type": "image", "url": "https://img.example/y.png"},
    {"type": "image", "base64": PNG, "mime_type": "image/png"},
    {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
    {"type": "input_image", "image_url": "https://img.example/z.png", "detail": "high"},
    {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf", "filename": "a.pdf"},
    {"type": "file", "url": "https://files.example/a.pdf"},
)
# Blocks Perplexity cannot take: left out (and reported), never a crash.
UNSUPPORTED_BLOCKS: tuple[dict[str, Any], ...] = (
    {"type": "video_url", "video_url": {"url": "https://v.example/a.mp4"}},
    {"type": "input_audio", "input_audio": {"data": "AA==", "format": "wav"}},
    {"type": "file", "file_id": "file_1"},
    {"type": "web_search_call", "id": "ws_1", "status": "completed"},
    {"type": "server_tool_call", "id": "st_1", "name": "web_search", "args": {}},
    {"type": "server_tool_result", "tool_call_id": "st_1", "status": "success"},
    {"type": "code_interpreter_call", "id": "ci_1"},
)
ASSISTANT_ONLY_BLOCKS: tuple[Callable[[str], Any] | dict[str, Any], ...] = (
    lambda t: {"type": "refusal", "refusal": t},
    {"type": "reasoning", "reasoning": "hmm"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "s"}]},
    {"type": "thinking", "thinking": "let me think", "signature": "sig"},
    {"type": "redacted_thinking", "data": "xyz"},
    {"type": "tool_use", "id": "toolu_x", "name": "f", "input": {}},
)
IMAGE = {"type": "image", "base64": PNG, "mime_type": "image/png"}

# One choice draws a block: a shape (a word is drawn for it) or a fixed block. The text shapes appear twice
# in a user's table, so text, media and unsupported blocks each come up about a third of the time.
USER_BLOCKS = st.sampled_from([*TEXT_SHAPES, *TEXT_SHAPES, *MEDIA_BLOCKS, *UNSUPPORTED_BLOCKS])
AI_BLOCKS = st.sampled_from(
    [*TEXT_SHAPES, *TEXT_SHAPES, *ASSISTANT_ONLY_BLOCKS, *MEDIA_BLOCKS, *UNSUPPORTED_BLOCKS, *ASSISTANT_ONLY_BLOCKS]
)
TOOL_BLOCKS = st.sampled_from([TEXT_SHAPES[1], IMAGE])

# A content's shape: a negative number is a plain string (or, for an answer, below -5 an empty one),
# 0 or more a block list of that many blocks.
USER_SHAPES = range(-5, 5)  # half plain strings, half lists of 0-4 blocks
AI_SHAPES = range(-10, 5)  # a third "", a third a plain string, a third lists of 0-4 blocks
TOOL_CONTENT = st.integers(-4, 3)  # half plain strings, half lists of 0-3 blocks


def _block(draw: st.DrawFn, blocks: st.SearchStrategy[Any]) -> Any:
    block = draw(blocks)
    return block(draw(words)) if callable(block) else block


def _content(draw: st.DrawFn, shape: int, blocks: st.SearchStrategy[Any]) -> Any:
    if shape < -5:
        return ""
    if shape < 0:
        return draw(words)
    return [_block(draw, blocks) for _ in range(shape)]


# A message's class (a ChatMessage's with its role as applications spell it) with its content's shape: one choice.
# Sorted so that Hypothesis shrinks towards a plain message with an empty block list.
USER_CLASSES = [
    ("human", None),
    ("human", None),
    ("chunk", None),
    *(("chat", r) for r in ["user", "human", "User", "HUMAN"]),
]
ASSISTANT_CLASSES = [
    ("ai", None),
    ("ai", None),
    ("chunk", None),
    *(("chat", r) for r in ["ai", "assistant", "Assistant"]),
    ("v1", None),  # the package's own output_version="v1" answer
]
USER_FORMS = st.sampled_from(sorted(itertools.product(USER_CLASSES, USER_SHAPES), key=lambda form: abs(form[1])))
ASSISTANT_FORMS = st.sampled_from(
    sorted(itertools.product(ASSISTANT_CLASSES, AI_SHAPES), key=lambda form: abs(form[1]))
)
one_in_ten = st.integers(0, 9)
# A tool round's number of calls (1-3) and how it is broken, one choice.
ROUNDS = st.sampled_from(
    list(itertools.product([1, 2, 3], ["none", "none", "injected", "missing", "orphan", "reversed"]))
)
# A turn; a system message is a developer message half the time.
turn_kinds = st.sampled_from(["user", "user", "user", "user", "ai", "ai", "tools", "tools", "system", "developer"])
system_counts = st.integers(0, 2)
booleans = st.booleans()
one_in_five = st.integers(0, 4)


@st.composite
def user_message(draw: st.DrawFn) -> BaseMessage:
    (kind, role), shape = draw(USER_FORMS)
    content = _content(draw, shape, USER_BLOCKS)
    if kind == "chunk":
        return HumanMessageChunk(content=content)
    if kind == "chat":
        return ChatMessage(content=content, role=role)
    return HumanMessage(content)


def _assistant(draw: st.DrawFn, tool_calls: list[dict[str, Any]] | None) -> BaseMessage:
    (kind, role), shape = draw(ASSISTANT_FORMS)
    if kind == "v1" and not tool_calls:  # the package's own output_version="v1" answer
        return AIMessage(
            [{"type": "reasoning", "reasoning": "r"}, {"type": "text", "text": draw(words), "annotations": []}],
            response_metadata={"output_version": "v1", "model_provider": "perplexity"},
        )
    content = _content(draw, shape, AI_BLOCKS)
    if tool_calls or kind == "ai":
        invalid = (
            [{"type": "invalid_tool_call", "name": "f", "args": "{not json", "id": f"bad_{next(_ids)}", "error": "x"}]
            if draw(one_in_ten) == 0
            else []
        )
        return AIMessage(content, tool_calls=tool_calls or [], invalid_tool_calls=invalid)
    if kind == "chunk":
        return AIMessageChunk(content=content)
    return ChatMessage(content=content, role=role)


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
    count, defect = draw(ROUNDS)
    ids = [f"call_{next(_ids)}" for _ in range(count)]
    calls = [{"name": "lookup", "args": {"q": draw(words)}, "id": i, "type": "tool_call"} for i in ids]
    messages: list[BaseMessage] = [_assistant(draw, calls)]
    results = [ToolMessage(_content(draw, draw(TOOL_CONTENT), TOOL_BLOCKS), tool_call_id=i, name="lookup") for i in ids]
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
        elif kind in ("system", "developer"):
            messages.append(system_message(draw(words), kind == "developer"))
        else:
            messages.extend(draw(tool_rounds))
    if draw(one_in_five) == 0:  # cut at the front, as trim_messages leaves a history
        messages = messages[draw(st.integers(0, len(messages) - 1)) :]
    if draw(booleans):
        messages.append(draw(user_messages))
    return messages
