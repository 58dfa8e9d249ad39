"""The Agent API readers, fed recorded responses and event streams (no I/O).

The streams are the emulator's, produced by its pure functions for a request
that uses every feature, so each published event type is in them; the
reader's stream result must equal its invoke result on the same response.
"""

from __future__ import annotations

from typing import Any, get_args

import pytest
from langchain_core.messages import AIMessageChunk
from perplexity.generated import api

from langchain_perplexity_strict._response._agent import AgentStreamReader
from langchain_perplexity_strict._response._answer import Answer
from langchain_perplexity_strict.errors import PerplexityIncompleteError, PerplexityResponseError
from langchain_perplexity_strict.testing import agent_api

EVERYTHING = {
    "model": "google/gemini-2.5-pro",
    "input": "read https://example.com/a, show images, why is the sky blue",
    "reasoning": {"effort": "high"},
    "skills": [{"type": "builtin", "name": "office"}],
    "tools": [{"type": "web_search"}, {"type": "fetch_url"}, {"type": "image_search"}],
}
TOOL_CALL = {**EVERYTHING, "tools": [{"type": "function", "name": "lookup", "parameters": {"type": "object"}}]}


def recorded(body: dict[str, Any], status: str = "completed") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    answer = agent_api.build_answer(body)
    response = agent_api.response_object(body, str(body["model"]), answer)
    if status == "failed":
        response["status"], response["error"] = "failed", {"message": "boom", "code": "server_error"}
    return response, list(agent_api.stream_events(response, answer))


def read_stream(events: list[dict[str, Any]]) -> tuple[list[AIMessageChunk], AIMessageChunk]:
    reader = AgentStreamReader(Answer())
    chunks: list[AIMessageChunk] = []
    for event in events:
        chunks += reader.feed(event)
        chunks += reader.answer.take_text()
    chunks += reader.finish()
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    return chunks, merged


def read_whole(response: dict[str, Any], *, raise_on_length: bool = True) -> Any:
    answer = Answer(raise_on_length=raise_on_length)
    AgentStreamReader(answer).read(response)
    return answer.message()


@pytest.mark.parametrize("event_type", [t for t in get_args(api.EventTypeOutput) if t != "response.failed"])
def test_every_published_event_type_is_read_like_invoke(event_type: str) -> None:
    for body in (EVERYTHING, TOOL_CALL):
        response, events = recorded(body)
        if event_type not in {e["type"] for e in events}:
            continue
        _, streamed = read_stream(events)
        invoked = read_whole(response)
        assert streamed.text == invoked.text
        assert streamed.tool_calls == invoked.tool_calls
        kwargs = {k: v for k, v in streamed.additional_kwargs.items() if k != "reasoning_content"}
        assert kwargs == invoked.additional_kwargs
        assert streamed.usage_metadata == invoked.usage_metadata
        break
    else:
        pytest.fail(f"{event_type} is in no recorded stream")


def test_response_failed_event_raises_with_the_message() -> None:
    _, events = recorded(EVERYTHING, status="failed")
    assert events[-1]["type"] == "response.failed"
    with pytest.raises(PerplexityResponseError, match="boom"):
        read_stream(events)


def test_thought_is_reasoning_and_sources_come_before_the_text() -> None:
    _, events = recorded(EVERYTHING)
    chunks, merged = read_stream(events)
    assert merged.additional_kwargs["reasoning_content"].startswith("Thinking about")
    first_sources = next(i for i, c in enumerate(chunks) if c.additional_kwargs.get("search_results"))
    first_text = next(i for i, c in enumerate(chunks) if c.text)
    assert first_sources <= first_text


@pytest.mark.parametrize(
    ("status", "error", "outcome"),
    [
        ("requires_action", None, "tool_calls"),
        ("queued", None, "has not finished"),
        ("in_progress", None, "has not finished"),
        ("cancelled", {"message": "stopped by user"}, "'cancelled': stopped by user"),
        ("failed", {"message": "cut", "code": "max_output_tokens"}, PerplexityIncompleteError),
    ],
)
def test_statuses(status: str, error: Any, outcome: Any) -> None:
    response, _ = recorded(TOOL_CALL)
    response = {**response, "status": status, "error": error}
    if outcome == "tool_calls":
        assert read_whole(response).tool_calls
    elif isinstance(outcome, str):
        with pytest.raises(PerplexityResponseError, match=outcome):
            read_whole(response)
    else:
        with pytest.raises(outcome):
            read_whole(response)
        assert read_whole(response, raise_on_length=False).response_metadata["finish_reason"] == "length"


def test_several_message_items_are_separated_and_citations_follow() -> None:
    """A preamble item and the answer item: joined with a blank line, annotation offsets shifted."""
    answer = Answer()
    response = {
        "status": "completed",
        "output": [
            {"type": "message", "content": [{"type": "output_text", "text": "Searching."}]},
            {"type": "message", "content": [{"type": "output_text", "text": "Paris is [1].", "annotations": [
                {"type": "url_citation", "url": "https://a", "title": "A", "start_index": 9, "end_index": 12}]}]},
        ],
    }  # fmt: skip
    AgentStreamReader(answer).read(response)
    message = answer.message()
    assert message.content == "Searching.\n\nParis is [1]."
    assert annotations_of(answer)[0]["cited_text"] == "[1]"


TWO_PARTS = {
    "id": "resp_two_parts",
    "status": "completed",
    "output": [
        {
            "type": "message",
            "content": [
                {"type": "output_text", "text": "Summary first."},
                {
                    "type": "output_text",
                    "text": "Paris [1] is big.",
                    "annotations": [
                        {"type": "url_citation", "url": "https://a", "title": "A", "start_index": 6, "end_index": 9}
                    ],
                },
            ],
        }
    ],
}


def two_part_events(response: dict[str, Any], *, deltas: bool) -> list[dict[str, Any]]:
    """The stream of `response`: each part as one delta (or, without `deltas`, only in the item's done event)."""
    item = response["output"][0]
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": None}},
    ]
    if deltas:
        for part_index, part in enumerate(item["content"]):
            events.append(
                {
                    "type": "response.output_text.delta",
                    "output_index": 0,
                    "content_index": part_index,
                    "delta": part["text"],
                }
            )
    events.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    events.append({"type": "response.completed", "response": response})
    return events


def test_two_text_parts_of_one_message_are_separated_and_each_cites_from_its_own_start() -> None:
    """Perplexity counts a part's annotation offsets from the part's start; the answer separates the parts as
    it separates message items, and shifts the second part's citation past the first part and the separator."""
    message = read_whole(TWO_PARTS)
    assert message.content == "Summary first.\n\nParis [1] is big."
    answer = Answer()
    AgentStreamReader(answer).read(TWO_PARTS)
    (citation,) = annotations_of(answer)
    assert citation["cited_text"] == "[1]"
    assert message.content[citation["start_index"] : citation["end_index"]] == "[1]"


@pytest.mark.parametrize("deltas", [True, False], ids=["as-deltas", "only-in-the-item"])
def test_two_text_parts_stream_as_they_are_invoked(deltas: bool) -> None:
    _, merged = read_stream(two_part_events(TWO_PARTS, deltas=deltas))
    whole = read_whole(TWO_PARTS)
    assert merged.content == whole.content
    assert merged.additional_kwargs.get("annotations") == whole.additional_kwargs.get("annotations")


CANCELLED_WITH_TEXT = {**TWO_PARTS, "status": "cancelled", "error": {"message": "cancelled by the user"}}


def test_a_cancelled_run_keeps_its_partial_message_on_the_error() -> None:
    with pytest.raises(PerplexityResponseError, match=r"'cancelled': cancelled by the user.*partial") as info:
        read_whole(CANCELLED_WITH_TEXT)
    assert info.value.partial is not None
    assert info.value.partial.content == "Summary first.\n\nParis [1] is big."


def test_a_cancelled_stream_has_yielded_its_partial_text_and_keeps_it_on_the_error() -> None:
    reader = AgentStreamReader(Answer())
    chunks: list[AIMessageChunk] = []
    with pytest.raises(PerplexityResponseError) as info:
        for event in two_part_events(CANCELLED_WITH_TEXT, deltas=True):
            chunks += reader.feed(event)
            chunks += reader.answer.take_text()
    assert "".join(str(c.content) for c in chunks) == "Summary first.\n\nParis [1] is big."
    assert info.value.partial is not None and info.value.partial.content == "Summary first.\n\nParis [1] is big."


def test_a_failed_run_without_output_has_an_empty_partial() -> None:
    with pytest.raises(PerplexityResponseError) as info:
        read_whole({"status": "failed", "output": [], "error": {"message": "boom"}})
    assert "partial" not in str(info.value)
    assert info.value.partial is not None and info.value.partial.content == ""


def annotations_of(answer: Answer) -> list[dict[str, Any]]:
    """The answer's standard `citation` annotations, as its v1 text block has them."""
    (block,) = [b for b in answer.message().content_blocks if b["type"] == "text"]
    return list(block.get("annotations") or [])
