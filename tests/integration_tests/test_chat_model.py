"""ChatPerplexityStrict against the emulator: each behaviour of issue 4, on both surfaces."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make
from tests.integration_tests.reads import recorded_reads, replay
from tests.integration_tests.tools import add, get_weather

SURFACES = [("agent", "perplexity/sonar"), ("chat_completions", "sonar")]


def collect(chunks: Any) -> AIMessageChunk:
    full = None
    for chunk in chunks:
        full = chunk if full is None else full + chunk
    assert full is not None
    return full


async def acollect(chunks: Any) -> AIMessageChunk:
    full = None
    async for chunk in chunks:
        full = chunk if full is None else full + chunk
    assert full is not None
    return full


# --- histories that other integrations get a 400 for ----------------


def history_two_users() -> list[BaseMessage]:
    return [HumanMessage("Here is my file: def f(): pass"), HumanMessage("What does it do?")]


def history_second_agent() -> list[BaseMessage]:
    """The history Perplexity receives as the second agent of a pipeline (api-discussion#295)."""
    return [
        SystemMessage("You are the research agent."),
        HumanMessage("Plan a trip to Lisbon"),
        AIMessage(
            [{"type": "text", "text": "I'll look up flights."}],
            tool_calls=[{"name": "flights", "args": {"to": "LIS"}, "id": "toolu_01"}],
            response_metadata={"model_provider": "anthropic"},
        ),
        ToolMessage("3 flights found", tool_call_id="toolu_01"),
        AIMessage("Found 3 flights. Handing over to the research agent."),
        SystemMessage("Research agent: add sources for each claim."),
    ]


def history_injected_system_and_greeting() -> list[BaseMessage]:
    return [
        AIMessage("Hello! Ask me anything."),
        HumanMessage("Who won the 2024 Tour de France?"),
        AIMessage("Tadej Pogacar."),
        SystemMessage("Keep answers short."),
        HumanMessage("And in 2023?"),
        AIMessage("Let me check."),
    ]


@pytest.mark.parametrize(("api", "model"), SURFACES)
@pytest.mark.parametrize("history", [history_two_users, history_second_agent, history_injected_system_and_greeting])
def test_histories_that_fail_elsewhere_are_accepted(
    emu: PerplexityEmulator, api: str, model: str, history: Any
) -> None:
    messages = history()
    before = copy.deepcopy(messages)
    answer = make(emu, api, model).invoke(messages)
    assert answer.content
    assert messages == before  # the caller's messages are untouched


@pytest.mark.parametrize(("api", "model"), SURFACES)
def test_second_turn_is_accepted_too(emu: PerplexityEmulator, api: str, model: str) -> None:
    """google/adk-python#1701: works on the first turn, fails on the second."""
    llm = make(emu, api, model)
    history: list[BaseMessage] = [SystemMessage("s1"), HumanMessage("first question")]
    for turn in range(4):
        reply = llm.invoke(history)
        history += [reply, SystemMessage(f"note {turn}"), HumanMessage(f"follow-up {turn}")]
    assert len(emu.requests) == 4


# --- output ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("api", "model"), SURFACES)
def test_citations_and_search_results_invoke_and_stream(emu: PerplexityEmulator, api: str, model: str) -> None:
    llm = make(emu, api, model)
    invoked = llm.invoke("What is new in Python?")
    streamed = collect(llm.stream("What is new in Python?"))
    for message in (invoked, streamed):
        citations = message.additional_kwargs["citations"]
        assert citations and all(u.startswith("https://") for u in citations)
        assert [r["url"] for r in message.additional_kwargs["search_results"]] == citations
        assert message.response_metadata["model_provider"] == "perplexity"
        assert message.response_metadata["model_name"]
        assert message.response_metadata["cost"]["total_cost"] > 0
    assert streamed.content == invoked.content


@pytest.mark.parametrize(("api", "model"), SURFACES)
def test_streamed_usage_is_counted_once(emu: PerplexityEmulator, api: str, model: str) -> None:
    llm = make(emu, api, model)
    invoked = llm.invoke("Count me once")
    chunks = list(llm.stream("Count me once"))
    assert sum(1 for c in chunks if c.usage_metadata) == 1
    assert collect(chunks).usage_metadata == invoked.usage_metadata


def test_reasoning_is_never_left_in_the_answer(emu: PerplexityEmulator) -> None:
    llm = make(emu, "chat_completions", "sonar-reasoning-pro")
    for message in (llm.invoke("Why is the sky blue?"), collect(llm.stream("Why is the sky blue?"))):
        assert "<think>" not in str(message.content)
        assert message.additional_kwargs["reasoning_content"].startswith("Thinking about")
    assert llm.invoke("x").usage_metadata["output_token_details"]["reasoning"] > 0  # type: ignore[index]
    assert llm.invoke("x").response_metadata["citation_tokens"] > 0


def test_agent_reasoning_events_become_reasoning(emu: PerplexityEmulator) -> None:
    llm = make(emu, reasoning_effort="low")
    message = collect(llm.stream("Think first"))
    reasoning = message.additional_kwargs["reasoning_content"]
    # the model's thought, then the search steps' (the live API's search events carry a thought each)
    assert reasoning == "Thinking about: Think first\n\nSearching the web...\n\nFound 3 results"
    assert "Thinking" not in message.text


def test_structured_output_is_robust_to_think(emu: PerplexityEmulator) -> None:
    class City(BaseModel):
        name: str
        population: int

    llm = make(emu, "chat_completions", "sonar-reasoning-pro")
    assert llm.with_structured_output(City).invoke('"Lyon" has 522000 people') == City(name="Lyon", population=522000)
    raw = llm.with_structured_output(City, include_raw=True).invoke('"Lyon" has 522000 people')
    assert raw["parsed"] == City(name="Lyon", population=522000)
    assert raw["parsing_error"] is None


def test_structured_output_goes_top_level_never_text_format(emu: PerplexityEmulator) -> None:
    schema = {"title": "Pair", "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    assert make(emu).with_structured_output(schema).invoke("a is 7") == {"a": 7}
    body = emu.requests[-1].body
    assert "text" not in body
    assert body["response_format"]["json_schema"]["name"] == "Pair"


@pytest.mark.parametrize(("api", "model"), SURFACES)
def test_v1_output_has_citation_annotations(emu: PerplexityEmulator, api: str, model: str) -> None:
    llm = make(emu, api, model, output_version="v1")
    for message in (llm.invoke("cite this"), collect(llm.stream("cite this"))):
        blocks = [b for b in message.content if isinstance(b, dict) and b.get("type") == "text"]
        annotations = [a for b in blocks for a in b.get("annotations", [])]
        assert annotations and all(a["type"] == "citation" and a["url"].startswith("https://") for a in annotations)


# --- stop and n ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("api", "model"), SURFACES)
async def test_stop_in_every_call_mode(emu: PerplexityEmulator, api: str, model: str) -> None:
    llm = make(emu, api, model)
    expected = "On stop test: the sources "  # the whole answer: "On stop test: the sources found agree ..."
    assert llm.invoke("stop test", stop=["found"]).content == expected
    assert (await llm.ainvoke("stop test", stop="found")).content == expected
    assert collect(llm.stream("stop test", stop=["found"])).content == expected
    assert (await acollect(llm.astream("stop test", stop=["found"]))).content == expected
    assert make(emu, api, model, stop=["sources"]).invoke("stop test").content == "On stop test: the "
    assert llm.batch(["stop test", "stop b"], stop=["found"])[0].content == expected


def test_stop_ends_the_text_and_reads_the_rest_for_usage_and_metadata(emu: PerplexityEmulator) -> None:
    """A plain stream reads on after its stop (the run is generated and billed anyway), as invoke does;
    a background run is cancelled instead (test_long_runs.test_a_matched_stop_cancels_the_rest_of_a_background_run)."""
    slow = PerplexityEmulator(api_key="test-key", event_delay=0.002)
    with slow:
        llm = make(slow)
        question = "word " * 300
        message = collect(llm.stream(question, stop=["word"]))  # the answer repeats the 300 words after it
        assert message.content == "On "
        assert message.usage_metadata is not None and message.response_metadata["status"] == "completed"
        assert message.usage_metadata == llm.invoke(question, stop=["word"]).usage_metadata
        assert slow.disconnects == 0


@pytest.mark.parametrize(("api", "model"), SURFACES)
def test_n_returns_n_generations(emu: PerplexityEmulator, api: str, model: str) -> None:
    result = make(emu, api, model, n=3).generate([[HumanMessage("three please")]])
    assert len(result.generations[0]) == 3
    assert len(emu.requests) == 3
    assert all("n" not in r.body for r in emu.requests)


async def test_n_async(emu: PerplexityEmulator) -> None:
    result = await make(emu, n=2).agenerate([[HumanMessage("two please")]])
    assert len(result.generations[0]) == 2


# --- tools -----------------------------------------------------------------------------------------------


def test_tool_calls_round_trip(emu: PerplexityEmulator) -> None:
    llm = make(emu).bind_tools([get_weather, add])
    first = llm.invoke('Use get_weather for "Paris" and add 2 and 3')
    assert {c["name"] for c in first.tool_calls} == {"get_weather", "add"}
    tools_by_name = {"get_weather": get_weather, "add": add}
    results = [
        ToolMessage(str(tools_by_name[c["name"]].invoke(c["args"])), tool_call_id=c["id"]) for c in first.tool_calls
    ]
    final = llm.invoke([HumanMessage("weather?"), first, *results, HumanMessage("thanks, summarize")])
    assert final.content
    sent = emu.requests[-1].body
    assert [t.get("name", t["type"]) for t in sent["tools"]] == ["get_weather", "add", "web_search"]
    assert all("function" not in t for t in sent["tools"])  # Agent API shape


def test_tool_choice_is_sent_in_perplexity_shape(emu: PerplexityEmulator) -> None:
    make(emu).bind_tools([get_weather, add], tool_choice="add").invoke("hello")
    assert emu.requests[-1].body["tool_choice"] == {"name": "add"}


def test_reserved_tool_names_are_refused(emu: PerplexityEmulator) -> None:
    @tool
    def web_search(q: str) -> str:
        """Search."""
        return q

    with pytest.raises(ValueError, match="'web_search' is reserved"):
        make(emu).bind_tools([web_search])
    assert emu.requests == []


def test_tools_on_sonar_are_refused_clearly(emu: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match="api='agent'"):
        make(emu, "chat_completions", "sonar").bind_tools([add])


# --- request rules ------------------------------------------------------------------------------------------


def test_search_filters_reach_the_web_search_tool(emu: PerplexityEmulator) -> None:
    llm = make(
        emu,
        search_domain_filter=["nature.com", "arxiv.org"],
        search_recency_filter="week",
        search_max_tokens=500,
        search_max_tokens_per_page=100,
        search_type="fast",
        user_location={"city": "Paris", "country": "FR", "latitude": 48.85},
    )
    llm.invoke("news")
    tool_ = emu.requests[-1].body["tools"][-1]
    filters = {"search_domain_filter": ["nature.com", "arxiv.org"], "search_recency_filter": "week"}
    assert tool_ == {
        "type": "web_search",
        "filters": filters,
        "max_tokens": 500,
        "max_tokens_per_page": 100,
        "search_type": "fast",
        "user_location": {"city": "Paris", "country": "FR", "latitude": 48.85},
    }


def test_web_search_can_be_turned_off(emu: PerplexityEmulator) -> None:
    message = make(emu, web_search=False).invoke("no search")
    assert "tools" not in emu.requests[-1].body
    assert "citations" not in message.additional_kwargs


def test_chat_completions_sends_sonar_parameters(emu: PerplexityEmulator) -> None:
    make(emu, "chat_completions", "sonar", top_k=5, presence_penalty=0.5, search_mode="academic").invoke("x")
    body = emu.requests[-1].body
    assert (body["top_k"], body["presence_penalty"], body["search_mode"]) == (5, 0.5, "academic")


def test_retired_chat_completions_tell_the_user_what_to_do(emu: PerplexityEmulator) -> None:
    emu.sonar_retired = True
    with pytest.raises(Exception, match=r"api='agent'") as info:
        make(emu, "chat_completions", "sonar").invoke("x")
    assert "chat_completions_not_available" in str(info.value)


def test_every_call_mode_runs_the_normalizer(emu: PerplexityEmulator) -> None:
    messy = history_injected_system_and_greeting()
    llm = make(emu)
    llm.invoke(messy)
    list(llm.stream(messy))
    llm.batch([messy, messy])
    assert len(emu.requests) == 4
    for request in emu.requests:
        roles = [i.get("role", i.get("type")) for i in request.body["input"]]
        assert roles == ["user", "assistant", "user", "assistant", "user"]


async def test_async_modes_run_the_normalizer(emu: PerplexityEmulator) -> None:
    messy = history_injected_system_and_greeting()
    llm = make(emu)
    await llm.ainvoke(messy)
    await acollect(llm.astream(messy))
    await llm.abatch([messy])
    events = [e async for e in llm.astream_events(messy, version="v2")]
    assert any(e["event"] == "on_chat_model_stream" for e in events)
    assert len(emu.requests) == 4


def test_agent_request_has_only_documented_fields(emu: PerplexityEmulator) -> None:
    messages = [
        HumanMessage(
            [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]
        ),
        AIMessage([{"type": "text", "text": "ok", "id": "msg_1", "annotations": []}], id="resp_prev"),
        HumanMessage("and now?"),
    ]
    make(emu).invoke(messages)
    body = emu.requests[-1].body
    image = {"type": "input_image", "image_url": "https://x/y.png"}
    assert body["input"][0] == {"role": "user", "content": [{"type": "input_text", "text": "look"}, image]}
    # InputMessageInput has no output_text part: an assistant turn goes as its text.
    assert body["input"][1] == {"role": "assistant", "content": "ok"}
    assert json.dumps(body).count('"id"') == 0


# --- stream chunks follow events, not network reads ------------------------------------------


@pytest.mark.parametrize(
    ("api", "model", "extra"),
    [
        ("agent", "perplexity/sonar", {}),
        ("agent", "perplexity/sonar", {"reasoning_effort": "low"}),  # reasoning events
        ("chat_completions", "sonar", {}),
        ("chat_completions", "sonar-reasoning-pro", {}),  # <think> in the content
    ],
)
@pytest.mark.parametrize("output_version", ["v0", "v1"])
async def test_the_same_events_give_the_same_chunks_however_they_are_read(
    emu: PerplexityEmulator, api: str, model: str, extra: dict[str, Any], output_version: str
) -> None:
    """The emulator's stream served in one network read and one event per read: the same chunks, a chunk per
    event that brings text, then the final chunk (the property over drawn streams: test_stream_chunking.py)."""
    llm = make(emu, api, model, output_version=output_version, **extra)
    invoked = llm.invoke("Why is the sky blue?")
    merged, chunked = [], []
    for label, reads in recorded_reads(llm, "Why is the sky blue?").items():
        replay(llm, reads)
        question = "Why is the sky blue?"
        for chunks in (list(llm.stream(question)), [c async for c in llm.astream(question)]):
            assert len(chunks) > 2, label  # text as it came, then the final chunk
            assert sum(1 for c in chunks if c.usage_metadata) == 1, label
            assert chunks[-1].chunk_position == "last", label
            streamed = collect(chunks)
            assert streamed.text == invoked.text, label
            assert streamed.usage_metadata == invoked.usage_metadata, label
            merged.append((streamed.content, streamed.additional_kwargs, streamed.tool_calls))
            chunked.append([(c.content, c.additional_kwargs, c.response_metadata) for c in chunks])
    assert all(m == merged[0] for m in merged)  # however the bytes arrived, the same message
    assert all(c == chunked[0] for c in chunked)  # and the same chunks
    assert {**merged[0][1], "reasoning_content": None} == {**invoked.additional_kwargs, "reasoning_content": None}
    # (the Agent API's response object has no reasoning items: only its stream carries reasoning)


@pytest.mark.parametrize(("api", "model"), SURFACES)
def test_the_body_sent_is_the_body_built(emu: PerplexityEmulator, api: str, model: str) -> None:
    llm = make(emu, api, model)
    llm.invoke("héllo, 世界")
    assert emu.requests[-1].body == llm.request_body("héllo, 世界")
