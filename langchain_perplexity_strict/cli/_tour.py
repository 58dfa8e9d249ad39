"""`make demo`: the tour. A messy agent history, what plain ChatOpenAI gets for it, what this package sends."""

from __future__ import annotations

import openai
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict.cli import connection, has_key, print_sources
from langchain_perplexity_strict.cli._which_server import configured_base_url, describe, identify

# A history as agents produce it: greeting first, two user turns, parallel tools, injected system text.
MESSY_HISTORY: list[BaseMessage] = [
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
    HumanMessage("Which city is larger, and by how much?"),
    AIMessage("Let me check."),
]


def unreached(error: openai.APIConnectionError, server: str, base_url: str) -> str:
    """Where a request could not connect, and the network's reason (openai's message is "Connection error.")."""
    reason: BaseException = error
    while reason.__cause__ is not None:  # langchain-openai's error, openai's, then the network's
        reason = reason.__cause__
    what = "had no answer in time from" if isinstance(error, openai.APITimeoutError) else "could not connect to"
    return f"{what} {server} at {base_url} ({type(reason).__name__}: {str(reason)[:160]}); nothing was sent"


def run_demo() -> int:
    """Run the tour; returns the exit status. Each step says who answered."""
    from langchain_openai import ChatOpenAI

    from langchain_perplexity_strict import ChatPerplexityStrict

    embedded = not has_key()
    base_url = configured_base_url()
    kind = "emulator" if embedded else identify(base_url)
    who = (
        "the local Perplexity emulator (no PPLX_API_KEY is set; it enforces Perplexity's "
        "published schema and documented conversation rules, and its answers are canned)"
        if embedded
        else describe(kind, base_url)
    )
    print(f"Answers in this tour come from {who}.\n")
    print("1. A messy agent history:")
    for i, message in enumerate(MESSY_HISTORY):
        print(f"   #{i} {message.type:>6}: {str(message.content)[:70] or message.tool_calls[0]['name'] + '(...)'}")  # type: ignore[attr-defined]

    server = {"perplexity": "Perplexity", "emulator": "the emulator"}.get(kind, "that server")
    with connection(embedded) as settings:
        llm = ChatPerplexityStrict(model="perplexity/sonar", api="agent", **settings)
        plain = ChatOpenAI(
            model="perplexity/sonar",
            api_key=llm.api_key,
            base_url=llm.base_url.rstrip("/") + "/v1",
            use_responses_api=True,
            max_retries=0,
        )
        print(f"\n2. Plain ChatOpenAI sends the history as it is; {server} answers:")
        try:
            plain.invoke(MESSY_HISTORY)
            print(f"   accepted by {server}")
        except openai.APIConnectionError as error:  # nothing reached the server: not a refusal
            print(f"   {unreached(error, server, llm.base_url)}")
        except Exception as error:
            print(f"   refused by {server}: {type(error).__name__}: {str(error)[:160]}")

        print("\n3. What ChatPerplexityStrict's normalizer changes (on this machine, before sending):")
        for change in llm.normalize(MESSY_HISTORY).changes:
            print(f"   - {change}")

        print(f"\n4. The answer from {server}, with its sources:")
        answer = llm.invoke(MESSY_HISTORY)
        print(f"   {answer.content}")
        print_sources(answer.additional_kwargs)
        cost = answer.response_metadata.get("cost", {}).get("total_cost")
        print(f"   usage: {answer.usage_metadata}; cost: {cost}")

        print(f"\n5. A streamed answer from {server}:\n   ", end="")
        for chunk in llm.stream("What changed in Python 3.13?"):
            print(chunk.text, end="", flush=True)
        print()
    return 0
