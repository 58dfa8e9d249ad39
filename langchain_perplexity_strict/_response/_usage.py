"""Perplexity's usage and cost, read the same way for both surfaces.

One reader for both spellings (`input_tokens` or `prompt_tokens`, ...), so the surfaces agree.
"""

from __future__ import annotations

from typing import Any, cast

from langchain_core.messages.ai import UsageMetadata

EXTRA_KEYS = ("cost", "tool_calls_details", "num_search_queries", "search_context_size", "citation_tokens")
"""Usage fields for `response_metadata`."""


def _first(usage: dict[str, Any], *keys: str) -> Any:
    return next((usage[k] for k in keys if usage.get(k) is not None), None)


def read_usage(usage: dict[str, Any] | None) -> UsageMetadata | None:
    """`usage_metadata` from an Agent API `ResponsesUsageOutput` or a chat-completions `UsageInfoOutput`.

    Reported counts are kept, 0 included, as `ChatOpenAI` keeps them. Citation tokens are priced
    apart from prompt tokens (https://docs.perplexity.ai/getting-started/pricing), so they are not
    input details; they go to `response_metadata` and, deprecated, `output_token_details`.
    """
    if not usage:
        return None
    metadata = cast(
        UsageMetadata,
        {
            "input_tokens": int(_first(usage, "input_tokens", "prompt_tokens") or 0),
            "output_tokens": int(_first(usage, "output_tokens", "completion_tokens") or 0),
            "total_tokens": int(usage.get("total_tokens") or 0),
        },
    )
    details = usage.get("input_tokens_details") or {}
    inputs = _counts(
        cache_read=_first(details, "cache_read_input_tokens", "cached_tokens"),
        cache_creation=details.get("cache_creation_input_tokens"),
    )
    reasoning = _first(usage, "reasoning_tokens")  # chat completions; the Agent API nests it
    if reasoning is None:
        reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    outputs = _counts(
        reasoning=reasoning,
        citation_tokens=usage.get("citation_tokens"),  # deprecated place
    )
    if inputs:
        metadata["input_token_details"] = cast(Any, inputs)
    if outputs:
        metadata["output_token_details"] = cast(Any, outputs)
    return metadata


def _counts(**counts: Any) -> dict[str, int]:
    """The reported counts (0 included), as integers."""
    return {key: int(value) for key, value in counts.items() if value is not None}


def usage_extras(usage: dict[str, Any] | None) -> dict[str, Any]:
    """The usage fields that go to `response_metadata` (cost, search counts)."""
    return {k: usage[k] for k in EXTRA_KEYS if usage and usage.get(k) is not None}


def add_usage(total: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """`total` plus one response's usage as sent, for `generate().llm_output`.

    langchain-openai's `_update_token_usage` takes ints and dicts only; this also sums float costs
    and keeps a label's first value.
    """
    out = dict(total)
    for key, value in usage.items():
        if value is None:
            continue
        before = out.get(key)
        if before is None:
            out[key] = value
        elif isinstance(value, dict) and isinstance(before, dict):
            out[key] = add_usage(before, value)
        elif _is_number(value) and _is_number(before):
            out[key] = before + value
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
