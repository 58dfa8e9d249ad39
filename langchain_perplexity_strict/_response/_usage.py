"""Perplexity's usage and cost, read the same way for both surfaces.

The two surfaces name the same counts differently (`input_tokens` or
`prompt_tokens`; reasoning tokens under `output_tokens_details` or at the top);
this is the one reader of both spellings, so a count cannot be read one way
on one surface and another way on the other.
"""

from __future__ import annotations

from typing import Any, cast

from langchain_core.messages.ai import UsageMetadata

EXTRA_KEYS = ("cost", "tool_calls_details", "num_search_queries", "search_context_size")
"""Usage fields with no standard place: they go to `response_metadata`."""


def _first(usage: dict[str, Any], *keys: str) -> Any:
    return next((usage[k] for k in keys if usage.get(k) is not None), None)


def read_usage(usage: dict[str, Any] | None) -> UsageMetadata | None:
    """`usage_metadata` from an Agent API `ResponsesUsageOutput` or a chat-completions `UsageInfoOutput`.

    Cache reads and writes (Agent API) and citation tokens (chat completions, no
    standard key: `InputTokenDetails` admits extra keys at run time) go in the input
    details, reasoning tokens in the output details.
    """
    if not usage:
        return None
    # The token details are optional at run time; they are added below when Perplexity reports them.
    metadata = cast(
        UsageMetadata,
        {"input_tokens": int(_first(usage, "input_tokens", "prompt_tokens") or 0),
         "output_tokens": int(_first(usage, "output_tokens", "completion_tokens") or 0),
         "total_tokens": int(usage.get("total_tokens") or 0)},
    )  # fmt: skip
    reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens") or usage.get("reasoning_tokens")
    if reasoning:
        metadata["output_token_details"] = {"reasoning": int(reasoning)}
    details = usage.get("input_tokens_details") or {}
    inputs: dict[str, int] = {}
    read = details.get("cache_read_input_tokens") or details.get("cached_tokens")
    if read:
        inputs["cache_read"] = int(read)
    if details.get("cache_creation_input_tokens"):
        inputs["cache_creation"] = int(details["cache_creation_input_tokens"])
    if usage.get("citation_tokens"):
        inputs["citation"] = int(usage["citation_tokens"])
    if inputs:
        metadata["input_token_details"] = cast(Any, inputs)
    return metadata


def usage_extras(usage: dict[str, Any] | None) -> dict[str, Any]:
    """The usage fields that go to `response_metadata` (cost, search counts)."""
    return {k: usage[k] for k in EXTRA_KEYS if usage and usage.get(k) is not None}
