"""Properties of the normalizer over the histories applications build (``app_histories``).

Each property runs at the default hypothesis profile's 2,000 examples in CI. The
properties of one history share its draw (`test_properties_of_any_history`): drawing
a history costs far more than checking it, so one draw serves them all, compaction
to a budget drawn with it included. The bodies judged are the ones the model builds
from the history (`request_body`, as an application's call and `perplexity-strict
check` build them).
Validity is judged twice, by judges that share no code with the rules: the
emulator's wire checks (conversation rules and its transcription of the
request schema) and Perplexity's own published models, strict. What is lost, and the role
each message goes out under, are judged by an oracle written out here from the docs
(`carried`, `expected_roles`), which shares no code with the normalizer either.
"""

from __future__ import annotations

import copy
import itertools
import re
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict import ChatPerplexityStrict, normalize_messages
from langchain_perplexity_strict.normalize import DEFAULT_RULES
from langchain_perplexity_strict.normalize._content import canonical_content
from langchain_perplexity_strict.normalize._normalizer import NormalizationResult, compact_normalized
from langchain_perplexity_strict.testing.agent_schema import check_schema
from langchain_perplexity_strict.testing.conversation import (
    ConversationRules,
    check_conversation,
    turns_from_agent_input,
    turns_from_chat_messages,
)
from tests import published_schema
from tests.unit_tests.app_histories import app_histories

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:The newest user message lost content block:UserWarning"),
]

REFUSALS = re.compile(r"nothing but system messages|left out of the newest user message")
# Bodies are built the public way, as `perplexity-strict check` does: `request_body` sends nothing.
# No input budget (max_input_tokens=0), so the body holds exactly the history it is given.
AGENT = ChatPerplexityStrict(model="perplexity/sonar", api="agent", api_key="unused", max_input_tokens=0)
CHAT = ChatPerplexityStrict(model="sonar", api="chat_completions", api_key="unused", max_input_tokens=0)


class Drawn(NamedTuple):
    """One drawn history, what the normalizer made of it and the Agent API body sent for it (None where
    refused), and a budget to compact it to."""

    history: list[BaseMessage]
    result: NormalizationResult | None
    agent: dict[str, Any] | None
    budget: int
    """A token budget to compact the history to (`check_compaction_at_any_budget_stays_valid`)."""


def _normalize_or_none(messages: list[BaseMessage]) -> NormalizationResult | None:
    try:
        return normalize_messages(messages)
    except ValueError as error:
        # Refused only when nothing but system messages is left to send, or when the newest user
        # turn holds nothing Perplexity can take (never dropped: the previous question would be answered again).
        assert REFUSALS.search(str(error)), error
        return None


def _agent_body_or_none(messages: list[BaseMessage]) -> dict[str, Any] | None:
    try:
        return AGENT.request_body(messages)
    except ValueError as error:  # a newest turn of videos alone: the Agent API has no video part (issue 18)
        assert REFUSALS.search(str(error)), error
        return None


def check_every_history_is_valid_on_both_surfaces(drawn: Drawn) -> None:
    result, agent = drawn.result, drawn.agent
    if result is None or agent is None:
        return
    check_schema(agent)
    check_conversation(turns_from_agent_input(agent["input"]), ConversationRules(), "invalid_request")
    published_schema.agent_request(agent)
    chat = CHAT.request_body(drawn.history)
    check_conversation(turns_from_chat_messages(chat["messages"], "invalid_message"), ConversationRules(), "x")
    published_schema.chat_request(chat)


def _texts(message: BaseMessage) -> list[str]:
    """The text pieces a message carries that Perplexity takes (reasoning is not sent back by design)."""
    content = canonical_content(message.content, assistant=isinstance(message, AIMessage)).content
    pieces = [content] if isinstance(content, str) else [b["text"] for b in content if b["type"] == "text"]
    return [p for p in pieces if p]


def check_nothing_is_lost_but_what_the_report_names(drawn: Drawn) -> None:
    history, result = drawn.history, drawn.result
    if result is None:
        return
    dropped = {s for c in result.changes if "not sent" in c.reason for s in c.sources}
    sent = "\x00".join(t for m in result.messages for t in _texts(m))
    call_ids = " ".join(
        [c["id"] for m in result.messages if isinstance(m, AIMessage) for c in m.tool_calls]
        + [m.tool_call_id for m in result.messages if isinstance(m, ToolMessage)]
        + [str(m.content) for m in result.messages if isinstance(m, HumanMessage)]
    )
    for index, message in enumerate(history):
        left_out = canonical_content(message.content, assistant=isinstance(message, AIMessage))
        named = " ".join(c.reason for c in result.changes if index in c.sources)
        for kind in left_out.reasoning + left_out.dropped:
            assert repr(kind) in named, f"block {kind!r} of message {index} left out without a word: {named!r}"
        if index in dropped:
            continue
        for piece in _texts(message):
            assert piece in sent, f"lost {piece!r} of message {index}"
        if isinstance(message, ToolMessage):
            assert message.tool_call_id in call_ids, f"lost tool_call_id {message.tool_call_id!r}"
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                assert call["id"] in call_ids, f"lost tool call {call['id']!r}"


def check_merged_parts_keep_their_order(drawn: Drawn) -> None:
    """A message sent for several (a merged run) carries their texts in the order of its sources."""
    history, result = drawn.history, drawn.result
    if result is None:
        return
    for message, sources in zip(result.messages, result.sources, strict=True):
        if len(sources) < 2:
            continue
        sent, at = "\x00".join(_texts(message)), 0
        for source in sources:
            for piece in _texts(history[source]):
                found = sent.find(piece, at)
                assert found >= 0, f"text {piece!r} of message {source} is out of the order of {sources}: {sent!r}"
                at = found + len(piece)


# The oracle: what a history carries and the role each message plays, from the docs (docs/conversations.md,
# "Normalization: what the rules do") written out as data. It shares no code with the normalizer, so a
# converter that loses text, or a role table that sends an answer as a question, cannot vouch for itself.

ROLE_BY_TYPE = {"human": "user", "HumanMessageChunk": "user", "ai": "assistant", "AIMessageChunk": "assistant"}
ROLE_BY_TYPE |= {"system": "system", "tool": "tool"}
"""A message's role by its `type` (the LangChain classes and their stream chunks)."""
CHAT_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}
CHAT_ROLES |= {"system": "system", "developer": "system"}
"""`ChatMessage` roles, any case: OpenAI's chat roles and LangChain's aliases ("human", "ai", "User")."""
SENT_ROLE = {HumanMessage: "user", AIMessage: "assistant", SystemMessage: "system", ToolMessage: "tool"}
"""What goes out is the four plain classes, one per role."""

ALWAYS_SENT = frozenset({"str", "text", "input_text", "output_text", "refusal"})
"""Text of every kind, and a refusal (as its text): never left out, even with a report."""
SILENT = frozenset({"tool_call", "tool_call_chunk", "tool_use", "function_call"})
SILENT |= {"server_tool_call", "server_tool_call_chunk", "server_tool_result"}
"""Left out without a word: the calls go from `tool_calls`; server tools' work is not sent back."""
PAYLOAD = frozenset({"text", "refusal", "reasoning", "summary", "thinking", "data", "url", "image_url", "base64"})
PAYLOAD |= {"video_url", "input_audio", "file_id", "source"}
"""The keys under which a block holds what it says (text, reasoning, a URL, inline data), at any depth."""
TEXT_KEYS = frozenset({"text", "refusal", "reasoning", "summary", "thinking"})


def _strings(value: Any, keys: frozenset[str] = PAYLOAD) -> list[str]:
    """The non-empty strings held, at any depth, under `keys` (`value` itself when it is a string)."""
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [s for item in value for s in _strings(item, keys)]
    if isinstance(value, dict):
        return [s for key, item in value.items() if key in keys for s in _strings(item, keys)]
    return []


class Carried(NamedTuple):
    """One block of an input message: its kind, whether it is text, and what it holds."""

    kind: str
    text: bool
    payload: list[str]


def carried(message: BaseMessage) -> list[Carried]:
    """Every block of text or content `message` carries (a string content is one text block)."""
    content = message.content
    blocks = [content] if isinstance(content, str) else content
    out = []
    for block in blocks:
        if isinstance(block, str):
            if block:  # an empty string carries nothing
                out.append(Carried("str", True, [block]))
        else:
            kind = str(block.get("type"))
            text = bool(TEXT_KEYS.intersection(block))
            out.append(Carried(kind, text, _strings({k: v for k, v in block.items() if k != "type"})))
    return out


def input_role(message: BaseMessage) -> str:
    """The role the docs give `message`: by its class, or a `ChatMessage`'s role alias."""
    if isinstance(message, ChatMessage):
        return CHAT_ROLES[message.role.lower()]
    return ROLE_BY_TYPE[message.type]


class Sent(NamedTuple):
    """What one output message carries: its texts, every string of its content, and its call ids."""

    texts: str
    everything: str
    call_ids: set[str]


def sent(message: BaseMessage) -> Sent:
    """What an output message carries, whatever shape its content has."""
    content = message.content
    if isinstance(content, str):
        texts = everything = content
    else:
        texts = "\x00".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)
        everything = "\x00".join([texts, *(s for b in content if isinstance(b, dict) for s in _all_strings(b))])
    ids = {c["id"] for c in getattr(message, "tool_calls", [])}
    if isinstance(message, ToolMessage):
        ids.add(message.tool_call_id)
    return Sent(texts, everything, ids)


def _all_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for item in value for s in _all_strings(item)] if isinstance(value, list) else []


def expected_roles(history: list[BaseMessage], kept: set[int]) -> dict[int, str]:
    """The role each message sent (`kept`) goes out under, by the docs' rules.

    A system message after any other message sent is demoted to user; a tool result
    goes out as tool when it answers a call of the assistant turn before it (a run of
    assistant messages; each call answered once), else as a user message (orphaned);
    every other message keeps its role.
    """
    roles: dict[int, str] = {}
    pending: set[str] = set()
    started = previous_assistant = False
    for index, message in enumerate(history):
        if index not in kept:
            continue
        role = input_role(message)
        if role == "assistant":
            pending = (pending if previous_assistant else set()) | {c["id"] for c in getattr(message, "tool_calls", [])}
        elif role == "tool":
            answers = message.tool_call_id in pending  # type: ignore[attr-defined]
            pending.discard(message.tool_call_id)  # type: ignore[attr-defined]
            role = "tool" if answers else "user"
        elif role == "system" and started:
            role = "user"
        started = started or role != "system"
        previous_assistant = role == "assistant"
        roles[index] = role
    return roles


def check_everything_carried_is_sent_or_reported(drawn: Drawn) -> None:
    """The oracle's account: each text, content block and call id of each message is in the message
    sent for it, or its kind is named as left out in the report (text never is), or the message is a
    trailing assistant message, reported as not sent."""
    history, result = drawn.history, drawn.result
    if result is None:
        return
    out: dict[int, Sent] = {}
    for message, sources in zip(result.messages, result.sources, strict=True):
        for source in sources:
            out[source] = sent(message) if source not in out else _joined(out[source], sent(message))
    roles = [input_role(m) for m in history]
    for index, message in enumerate(history):
        said = [c.reason for c in result.changes if index in c.sources]
        left_out = " ".join(r for r in said if "left out" in r)
        if index not in out:
            assert any("not sent" in r for r in said), f"message {index} is not sent, and the report does not say so"
            if all(role == "assistant" or later not in out for later, role in enumerate(roles) if later >= index):
                # A trailing assistant message, as documented: only answers, or messages not sent, after it
                # (an empty newest user turn is not sent, which leaves the answer before it trailing).
                continue
            there = Sent("", "", set())
        else:
            there = out[index]
        for block in carried(message):
            found = block.payload and all(p in (there.texts if block.text else there.everything) for p in block.payload)
            if found or block.kind in SILENT or (block.text and not block.payload):  # an empty text carries nothing
                continue
            assert block.kind not in ALWAYS_SENT, f"text {block.payload!r} of message {index} lost: {said!r}"
            assert repr(block.kind) in left_out, f"{block.kind!r} block of message {index} lost without a word"
        calls = [c["id"] for c in getattr(message, "tool_calls", [])]
        for call_id in [*calls, *([message.tool_call_id] if isinstance(message, ToolMessage) else [])]:
            assert call_id in there.call_ids or call_id in there.texts, f"lost call id {call_id!r} of message {index}"
        for call in getattr(message, "invalid_tool_calls", []):
            assert repr(call["name"]) in left_out, f"invalid tool call {call!r} of message {index} lost without a word"


def _joined(a: Sent, b: Sent) -> Sent:
    return Sent(a.texts + "\x00" + b.texts, a.everything + "\x00" + b.everything, a.call_ids | b.call_ids)


def check_roles_follow_the_docs(drawn: Drawn) -> None:
    """Each message goes out under the role its own role gives it (alias table, demotion, orphans)."""
    history, result = drawn.history, drawn.result
    if result is None:
        return
    expected = expected_roles(history, {s for sources in result.sources for s in sources})
    for position, (message, sources) in enumerate(zip(result.messages, result.sources, strict=True)):
        role = SENT_ROLE[type(message)]
        if not sources:  # inserted: the opening user turn, or an unanswered call's placeholder result
            assert role in ("user", "tool"), f"inserted message {position} is {role}"
        for source in sources:
            assert expected[source] == role, f"message {source} ({expected[source]}) is sent as {role}: {message!r}"


def check_untouched_messages_are_not_copied(drawn: Drawn) -> None:
    history, result = drawn.history, drawn.result
    if result is None:
        return
    touched = {i for change in result.changes for i in change.sources}
    out_ids = {id(m) for m in result.messages}
    for i, message in enumerate(history):
        plain = type(message) in (HumanMessage, AIMessage, SystemMessage, ToolMessage)
        if i not in touched and plain and isinstance(message.content, str):
            assert id(message) in out_ids, f"message {i} was copied though no rule touched it"


def check_idempotent(drawn: Drawn) -> None:
    result = drawn.result
    if result is None:
        return
    again = normalize_messages(result.messages)
    assert again.messages == result.messages
    assert not again.changed, again.report()


def _call_points(history: list[BaseMessage]) -> list[int]:
    """Where an application calls the model: after a user message, or once every pending call has its result."""
    points = []
    pending: set[str] = set()
    for end, message in enumerate(history, start=1):
        if isinstance(message, AIMessage):
            pending = {c["id"] for c in message.tool_calls}
        elif isinstance(message, ToolMessage):
            pending.discard(message.tool_call_id)
        if not pending and not isinstance(message, (AIMessage, SystemMessage)):
            points.append(end)
    return points


def _sent_input(messages: list[BaseMessage]) -> list[dict[str, Any]] | None:
    """The Agent API input an application's call sends for `messages` (None if refused): the body the
    model builds from them, normalizing them on the way as every call does."""
    agent = _agent_body_or_none(messages)
    return None if agent is None else agent["input"]


def check_turn_stable(drawn: Drawn) -> None:
    """Every earlier item goes out again unchanged, under the same role, as the conversation grows.

    Compared at the points where an application calls the model, and up to the
    last turn of the shorter history (a user turn may still merge with the next).
    """
    history, whole = drawn.history, None if drawn.agent is None else drawn.agent["input"]
    inputs = [whole if end == len(history) else _sent_input(history[:end]) for end in _call_points(history)]
    sent = [i for i in inputs if i is not None]
    for before, after in itertools.pairwise(sent):
        settled = before[: _last_assistant(before) + 1]
        assert after[: len(settled)] == settled


def _last_assistant(items: list[dict[str, Any]]) -> int:
    return max((i for i, item in enumerate(items) if item.get("role") == "assistant"), default=-1)


def check_compaction_at_any_budget_stays_valid(drawn: Drawn) -> None:
    """Compacting to a random budget, then normalizing what is left, still gives a valid conversation.

    Compacted as `prepare` compacts: it normalizes the history (`drawn.result`, refused where that
    is None) and hands the result to `compact_normalized`. When nothing was cut, what is sent is
    the normalized history itself, whose body `check_every_history_is_valid_on_both_surfaces`
    judges (the same body: normalizing it again changes nothing, `check_idempotent`).
    """
    history, budget, whole = drawn.history, drawn.budget, drawn.result
    if whole is None:
        return
    try:
        result = compact_normalized(whole, DEFAULT_RULES, budget, None)
    except ValueError as error:
        # Refused only when there is nothing to send, or when the newest turn alone is over the budget.
        assert REFUSALS.search(str(error)) or f"max_input_tokens={budget}" in str(error), error
        return
    assert all(all(0 <= s < len(history) for s in sources) for sources in result.sources)
    if result.messages == whole.messages:
        return
    agent = _agent_body_or_none(result.messages)
    if agent is None:
        return
    check_conversation(turns_from_agent_input(agent["input"]), ConversationRules(), "invalid_request")
    published_schema.agent_request(agent)


PROPERTIES = (
    check_untouched_messages_are_not_copied,
    check_every_history_is_valid_on_both_surfaces,
    check_nothing_is_lost_but_what_the_report_names,
    check_merged_parts_keep_their_order,
    check_everything_carried_is_sent_or_reported,
    check_roles_follow_the_docs,
    check_idempotent,
    check_turn_stable,
    check_compaction_at_any_budget_stays_valid,
)


@given(app_histories(), st.integers(min_value=40, max_value=400))
def test_properties_of_any_history(history: list[BaseMessage], budget: int) -> None:
    """Each property on the same history; a failure's traceback names the property that broke.

    The history is normalized, and its Agent API body built, once: every property reads that. The
    compaction property draws its budget with the history (it had a test of its own, which drew
    histories from the same strategy: 2,000 examples each way, and the draw was most of its cost).
    """
    before = copy.deepcopy(history)
    result = _normalize_or_none(history)
    drawn = Drawn(history, result, None if result is None else _agent_body_or_none(history), budget)
    assert history == before, "the caller's messages were mutated"  # by the normalizer or the body built from it
    for check in PROPERTIES:
        check(drawn)
    assert history == before, "the caller's messages were mutated"  # by compaction, or a body built from a prefix
