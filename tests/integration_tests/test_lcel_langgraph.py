"""LCEL chains and LangGraph agents against the strict emulator: every turn must be accepted."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import before_model
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from pydantic import BaseModel

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make
from tests.integration_tests.tools import add, get_weather

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:The class `InMemoryChatMessageHistory` was deprecated:DeprecationWarning"),
]


def test_prompt_model_parser_chain(emu: PerplexityEmulator) -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "Tell me about {topic}")])
    chain = prompt | make(emu) | StrOutputParser()
    expected = "On LCEL: the sources found agree on the main points [1], and [2] gives the details."
    assert chain.invoke({"topic": "LCEL"}) == expected
    assert "".join(chain.stream({"topic": "LCEL"})) == expected


def test_structured_output_chain(emu: PerplexityEmulator) -> None:
    class Film(BaseModel):
        title: str
        year: int

    chain = ChatPromptTemplate.from_messages([("human", "{q}")]) | make(emu).with_structured_output(Film)
    assert chain.invoke({"q": 'The film "Alien" from 1979'}) == Film(title="Alien", year=1979)


def test_message_history_over_several_turns(emu: PerplexityEmulator) -> None:
    """Messages are added with system messages added mid-conversation."""
    store: dict[str, InMemoryChatMessageHistory] = {}

    def history(session_id: str) -> InMemoryChatMessageHistory:
        return store.setdefault(session_id, InMemoryChatMessageHistory())

    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{input}")])
    chain = RunnableWithMessageHistory(
        prompt | make(emu), history, input_messages_key="input", history_messages_key="history"
    )
    config = {"configurable": {"session_id": "s1"}}
    history("s1").add_message(SystemMessage("You are a travel agent."))  # AddMessageAsSystem
    history("s1").add_message(AIMessage("Hello! Where to?"))  # AddMessageAsAssistant first
    for turn, text in enumerate(["Lisbon in May", "and the weather?", "thanks"]):
        if turn == 1:
            history("s1").add_message(SystemMessage("The user is vegetarian."))  # mid-conversation
            history("s1").add_message(HumanMessage("Also: I travel with a dog."))  # two user messages in a row
        assert chain.invoke({"input": text}, config=config).content
    assert len(emu.requests) == 3
    assert len(store["s1"].messages) == 2 + 2 + 3 * 2


def test_agent_with_two_tools_checkpointer_and_injected_system_messages(emu: PerplexityEmulator) -> None:
    calls = {"n": 0}

    @before_model
    def inject_reminder(state: Any, runtime: Any) -> dict[str, Any] | None:
        calls["n"] += 1
        if calls["n"] % 2 == 0:
            return {"messages": [SystemMessage(f"Reminder {calls['n']}: cite sources.")]}
        return None

    agent = create_agent(
        make(emu), tools=[get_weather, add], checkpointer=InMemorySaver(), middleware=[inject_reminder]
    )
    config = {"configurable": {"thread_id": "t1"}}
    first = agent.invoke({"messages": [HumanMessage('Use get_weather for "Paris" and add 2 and 3')]}, config)
    tool_results = [m for m in first["messages"] if isinstance(m, ToolMessage)]
    assert {m.content for m in tool_results} == {"Sunny in Paris", "5"}  # parallel calls, both answered
    second = agent.invoke({"messages": [HumanMessage("Now add 10 and 20")]}, config)
    assert any(isinstance(m, ToolMessage) and m.content == "30" for m in second["messages"])
    third = agent.invoke({"messages": [HumanMessage("Thanks, that is all.")]}, config)
    assert isinstance(third["messages"][-1], AIMessage) and third["messages"][-1].content
    assert any(isinstance(m, SystemMessage) for m in third["messages"][1:])  # injected mid-way
    assert len(emu.requests) >= 5


def test_agent_accepts_a_human_turn_right_after_a_tool_result(emu: PerplexityEmulator) -> None:
    agent = create_agent(make(emu), tools=[get_weather, add])
    history: list[BaseMessage] = [
        HumanMessage("add 1 and 2"),
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "call_1"}]),
        ToolMessage("3", tool_call_id="call_1"),
        HumanMessage("never mind, just say hi"),
    ]
    result = agent.invoke({"messages": history})
    assert isinstance(result["messages"][-1], AIMessage)


def test_perplexity_as_the_second_node_after_another_models_agent(emu: PerplexityEmulator) -> None:
    """perplexityai/api-discussion#295: the history Perplexity receives is another model's."""

    def other_agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        turn = len(state["messages"])
        return {
            "messages": [
                AIMessage(
                    [{"type": "text", "text": "Let me search."}],
                    tool_calls=[{"name": "search", "args": {"q": "x"}, "id": f"toolu_{turn}"}],
                ),
                ToolMessage("raw findings", tool_call_id=f"toolu_{turn}"),
                AIMessage("Findings collected; passing to the research agent."),
                SystemMessage("Research agent: verify and cite."),
            ]
        }

    perplexity = make(emu)

    def research_agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [perplexity.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("other_agent", other_agent)
    graph.add_node("research_agent", research_agent)
    graph.add_edge(START, "other_agent")
    graph.add_edge("other_agent", "research_agent")
    graph.add_edge("research_agent", END)
    app = graph.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "p1"}}
    for question in ["Research the Lisbon metro", "And its history?", "Summarize"]:  # it used to fail on turn 2
        result = app.invoke({"messages": [HumanMessage(question)]}, config)
        assert isinstance(result["messages"][-1], AIMessage)
    assert len(emu.requests) == 3


def test_an_agent_whose_middleware_injects_a_reminder_answers_from_the_tool_result(emu: PerplexityEmulator) -> None:
    """The README's agent: a reminder injected before every model call (so after the tool result too) is
    sent as user text; the answer still comes from the tool's result, not from the reminder."""

    @before_model
    def remind(state: Any, runtime: Any) -> dict[str, Any]:
        return {"messages": [SystemMessage("Reminder: show your work.")]}

    agent = create_agent(make(emu), tools=[add], checkpointer=InMemorySaver(), middleware=[remind])
    config = {"configurable": {"thread_id": "readme"}}
    first = agent.invoke({"messages": [("human", "add 2 and 3")]}, config)["messages"][-1]
    second = agent.invoke({"messages": [("human", "now add 10 and 20")]}, config)["messages"][-1]
    assert (first.content, second.content) == ("From the tool results: 5.", "From the tool results: 30.")


def test_a_new_question_after_a_tool_result_is_answered_as_a_question(emu: PerplexityEmulator) -> None:
    history: list[BaseMessage] = [
        HumanMessage("add 1 and 2"),
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "call_1"}]),
        ToolMessage("3", tool_call_id="call_1"),
        HumanMessage("What is LCEL?"),
    ]
    answer = make(emu).invoke(history)
    assert isinstance(answer.content, str) and answer.content.startswith("On LCEL:")
