"""Per-model capabilities, so agents pick the right strategy (tool calling, structured output, limits).

Limits are from public model cards where known; a model not listed has no
profile, and compaction is then off unless `max_input_tokens` is given.
"""

from __future__ import annotations

from typing import Any

_AGENT_COMMON: dict[str, Any] = {
    "text_inputs": True,
    "image_inputs": True,
    "image_url_inputs": True,
    "pdf_inputs": False,
    "audio_inputs": False,
    "video_inputs": False,
    "text_outputs": True,
    "tool_calling": True,
    "tool_choice": True,
    "tool_call_streaming": True,
    "structured_output": True,
    "mid_conversation_system_messages": False,
    # ReasoningConfigInput.effort, as the constructor accepts it (the published schema has no "max").
    "reasoning_effort_levels": ["none", "minimal", "low", "medium", "high", "xhigh"],
}

_SONAR_COMMON: dict[str, Any] = {
    "text_inputs": True,
    "image_inputs": True,
    "image_url_inputs": True,
    "text_outputs": True,
    # The Sonar models have no client-side function tools (docs/perplexity-rules.md).
    "tool_calling": False,
    "tool_choice": False,
    "structured_output": True,
    "mid_conversation_system_messages": False,
}

PROFILES: dict[str, dict[str, Any]] = {
    "perplexity/sonar": {**_AGENT_COMMON, "max_input_tokens": 127_072, "max_output_tokens": 8_192},
    "openai/gpt-5.1": {**_AGENT_COMMON, "max_input_tokens": 272_000, "max_output_tokens": 128_000,
                       "reasoning_output": True},
    "openai/gpt-5-mini": {**_AGENT_COMMON, "max_input_tokens": 272_000, "max_output_tokens": 128_000,
                          "reasoning_output": True},
    "anthropic/claude-sonnet-4-5": {**_AGENT_COMMON, "max_input_tokens": 200_000, "max_output_tokens": 64_000},
    "anthropic/claude-haiku-4-5": {**_AGENT_COMMON, "max_input_tokens": 200_000, "max_output_tokens": 64_000},
    "google/gemini-2.5-pro": {**_AGENT_COMMON, "max_input_tokens": 1_048_576, "max_output_tokens": 65_536},
    "xai/grok-4": {**_AGENT_COMMON, "max_input_tokens": 256_000},
    "sonar": {**_SONAR_COMMON, "max_input_tokens": 127_072},
    "sonar-pro": {**_SONAR_COMMON, "max_input_tokens": 200_000, "max_output_tokens": 8_000},
    "sonar-reasoning": {**_SONAR_COMMON, "max_input_tokens": 127_072, "reasoning_output": True},
    "sonar-reasoning-pro": {**_SONAR_COMMON, "max_input_tokens": 127_072, "reasoning_output": True},
    "sonar-deep-research": {**_SONAR_COMMON, "max_input_tokens": 127_072, "reasoning_output": True},
}  # fmt: skip
