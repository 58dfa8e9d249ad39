"""Histories the benchmarks share."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage


def agent_history(n: int) -> list[BaseMessage]:
    """An agent history of about ``n`` messages: turns with parallel tool calls, injected system notes."""
    messages: list[BaseMessage] = [SystemMessage("You are a research agent.")]
    turn = 0
    while len(messages) < n - 1:
        turn += 1
        messages.append(HumanMessage(f"Question {turn}: compare city {turn} with city {turn + 1}."))
        calls = [{"name": "population", "args": {"city": f"c{turn}-{k}"}, "id": f"call_{turn}_{k}"} for k in range(2)]
        messages.append(AIMessage("", tool_calls=calls))
        messages.extend(ToolMessage(f"{1000 * turn + k}", tool_call_id=c["id"]) for k, c in enumerate(calls))
        if turn % 5 == 0:
            messages.append(SystemMessage(f"Note {turn}: be concise."))
        messages.append(AIMessage(f"City {turn} is larger by {turn}%."))
    messages.append(HumanMessage("Summarize."))
    return messages[:n] if messages[n - 1].type == "human" else [*messages[: n - 1], HumanMessage("Summarize.")]


def valid_history(n: int = 51) -> list[BaseMessage]:
    """An already-valid history of ``n`` messages: system messages, then user/assistant alternating, user last."""
    pairs = (n - 1) // 2
    messages: list[BaseMessage] = [SystemMessage(f"Instruction {i}.") for i in range(n - 1 - 2 * pairs)]
    for i in range(pairs):
        messages.append(HumanMessage(f"Question number {i} about a topic worth a short paragraph."))
        messages.append(AIMessage(f"Answer number {i}: a short paragraph that answers the question."))
    messages.append(HumanMessage("The last question?"))
    assert len(messages) == n
    return messages
