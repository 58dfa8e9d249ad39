"""The block translator registered for "perplexity": `content_blocks` of a v0 answer are its v1 blocks."""

from __future__ import annotations

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.block_translators import get_translator

import langchain_perplexity_strict  # noqa: F401  (importing the package registers the translator)
from langchain_perplexity_strict._response._server_item_blocks import v0_kwargs

SEARCH = {"type": "search_results", "queries": ["sky"], "results": [
    {"id": 1, "url": "https://a.example", "title": "A", "snippet": "a"},
    {"id": 2, "url": "https://b.example", "title": "B", "snippet": "b"},
]}  # fmt: skip
FETCH = {"type": "fetch_url_results", "contents": [{"url": "https://c.example", "title": "C", "snippet": "c"}]}
SKILL = {"type": "skill_loaded", "name": "office"}


def v0_answer(**extra: object) -> AIMessage:
    kwargs = {
        "reasoning_content": "Thinking.",
        "citations": ["https://a.example", "https://b.example"],
        "search_results": SEARCH["results"],
        **v0_kwargs([(SEARCH, "search_results_0"), (SKILL, "skill_loaded_0"), (FETCH, "fetch_url_results_0")]),
        **extra,
    }
    return AIMessage(
        "Blue [1], mostly [2].",
        additional_kwargs=kwargs,
        response_metadata={"model_provider": "perplexity"},
        tool_calls=[{"id": "call_1", "name": "add", "args": {"a": 1}}],
    )


def test_the_translator_is_registered_for_the_package_provider_name() -> None:
    assert get_translator("perplexity") is not None


def test_a_v0_answer_reads_as_reasoning_server_blocks_cited_text_and_tool_calls() -> None:
    blocks = v0_answer().content_blocks
    assert [b["type"] for b in blocks] == [
        "reasoning", "server_tool_call", "server_tool_result", "non_standard", "server_tool_call",
        "server_tool_result", "text", "tool_call",
    ]  # fmt: skip
    assert blocks[0] == {"type": "reasoning", "reasoning": "Thinking."}
    assert blocks[1] == {"type": "server_tool_call", "id": "search_results_0", "name": "web_search",
                         "args": {"queries": ["sky"]}}  # fmt: skip
    assert blocks[2] == {"type": "server_tool_result", "tool_call_id": "search_results_0", "status": "success",
                         "output": {"results": SEARCH["results"]}}  # fmt: skip
    assert blocks[3] == {"type": "non_standard", "value": SKILL}
    assert blocks[4]["args"] == {"urls": ["https://c.example"]}
    text = blocks[6]
    assert text["text"] == "Blue [1], mostly [2]."
    assert [(c["url"], c["title"], c["cited_text"]) for c in text["annotations"]] == [
        ("https://a.example", "A", "[1]"), ("https://b.example", "B", "[2]"),
    ]  # fmt: skip
    assert blocks[7] == {"type": "tool_call", "id": "call_1", "name": "add", "args": {"a": 1}}


def test_perplexitys_own_annotations_win_over_markers() -> None:
    own = [{"type": "url_citation", "url": "https://z.example", "title": "Z", "start_index": 0, "end_index": 4}]
    [text] = [b for b in v0_answer(annotations=own).content_blocks if b["type"] == "text"]
    assert text["annotations"] == [{"type": "citation", "url": "https://z.example", "title": "Z", "start_index": 0,
                                    "end_index": 4, "cited_text": "Blue"}]  # fmt: skip


def test_chunks_carry_stream_indices() -> None:
    chunk = AIMessageChunk(
        "Blue",
        additional_kwargs={"reasoning_content": "T", **v0_kwargs([(FETCH, "fetch_url_results_0")])},
        response_metadata={"model_provider": "perplexity"},
    )
    assert [(b["type"], b["index"]) for b in chunk.content_blocks] == [
        ("reasoning", 0), ("server_tool_call", "lc_fetch_url_results_0"),
        ("server_tool_result", "lc_fetch_url_results_0_result"), ("text", 1),
    ]  # fmt: skip


def test_list_content_is_left_to_langchain_cores_parsing() -> None:
    message = AIMessage([{"type": "text", "text": "hi"}], response_metadata={"model_provider": "perplexity"})
    assert message.content_blocks == [{"type": "text", "text": "hi"}]


def test_an_answer_with_only_tool_calls_has_no_empty_text_block() -> None:
    message = AIMessage("", response_metadata={"model_provider": "perplexity"},
                        tool_calls=[{"id": "c", "name": "f", "args": {}}])  # fmt: skip
    assert [b["type"] for b in message.content_blocks] == ["tool_call"]
