"""Properties of normalize_messages over generated histories (issue 2)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from langchain_perplexity_strict import normalize_messages
from langchain_perplexity_strict.roles import role_of
from tests.unit_tests.histories import histories, violation


def _normalize_or_none(messages: list[BaseMessage]) -> Any:
    try:
        return normalize_messages(messages)
    except ValueError:
        return None


def _pieces(messages: list[BaseMessage]) -> list[Any]:
    """Text and non-text blocks of ``messages``, in order."""
    out: list[Any] = []
    for m in messages:
        content = m.content
        items = [content] if isinstance(content, str) else content
        for item in items:
            if isinstance(item, str):
                if item:
                    out.append(item)
            elif item.get("type") == "text":
                if item["text"]:
                    out.append(item["text"])
            else:
                out.append(item)
    return out


def _trailing_assistant_count(messages: list[BaseMessage]) -> int:
    n = 0
    for m in reversed(messages):
        if role_of(m) != "assistant":
            break
        n += 1
    return n


@given(histories())
def test_output_satisfies_perplexity_rules(history: list[BaseMessage]) -> None:
    result = _normalize_or_none(history)
    if result is None:
        # Only a history with no non-system message left may be refused.
        kept = history[: len(history) - _trailing_assistant_count(history)]
        assert all(role_of(m) == "system" for m in kept)
        return
    assert violation(result.messages) is None, violation(result.messages)


@given(histories())
def test_nothing_is_lost(history: list[BaseMessage]) -> None:
    result = _normalize_or_none(history)
    if result is None:
        return
    kept = history[: len(history) - _trailing_assistant_count(history)]
    expected = _pieces(kept)
    got = _pieces(result.messages)
    cursor = 0
    for piece in expected:
        while cursor < len(got):
            candidate = got[cursor]
            if isinstance(piece, str) and isinstance(candidate, str):
                if piece in candidate:
                    # Several pieces may share one merged string.
                    got[cursor] = candidate[candidate.index(piece) + len(piece) :]
                    break
            elif candidate == piece:
                cursor += 1
                break
            cursor += 1
        else:
            raise AssertionError(f"lost {piece!r}")
    out_calls = [c["id"] for m in result.messages if isinstance(m, AIMessage) for c in m.tool_calls]
    out_results = [m.tool_call_id for m in result.messages if isinstance(m, ToolMessage)]
    for m in kept:
        if isinstance(m, AIMessage):
            assert all(c["id"] in out_calls for c in m.tool_calls)
        if isinstance(m, ToolMessage):
            assert m.tool_call_id in out_results
            assert m.tool_call_id in out_calls


@given(histories())
def test_callers_messages_are_not_mutated_and_untouched_pass_through(
    history: list[BaseMessage],
) -> None:
    before = copy.deepcopy(history)
    result = _normalize_or_none(history)
    assert history == before
    if result is None:
        return
    touched = {i for change in result.changes for i in change.sources}
    out_ids = {id(m) for m in result.messages}
    for i, message in enumerate(history):
        if i not in touched:
            assert id(message) in out_ids, f"message {i} was copied though no rule touched it"


@given(histories())
def test_idempotent(history: list[BaseMessage]) -> None:
    result = _normalize_or_none(history)
    if result is None:
        return
    again = normalize_messages(result.messages)
    assert again.messages == result.messages
    assert not again.changed


@given(histories())
def test_stable_as_the_history_grows(history: list[BaseMessage]) -> None:
    previous = None
    for end in range(1, len(history) + 1):
        current = _normalize_or_none(history[:end])
        if previous is not None and current is not None:
            kept = previous.messages[:-1]
            assert current.messages[: len(kept)] == kept
            assert [role_of(m) for m in current.messages[: len(kept)]] == [role_of(m) for m in kept]
        if current is not None:
            previous = current
