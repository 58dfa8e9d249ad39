"""Perplexity's usage and cost, read the same way for both surfaces.

The two surfaces name the same counts differently (`input_tokens` or
`prompt_tokens`; reasoning tokens under `output_tokens_details` or at the top);
this is the one reader of both spellings, so a count cannot be read one way
on one surface and another way on the other.
"""

from __future__ import annotations

from typing import Any, cast

from langchain_core.messages.ai import UsageMetadata

EXTRA_KEYS = ("cost", "tool_calls_details", "num_search_queries", "search_context_size", "citation_tokens")
"""Usage fields with no standard place: they go to `response_metadata`."""


def _first(usage: dict[str, Any], *keys: str) -> Any:
    return next((usage[k] for k in keys if usage.get(k) is not None), None)


def read_usage(usage: dict[str, Any] | None) -> UsageMetadata | None:
    """`usage_metadata` from an Agent API `ResponsesUsageOutput` or a chat-completions `UsageInfoOutput`.

    Cache reads and writes (Agent API) go in the input details, reasoning tokens in the
    output details: each whenever Perplexity reports the count, 0 included, as `ChatOpenAI`
    and langchain-perplexity report theirs.

    Citation tokens (chat completions) are not a breakdown of `input_tokens`: the details are
    parts of that count (langchain-core's `InputTokenDetails`), and Perplexity counts citation
    tokens apart from `prompt_tokens` and `total_tokens` (its pricing page,
    https://docs.perplexity.ai/getting-started/pricing, prices them in their own column), so a
    count can exceed `input_tokens`. They are `response_metadata["citation_tokens"]`
    (`EXTRA_KEYS`), and stay where langchain-perplexity 1.4.2 put them,
    `output_token_details["citation_tokens"]` (deprecated; not part of `output_tokens` either).
    """
    if not usage:
        return None
    # The token details are optional at run time; they are added below when Perplexity reports them.
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
    reasoning = _first(usage, "reasoning_tokens")  # chat completions; the Agent API's live answers nest it
    if reasoning is None:
        reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    outputs = _counts(
        reasoning=reasoning,
        citation_tokens=usage.get("citation_tokens"),  # langchain-perplexity's place, deprecated
    )
    if inputs:
        metadata["input_token_details"] = cast(Any, inputs)
    if outputs:
        metadata["output_token_details"] = cast(Any, outputs)
    return metadata


def _counts(**counts: Any) -> dict[str, int]:
    """The counts Perplexity reported (0 included), as integers; those it did not report are left out."""
    return {key: int(value) for key, value in counts.items() if value is not None}


def usage_extras(usage: dict[str, Any] | None) -> dict[str, Any]:
    """The usage fields that go to `response_metadata` (cost, search counts)."""
    return {k: usage[k] for k in EXTRA_KEYS if usage and usage.get(k) is not None}


def add_usage(total: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """`total` plus one response's usage as sent (`token_usage`), for `generate().llm_output`.

    `ChatOpenAI` sums its outputs' `token_usage` with `langchain_openai`'s `_update_token_usage`, which
    takes ints and dicts only; Perplexity's usage also carries costs (floats) and labels (`currency`,
    `search_context_size`), so this sums numbers, nested dicts key by key, and keeps a label's first value.
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
