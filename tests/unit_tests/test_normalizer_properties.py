"""Properties of the normalizer over the histories applications build (``app_histories``).

Each property runs at the default hypothesis profile's 2,000 examples in CI. The
properties of one history share its draw (`test_properties_of_any_history`): drawing
a history costs far more than checking it, so one draw serves them all.
Validity is judged twice, by judges that share no code with the rules: the
emulator's wire checks (conversation rules and its transcription of the
request schema) and Perplexity's own published models, strict.
"""

from __future__ import annotations

import copy
import itertools
import re
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict import DEFAULT_RULES, ChatPerplexityStrict, normalize_messages
from langchain_perplexity_strict.normalize import NormalizationResult, prepare
from langchain_perplexity_strict.normalize._content import canonical_content
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
    """One drawn history, what the normalizer made of it and its Agent API body (None where refused)."""

    history: list[BaseMessage]
    result: NormalizationResult | None
    agent: dict[str, Any] | None


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
    chat = CHAT.request_body(result.messages)
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
    """The Agent API input an application's call sends for `messages` (None if refused)."""
    result = _normalize_or_none(messages)
    agent = None if result is None else _agent_body_or_none(result.messages)
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


PROPERTIES = (
    check_untouched_messages_are_not_copied,
    check_every_history_is_valid_on_both_surfaces,
    check_nothing_is_lost_but_what_the_report_names,
    check_idempotent,
    check_turn_stable,
)


@given(app_histories())
def test_properties_of_any_history(history: list[BaseMessage]) -> None:
    """Each property on the same history; a failure's traceback names the property that broke.

    The history is normalized, and its Agent API body built, once: every property reads that.
    """
    before = copy.deepcopy(history)
    result = _normalize_or_none(history)
    drawn = Drawn(history, result, None if result is None else _agent_body_or_none(result.messages))
    assert history == before, "the caller's messages were mutated"  # by the normalizer or the body built from it
    for check in PROPERTIES:
        check(drawn)


@given(app_histories(), st.integers(min_value=40, max_value=400))
def test_compaction_at_any_budget_stays_valid(history: list[BaseMessage], budget: int) -> None:
    """Compacting to a random budget, then normalizing what is left, still gives a valid conversation."""
    try:
        result = prepare(history, rules=DEFAULT_RULES, budget=budget).result
    except ValueError as error:
        # Refused only when there is nothing to send, or when the newest turn alone is over the budget.
        assert REFUSALS.search(str(error)) or f"max_input_tokens={budget}" in str(error), error
        return
    agent = _agent_body_or_none(result.messages)
    if agent is None:
        return
    check_conversation(turns_from_agent_input(agent["input"]), ConversationRules(), "invalid_request")
    published_schema.agent_request(agent)
    assert all(all(0 <= s < len(history) for s in sources) for sources in result.sources)
