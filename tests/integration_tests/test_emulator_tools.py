"""The emulator's built-in tools: each tool's items and events, skills, costs, and the MCP approval flow."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import loopback, published_schema

KEY = "test-key"
MCP = {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example"}
CONNECTOR = {"type": "connector", "id": "conn_drive", "server_label": "drive"}
# Each built-in tool alone: the output item types (in order) and stream event types it adds.
TOOLS: dict[str, tuple[dict[str, Any], list[str], set[str]]] = {
    "web_search": ({"type": "web_search"}, ["search_results"], {"response.reasoning.search_queries"}),
    "fetch_url": ({"type": "fetch_url"}, ["fetch_url_results"], {"response.reasoning.fetch_url_results"}),
    "image_search": ({"type": "image_search"}, ["image_search_results"],
                     {"response.reasoning.image_search_results"}),
    "people_search": ({"type": "people_search"}, ["search_results"], {"response.reasoning.search_results"}),
    "finance_search": ({"type": "finance_search"}, ["search_results"], {"response.reasoning.search_results"}),
    "sandbox": ({"type": "sandbox"}, ["sandbox_results", "sandbox_write_file", "sandbox_read_file",
                "sandbox_edit_file", "sandbox_grep", "sandbox_glob", "sandbox_apply_patch", "share_file"],
                {"response.output_item.added"}),
    "mcp": ({**MCP, "require_approval": "never"}, ["mcp_list_tools", "mcp_call"], {"response.output_item.done"}),
    "mcp_deferred": ({**MCP, "require_approval": "never", "defer_loading": True},
                     ["tool_search_output", "mcp_call"], {"response.output_item.done"}),
    "connector": ({**CONNECTOR, "require_approval": "never"}, ["mcp_list_tools", "mcp_call"],
                  {"response.output_item.done"}),
}  # fmt: skip
QUESTION = "what changed at https://example.com/news today?"


@pytest.fixture(scope="module")
def emulator() -> Iterator[PerplexityEmulator]:
    """This module holds the emulator's answers to the published models (extras forbidden): its bare-schema
    dialect. The live dialect's rules are checked in tests/integration_tests/test_emulator_dialect.py."""
    with PerplexityEmulator(api_key=KEY, dialect="schema") as emu:
        yield emu


def post(emu: PerplexityEmulator, body: dict[str, Any]) -> httpx.Response:
    return loopback.post(f"{emu.base_url}/v1/responses", json=body, headers={"Authorization": f"Bearer {KEY}"})


def events(emu: PerplexityEmulator, body: dict[str, Any]) -> list[dict[str, Any]]:
    text = post(emu, {**body, "stream": True}).text
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def stable(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Output items without the message ids, which are fresh on every answer."""
    return [{k: v for k, v in o.items() if not (o["type"] == "message" and k == "id")} for o in output]


def answer(emu: PerplexityEmulator, body: dict[str, Any]) -> dict[str, Any]:
    published_schema.agent_request(body)
    response = post(emu, body)
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    published_schema.agent_response(payload)
    return payload


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_each_built_in_tool_alone(emu: PerplexityEmulator, name: str) -> None:
    tool, items, event_types = TOOLS[name]
    body = {"model": "perplexity/sonar", "input": QUESTION, "tools": [tool]}
    response = answer(emu, body)
    assert [o["type"] for o in response["output"]] == [*items, "message"]
    assert stable(response["output"]) == stable(answer(emu, body)["output"])  # deterministic
    details = response["usage"]["tool_calls_details"]
    assert list(details) == [tool["type"]] and details[tool["type"]]["invocation"] >= 1
    assert response["usage"]["cost"]["tool_calls_cost"] == sum(d["cost_usd"] for d in details.values())
    streamed = events(emu, body)
    for event in streamed:
        published_schema.agent_event(event)
    assert event_types <= {e["type"] for e in streamed}
    assert [e["sequence_number"] for e in streamed] == list(range(1, len(streamed) + 1))
    assert stable(streamed[-1]["response"]["output"]) == stable(response["output"])


def test_search_events_carry_thoughts(emu: PerplexityEmulator) -> None:
    body = {"model": "openai/gpt-5.1", "input": QUESTION, "reasoning": {"effort": "high"},
            "tools": [{"type": t} for t in ("web_search", "people_search", "finance_search", "fetch_url")]}  # fmt: skip
    streamed = events(emu, body)
    thoughts = {e["type"]: e.get("thought") for e in streamed if e["type"].startswith("response.reasoning.")}
    assert thoughts["response.reasoning.started"] == "Thinking about: " + QUESTION
    queries = [e for e in streamed if e["type"] == "response.reasoning.search_queries"]
    assert [q["thought"].split(" for: ")[0] for q in queries] == [
        "Searching the web", "Looking up people", "Looking up financial data"]  # fmt: skip
    assert thoughts["response.reasoning.fetch_url_queries"] == "Reading https://example.com/news"


def test_skills_are_loaded_in_every_published_form(emu: PerplexityEmulator) -> None:
    skills = [
        {"type": "builtin", "name": "office/docx"},
        {"type": "inline", "name": "tone", "description": "Tone.", "instructions": "Be warm."},
        {"type": "custom", "id": "sk_42", "version": "3"},
    ]
    response = answer(emu, {"model": "perplexity/sonar", "input": "write a memo", "skills": skills})
    assert response["output"][:3] == [{"type": "skill_loaded", "name": n} for n in ("office/docx", "tone", "sk_42")]
    loaded = [e["name"] for e in events(emu, {"model": "perplexity/sonar", "input": "memo", "skills": skills})
              if e["type"] == "response.skill.loaded"]  # fmt: skip
    assert loaded == ["office/docx", "tone", "sk_42"]


@pytest.mark.parametrize(
    ("rule", "waits"),
    [
        (None, True), ("always", True), ("never", False),
        ({"never": {"tool_names": ["search"]}}, False), ({"never": {"tool_names": ["write"]}}, True),
        ({"never": {"read_only": True}}, False), ({"always": {"read_only": True}}, True),
    ],
)  # fmt: skip
def test_require_approval_rules(emu: PerplexityEmulator, rule: Any, waits: bool) -> None:
    tool = {**MCP, **({"require_approval": rule} if rule is not None else {})}
    response = answer(emu, {"model": "perplexity/sonar", "input": "search the docs", "tools": [tool]})
    kinds = [o["type"] for o in response["output"]]
    if waits:
        assert response["status"] == "requires_action"
        assert kinds == ["mcp_list_tools", "mcp_approval_request"]
        assert "mcp" not in (response["usage"].get("tool_calls_details") or {})
    else:
        assert response["status"] == "completed" and kinds == ["mcp_list_tools", "mcp_call", "message"]


@pytest.mark.parametrize("via", ["previous_response_id", "input"])
@pytest.mark.parametrize("approve", [True, False])
@pytest.mark.parametrize("tool", [MCP, CONNECTOR], ids=["mcp", "connector"])
def test_the_approval_round_trip(emu: PerplexityEmulator, via: str, approve: bool, tool: dict[str, Any]) -> None:
    body = {"model": "perplexity/sonar", "input": "write the release notes", "tools": [tool]}
    first = answer(emu, body)
    request = first["output"][-1]
    assert request["type"] == "mcp_approval_request" and request["name"] == "write"
    assert (request.get("connector_id") == "conn_drive") == (tool is CONNECTOR)
    streamed = events(emu, body)
    assert streamed[-1]["type"] == "response.completed"
    assert streamed[-1]["response"]["status"] == "requires_action"
    reply = {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": approve}
    if via == "previous_response_id":
        follow = {**body, "previous_response_id": first["id"], "input": [reply]}
    else:
        follow = {**body, "input": [{"role": "user", "content": "write the release notes"}, request, reply]}
    second = answer(emu, follow)
    assert second["status"] == "completed"
    text = second["output"][-1]["content"][0]["text"]
    if approve:
        call = second["output"][0]
        assert [o["type"] for o in second["output"]] == ["mcp_call", "message"]
        assert call["approval_request_id"] == request["id"] and call["arguments"] == request["arguments"]
        assert call["output"] in text
    else:
        assert [o["type"] for o in second["output"]] == ["message"]
        assert "was not approved" in text


def test_an_approval_for_an_unknown_request_is_refused(emu: PerplexityEmulator) -> None:
    body = {"model": "perplexity/sonar", "input": "write it", "tools": [MCP]}
    first = answer(emu, body)
    reply = {"type": "mcp_approval_response", "approval_request_id": "mcpr_nope", "approve": True}
    refused = post(emu, {**body, "previous_response_id": first["id"], "input": [reply]})
    assert refused.status_code == 400
    assert refused.json()["error"]["param"] == "input[0].approval_request_id"


@pytest.mark.parametrize("via", ["previous_response_id", "input"])
def test_approval_responses_in_a_row_are_one_user_turn(emu: PerplexityEmulator, via: str) -> None:
    """docs/perplexity-rules.md: two pending requests, answered by two items in a row (one turn)."""
    second = {**MCP, "server_label": "wiki", "server_url": "https://wiki.example"}
    body = {"model": "perplexity/sonar", "input": "write the notes", "tools": [MCP, second]}
    first = answer(emu, body)
    requests = [o for o in first["output"] if o["type"] == "mcp_approval_request"]
    assert len(requests) == 2
    replies = [{"type": "mcp_approval_response", "approval_request_id": r["id"], "approve": i == 0}
               for i, r in enumerate(requests)]  # fmt: skip
    if via == "previous_response_id":
        follow = {**body, "previous_response_id": first["id"], "input": replies}
    else:
        follow = {**body, "input": [{"role": "user", "content": "write the notes"}, *requests, *replies]}
    done = answer(emu, follow)
    assert done["status"] == "completed"
    assert [o["type"] for o in done["output"]] == ["mcp_call", "message"]
    # A user message after the responses is a second user turn, still refused.
    then = {"role": "user", "content": "and also"}
    refused = post(emu, {**body, "input": [{"role": "user", "content": "write the notes"}, *requests, *replies, then]})
    assert refused.status_code == 400 and "alternate" in refused.json()["error"]["message"]


def test_all_tools_together_and_unknown_items(emu: PerplexityEmulator) -> None:
    tools = [t for t, _, _ in TOOLS.values()]
    body = {"model": "perplexity/sonar", "input": QUESTION, "tools": tools}
    response = answer(emu, body)
    assert set(response["usage"]["tool_calls_details"]) == {t["type"] for t in tools}
    with PerplexityEmulator(api_key=KEY, unknown_output_items=True, dialect="schema") as emu2:
        other = answer(emu2, body)
        assert [o["type"] for o in other["output"]][-2:] == ["unknown", "message"]
        for event in events(emu2, body):
            published_schema.agent_event(event)


def test_fetch_and_image_limits_are_honoured(emu: PerplexityEmulator) -> None:
    question = "compare https://a.example/1 https://b.example/2 and https://c.example/3"
    tools = [{"type": "fetch_url", "max_urls": 2}, {"type": "image_search", "max_results": 3}]
    response = answer(emu, {"model": "perplexity/sonar", "input": question, "tools": tools})
    fetched, images, _message = response["output"]
    assert [c["url"] for c in fetched["contents"]] == ["https://a.example/1", "https://b.example/2"]
    assert len(images["results"]) == 3
