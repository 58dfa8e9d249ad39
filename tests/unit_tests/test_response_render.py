"""`_response/_render.py`: one rendering of a whole answer; why a stream's v1 chunks are still assembled.

The forms of "v1 content", and which path gives each:

- a whole answer (invoke, batch, `streaming=False`): rendered once, as v0; its v1
  content is that message's `content_blocks`, the translator registered for
  `"perplexity"` (what langchain-core's own `output_version="v1"` conversion reads);
- `streaming=True` under invoke: the stream's chunks, merged by langchain-core's
  `generate_from_stream` (`chat_models`);
- a stream chunk (stream, astream, `stream_events`): assembled by `_render.content`, since
  the translator, given one v0 chunk, cannot know two things the tests below show.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessageChunk

from langchain_perplexity_strict._response._agent import AgentStreamReader
from langchain_perplexity_strict._response._answer import Answer
from langchain_perplexity_strict._response._chat import ChatStreamReader

CITATIONS = ["https://a.example", "https://b.example"]
SEARCH = {
    "type": "search_results",
    "queries": ["sky"],
    "results": [{"id": 1, "url": "https://a.example", "title": "A", "snippet": "a"}],
}
MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Blue [1].", "annotations": []}],
}
BODY = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "perplexity/sonar",
    "status": "completed",
    "output": [SEARCH, MESSAGE],
}


def read_batch(reader: Any, batch: list[dict[str, Any]]) -> list[AIMessageChunk]:
    """The chunks one network read gives: its events', then the text they brought."""
    return [c for event in batch for c in reader.feed(event)] + reader.answer.take_text()


def completion_chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c1",
        "model": "sonar",
        "citations": CITATIONS,
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }


def chat_stream(version: str) -> list[AIMessageChunk]:
    """A chat completion streamed in two pieces, its `[2]` marker in the second."""
    reader = ChatStreamReader(Answer(output_version=version))
    data = [completion_chunk("Blue [1], "), completion_chunk("mostly [2].", "stop")]
    return [c for d in data for c in read_batch(reader, [d])] + reader.finish()


def merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    out = chunks[0]
    for chunk in chunks[1:]:
        out += chunk
    return out


def test_a_whole_v1_answer_is_the_translators_reading_of_its_v0_answer() -> None:
    for reader, data in [
        (AgentStreamReader, BODY),
        (
            ChatStreamReader,
            {
                **completion_chunk("Blue [1]."),
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": "Blue [1]."}, "finish_reason": "stop"}
                ],
            },
        ),
    ]:
        v0, v1 = Answer(output_version="v0"), Answer(output_version="v1")
        reader(v0).read(data)
        reader(v1).read(data)
        message = v1.message()
        assert message.content == v0.message().content_blocks
        assert message.response_metadata["output_version"] == "v1"
        assert "reasoning_content" not in message.additional_kwargs  # the blocks hold it
        assert "search_result_items" not in message.additional_kwargs


def test_a_v0_chunk_cannot_tell_of_a_search_that_started_but_has_no_results_yet() -> None:
    """The queries event starts the search: v1 sends its call now; v0 has no item to carry until it is done."""
    event = {"type": "response.reasoning.search_queries", "queries": ["sky"], "thought": "T.", "sequence_number": 2}
    created = {
        "type": "response.created",
        "sequence_number": 1,
        "response": {**BODY, "status": "in_progress", "output": []},
    }
    per_version = {}
    for version in ("v0", "v1"):
        reader = AgentStreamReader(Answer(output_version=version))
        read_batch(reader, [created])
        per_version[version] = read_batch(reader, [event])
    v1_kinds = [b["type"] for c in per_version["v1"] for b in c.content]
    v0_kinds = [b["type"] for c in per_version["v0"] for b in c.content_blocks]
    assert "server_tool_call" in v1_kinds
    assert "server_tool_call" not in v0_kinds


def test_a_v0_chunks_citations_point_into_its_own_piece_not_the_whole_text() -> None:
    """Translated chunk by chunk, the `[2]` of the last piece would cite offsets of that piece."""
    v1 = merged(chat_stream("v1"))
    [v1_text] = [b for b in v1.content if b["type"] == "text"]
    whole = [(a["start_index"], a["cited_text"]) for a in v1_text["annotations"]]
    assert whole == [(5, "[1]"), (17, "[2]")]
    assert merged(chat_stream("v0")).content_blocks[0]["annotations"] == v1_text["annotations"]
    by_chunk = [
        a for c in chat_stream("v0") for b in c.content_blocks if b["type"] == "text" for a in b.get("annotations", [])
    ]
    assert [(a["start_index"], a["cited_text"]) for a in by_chunk] != whole
