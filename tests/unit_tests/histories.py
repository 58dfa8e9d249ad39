"""Hypothesis strategies for realistic agent histories, and an independent validator."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_openai.chat_models.base import _convert_message_to_dict

from langchain_perplexity_strict.testing.conversation import (
    ConversationRules,
    check_conversation,
    turns_from_chat_messages,
)
from langchain_perplexity_strict.testing.errors import APIError

texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=10)
names = st.sampled_from([None, "alice", "bob"])
image = st.just({"type": "image_url", "image_url": {"url": "https://img.example/x.png"}})
text_block = texts.map(lambda t: {"type": "text", "text": t})
user_content = st.one_of(texts, st.lists(st.one_of(texts, text_block, image), max_size=3))
ai_content = st.one_of(texts, st.lists(text_block, max_size=2))


@st.composite
def histories(draw: st.DrawFn, max_turns: int = 14) -> list[BaseMessage]:
    """A history an agent or chat UI could produce (tool results follow their calls)."""
    messages: list[BaseMessage] = []
    counter = 0
    for _ in range(draw(st.integers(0, 2))):
        messages.append(_system(draw))
    for _ in range(draw(st.integers(1, max_turns))):
        kind = draw(st.sampled_from(["user", "user", "ai", "tools", "double_tools", "system", "chat_user"]))
        if kind == "user":
            messages.append(HumanMessage(draw(user_content), name=draw(names)))
        elif kind == "chat_user":
            messages.append(ChatMessage(content=draw(texts), role="user"))
        elif kind == "ai":
            messages.append(AIMessage(draw(ai_content), name=draw(names)))
        elif kind == "system":
            messages.append(_system(draw))
        else:
            # "double_tools": two assistant tool-call turns in a row, with the
            # results after each turn or all after the second.
            turns = 2 if kind == "double_tools" else 1
            results_after_each = turns == 1 or draw(st.booleans())
            unanswered: list[str] = []
            for _ in range(turns):
                turn_ids = [f"call_{counter + k}" for k in range(draw(st.integers(1, 3)))]
                counter += len(turn_ids)
                calls = [{"name": "lookup", "args": {"q": draw(texts)}, "id": i} for i in turn_ids]
                messages.append(AIMessage(draw(ai_content), tool_calls=calls))
                unanswered.extend(turn_ids)
                if results_after_each:
                    messages.extend(ToolMessage(draw(texts), tool_call_id=i) for i in unanswered)
                    unanswered = []
            messages.extend(ToolMessage(draw(texts), tool_call_id=i) for i in unanswered)
    return messages


def _system(draw: st.DrawFn) -> BaseMessage:
    if draw(st.booleans()):
        return SystemMessage(draw(texts))
    return SystemMessage(draw(texts), additional_kwargs={"__openai_role__": "developer"})


def violation(messages: list[BaseMessage]) -> str | None:
    """Why Perplexity would reject ``messages`` (None if it would accept them).

    Judged by the emulator's wire-level checks on what langchain-openai sends,
    which share no code with the normalizer's rules.
    """
    wire: list[dict[str, Any]] = []
    for m in messages:
        d = _convert_message_to_dict(m)
        if d["role"] == "developer":
            d["role"] = "system"
        wire.append(d)
    try:
        check_conversation(
            turns_from_chat_messages(wire, "invalid_message"),
            ConversationRules(),
            "invalid_message",
        )
    except APIError as e:
        return e.message
    return None
