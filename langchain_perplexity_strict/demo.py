"""``make demo``: a messy agent history, made valid for Perplexity."""

from __future__ import annotations

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from langchain_perplexity_strict.normalizer import normalize_messages


def messy_agent_history() -> list[BaseMessage]:
    """A history as agents produce it: greeting first, parallel tools, injected system text."""
    return [
        SystemMessage("You are a research assistant. Cite your sources."),
        AIMessage("Hi! What would you like to research today?"),
        HumanMessage("Compare the populations of Paris and Berlin."),
        HumanMessage("Use the latest figures you can find."),
        AIMessage(
            "",
            tool_calls=[
                {"name": "population", "args": {"city": "Paris"}, "id": "call_paris"},
                {"name": "population", "args": {"city": "Berlin"}, "id": "call_berlin"},
            ],
        ),
        ToolMessage("2,102,650 (2023)", tool_call_id="call_paris"),
        ToolMessage("3,878,100 (2023)", tool_call_id="call_berlin"),
        SystemMessage("Reminder: answer in two sentences."),
        HumanMessage("And which one grew faster?"),
        AIMessage("Let me check that."),
    ]


def run_demo() -> int:
    """Print the messy history, what the rules changed, and the result."""
    history = messy_agent_history()
    result = normalize_messages(history)
    print("A messy agent history (Perplexity answers 400 to it as it is):")
    for i, message in enumerate(history):
        print(f"  #{i} {message.type:>6}: {message.content!s:.70}")
    print("\nWhat the normalizer changed:")
    for change in result.changes:
        print(f"  - {change}")
    print("\nWhat is sent:")
    for message in result.messages:
        print(f"  {message.type:>6}: {message.content!s:.70}")
    return 0
