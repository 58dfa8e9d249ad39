"""Every published output item of a server tool or skill maps to standard blocks without loss."""

from __future__ import annotations

import json
from typing import Any

import pytest
from perplexity.generated import api

from langchain_perplexity_strict._response._server_item_blocks import (
    ITEM_SPECS,
    NON_STANDARD_ITEMS,
    READ_ELSEWHERE,
    ServerItems,
    item_blocks,
    item_id,
)
from tests.published_examples import example, output_item_models

MODELS = output_item_models()
SERVER_KINDS = sorted(set(MODELS) - READ_ELSEWHERE)


def test_the_table_covers_every_published_item_type_and_no_other() -> None:
    assert set(ITEM_SPECS) | NON_STANDARD_ITEMS == set(SERVER_KINDS)
    assert not set(ITEM_SPECS) & NON_STANDARD_ITEMS


@pytest.mark.parametrize("kind", sorted(ITEM_SPECS))
def test_the_table_names_only_published_fields(kind: str) -> None:
    spec = ITEM_SPECS[kind]
    fields = set(getattr(api, MODELS[kind]).model_fields)
    named = {
        *spec.args,
        *spec.extras,
        *([spec.id_field] if spec.id_field else []),
        *([spec.raw_output] if spec.raw_output else []),
    }
    assert named <= fields


def recovered(kind: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """The item's fields read back from its call and result blocks (the inverse of the mapping)."""
    spec = ITEM_SPECS[kind]
    call, result = blocks
    assert call["type"] == "server_tool_call" and result["type"] == "server_tool_result"
    assert result["tool_call_id"] == call["id"] and call["name"] == spec.tool
    fields: dict[str, Any] = {"type": kind}
    if spec.id_field:
        fields[spec.id_field] = call["id"]
    args = dict(call["args"])
    if kind == "fetch_url_results":
        args.pop("urls")  # derived from the contents, which the result holds
    if "arguments" in spec.args:
        if args:  # "{}" and no arguments at all read back alike
            fields["arguments"] = json.dumps(args)
    else:
        fields.update(args)
    for key, value in (call.get("extras") or {}).items():
        fields["name" if key == "tool_name" else key] = value
    if spec.raw_output is not None:
        if "output" in result:
            fields[spec.raw_output] = result["output"]
    else:
        fields.update(result.get("output") or {})
    fields.update(result.get("extras") or {})
    return fields


@pytest.mark.parametrize("full", [True, False], ids=["every-field", "required-fields"])
@pytest.mark.parametrize("kind", SERVER_KINDS)
def test_each_item_maps_without_loss(kind: str, full: bool) -> None:
    item = example(MODELS[kind], full=full)
    block_id = item_id(item, 0)
    blocks = item_blocks(item, block_id)
    if kind in NON_STANDARD_ITEMS:
        assert blocks == [{"type": "non_standard", "value": item}]
        return
    expected = dict(item)
    if ITEM_SPECS[kind].id_field is None:
        assert block_id == f"{kind}_0"  # no id in the item: the n-th of its type
    back = recovered(kind, blocks)
    if kind == "tool_search_output" and "call_id" not in item:
        assert back.pop("call_id") == item["id"]  # no call id: the item's own id names the call
    if json.loads(expected.get("arguments") or "{}") == {}:
        expected.pop("arguments", None)
    assert {k: v for k, v in back.items() if v is not None} == {
        k: (json.dumps(json.loads(v)) if k == "arguments" else v) for k, v in expected.items() if v is not None
    }


@pytest.mark.parametrize(
    ("item", "status"),
    [
        ({"type": "sandbox_results", "call_id": "c", "code": "1", "language": "python", "results": [],
          "status": "timed_out"}, "error"),
        ({"type": "sandbox_results", "call_id": "c", "code": "1", "language": "python", "results": [],
          "status": "completed"}, "success"),
        ({"type": "mcp_call", "id": "m", "name": "n", "arguments": "{}", "server_label": "s", "error": "denied"},
         "error"),
        ({"type": "share_file", "call_id": "c", "url": "https://f"}, "success"),
    ],
)  # fmt: skip
def test_result_status_says_whether_the_tool_worked(item: dict[str, Any], status: str) -> None:
    result = item_blocks(item, "x")[1]
    assert result["status"] == status


def test_items_without_an_id_are_numbered_per_type() -> None:
    items = [
        {"type": "search_results", "queries": ["a"], "results": []},
        {"type": "fetch_url_results", "contents": []},
        {"type": "search_results", "queries": ["b"], "results": []},
        {"type": "mcp_call", "id": "mcp_1", "name": "n", "arguments": "{}", "server_label": "s"},
    ]
    server = ServerItems(blocks=False)
    ordinals: dict[str, int] = {}
    for item in items:
        server.add(item, ordinals)
    assert [i for _, i in server.items] == ["search_results_0", "fetch_url_results_0", "search_results_1", "mcp_1"]


def test_mcp_blocks_are_chatopenais() -> None:
    """Where OpenAI has the same tool, the blocks are those of langchain-core's OpenAI translator."""
    from langchain_core.messages import AIMessage

    item = {"type": "mcp_call", "id": "mcp_1", "name": "search", "arguments": '{"q": "x"}',
            "server_label": "docs", "output": "found"}  # fmt: skip
    openai = AIMessage(content=[item], response_metadata={"model_provider": "openai"}).content_blocks
    ours = item_blocks(item, "mcp_1")
    assert ours == openai
