"""The Agent API's server-side output items as langchain-core's standard content blocks.

Items other than `message` and `function_call` (`OutputItemOutput`) become a `server_tool_call` and a
`server_tool_result`, as langchain-core's OpenAI translator does, or a `non_standard` block.
Fields outside the call are the output, so nothing is lost.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ItemSpec:
    """How one output item type maps to a server tool call and its result."""

    tool: str
    """The call's `name` (OpenAI's where it matches)."""
    id_field: str | None
    """The id field; None: an ordinal id is made."""
    args: tuple[str, ...] = ()
    """Argument fields; JSON `arguments` is decoded."""
    extras: tuple[str, ...] = ()
    """Fields that are neither argument nor output."""
    raw_output: str | None = None
    """The field that is the whole output (MCP)."""


ITEM_SPECS: dict[str, ItemSpec] = {
    "search_results": ItemSpec("web_search", None, args=("queries",)),
    "fetch_url_results": ItemSpec("fetch_url", None),
    "image_search_results": ItemSpec("image_search", None, args=("queries",)),
    "sandbox_results": ItemSpec("sandbox", "call_id", args=("code", "language"), extras=("container_id",)),
    "sandbox_write_file": ItemSpec("sandbox_write_file", "call_id", args=("file_path",)),
    "sandbox_read_file": ItemSpec("sandbox_read_file", "call_id", args=("file_path", "start_line")),
    "sandbox_edit_file": ItemSpec("sandbox_edit_file", "call_id", args=("file_path",)),
    "sandbox_grep": ItemSpec("sandbox_grep", "call_id"),
    "sandbox_glob": ItemSpec("sandbox_glob", "call_id"),
    "sandbox_apply_patch": ItemSpec("sandbox_apply_patch", "call_id"),
    "share_file": ItemSpec("share_file", "call_id"),
    "mcp_list_tools": ItemSpec("mcp_list_tools", "id", extras=("server_label", "connector_id"), raw_output="tools"),
    "mcp_call": ItemSpec(
        "remote_mcp",
        "id",
        args=("arguments",),
        extras=("name", "server_label", "connector_id", "approval_request_id"),
        raw_output="output",
    ),
    "tool_search_output": ItemSpec("tool_search", "call_id", args=("arguments",), extras=("id", "execution")),
}
"""Item type → how it maps; other types are `non_standard`."""

NON_STANDARD_ITEMS = frozenset({"mcp_approval_request", "skill_loaded", "unknown"})
"""Item types kept whole in a `non_standard` block."""

READ_ELSEWHERE = frozenset({"message", "function_call"})
"""Item types that are text and function calls."""

_STATUS_FIELDS = ("status", "error")
_FAILED = frozenset({"failed", "timed_out", "cancelled", "incomplete"})


def is_server_item(item: Mapping[str, Any]) -> bool:
    """Whether `item` is a server tool's or a skill's output item."""
    kind = item.get("type")
    return isinstance(kind, str) and kind not in READ_ELSEWHERE


def item_id(item: Mapping[str, Any], ordinal: int) -> str:
    """The call id of `item`, else `<type>_<n>` for the n-th of its type, as streams number them."""
    kind = str(item.get("type"))
    spec = ITEM_SPECS.get(kind)
    own = (item.get(spec.id_field) if spec and spec.id_field else None) or item.get("id")
    return str(own) if own else f"{kind}_{ordinal}"


def item_blocks(item: Mapping[str, Any], block_id: str) -> list[dict[str, Any]]:
    """The standard blocks for one server item."""
    kind = str(item.get("type"))
    spec = ITEM_SPECS.get(kind)
    if spec is None:
        return [{"type": "non_standard", "value": dict(item)}]
    return [call_block(kind, item, block_id), result_block(kind, item, block_id)]


def call_block(kind: str, item: Mapping[str, Any], block_id: str) -> dict[str, Any]:
    """`server_tool_call` for `item`."""
    spec = ITEM_SPECS[kind]
    args: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    for name in spec.args:
        if item.get(name) is None:
            continue
        if name == "arguments":
            decoded = _decoded(item[name])
            if decoded is None:
                extras["arguments"] = item[name]  # not a JSON object
            else:
                args.update(decoded)
        else:
            args[name] = item[name]
    if kind == "fetch_url_results":  # the fetched pages are the URLs asked for
        args["urls"] = [page.get("url") for page in item.get("contents") or []]
    for name in spec.extras:
        if item.get(name) is not None:
            extras["tool_name" if name == "name" else name] = item[name]
    block: dict[str, Any] = {"type": "server_tool_call", "id": block_id, "name": spec.tool, "args": args}
    if extras:
        block["extras"] = extras
    return block


def result_block(kind: str, item: Mapping[str, Any], block_id: str) -> dict[str, Any]:
    """`server_tool_result` for `item`: fields not in the call are the output."""
    spec = ITEM_SPECS[kind]
    taken = {"type", *spec.args, *spec.extras, *_STATUS_FIELDS}
    if spec.id_field:
        taken.add(spec.id_field)
    block: dict[str, Any] = {"type": "server_tool_result", "tool_call_id": block_id, "status": _status(item)}
    if spec.raw_output is not None:
        if item.get(spec.raw_output) is not None:
            block["output"] = item[spec.raw_output]
    else:
        output = {k: v for k, v in item.items() if k not in taken and v is not None}
        if output:
            block["output"] = output
    extras = {k: item[k] for k in _STATUS_FIELDS if item.get(k) is not None and item.get(k) != "completed"}
    if extras:
        block["extras"] = extras
    return block


def _status(item: Mapping[str, Any]) -> str:
    return "error" if item.get("error") or item.get("status") in _FAILED else "success"


def _decoded(arguments: Any) -> dict[str, Any] | None:
    if isinstance(arguments, dict):
        return dict(arguments)
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def numbered(items: list[Mapping[str, Any]]) -> Iterator[tuple[Mapping[str, Any], str]]:
    """`(item, call id)` for server items in order."""
    counts: dict[str, int] = {}
    for item in items:
        kind = str(item.get("type"))
        n = counts.get(kind, 0)
        counts[kind] = n + 1
        yield item, item_id(item, n)


# ---- where a v0 answer keeps them ------------------------------------------------------------------

ITEM_ORDER = "server_item_order"
"""v0 key: `"<type>:<call id>"` per server item, in order, so v0 translates as v1 does."""

SEARCH_ITEMS = "search_result_items"
"""v0 key: `search_results` items as sent, keeping which search found what."""


def v0_key(kind: str) -> str:
    """The v0 key holding items of type `kind`."""
    return SEARCH_ITEMS if kind == "search_results" else kind


def v0_items(kwargs: Mapping[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """The server items of a v0 answer or chunk, with ids, in order; missing items are skipped."""
    taken: dict[str, int] = {}
    out: list[tuple[dict[str, Any], str]] = []
    for entry in kwargs.get(ITEM_ORDER) or []:
        kind, _, block_id = str(entry).partition(":")
        items = kwargs.get(v0_key(kind)) or []
        position = taken.get(kind, 0)
        if position < len(items) and isinstance(items[position], dict):
            out.append((items[position], block_id))
            taken[kind] = position + 1
    return out
