"""The chat model maps Perplexity's whole published vocabulary, on invoke and on stream alike."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.tools import tool

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make


def stream(llm: Any, prompt: Any) -> tuple[list[AIMessageChunk], AIMessageChunk]:
    chunks = list(llm.stream(prompt))
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    return chunks, merged


def test_thought_is_reasoning_never_answer(emu: PerplexityEmulator) -> None:
    """response.reasoning.started / .stopped carry ``thought``: reasoning content, in v0 and v1."""
    llm = make(emu, model="openai/gpt-5.1", reasoning_effort="high")
    _, merged = stream(llm, "why?")
    reasoning = merged.additional_kwargs["reasoning_content"]
    assert (
        reasoning == "Thinking about: why?\n\nSearching the web...\n\nFound 3 results"
    )  # each step's thought, a blank line between
    assert "Thinking" not in merged.text
    v1 = make(emu, model="openai/gpt-5.1", reasoning_effort="high", output_version="v1")
    _, merged_v1 = stream(v1, "why?")
    assert next(b["type"] for b in merged_v1.content if isinstance(b, dict)) == "reasoning"
    assert [b["reasoning"] for b in merged_v1.content if isinstance(b, dict) and b["type"] == "reasoning"] == [
        reasoning
    ]


def test_search_results_arrive_before_the_answer_ends(emu: PerplexityEmulator) -> None:
    """response.reasoning.search_queries / .search_results: sources in a chunk before the last, once each.

    Chunks follow events, not network reads: the search events' chunk comes before the answer's, however the
    socket is read.
    """
    emu.clear()
    llm = make(emu)
    chunks, merged = stream(llm, "why is the sky blue")
    first_with_sources = next(i for i, c in enumerate(chunks) if c.additional_kwargs.get("search_results"))
    assert first_with_sources < len(chunks) - 1
    invoked = make(emu).invoke("why is the sky blue")
    assert merged.additional_kwargs["citations"] == invoked.additional_kwargs["citations"]  # no duplicates
    assert merged.additional_kwargs["search_results"] == invoked.additional_kwargs["search_results"]
    assert (
        merged.additional_kwargs["search_queries"]
        == invoked.additional_kwargs["search_queries"]
        == ["why is the sky blue"]
    )


@pytest.mark.parametrize("kind", ["fetch_url_results", "image_search_results", "skill_loaded"])
def test_other_output_items_reach_additional_kwargs_on_invoke_and_stream(emu: PerplexityEmulator, kind: str) -> None:
    tools = [{"type": "fetch_url"}, {"type": "image_search"}]
    llm = make(emu, skills=[{"type": "builtin", "name": "office"}]).bind_tools(tools)
    invoked = llm.invoke("read https://example.com/a, show a picture")
    _, streamed = stream(llm, "read https://example.com/a, show a picture")
    assert invoked.additional_kwargs[kind] == streamed.additional_kwargs[kind]
    assert invoked.additional_kwargs[kind][0]["type"] == kind


def test_cache_tokens_reach_usage_metadata(emu: PerplexityEmulator) -> None:
    usage = make(emu).invoke("a question long enough to have cached tokens").usage_metadata
    assert usage is not None and usage["input_token_details"]["cache_read"] > 0
    _, merged = stream(make(emu), "a question long enough to have cached tokens")
    assert merged.usage_metadata == usage


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_thought_signature_is_kept_and_echoed(emu: PerplexityEmulator, mode: str) -> None:
    """Function calls of thinking models carry a thought_signature; the next request echoes it and the name."""
    llm = make(emu, model="google/gemini-2.5-pro").bind_tools([add])
    first = llm.invoke("add 2 and 3") if mode == "invoke" else stream(llm, "add 2 and 3")[1]
    call = first.tool_calls[0]
    assert first.additional_kwargs["thought_signatures"][call["id"]].startswith("sig_")
    emu.clear()
    llm.invoke([HumanMessage("add 2 and 3"), first, ToolMessage("5", tool_call_id=call["id"])])
    items = emu.requests[-1].body["input"]
    function_call = next(i for i in items if i.get("type") == "function_call")
    output = next(i for i in items if i.get("type") == "function_call_output")
    assert function_call["thought_signature"] == first.additional_kwargs["thought_signatures"][call["id"]]
    assert output["name"] == "add"


def test_tool_results_with_images_go_as_images(emu: PerplexityEmulator) -> None:
    llm = make(emu).bind_tools([add])
    first = llm.invoke("add 2 and 3")
    call_id = first.tool_calls[0]["id"]
    result = ToolMessage(
        [{"type": "text", "text": "chart:"}, {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}],
        tool_call_id=call_id,
    )
    emu.clear()
    llm.invoke([HumanMessage("add 2 and 3"), first, result])
    output = next(i for i in emu.requests[-1].body["input"] if i.get("type") == "function_call_output")
    assert output["output"] == [
        {"type": "input_text", "text": "chart:"},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
    ]
