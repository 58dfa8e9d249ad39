"""A live-shaped Agent API exchange, replayed through every call mode, is read where a user looks for it.

`tests/fixtures/live/web_search.json` is written from the facts of the one
public capture of a live exchange (vercel/ai's
`packages/perplexity/src/__fixtures__/agent-web-search.json` and `.chunks.txt`;
docs/perplexity-rules.md, "The live dialect"): sequence numbers from 0 with
gaps, the search announced as a `search_web` function call, `[n]` markers with
no annotations, costs keyed `search_web`, the preset as `model` until the end.
Each mode (invoke, ainvoke, stream, astream, batch, `streaming=True` invoke), in
v0 and v1, with and without a bound function tool, must give the same text,
sources, search results, usage and cost, and no tool call: the announced
`search_web` call is Perplexity's own search, not the application's tool.
Then the emulator, in its live and its schema dialect, must read alike.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import operator
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from langchain_core.tools import tool

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.replay import Replay, replay_server

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "live" / "web_search.json").read_text())
QUESTION: str = FIXTURE["question"]
RESPONSE: dict[str, Any] = FIXTURE["response"]
EVENTS: list[dict[str, Any]] = FIXTURE["events"]
SEARCH = RESPONSE["output"][0]
TEXT: str = RESPONSE["output"][1]["content"][0]["text"]
USAGE: dict[str, Any] = RESPONSE["usage"]


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return city


def _invoke(model: Any) -> BaseMessage:
    return model.invoke(QUESTION)  # type: ignore[no-any-return]


def _ainvoke(model: Any) -> BaseMessage:
    return asyncio.run(model.ainvoke(QUESTION))  # type: ignore[no-any-return]


def _stream(model: Any) -> BaseMessage:
    return functools.reduce(operator.add, model.stream(QUESTION))  # type: ignore[no-any-return]


def _astream(model: Any) -> BaseMessage:
    async def collect() -> list[Any]:
        return [chunk async for chunk in model.astream(QUESTION)]

    return functools.reduce(operator.add, asyncio.run(collect()))  # type: ignore[no-any-return]


def _batch(model: Any) -> BaseMessage:
    first, second = model.batch([QUESTION, QUESTION])
    assert first.text == second.text
    return second  # type: ignore[no-any-return]


def _streaming_invoke(model: Any) -> BaseMessage:
    return model.invoke(QUESTION)  # type: ignore[no-any-return]


MODES: dict[str, Callable[[Any], BaseMessage]] = {
    "invoke": _invoke,
    "ainvoke": _ainvoke,
    "stream": _stream,
    "astream": _astream,
    "batch": _batch,
    "streaming_invoke": _streaming_invoke,
}
STREAMED = ("stream", "astream", "streaming_invoke")


@pytest.fixture(scope="module")
def replay() -> Iterator[Replay]:
    with replay_server() as server:
        server.response = RESPONSE
        server.events = EVENTS
        yield server


def _model(base_url: str, mode: str, version: str, tools: bool, **kw: Any) -> Any:
    model = ChatPerplexityStrict(
        api_key="test-key",  # type: ignore[arg-type]
        base_url=base_url,
        effort="fast",  # the capture named the preset `fast`; effort is its current name
        max_tokens=1024,
        output_version=version,
        **({"streaming": True} if mode == "streaming_invoke" else {}),
        **kw,
    )
    return model.bind_tools([lookup]) if tools else model


def _marker_citation(marker: str, url: str, title: str) -> dict[str, Any]:
    start = TEXT.index(marker)
    citation = {"type": "citation", "url": url, "title": title, "start_index": start}
    return {**citation, "end_index": start + len(marker), "cited_text": marker}


@pytest.mark.parametrize("tools", [False, True], ids=["plain", "tools"])
@pytest.mark.parametrize("version", ["v0", "v1"])
@pytest.mark.parametrize("mode", list(MODES))
def test_a_live_exchange_reads_alike_in_every_mode(replay: Replay, mode: str, version: str, tools: bool) -> None:
    replay.bodies.clear()
    message = MODES[mode](_model(replay.base_url, mode, version, tools))

    assert message.text == TEXT
    assert message.tool_calls == []  # type: ignore[attr-defined]  # search_web is Perplexity's search, not a tool call
    kwargs = message.additional_kwargs
    assert kwargs["citations"] == [r["url"] for r in SEARCH["results"]]
    assert kwargs["search_results"] == SEARCH["results"]
    assert message.usage_metadata == {  # type: ignore[attr-defined]
        "input_tokens": 2890,
        "output_tokens": 41,
        "total_tokens": 2931,
        "input_token_details": {"cache_read": 1786, "cache_creation": 1100},
        "output_token_details": {"reasoning": 0},  # reported (0), so kept, as ChatOpenAI keeps it
    }
    metadata = message.response_metadata
    assert metadata["cost"] == USAGE["cost"]
    assert metadata["tool_calls_details"] == {"search_web": {"cost_usd": 0.001, "invocation": 1}}
    assert metadata["model_name"] == "openai/gpt-6-luna"  # the served model, not the preset the first events name
    assert metadata["status"] == "completed"
    assert "resumes" not in metadata  # the numbers' gaps are not lost events
    # [3] and [4] are the results whose id is 3 and 4 (the live API sends no annotations)
    cited = [
        _marker_citation("[3]", "https://www.rust-lang.org/", "Rust Programming Language"),
        _marker_citation("[4]", "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html", "Announcing Rust 1.0"),
    ]
    if version == "v0":
        assert message.content == TEXT
        assert "annotations" not in kwargs
    else:
        texts = [b for b in message.content if isinstance(b, dict) and b.get("type") == "text"]
        assert [{k: v for k, v in b.items() if k != "index"} for b in texts] == [
            {"type": "text", "text": TEXT, "annotations": cited}
        ]
    assert [a for b in message.content_blocks if b["type"] == "text" for a in b.get("annotations", [])] == cited
    if mode in STREAMED:  # the search events' thoughts are the stream's reasoning
        blocks = [b["reasoning"] for b in message.content if isinstance(b, dict) and b.get("type") == "reasoning"]
        reasoning = kwargs["reasoning_content"] if version == "v0" else "".join(blocks)
        assert reasoning == "Searching the web...\n\nFound 4 results"
    sent = 2 if mode == "batch" else 1
    assert len(replay.bodies) == sent  # one create per answer: no resume, no retry
    assert all(body["effort"] == "fast" and "preset" not in body for body in replay.bodies)
    assert ("tools" in replay.bodies[0] and any(t["type"] == "function" for t in replay.bodies[0]["tools"])) is tools


def _two_searches() -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """The exchange with a second search that finds the Rust site again under id 5, and a new page as 6."""
    response = copy.deepcopy(RESPONSE)
    foundation = {"id": 6, "url": "https://foundation.rust-lang.org/", "title": "Rust Foundation"}
    snippet = {"snippet": "The Rust Foundation stewards the Rust language.", "source": "web"}
    again = [{**SEARCH["results"][2], "id": 5}, {**foundation, **snippet, "last_updated": "2026-09-20"}]
    text = "Rust is stewarded by the Rust Foundation.[6] Its site is rust-lang.org.[5]"
    response["output"].insert(1, {"type": "search_results", "queries": ["Rust Foundation"], "results": again})
    response["output"][2]["content"][0]["text"] = text
    events = copy.deepcopy([e for e in EVENTS if e["type"] != "response.output_text.delta"])
    for event in events:
        if event.get("output_index") == 1:  # the message comes after the second search now
            event["output_index"] = 2
        if event["type"] == "response.output_text.done":
            event["text"] = text
        if event["type"] == "response.output_item.done" and event["item"]["type"] == "message":
            event["item"] = response["output"][2]
        if event["type"] == "response.completed":
            event["response"] = response
    return response, events, text


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_markers_cite_results_by_id_when_a_url_comes_back_under_another_id(replay: Replay, mode: str) -> None:
    response, events, text = _two_searches()
    with replay_server() as server:
        server.response, server.events = response, events
        message = MODES[mode](_model(server.base_url, mode, "v1", False))
    assert message.text == text
    cited = [
        (a["url"], a["cited_text"]) for b in message.content_blocks if b["type"] == "text" for a in b["annotations"]
    ]
    assert cited == [("https://foundation.rust-lang.org/", "[6]"), ("https://www.rust-lang.org/", "[5]")]
    ids = [r["id"] for r in message.additional_kwargs["search_results"]]
    assert ids == [1, 2, 3, 4, 5, 6]  # the page found again is kept under its new id: [5] cites it


# ---- the emulator's two dialects ---------------------------------------------------------------


@pytest.fixture(scope="module")
def emulators() -> Iterator[dict[str, PerplexityEmulator]]:
    with PerplexityEmulator() as live, PerplexityEmulator(dialect="schema") as schema:
        yield {"live": live, "schema": schema}


def _reading(message: BaseMessage) -> dict[str, Any]:
    citations = [
        {k: a.get(k) for k in ("url", "start_index", "end_index")}
        for b in message.content_blocks
        if b["type"] == "text"
        for a in b.get("annotations", [])
    ]
    return {
        "text": message.text,
        "tool_calls": message.tool_calls,  # type: ignore[attr-defined]
        "citations": message.additional_kwargs.get("citations"),
        "search_results": message.additional_kwargs.get("search_results"),
        "annotations": citations,
        "tokens": message.usage_metadata["total_tokens"],  # type: ignore[attr-defined,index]
        "total_cost": message.response_metadata["cost"]["total_cost"] > 0,
        "status": message.response_metadata["status"],
    }


@pytest.mark.parametrize("version", ["v0", "v1"])
@pytest.mark.parametrize("mode", list(MODES))
def test_the_emulators_live_and_schema_dialects_read_alike(
    emulators: dict[str, PerplexityEmulator], mode: str, version: str
) -> None:
    readings = {
        name: _reading(MODES[mode](_model(emu.base_url, mode, version, False, model="perplexity/sonar")))
        for name, emu in emulators.items()
    }
    assert readings["live"]["annotations"], "the answer cites its sources"
    assert readings["live"] == readings["schema"]
