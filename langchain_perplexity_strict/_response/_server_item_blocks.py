"""The Agent API's server-side output items as langchain-core's standard content blocks, each sent once.

An item becomes a `server_tool_call` and a `server_tool_result` (fields outside the call are the output), as
langchain-core's OpenAI translator does, or a `non_standard` block. A stream reports a tool in
`response.reasoning.*` events, then as its output item, matched by ordinal per type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_perplexity_strict.normalize._content import ITEM_SPECS, SERVER_ITEM_TYPES

NON_STANDARD_ITEMS = SERVER_ITEM_TYPES - ITEM_SPECS.keys()  # each a `non_standard` block
READ_ELSEWHERE = frozenset({"message", "function_call"})  # text and function calls

_STATUS_FIELDS = ("status", "error")
_FAILED = frozenset({"failed", "timed_out", "cancelled", "incomplete"})


def item_id(item: Mapping[str, Any], ordinal: int) -> str:
    """The call id of `item`, else `<type>_<n>` for the n-th of its type, as streams number them."""
    kind = str(item.get("type"))
    spec = ITEM_SPECS.get(kind)
    own = (item.get(spec.id_field) if spec and spec.id_field else None) or item.get("id")
    return str(own) if own else f"{kind}_{ordinal}"


def item_blocks(item: Mapping[str, Any], block_id: str) -> list[dict[str, Any]]:
    kind = str(item.get("type"))
    spec = ITEM_SPECS.get(kind)
    if spec is None:
        return [{"type": "non_standard", "value": dict(item)}]
    return [call_block(kind, item, block_id), result_block(kind, item, block_id)]


def call_block(kind: str, item: Mapping[str, Any], block_id: str) -> dict[str, Any]:
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
    spec = ITEM_SPECS[kind]
    taken = {"type", spec.id_field, *spec.args, *spec.extras, *_STATUS_FIELDS}
    failed = item.get("error") or item.get("status") in _FAILED
    block: dict[str, Any] = {
        "type": "server_tool_result",
        "tool_call_id": block_id,
        "status": "error" if failed else "success",
    }
    if spec.raw_output is not None:
        output = item.get(spec.raw_output)
    else:
        output = {k: v for k, v in item.items() if k not in taken and v is not None} or None
    if output is not None:
        block["output"] = output
    extras = {k: item[k] for k in _STATUS_FIELDS if item.get(k) is not None and item.get(k) != "completed"}
    if extras:
        block["extras"] = extras
    return block


def _decoded(arguments: Any) -> dict[str, Any] | None:
    if isinstance(arguments, dict):
        return dict(arguments)
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


ITEM_ORDER = "server_item_order"  # v0: "<type>:<call id>" per item, in order, so v0 translates as v1 does
V0_KEYS = {"search_results": "search_result_items"}
"""The v0 key of a type's items, where it is not the type (`search_results` holds the records)."""


def v0_items(kwargs: Mapping[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """The server items of a v0 answer or chunk, with ids, in order; missing items are skipped."""
    taken: dict[str, int] = {}
    out: list[tuple[dict[str, Any], str]] = []
    for entry in kwargs.get(ITEM_ORDER) or []:
        kind, _, block_id = str(entry).partition(":")
        items = kwargs.get(V0_KEYS.get(kind, kind)) or []
        position = taken.get(kind, 0)
        if position < len(items) and isinstance(items[position], dict):
            out.append((items[position], block_id))
            taken[kind] = position + 1
    return out


@dataclass
class ServerItems:
    """Server items in arrival order, and the v1 stream blocks not yet sent."""

    items: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    blocks: bool = True  # whether v1 stream blocks are made
    _stored: dict[str, int] = field(default_factory=dict)
    _calls: dict[str, int] = field(default_factory=dict)  # calls streamed, per type
    _results: dict[str, int] = field(default_factory=dict)
    _pending: list[dict[str, Any]] = field(default_factory=list)

    def started(self, kind: str, args: dict[str, Any]) -> None:
        """A search or fetch started: its call goes out now."""
        n = self._calls.get(kind, 0)
        self._calls[kind] = n + 1
        call = {"type": "server_tool_call", "id": f"{kind}_{n}", "name": ITEM_SPECS[kind].tool, "args": args}
        self._pend(call, f"{kind}_{n}")

    def finished(self, kind: str, fields: Mapping[str, Any]) -> None:
        n = self._results.get(kind, 0)
        self._call_and_result(kind, {"type": kind, **fields}, n, f"{kind}_{n}")

    def skill_loaded(self, name: str) -> None:
        n = self._calls.get("skill_loaded", 0)
        self._calls["skill_loaded"] = n + 1
        self._pend({"type": "non_standard", "value": {"type": "skill_loaded", "name": name}}, f"skill_loaded_{n}")

    def add(self, item: Mapping[str, Any], ordinals: dict[str, int]) -> None:
        """An output item, if a server tool's or a skill's; `ordinals` counts the items read per type."""
        kind = item.get("type")
        if kind in READ_ELSEWHERE or not isinstance(kind, str):
            return
        ordinal = ordinals.get(kind, 0)
        ordinals[kind] = ordinal + 1
        block_id = item_id(item, ordinal)
        if ordinal >= self._stored.get(kind, 0):
            self._stored[kind] = ordinal + 1
            self.items.append((dict(item), block_id))
        if not self.blocks:
            return
        if kind not in ITEM_SPECS:
            if ordinal >= self._calls.get(kind, 0):
                self._calls[kind] = ordinal + 1
                self._pend(item_blocks(item, block_id)[0], block_id)
        elif ordinal >= self._results.get(kind, 0):
            self._call_and_result(kind, item, ordinal, block_id)

    def approval_requests(self) -> list[dict[str, Any]]:
        return [item for item, _ in self.items if item.get("type") == "mcp_approval_request"]

    def _call_and_result(self, kind: str, item: Mapping[str, Any], ordinal: int, block_id: str) -> None:
        """The result of the `ordinal`-th call of `kind`, after its call unless that streamed."""
        calls = self._calls.get(kind, 0)
        if ordinal >= calls:
            self._pend(call_block(kind, item, block_id), block_id)
        self._pend(result_block(kind, item, block_id), block_id, result=True)
        self._calls[kind] = max(calls, ordinal + 1)
        self._results[kind] = ordinal + 1

    def _pend(self, block: dict[str, Any], block_id: str, *, result: bool = False) -> None:
        # langchain-core merges string indices prefixed "lc_".
        self._pending.append({**block, "index": f"lc_{block_id}_result" if result else f"lc_{block_id}"})

    def take_blocks(self) -> list[dict[str, Any]]:
        blocks, self._pending = self._pending, []
        return blocks


def v0_kwargs(items: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    """`additional_kwargs` holding `items`: a list per type, and `ITEM_ORDER`."""
    kwargs: dict[str, Any] = {}
    for item, block_id in items:
        kind = str(item.get("type"))
        kwargs.setdefault(V0_KEYS.get(kind, kind), []).append(item)
        kwargs.setdefault(ITEM_ORDER, []).append(f"{kind}:{block_id}")
    return kwargs
