"""The registry of `test_every_field_takes_effect`: (class, field) -> a check that the field takes effect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_perplexity_strict.testing import PerplexityEmulator

Check = Callable[[PerplexityEmulator], None]
EFFECTS: dict[tuple[str, str], Check] = {}
"""(class, field) -> a check that the field, set, changes what is sent, returned or done."""


def effect(owner: str, *fields: str) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        for name in fields:
            EFFECTS[(owner, name)] = check
        return check

    return register


def sent(emu: PerplexityEmulator, kind: str | None = None) -> dict[str, Any]:
    """The body of the last request the emulator received (of `kind`, when given)."""
    requests = [r for r in emu.requests if kind is None or r.kind == kind]
    assert requests, f"no {kind or ''} request reached the emulator"
    body = requests[-1].body
    assert isinstance(body, dict)
    return body


def at(body: dict[str, Any], path: str) -> Any:
    """The value at a parameter's dotted path; `web_search.` is the body's `web_search` tool."""
    node: Any = body
    parts = path.split(".")
    if parts[0] == "web_search":
        node = next(t for t in body.get("tools", []) if t.get("type") == "web_search")
        parts = parts[1:]
    for part in parts:
        node = node[part]
    return node


CHAT = "ChatPerplexityStrict"
RETRIEVER = "PerplexitySearchRetriever"
TOOL = "PerplexitySearchResults"
EMBEDDINGS = "PerplexityEmbeddings"
CONTEXTUALIZED = "PerplexityContextualizedEmbeddings"
COST = "PerplexityCostCallbackHandler"
COST_CONTEXT = "get_perplexity_cost_callback"
EMULATOR = "PerplexityEmulator"
CLI = "perplexity-strict"
WS = "web_search."
