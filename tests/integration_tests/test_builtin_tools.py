"""Every built-in tool family against the emulator: bound, sent in the published shape, read back as standard blocks."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_perplexity_strict import (
    builtin_skill,
    connector_tool,
    fetch_url_tool,
    finance_search_tool,
    image_search_tool,
    mcp_tool,
    people_search_tool,
    sandbox_tool,
    web_search_tool,
)
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import make

QUESTION = "read https://example.com/a and tell me about the search tool"
FAMILIES: dict[str, tuple[list[dict[str, Any]], dict[str, Any], set[str]]] = {
    # family: (tools, model arguments, the server tool names (or non_standard item types) its answer holds)
    "web_search": ([web_search_tool(search_context_size="high")], {}, {"web_search"}),
    "fetch_url": ([fetch_url_tool(max_urls=2)], {}, {"fetch_url"}),
    "image_search": ([image_search_tool(max_results=2)], {}, {"image_search"}),
    "people_search": ([people_search_tool()], {}, {"web_search"}),
    "finance_search": ([finance_search_tool()], {}, {"web_search"}),
    "sandbox": ([sandbox_tool()], {}, {"sandbox", "sandbox_write_file", "sandbox_read_file", "sandbox_edit_file",
                                       "sandbox_grep", "sandbox_glob", "sandbox_apply_patch", "share_file"}),
    "mcp": ([mcp_tool("docs", "https://mcp.example.com", require_approval="never")], {},
            {"mcp_list_tools", "remote_mcp"}),
    "connector": ([connector_tool("conn_drive", "drive", require_approval="never")], {},
                  {"mcp_list_tools", "remote_mcp"}),
    "skills": ([], {"skills": [builtin_skill("office/docx")]}, {"skill_loaded"}),
}  # fmt: skip


def names(blocks: list[Any]) -> set[str]:
    """Server tool names of the calls, and item types of the non-standard blocks."""
    out = set()
    for block in blocks:
        if block.get("type") == "server_tool_call":
            out.add(block["name"])
        elif block.get("type") == "non_standard":
            out.add(block["value"]["type"])
    return out


def as_invoked(blocks: list[Any]) -> list[Any]:
    """A stream's blocks as invoke has them: no stream indices, and no reasoning (the Agent API's
    `thought` comes only in stream events)."""
    return [{k: v for k, v in b.items() if k != "index"} for b in blocks if b["type"] != "reasoning"]


def merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    out = chunks[0]
    for chunk in chunks[1:]:
        out += chunk
    return out


def bound(emu: PerplexityEmulator, family: str, version: str) -> Any:
    tools, kwargs, _ = FAMILIES[family]
    llm = make(emu, output_version=version, **kwargs)
    return llm.bind_tools(tools) if tools else llm


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_reads_into_standard_blocks_on_invoke(emu: PerplexityEmulator, family: str) -> None:
    v0 = bound(emu, family, "v0").invoke(QUESTION)
    published_schema.agent_request(emu.requests[-1].body)
    v1 = bound(emu, family, "v1").invoke(QUESTION)
    expected = FAMILIES[family][2]
    assert expected <= names(v1.content)
    for block in v1.content:
        if block["type"] == "server_tool_call":
            result = next(b for b in v1.content if b.get("tool_call_id") == block["id"])
            assert result["type"] == "server_tool_result" and result["status"] == "success"
    assert isinstance(v0.content, str) and v0.content
    assert v0.content_blocks == v1.content  # the translator gives the v0 answer the v1 blocks
    assert v0.text == v1.text


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_reads_into_standard_blocks_on_stream(emu: PerplexityEmulator, family: str) -> None:
    invoked = bound(emu, family, "v1").invoke(QUESTION)
    streamed_v1 = merged(list(bound(emu, family, "v1").stream(QUESTION)))
    streamed_v0 = merged(list(bound(emu, family, "v0").stream(QUESTION)))
    assert as_invoked(streamed_v1.content) == invoked.content
    assert as_invoked(streamed_v0.content_blocks) == invoked.content


def test_v0_keeps_items_in_additional_kwargs_as_before(emu: PerplexityEmulator) -> None:
    tools = [web_search_tool(), fetch_url_tool(), image_search_tool(), sandbox_tool()]
    answer = make(emu).bind_tools(tools).invoke(QUESTION)
    kwargs = answer.additional_kwargs
    assert kwargs["fetch_url_results"][0]["contents"][0]["url"] == "https://example.com/a"
    assert kwargs["image_search_results"][0]["results"]
    assert kwargs["sandbox_results"][0]["status"] == "completed"
    assert kwargs["share_file"][0]["filename"] == "answer.md"
    assert kwargs["citations"] and kwargs["search_results"]  # the search, flattened as Sonar had it
    assert kwargs["search_result_items"][0]["queries"]  # and each search's item as sent


def test_a_stream_carries_each_call_when_it_starts_and_its_result_when_it_comes(emu: PerplexityEmulator) -> None:
    """Search and fetch calls go out with the events that start them, before their results and the answer.

    Compared by place in the stream (chunk, then block within it): what one network read brings is one
    chunk, in the order of its events, so the order holds however the bytes were read.
    """
    llm = make(emu, output_version="v1", reasoning_effort="high").bind_tools([web_search_tool(), fetch_url_tool()])
    chunks = list(llm.stream(QUESTION))
    places = [(i, j, b) for i, c in enumerate(chunks) for j, b in enumerate(c.content) if isinstance(b, dict)]

    def first(predicate: Any) -> tuple[int, int]:
        return next((i, j) for i, j, b in places if predicate(b))

    text = first(lambda b: b.get("type") == "text" and b.get("text"))
    for tool in ("web_search", "fetch_url"):
        call = first(lambda b, t=tool: b.get("type") == "server_tool_call" and b["name"] == t)
        call_id = chunks[call[0]].content[call[1]]["id"]
        result = first(lambda b, i=call_id: b.get("type") == "server_tool_result" and b["tool_call_id"] == i)
        assert call < result < text
    assert first(lambda b: b.get("type") == "reasoning") < first(lambda b: b.get("type") == "server_tool_call")


def test_citations_are_standard_annotations_in_v1_and_in_content_blocks_of_v0(emu: PerplexityEmulator) -> None:
    v1 = make(emu, output_version="v1").invoke("why is the sky blue")
    v0 = make(emu).invoke("why is the sky blue")
    [text] = [b for b in v1.content if b["type"] == "text"]
    assert text["annotations"] and all(a["type"] == "citation" and a["url"] for a in text["annotations"])
    assert [b for b in v0.content_blocks if b["type"] == "text"] == [text]


def test_tool_calls_details_are_per_tool_in_response_metadata(emu: PerplexityEmulator) -> None:
    answer = make(emu).bind_tools([web_search_tool(), fetch_url_tool()]).invoke(QUESTION)
    details = answer.response_metadata["tool_calls_details"]
    # Perplexity's own names, as sent: the live API calls its web search `search_web` (docs/perplexity-rules.md)
    assert details["search_web"]["invocation"] == 1 and details["fetch_url"]["invocation"] == 1
    assert all(d["cost_usd"] >= 0 for d in details.values())


def test_all_tools_and_skills_together_make_one_published_body(emu: PerplexityEmulator) -> None:
    tools = [tool for family in FAMILIES.values() for tool in family[0]]
    llm = make(emu, skills=[builtin_skill("office")]).bind_tools(tools)
    llm.invoke(QUESTION)
    body = emu.requests[-1].body
    published_schema.agent_request(body)
    assert [t["type"] for t in body["tools"]] == [t["type"] for t in tools]  # no second, default search tool
    assert body["skills"] == [{"type": "builtin", "name": "office"}]


def test_a_bound_search_tool_replaces_the_default_one_and_another_tool_keeps_it(emu: PerplexityEmulator) -> None:
    filters = {"search_domain_filter": ["arxiv.org"]}
    make(emu).bind_tools([web_search_tool(filters=filters)]).invoke("q?")
    assert emu.requests[-1].body["tools"] == [{"type": "web_search", "filters": filters}]
    make(emu).bind_tools([fetch_url_tool()]).invoke("q?")
    assert emu.requests[-1].body["tools"] == [{"type": "fetch_url"}, {"type": "web_search"}]  # search kept
    make(emu, web_search=False).bind_tools([fetch_url_tool()]).invoke("q?")
    assert emu.requests[-1].body["tools"] == [{"type": "fetch_url"}]  # the model says it does not search
    make(emu).invoke("q?")
    assert emu.requests[-1].body["tools"] == [{"type": "web_search"}]  # unbound: the default search stays


def test_model_search_settings_apply_to_a_bound_search_tool(emu: PerplexityEmulator) -> None:
    """A model-level filter is not bypassed by binding a search tool: the bound tool carries it."""
    llm = make(emu, search_domain_filter=["nature.com"], search_context_size="low")
    llm.bind_tools([web_search_tool(search_context_size="high")]).invoke("q?")
    assert emu.requests[-1].body["tools"] == [
        {"type": "web_search", "search_context_size": "high", "filters": {"search_domain_filter": ["nature.com"]}}
    ]


def test_a_wrong_built_in_tool_is_refused_before_sending(emu: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match=r"tools\[1\]\.max_urls: 'two' is not accepted; expected an integer"):
        make(emu).bind_tools([web_search_tool(), {"type": "fetch_url", "max_urls": "two"}])
    with pytest.raises(ValueError, match=r"skills\[0\]\.name: 'office/odt'"):
        make(emu, skills=[{"type": "builtin", "name": "office/odt"}])
    with pytest.raises(ValueError, match=r"tools\[0\]: unknown field 'filter'"):
        make(emu).invoke("q?", tools=[{"type": "web_search", "filter": {}}])
    assert not emu.requests


def test_skills_per_call(emu: PerplexityEmulator) -> None:
    answer = make(emu, output_version="v1").invoke("q?", skills=[builtin_skill("office/pdf")])
    assert emu.requests[-1].body["skills"] == [{"type": "builtin", "name": "office/pdf"}]
    assert {"type": "non_standard", "value": {"type": "skill_loaded", "name": "office/pdf"}} in answer.content


def test_a_v1_answer_goes_back_into_the_history(emu: PerplexityEmulator) -> None:
    """Server blocks in an earlier v1 answer are not sent back: the text is."""
    llm = make(emu, output_version="v1").bind_tools([fetch_url_tool(), sandbox_tool()])
    first = llm.invoke(QUESTION)
    assert isinstance(first, AIMessage)
    llm.invoke([("human", QUESTION), first, ("human", "and then?")])
    body = emu.requests[-1].body
    published_schema.agent_request(body)
    assert body["input"][1] == {"role": "assistant", "content": first.text}
