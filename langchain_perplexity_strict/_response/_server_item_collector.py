"""The server items of one response, gathered as they arrive, each sent once.

A stream reports a tool in `response.reasoning.*` events, then as its output item; the item,
matched by ordinal per type, adds nothing already sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_perplexity_strict._response._server_item_blocks import (
    ITEM_ORDER,
    ITEM_SPECS,
    call_block,
    item_blocks,
    item_id,
    result_block,
    v0_key,
)


class ServerItems:
    """Server items in arrival order, and the stream blocks and v0 entries not yet sent."""

    def __init__(self) -> None:
        self.items: list[tuple[dict[str, Any], str]] = []
        self._stored: dict[str, int] = {}
        self._calls: dict[str, int] = {}  # calls streamed, per type
        self._results: dict[str, int] = {}
        self._pending: list[dict[str, Any]] = []
        self._sent_items = 0

    # -- what arrives -------------------------------------------------------------------------

    def started(self, kind: str, args: dict[str, Any]) -> None:
        """A search or fetch started: its call goes out now."""
        n = self._calls.get(kind, 0)
        self._calls[kind] = n + 1
        call = {"type": "server_tool_call", "id": f"{kind}_{n}", "name": ITEM_SPECS[kind].tool, "args": args}
        self._pend(call, f"{kind}_{n}")

    def finished(self, kind: str, fields: Mapping[str, Any]) -> None:
        """A search or fetch brought its results."""
        n = self._results.get(kind, 0)
        block_id = f"{kind}_{n}"
        partial = {"type": kind, **fields}
        if n >= self._calls.get(kind, 0):  # no queries event: send the call too
            self._calls[kind] = n + 1
            self._pend(call_block(kind, partial, block_id), block_id)
        self._results[kind] = n + 1
        self._pend(result_block(kind, partial, block_id), block_id, result=True)

    def skill_loaded(self, name: str) -> None:
        """A skill loaded: its block goes out now."""
        n = self._calls.get("skill_loaded", 0)
        self._calls["skill_loaded"] = n + 1
        self._pend({"type": "non_standard", "value": {"type": "skill_loaded", "name": name}}, f"skill_loaded_{n}")

    def add(self, item: Mapping[str, Any], ordinal: int) -> None:
        """The `ordinal`-th output item of its type."""
        kind = str(item.get("type"))
        block_id = item_id(item, ordinal)
        if ordinal >= self._stored.get(kind, 0):
            self._stored[kind] = ordinal + 1
            self.items.append((dict(item), block_id))
        calls, results = self._calls.get(kind, 0), self._results.get(kind, 0)
        if kind not in ITEM_SPECS:
            if ordinal >= calls:
                self._calls[kind] = ordinal + 1
                self._pend(item_blocks(item, block_id)[0], block_id)
            return
        if ordinal < results:
            return
        if ordinal >= calls:
            self._pend(call_block(kind, item, block_id), block_id)
        self._pend(result_block(kind, item, block_id), block_id, result=True)
        self._calls[kind] = max(calls, ordinal + 1)
        self._results[kind] = ordinal + 1

    def approval_requests(self) -> list[dict[str, Any]]:
        """MCP calls waiting for the app's approval."""
        return [item for item, _ in self.items if item.get("type") == "mcp_approval_request"]

    def _pend(self, block: dict[str, Any], block_id: str, *, result: bool = False) -> None:
        # langchain-core merges string indices prefixed "lc_".
        self._pending.append({**block, "index": f"lc_{block_id}_result" if result else f"lc_{block_id}"})

    # -- what goes out ------------------------------------------------------------------------

    def take_blocks(self) -> list[dict[str, Any]]:
        """The v1 stream blocks not sent yet."""
        blocks, self._pending = self._pending, []
        return blocks

    def blocks(self) -> list[dict[str, Any]]:
        """Every item's v1 blocks, in order."""
        return [block for item, block_id in self.items for block in item_blocks(item, block_id)]

    def take_v0(self) -> dict[str, Any]:
        """The v0 `additional_kwargs` for the items not sent yet."""
        unsent, self._sent_items = self.items[self._sent_items :], len(self.items)
        return v0_kwargs(unsent)


def v0_kwargs(items: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    """`additional_kwargs` holding `items`: a list per type, and `ITEM_ORDER`."""
    kwargs: dict[str, Any] = {}
    for item, block_id in items:
        kind = str(item.get("type"))
        kwargs.setdefault(v0_key(kind), []).append(item)
        kwargs.setdefault(ITEM_ORDER, []).append(f"{kind}:{block_id}")
    return kwargs
