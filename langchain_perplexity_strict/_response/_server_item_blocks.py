"""The Agent API's server-side output items as langchain-core's standard content blocks.

Every output item in Perplexity's published schema (`OutputItemOutput` in
`perplexity.generated.api`) other than `message` and `function_call` is the
work of a built-in tool or skill. Each becomes what `ChatOpenAI` makes of
OpenAI's built-in tools (langchain-core's OpenAI block translator): a
`server_tool_call` (what was asked) and a `server_tool_result` (what came
back), or a `non_standard` block holding the item where no standard type
fits (an approval request, a loaded skill, an `unknown` item).

One table says, per item type, which tool it is, which field names it, and
which fields are the call's arguments; every other field is the result's
output, so nothing is lost (a contract test checks the table against the
published models). The answer's v1 content, the stream's blocks and the
block translator for v0 answers all come from these functions.
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
    """The `name` of the `server_tool_call` (OpenAI's names where OpenAI has the same tool)."""
    id_field: str | None
    """The item's field that identifies the call; None: the item has none, an ordinal id is made."""
    args: tuple[str, ...] = ()
    """Fields that are the call's arguments (`arguments`, a JSON string, is decoded into them)."""
    extras: tuple[str, ...] = ()
    """Fields that describe the call but are neither argument nor output (server label, container)."""
    raw_output: str | None = None
    """The one field that is the whole output, as OpenAI's translator keeps it (MCP); else a dict of fields."""


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
"""Item type → how it maps. Types not here (`mcp_approval_request`, `skill_loaded`, `unknown`) are `non_standard`."""

NON_STANDARD_ITEMS = frozenset({"mcp_approval_request", "skill_loaded", "unknown"})
"""Item types kept whole in a `non_standard` block: no standard block is a request, a skill or an unknown."""

READ_ELSEWHERE = frozenset({"message", "function_call"})
"""Item types that are the answer's text and its function calls, not server tools."""

_STATUS_FIELDS = ("status", "error")
# The fields that say whether the call worked: they set the result's `status`, and are kept in `extras`
# when they say more than success or error.
_FAILED = frozenset({"failed", "timed_out", "cancelled", "incomplete"})


def is_server_item(item: Mapping[str, Any]) -> bool:
    """Whether `item` is a server tool's or a skill's output item (not the answer's text or a function call)."""
    kind = item.get("type")
    return isinstance(kind, str) and kind not in READ_ELSEWHERE


def item_id(item: Mapping[str, Any], ordinal: int) -> str:
    """The call id of `item`: its own id or call id, else `<type>_<n>` for the n-th item of its type.

    Search, fetch and image items carry no id, so the n-th of a type in a response is `<type>_<n>`;
    a stream numbers its search and fetch events the same way, so a call streamed when the search
    starts and the item that ends it share an id.
    """
    kind = str(item.get("type"))
    spec = ITEM_SPECS.get(kind)
    own = (item.get(spec.id_field) if spec and spec.id_field else None) or item.get("id")
    return str(own) if own else f"{kind}_{ordinal}"


def item_blocks(item: Mapping[str, Any], block_id: str) -> list[dict[str, Any]]:
    """The standard blocks for one server item: a call and its result, or one `non_standard` block."""
    kind = str(item.get("type"))
    spec = ITEM_SPECS.get(kind)
    if spec is None:
        return [{"type": "non_standard", "value": dict(item)}]
    return [call_block(kind, item, block_id), result_block(kind, item, block_id)]


def call_block(kind: str, item: Mapping[str, Any], block_id: str) -> dict[str, Any]:
    """`server_tool_call` for `item`: its arguments, and what else describes the call in `extras`."""
    spec = ITEM_SPECS[kind]
    args: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    for name in spec.args:
        if item.get(name) is None:
            continue
        if name == "arguments":
            decoded = _decoded(item[name])
            if decoded is None:
                extras["arguments"] = item[name]  # not a JSON object: kept as sent
            else:
                args.update(decoded)
        else:
            args[name] = item[name]
    if kind == "fetch_url_results":  # the item names no URLs: the pages it holds are the ones asked for
        args["urls"] = [page.get("url") for page in item.get("contents") or []]
    for name in spec.extras:
        if item.get(name) is not None:
            extras["tool_name" if name == "name" else name] = item[name]
    block: dict[str, Any] = {"type": "server_tool_call", "id": block_id, "name": spec.tool, "args": args}
    if extras:
        block["extras"] = extras
    return block


def result_block(kind: str, item: Mapping[str, Any], block_id: str) -> dict[str, Any]:
    """`server_tool_result` for `item`: every field not in the call is the output; `status` from status/error."""
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
    """`(item, call id)` for server items in order, numbering those without an id by type."""
    counts: dict[str, int] = {}
    for item in items:
        kind = str(item.get("type"))
        n = counts.get(kind, 0)
        counts[kind] = n + 1
        yield item, item_id(item, n)


# ---- where a v0 answer keeps them ------------------------------------------------------------------

ITEM_ORDER = "server_item_order"
"""`additional_kwargs` key of a v0 answer: `"<type>:<call id>"` per server item, in the order they came.

The items themselves stay where they always were, one list per type
(`additional_kwargs["fetch_url_results"]`, ...); this list keeps their order
across types and their ids, so the block translator gives a v0 answer the
same blocks, in the same order, as a v1 answer.
"""

SEARCH_ITEMS = "search_result_items"
"""`additional_kwargs` key of the `search_results` items as sent (queries and results together).

`additional_kwargs["search_results"]` holds the results of every search, flattened and
de-duplicated, as Sonar had them; this keeps which search found what."""


def v0_key(kind: str) -> str:
    """The `additional_kwargs` key of a v0 answer holding the items of type `kind`."""
    return SEARCH_ITEMS if kind == "search_results" else kind


def v0_items(kwargs: Mapping[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """The server items of a v0 answer (or chunk), with their ids, in order.

    Each entry of `ITEM_ORDER` takes the next item of its type; an entry
    without its item (a chunk cut elsewhere) is skipped.
    """
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
