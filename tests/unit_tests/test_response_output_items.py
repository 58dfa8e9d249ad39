"""Contract: every published output item, generated from the published models, read in invoke and stream, v0 and v1.

Responses and events are built from `perplexity.generated.api` and validated
under its strict models; the reader (`_response._agent`, the unit under test)
must give the item's standard blocks in v1, keep it in `additional_kwargs`
in v0, and `content_blocks` of the v0 answer must equal the v1 content.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_perplexity_strict._response._agent import AgentStreamReader
from langchain_perplexity_strict._response._answer import Answer
from langchain_perplexity_strict._response._server_item_blocks import READ_ELSEWHERE, item_blocks, item_id
from tests import published_schema
from tests.published_examples import example, output_item_models

MODELS = output_item_models()
KINDS = sorted(set(MODELS) - READ_ELSEWHERE)
TEXT = "The answer."
MESSAGE = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": TEXT, "annotations": []}]}  # fmt: skip
# The reasoning events that start a server tool and bring its results: (item type) -> (start, result) events.
TOOL_EVENTS = {
    "search_results": ("response.reasoning.search_queries", "queries", "response.reasoning.search_results", "results"),
    "fetch_url_results": ("response.reasoning.fetch_url_queries", "urls", "response.reasoning.fetch_url_results",
                          "contents"),
    "image_search_results": ("response.reasoning.image_search_queries", "queries",
                             "response.reasoning.image_search_results", "results"),
}  # fmt: skip


def response(items: list[dict[str, Any]]) -> dict[str, Any]:
    body = {"id": "resp_1", "object": "response", "created_at": 1, "model": "perplexity/sonar", "status": "completed",
            "output": [*items, MESSAGE], "usage": example("ResponsesUsageOutput", full=False)}  # fmt: skip
    published_schema.agent_response(body)
    return body


def events(body: dict[str, Any], *, reasoning_events: bool) -> list[dict[str, Any]]:
    """The stream of `body`: its server tools' reasoning events (optionally), each item done, the text, the end."""
    out: list[dict[str, Any]] = [{"type": "response.created", "response": {**body, "status": "in_progress",
                                                                            "output": [], "usage": None}}]  # fmt: skip
    for index, item in enumerate(body["output"]):
        if reasoning_events:
            out.extend(_tool_events(item))
        if item["type"] == "message":
            out.append({"type": "response.output_text.delta", "output_index": index, "item_id": "msg_1",
                        "content_index": 0, "delta": TEXT})  # fmt: skip
        out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    out.append({"type": "response.completed", "response": body})
    for n, event in enumerate(out, 1):
        event["sequence_number"] = n
        published_schema.agent_event(event)
    return out


def _tool_events(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The reasoning events that tell of `item` before it is done (a search's queries, then its results)."""
    if item["type"] == "skill_loaded":
        return [{"type": "response.skill.loaded", "name": item["name"]}]
    if item["type"] not in TOOL_EVENTS:
        return []
    start, start_field, done, done_field = TOOL_EVENTS[item["type"]]
    extra = {"call_id": "img_1"} if item["type"] == "image_search_results" else {}
    urls = [c["url"] for c in item.get("contents", [])]
    started = urls if item["type"] == "fetch_url_results" else item.get(start_field)
    out = []
    if started is not None:  # an item without its queries had no queries event
        out.append({"type": start, start_field: started, "thought": "T.", **extra})
    out.append({"type": done, done_field: item[done_field], **extra})
    return out


def invoked(body: dict[str, Any], version: str) -> AIMessage:
    answer = Answer(output_version=version)
    AgentStreamReader(answer).read(body)
    return answer.message()


def streamed(stream: list[dict[str, Any]], version: str) -> AIMessageChunk:
    answer = Answer(output_version=version)
    reader = AgentStreamReader(answer)
    chunks = [c for event in stream for c in reader.feed(event)] + reader.finish()
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    return merged


def as_invoked(blocks: list[Any]) -> list[Any]:
    return [{k: v for k, v in b.items() if k != "index"} for b in blocks if b["type"] != "reasoning"]


def expected_blocks(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kinds = [item["type"] for item in items]
    ids = [item_id(item, kinds[:i].count(item["type"])) for i, item in enumerate(items)]
    blocks = [block for item, block_id in zip(items, ids, strict=True) for block in item_blocks(item, block_id)]
    return [*blocks, {"type": "text", "text": TEXT}]


CASES = [
    *[pytest.param([example(MODELS[k])], id=f"{k}-every-field") for k in KINDS],
    *[pytest.param([example(MODELS[k], full=False)], id=f"{k}-required-fields") for k in KINDS],
    pytest.param([example(MODELS[k]) for k in KINDS] + [example(MODELS["search_results"], full=False)], id="all"),
]


@pytest.mark.parametrize("items", CASES)
def test_invoke_reads_every_item_into_its_blocks(items: list[dict[str, Any]]) -> None:
    body = response(items)
    v1, v0 = invoked(body, "v1"), invoked(body, "v0")
    assert v1.content == expected_blocks(items)
    assert v0.content == TEXT
    assert v0.content_blocks == v1.content
    for item in items:  # v0: every item as sent, under its type, as before
        key = "search_result_items" if item["type"] == "search_results" else item["type"]
        assert item in v0.additional_kwargs[key]


@pytest.mark.parametrize("reasoning_events", [False, True], ids=["items-only", "with-reasoning-events"])
@pytest.mark.parametrize("items", CASES)
def test_stream_reads_every_item_into_the_same_blocks(items: list[dict[str, Any]], reasoning_events: bool) -> None:
    if reasoning_events:  # a search whose results event came has no error: the published events cannot carry one
        items = [{k: v for k, v in i.items() if not (k == "error" and i["type"] in TOOL_EVENTS)} for i in items]
    body = response(items)
    stream = events(body, reasoning_events=reasoning_events)
    v1, v0 = streamed(stream, "v1"), streamed(stream, "v0")
    assert as_invoked(v1.content) == expected_blocks(items)
    assert as_invoked(v0.content_blocks) == expected_blocks(items)
    assert v0.content == TEXT


def test_blocks_go_out_with_the_event_that_brings_them() -> None:
    """A search's call goes out with its queries event, its result with its results event, before the text."""
    body = response([example(MODELS["search_results"])])
    answer = Answer(output_version="v1")
    reader = AgentStreamReader(answer)
    per_event = [reader.feed(event) for event in events(body, reasoning_events=True)]
    kinds = [[b["type"] for chunk in chunks for b in chunk.content] for chunks in per_event]
    assert kinds[1] == ["reasoning", "server_tool_call"]  # response.reasoning.search_queries (with a thought)
    assert kinds[2] == ["server_tool_result"]  # response.reasoning.search_results
    assert kinds[3] == []  # the item itself, done: already sent
    assert kinds[4] == ["text"]
