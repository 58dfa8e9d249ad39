"""Compaction to a token budget."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.normalize import compact_messages


def words(message: BaseMessage | str) -> int:
    text = message if isinstance(message, str) else str(message.content)
    return len(text.split())


def text_counter(text: str) -> int:
    return len(text.split())


def history() -> list[BaseMessage]:
    return [
        SystemMessage("one two"),
        HumanMessage("old question " * 5),
        AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "c1"}]),
        ToolMessage("tool result words here", tool_call_id="c1"),
        AIMessage("old answer"),
        HumanMessage("line a\nline b\nline c\nline d"),
        AIMessage("middle answer"),
        HumanMessage("newest question now"),
    ]


def test_nothing_changes_within_budget() -> None:
    result = compact_messages(history(), 1000, token_counter=text_counter)
    assert result.messages == history()
    assert not result.changes
    assert result.counter_calls == len(history())


def test_oldest_go_first_and_system_and_newest_turn_stay_whole() -> None:
    result = compact_messages(history(), 2 + 3 + 2 + 4, token_counter=text_counter)
    assert result.messages[0] == SystemMessage("one two")
    assert result.messages[-1] == HumanMessage("newest question now")
    assert AIMessage("middle answer") in result.messages
    assert result.changes[0].rule == "compact_to_context_window"
    assert 1 in result.changes[0].sources


def test_lines_are_dropped_from_the_front_of_the_oldest_kept_message() -> None:
    result = compact_messages(history(), 2 + 3 + 2 + 4, token_counter=text_counter)
    cut = [m for m in result.messages if isinstance(m, HumanMessage) and "line" in str(m.content)]
    assert cut == [HumanMessage("line c\nline d")]
    assert any("lines dropped" in c.reason for c in result.changes)


def test_a_tool_call_is_never_separated_from_its_results() -> None:
    for budget in range(5, 40):
        try:
            kept = compact_messages(history(), budget, token_counter=text_counter).messages
        except ValueError:
            continue
        calls = any(isinstance(m, AIMessage) and m.tool_calls for m in kept)
        results = any(isinstance(m, ToolMessage) for m in kept)
        assert calls == results, budget


def test_too_small_a_budget_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="system instructions and the newest user turn alone take 5 tokens"):
        compact_messages(history(), 4, token_counter=text_counter)


def test_counters_of_every_shape() -> None:
    class Encoder:
        def encode(self, text: str) -> list[int]:
            return [0] * len(text.split())

    def messages_counter(messages: list[BaseMessage]) -> int:
        return sum(words(m) for m in messages)

    expected = compact_messages(history(), 12, token_counter=text_counter).messages
    assert compact_messages(history(), 12, token_counter=Encoder()).messages == expected
    assert compact_messages(history(), 12, token_counter=messages_counter).messages == expected
    assert compact_messages(history(), 100).messages == history()  # langchain-core's approximate counter
    with pytest.raises(ValueError, match="token_counter=3"):
        compact_messages(history(), 12, token_counter=3)


@settings(max_examples=300)
@given(st.lists(st.text(alphabet="ab \n", max_size=40), min_size=2, max_size=60), st.integers(10, 400))
def test_fits_and_counts_about_twice_per_message(texts: list[str], budget: int) -> None:
    messages: list[BaseMessage] = [SystemMessage("sys")]
    for i, text in enumerate(texts):
        messages.append(HumanMessage(text) if i % 2 == 0 else AIMessage(text))
    messages.append(HumanMessage("last"))
    try:
        result = compact_messages(messages, budget, token_counter=text_counter)
    except ValueError:
        return
    assert sum(words(m) for m in result.messages) <= budget
    assert result.counter_calls <= 2 * len(messages)


def test_the_model_reports_compaction_with_the_callers_positions() -> None:
    llm = ChatPerplexityStrict(api_key="k", max_input_tokens=11, token_counter=text_counter)  # type: ignore[arg-type]
    report = llm.normalize(history())
    assert report.changes[0].rule == "compact_to_context_window"
    assert report.messages[-1] == HumanMessage("newest question now")
    assert ChatPerplexityStrict(api_key="k").input_budget == 127_072  # type: ignore[arg-type]
    assert ChatPerplexityStrict(api_key="k", max_input_tokens=0).input_budget is None  # type: ignore[arg-type]
    assert ChatPerplexityStrict(api_key="k", model="openai/unknown").input_budget is None  # type: ignore[arg-type]


def annotated_messages_counter(messages: list[BaseMessage]) -> int:
    return sum(words(m) for m in messages)


class SizedModel:
    """What a LangChain model offers a counter: `get_num_tokens_from_messages`."""

    def get_num_tokens_from_messages(self, messages: list[BaseMessage]) -> int:
        return sum(words(m) for m in messages)


def test_len_as_a_counter_counts_a_messages_characters_not_one_per_message() -> None:
    """`len` takes a list as readily as a string: the counter's kind is read from it, never guessed by a call."""
    long = HumanMessage("x" * 5000)
    assert compact_messages([long], 5000, token_counter=len).tokens == 5000
    with pytest.raises(ValueError, match="take 5000 tokens"):
        compact_messages([long], 4999, token_counter=len)


@pytest.mark.parametrize(
    "counter",
    [
        text_counter,
        lambda text: len(text.split()),
        annotated_messages_counter,
        SizedModel(),
        SizedModel().get_num_tokens_from_messages,
    ],
    ids=["text function", "unannotated lambda", "annotated messages function", "a model", "a model's method"],
)
def test_every_counter_kind_is_given_what_it_counts(counter: object) -> None:
    expected = compact_messages(history(), 12, token_counter=text_counter)
    result = compact_messages(history(), 12, token_counter=counter)
    assert result.messages == expected.messages
    assert result.tokens == expected.tokens


def test_a_messages_counter_is_never_called_with_text_nor_a_text_counter_with_messages() -> None:
    seen: list[type] = []

    def messages_only(messages: list[BaseMessage]) -> int:
        seen.append(type(messages))
        return len(messages)

    def text_only(text: str) -> int:
        seen.append(type(text))
        return len(text)

    compact_messages(history(), 1000, token_counter=messages_only)
    assert set(seen) == {list}
    seen.clear()
    compact_messages(history(), 1000, token_counter=text_only)
    assert set(seen) == {str}
