"""langchain-core's `stream_events(version="v3")`: each part of a Perplexity answer in its projection."""

from __future__ import annotations

import warnings

import pytest
from langchain_core import __version__ as core_version

from langchain_perplexity_strict import fetch_url_tool, web_search_tool
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make

QUESTION = "read https://example.com/a and say why the sky is blue"
TOOLS = [web_search_tool(), fetch_url_tool()]
pytestmark = pytest.mark.skipif(
    tuple(int(p) for p in core_version.split(".")[:2]) < (1, 8), reason="stream_events v3 is in langchain-core 1.8+"
)


@pytest.mark.parametrize("version", ["v0", "v1"])
def test_v3_projections_show_reasoning_tools_text_and_usage(emu: PerplexityEmulator, version: str) -> None:
    llm = make(emu, reasoning_effort="high", output_version=version).bind_tools(TOOLS)
    expected = make(emu, reasoning_effort="high", output_version="v1").bind_tools(TOOLS).invoke(QUESTION)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # v3 is beta in langchain-core and says so
        stream = llm.stream_events(QUESTION, version="v3")
        text = "".join(stream.text)
        reasoning = str(stream.reasoning)
        output = stream.output
    assert text == expected.text and text
    assert reasoning.startswith("Thinking about:")
    calls = {b["name"]: b for b in output.content if b["type"] == "server_tool_call"}
    assert set(calls) == {"web_search", "fetch_url"}
    assert calls["fetch_url"]["args"] == {"urls": ["https://example.com/a"]}
    results = {b["tool_call_id"] for b in output.content if b["type"] == "server_tool_result"}
    assert results == {c["id"] for c in calls.values()}
    assert output.usage_metadata == expected.usage_metadata


async def test_v3_async(emu: PerplexityEmulator) -> None:
    llm = make(emu, reasoning_effort="high", output_version="v1").bind_tools(TOOLS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stream = await llm.astream_events(QUESTION, version="v3")
        text = "".join([piece async for piece in stream.text])
        output = await stream.output
    assert text
    assert {b["name"] for b in output.content if b["type"] == "server_tool_call"} == {"web_search", "fetch_url"}
