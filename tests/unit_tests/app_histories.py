"""Hypothesis strategies for the histories LangChain applications really build.

Not only strings and the plain classes: block lists of every standard and
provider block type, stream chunk classes, ``ChatMessage`` role aliases, the
package's own v1 answers, other providers' server-tool and reasoning blocks,
tool rounds with injected, missing, orphaned and invalid parts, and
histories cut at the front as ``trim_messages`` leaves them.

Built for cheap draws: Hypothesis pays some tens of microseconds for every
choice it records, whatever the choice holds, and drawing the histories cost
more than normalizing and checking them. So a history is a few choices, each a
fixed-size byte string that `_Choices` reads as the picks of one part: a head
(the leading system messages, whether and where the history is cut, the newest
user message), the number of turns, and one string per turn (its kind and all
it holds). About 8 choices a history, where the strategy of flat tables this
replaced took 32 and the nested ``one_of``/``lists`` one before it 94 (2,000
histories drawn alone, back to back on a loaded machine: 4.9-5.9 s -> 3.0-3.6 s
of CPU).

Every history the table strategy drew can still be drawn: the tables are the
same (`USER_BLOCKS`, `AI_BLOCKS`, `TOOL_BLOCKS`, `USER_FORMS`,
`ASSISTANT_FORMS`, `ROUNDS`, `TURN_KINDS`), read in the same order, and a
pick can name every entry of its table (a byte for up to 32 entries, two for
more); a word is its length (1-8) and that many characters of the same
alphabet; each byte string is as long as its largest part needs (`TURN`,
`HEAD`: four blocks of 8-character words, a round of three calls with
three-block results), so no pick is cut short. The ranges are the same (0-2
leading system messages, 1-10 turns, 0-4 blocks, 0-3 in a tool result, 1-3
calls a round). Only how often each comes up differs: every entry of a table is
about as likely as the others, where Hypothesis favoured first entries and the
ends of ranges (an empty block list was a fifth of all contents, a
one-character word a fifth of the words; now an eighth and an eighth), and the
weights are the tables' (half of the contents plain strings; a third of an
answer's empty, a third plain, a third block lists; text, media and unsupported
blocks a third each; a tool turn a fifth of the turns). Counted over 2,000
histories each way, every class, block type and defect comes up some hundreds
to thousands of times in both. Shrinking drives the bytes towards 0: fewer
system messages, the first entry of each table (a plain message with an
empty block list), words of "a".

Checked by mutation: an orphaned tool result's lost `tool_call_id`, results
sent after an injected message, the caller's text blocks retyped in place, an
earlier user turn sent differently once it is no longer the newest, an opening
turn that counts the messages, and an image dropped without a word each fail
`test_normalizer_properties.py` with this strategy and with the table strategy,
after 4 to 410 examples.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
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

# A block is one pick from a flat table: a shape (a word is drawn for it) or a fixed block. The text shapes appear
# twice in a user's table, so text, media and unsupported blocks each come up about a third of the time.
USER_BLOCKS = (*TEXT_SHAPES, *TEXT_SHAPES, *MEDIA_BLOCKS, *UNSUPPORTED_BLOCKS)
AI_BLOCKS = (
    *TEXT_SHAPES,
    *TEXT_SHAPES,
    *ASSISTANT_ONLY_BLOCKS,
    *MEDIA_BLOCKS,
    *UNSUPPORTED_BLOCKS,
    *ASSISTANT_ONLY_BLOCKS,
)
TOOL_BLOCKS = (TEXT_SHAPES[1], IMAGE)

# A content's shape: a negative number is a plain string (or, for an answer, below -5 an empty one),
# 0 or more a block list of that many blocks.
USER_SHAPES = range(-5, 5)  # half plain strings, half lists of 0-4 blocks
AI_SHAPES = range(-10, 5)  # a third "", a third a plain string, a third lists of 0-4 blocks
TOOL_SHAPES = range(-4, 4)  # half plain strings, half lists of 0-3 blocks

# A message's class (a ChatMessage's with its role as applications spell it) with its content's shape: one pick.
# Sorted so that shrinking (bytes towards 0) goes towards a plain message with an empty block list.
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
USER_FORMS = sorted(itertools.product(USER_CLASSES, USER_SHAPES), key=lambda form: abs(form[1]))
ASSISTANT_FORMS = sorted(itertools.product(ASSISTANT_CLASSES, AI_SHAPES), key=lambda form: abs(form[1]))
# A tool round's number of calls (1-3) and how it is broken, one pick.
ROUNDS = list(itertools.product([1, 2, 3], ["none", "none", "injected", "missing", "orphan", "reversed"]))
# A turn; a system message is a developer message half the time.
TURN_KINDS = ("user", "user", "user", "user", "ai", "ai", "tools", "tools", "system", "developer")

ALPHABET = "abcdefghij klmnop"
# The most bytes each part reads (`_Choices`): a pick from up to 32 alternatives is one byte, from more two.
WORD = 1 + 8  # its length, its characters
USER = 2 + 4 * (1 + WORD)  # the form, then a word or up to 4 blocks (the block, its word)
ASSISTANT = 2 + 4 * (2 + WORD) + 1  # the form, then a word (v1) or up to 4 blocks; whether a call is invalid
TOOL_RESULT = 1 + 3 * (1 + WORD)  # the shape, then a word or up to 3 blocks
ROUND = 1 + 3 * WORD + ASSISTANT + 3 * TOOL_RESULT + WORD  # the round, its calls' arguments, the turn, the results,
# and an injected message's or an orphan's word
TURN = 1 + ROUND  # the kind, then the largest turn
HEAD = 1 + 2 * (1 + WORD) + 1 + 2 + 1 + USER  # the leading system messages, the cut, the newest user message


class _Choices:
    """The choices of one turn (or of a history's head), read from the bytes Hypothesis drew for it.

    A pick from n alternatives is a byte modulo n (two bytes when n > 32, so each
    alternative is about as likely as the others); past the end every byte reads 0.
    """

    def __init__(self, data: bytes) -> None:
        self._bytes = iter(data)

    def below(self, n: int) -> int:
        value = next(self._bytes, 0)
        if n > 32:
            value = value << 8 | next(self._bytes, 0)
        return value % n

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.below(len(options))]

    def word(self) -> str:
        """1 to 8 characters of `ALPHABET`, what `st.text(alphabet=ALPHABET, min_size=1, max_size=8)` draws."""
        return "".join([ALPHABET[self.below(len(ALPHABET))] for _ in range(1 + self.below(8))])

    def block(self, blocks: Sequence[Any]) -> Any:
        block = self.pick(blocks)
        return block(self.word()) if callable(block) else block

    def content(self, shape: int, blocks: Sequence[Any]) -> Any:
        if shape < -5:
            return ""
        if shape < 0:
            return self.word()
        return [self.block(blocks) for _ in range(shape)]


def _user(c: _Choices) -> BaseMessage:
    (kind, role), shape = c.pick(USER_FORMS)
    content = c.content(shape, USER_BLOCKS)
    if kind == "chunk":
        return HumanMessageChunk(content=content)
    if kind == "chat":
        return ChatMessage(content=content, role=role)
    return HumanMessage(content)


def _assistant(c: _Choices, tool_calls: list[dict[str, Any]] | None) -> BaseMessage:
    """An assistant turn (with `tool_calls`, an AIMessage), in any of the forms applications hand back."""
    (kind, role), shape = c.pick(ASSISTANT_FORMS)
    if kind == "v1" and not tool_calls:  # the package's own output_version="v1" answer
        return AIMessage(
            [{"type": "reasoning", "reasoning": "r"}, {"type": "text", "text": c.word(), "annotations": []}],
            response_metadata={"output_version": "v1", "model_provider": "perplexity"},
        )
    content = c.content(shape, AI_BLOCKS)
    if tool_calls or kind == "ai":
        invalid = (
            [{"type": "invalid_tool_call", "name": "f", "args": "{not json", "id": f"bad_{next(_ids)}", "error": "x"}]
            if c.below(10) == 0
            else []
        )
        return AIMessage(content, tool_calls=tool_calls or [], invalid_tool_calls=invalid)
    if kind == "chunk":
        return AIMessageChunk(content=content)
    return ChatMessage(content=content, role=role)


def system_message(text: str, developer: bool) -> BaseMessage:
    if developer:
        return SystemMessage(text, additional_kwargs={"__openai_role__": "developer"})
    return SystemMessage(text)


def _tool_round(c: _Choices) -> list[BaseMessage]:
    """An assistant turn with calls and its results, possibly broken as real applications break it."""
    count, defect = c.pick(ROUNDS)
    ids = [f"call_{next(_ids)}" for _ in range(count)]
    calls = [{"name": "lookup", "args": {"q": c.word()}, "id": i, "type": "tool_call"} for i in ids]
    messages: list[BaseMessage] = [_assistant(c, calls)]
    results = [ToolMessage(c.content(c.pick(TOOL_SHAPES), TOOL_BLOCKS), tool_call_id=i, name="lookup") for i in ids]
    if defect == "missing":
        results = results[:-1]
    if defect == "reversed":
        results.reverse()
    if defect == "injected":  # an after_model middleware's message between the call and its results
        messages.append(system_message(c.word(), False))
    if defect == "orphan":
        results.append(ToolMessage(c.word(), tool_call_id=f"orphan_{next(_ids)}"))
    return messages + results


def _turn(c: _Choices) -> list[BaseMessage]:
    kind = c.pick(TURN_KINDS)
    if kind == "user":
        return [_user(c)]
    if kind == "ai":
        return [_assistant(c, None)]
    if kind == "tools":
        return _tool_round(c)
    return [system_message(c.word(), kind == "developer")]


heads = st.binary(min_size=HEAD, max_size=HEAD)
turns = st.binary(min_size=TURN, max_size=TURN)


@st.composite
def app_histories(draw: st.DrawFn, max_turns: int = 10) -> list[BaseMessage]:
    """A history as an application hands it to a chat model: 0-2 system messages, 1 to `max_turns` turns,
    maybe cut at the front, maybe a newest user message."""
    head = _Choices(draw(heads))
    messages: list[BaseMessage] = [system_message(head.word(), head.below(2) == 1) for _ in range(head.below(3))]
    for _ in range(draw(st.integers(1, max_turns))):
        messages.extend(_turn(_Choices(draw(turns))))
    if head.below(5) == 0:  # cut at the front, as trim_messages leaves a history
        messages = messages[head.below(len(messages)) :]
    if head.below(2):
        messages.append(_user(head))
    return messages
