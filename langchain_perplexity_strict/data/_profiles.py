"""Each served model's limits (from public model cards) and whether it reasons, by the request's model name.

An unlisted model has no profile: compaction is off unless `max_input_tokens` is given.
"""

from __future__ import annotations

from typing import Any

MODEL_FACTS: dict[str, dict[str, Any]] = {
    "perplexity/sonar": {"max_input_tokens": 127_072, "max_output_tokens": 8_192, "reasoning_output": False},
    "openai/gpt-5.1": {"max_input_tokens": 272_000, "max_output_tokens": 128_000, "reasoning_output": True},
    "openai/gpt-5-mini": {"max_input_tokens": 272_000, "max_output_tokens": 128_000, "reasoning_output": True},
    "anthropic/claude-sonnet-4-5": {"max_input_tokens": 200_000, "max_output_tokens": 64_000, "reasoning_output": True},
    "anthropic/claude-haiku-4-5": {"max_input_tokens": 200_000, "max_output_tokens": 64_000, "reasoning_output": True},
    "google/gemini-2.5-pro": {"max_input_tokens": 1_048_576, "max_output_tokens": 65_536, "reasoning_output": True},
    "xai/grok-4": {"max_input_tokens": 256_000, "reasoning_output": True},
    "sonar": {"max_input_tokens": 127_072, "reasoning_output": False},
    "sonar-pro": {"max_input_tokens": 200_000, "max_output_tokens": 8_000, "reasoning_output": False},
    "sonar-reasoning": {"max_input_tokens": 127_072, "reasoning_output": True},
    "sonar-reasoning-pro": {"max_input_tokens": 127_072, "reasoning_output": True},
    "sonar-deep-research": {"max_input_tokens": 127_072, "reasoning_output": True},
}  # fmt: skip
