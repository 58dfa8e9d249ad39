"""The normalizer's rules, one example each, and its errors."""

from __future__ import annotations

import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)

from langchain_perplexity_strict import normalize_messages
from langchain_perplexity_strict.normalize import (
    DEFAULT_RULES,
    DropTrailingAssistantMessages,
    MergeAdjacentTurns,
    StartWithUserTurn,
)
from tests.unit_tests.histories import violation


def test_late_system_message_is_sent_as_user_and_merged() -> None:
    history = [
        SystemMessage("be brief"),
        HumanMessage("hi"),
        AIMessage("hello"),
        SystemMessage("the user is in Paris"),
        HumanMessage("weather?"),
    ]
    result = normalize_messages(history)
    assert result.messages[-1] == HumanMessage("the user is in Paris\n\nweather?")
    assert [c.rule for c in result.changes] == [
        "demote_late_system_messages",
        "merge_adjacent_turns",
    ]
    assert result.changes[0].sources == (3,)
    assert result.changes[1].sources == (3, 4)
    assert violation(history) is not None
    assert violation(result.messages) is None


def test_developer_message_after_start_is_demoted_too() -> None:
    dev = SystemMessage("use metric", additional_kwargs={"__openai_role__": "developer"})
    result = normalize_messages([HumanMessage("a"), AIMessage("b"), dev])
    assert isinstance(result.messages[-1], HumanMessage)
    assert "developer" in result.changes[0].reason


def test_two_user_messages_in_a_row_merge_as_a_string() -> None:
    result = normalize_messages([HumanMessage("file contents"), HumanMessage("question")])
    assert result.messages == [HumanMessage("file contents\n\nquestion")]


def test_mixed_content_merges_into_blocks_without_bare_strings() -> None:
    image = {"type": "image_url", "image_url": {"url": "https://x/y.png"}}
    result = normalize_messages([HumanMessage(["look", image]), HumanMessage("what is it?")])
    # Content comes out as LangChain's standard blocks (text, image, file), whatever shape it came in.
    assert result.messages[0].content == [
        {"type": "text", "text": "look"},
        {"type": "image", "url": "https://x/y.png"},
        {"type": "text", "text": "what is it?"},
    ]


def test_adjacent_assistant_tool_calls_are_concatenated() -> None:
    first = AIMessage("", tool_calls=[{"name": "a", "args": {}, "id": "1"}])
    second = AIMessage("", tool_calls=[{"name": "b", "args": {"x": 1}, "id": "2"}])
    history = [
        HumanMessage("go"),
        first,
        second,
        ToolMessage("r1", tool_call_id="1"),
        ToolMessage("r2", tool_call_id="2"),
    ]
    result = normalize_messages(history)
    merged = result.messages[1]
    assert isinstance(merged, AIMessage)
    assert [c["id"] for c in merged.tool_calls] == ["1", "2"]
    assert [type(m) for m in result.messages[2:]] == [ToolMessage, ToolMessage]
    assert violation(result.messages) is None


def test_tool_messages_are_never_merged() -> None:
    call = AIMessage("", tool_calls=[{"name": "a", "args": {}, "id": i} for i in "12"])
    history = [
        HumanMessage("go"),
        call,
        ToolMessage("x", tool_call_id="1"),
        ToolMessage("y", tool_call_id="2"),
    ]
    result = normalize_messages(history)
    assert result.messages == history
    assert not result.changed
    assert all(a is b for a, b in zip(result.messages, history, strict=True))


def test_trailing_assistant_messages_are_dropped() -> None:
    result = normalize_messages([HumanMessage("q"), AIMessage("a1"), AIMessage("a2")])
    assert result.messages == [HumanMessage("q")]
    assert result.changes[-1].rule == "drop_trailing_assistant_messages"
    assert result.changes[-1].sources == (1, 2)


def test_assistant_greeting_first_gets_an_opening_user_turn() -> None:
    greeting = AIMessage("Hi! How can I help?")
    result = normalize_messages([SystemMessage("s"), greeting, HumanMessage("prices?")])
    assert result.messages[1] == HumanMessage("(conversation start)")
    assert result.messages[2] is greeting
    assert violation(result.messages) is None


def test_the_opening_text_is_configurable() -> None:
    rules = [r for r in DEFAULT_RULES if not isinstance(r, StartWithUserTurn)]
    rules.append(StartWithUserTurn(opening="Hello."))
    result = normalize_messages([AIMessage("Hi!"), HumanMessage("q")], rules=rules)
    assert result.messages[0] == HumanMessage("Hello.")


def test_rules_can_be_dropped_and_reordered() -> None:
    history = [HumanMessage("a"), HumanMessage("b"), AIMessage("c")]
    only_drop = normalize_messages(history, rules=[DropTrailingAssistantMessages()])
    assert only_drop.messages == history[:2]
    custom_separator = normalize_messages(history, rules=[MergeAdjacentTurns(separator=" | ")])
    assert custom_separator.messages[0].content == "a | b"


def test_user_defined_rule_runs_and_reports() -> None:
    from langchain_perplexity_strict.normalize import Change, Entry

    class Shout:
        name = "shout"

        def __call__(self, entries: list[Entry]) -> tuple[list[Entry], list[Change]]:
            out = [
                Entry(
                    e.message.model_copy(update={"content": str(e.message.content).upper()}),
                    e.role,
                    e.sources,
                )
                for e in entries
            ]
            return out, [Change(self.name, (0,), "louder")]

    result = normalize_messages([HumanMessage("hi")], rules=[*DEFAULT_RULES, Shout()])
    assert result.messages == [HumanMessage("HI")]
    assert "shout: #0: louder" in result.report()


def test_accepts_what_convert_to_messages_accepts() -> None:
    result = normalize_messages([("system", "s"), {"role": "user", "content": "a"}, ("human", "b"), "c"])
    assert result.messages[1:] == [HumanMessage("a\n\nb\n\nc")]


def test_chat_message_roles_are_understood() -> None:
    result = normalize_messages(
        [
            ChatMessage(role="developer", content="d"),
            ChatMessage(role="user", content="u"),
            HumanMessage("v"),
        ]
    )
    assert len(result.messages) == 2


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        ({"type": "thinking", "thinking": "hmm", "signature": "sig"}, "thinking"),  # Anthropic
        ({"type": "redacted_thinking", "data": "xyz"}, "redacted_thinking"),  # Anthropic
        ({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "s"}]}, "reasoning"),
        ({"type": "reasoning", "reasoning": "because"}, "reasoning"),  # LangChain's standard block
    ],
)
def test_another_providers_reasoning_is_left_out_and_named(block: dict[str, object], kind: str) -> None:
    answer = AIMessage([block, {"type": "text", "text": "the answer"}])
    result = normalize_messages([HumanMessage("q"), answer, HumanMessage("and?")])
    assert result.messages[1] == AIMessage("the answer")
    assert (
        result.report() == f"canonical_messages: #1: reasoning block(s) {kind!r} left out (reasoning is not sent back)"
    )


def test_a_reasoning_only_answer_is_not_sent_and_the_report_says_why() -> None:
    result = normalize_messages(
        [HumanMessage("q"), AIMessage([{"type": "thinking", "thinking": "hmm"}]), HumanMessage("r")]
    )
    assert result.report().splitlines()[0] == (
        "canonical_messages: #1: reasoning block(s) 'thinking' left out (reasoning is not sent back);"
        " nothing is left, so the message is not sent"
    )


@pytest.mark.parametrize(
    ("history", "fragment"),
    [
        ([], "empty"),
        ([SystemMessage("only system")], "nothing but system"),
        ([SystemMessage("s"), AIMessage("greeting")], "no user"),
        (
            [HumanMessage("a"), ChatMessage(role="narrator", content="x")],
            "messages[1]: unknown role 'narrator'",
        ),
        (
            [HumanMessage("a"), FunctionMessage(name="f", content="x")],
            "FunctionMessage",
        ),
        (
            [HumanMessage("a"), RemoveMessage(id="1")],
            "unknown message type RemoveMessage",
        ),
    ],
)
def test_clear_errors(history: list[BaseMessage], fragment: str) -> None:
    with pytest.raises(ValueError, match="messages") as info:
        normalize_messages(history)
    assert fragment in str(info.value)


def test_trailing_system_message_in_the_leading_run_is_left_alone() -> None:
    # A conversation of only system messages is refused rather than rewritten:
    # demoting it would change the message's role on the next turn (docs/perplexity-rules.md).
    with pytest.raises(ValueError):
        normalize_messages([SystemMessage("a"), SystemMessage("b")])
    result = normalize_messages([SystemMessage("a"), SystemMessage("b"), HumanMessage("q")])
    assert [m.type for m in result.messages] == ["system", "system", "human"]


def test_raw_messy_histories_are_rejected_by_the_validator() -> None:
    """The property tests' judge can fail: it rejects each broken shape."""
    call = AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "1"}])
    broken = [
        [HumanMessage("a"), HumanMessage("b")],
        [HumanMessage("a"), AIMessage("b")],
        [AIMessage("hi"), HumanMessage("a")],
        [HumanMessage("a"), AIMessage("b"), SystemMessage("c"), HumanMessage("d")],
        [HumanMessage("a"), call, HumanMessage("no result")],
        [HumanMessage("a"), ToolMessage("orphan", tool_call_id="9")],
    ]
    for history in broken:
        assert violation(history) is not None, history


@pytest.mark.parametrize(
    ("sources", "shown"),
    [
        ((), "(inserted)"),
        ((4,), "#4"),
        ((2, 3), "#2, #3"),
        (tuple(range(1, 83)), "#1-#82"),
        ((1, 2, 3, 7, 9, 10, 11, 12), "#1-#3, #7, #9-#12"),
        ((5, 3, 4), "#5, #3, #4"),  # a report keeps the order a rule gave, ranges only where it counts up
    ],
)
def test_a_change_names_its_messages_with_ranges(sources: tuple[int, ...], shown: str) -> None:
    from langchain_perplexity_strict.normalize import Change

    assert (
        str(Change("compact_to_context_window", sources, "dropped")) == f"compact_to_context_window: {shown}: dropped"
    )
