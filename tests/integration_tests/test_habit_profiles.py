"""Issue 18, class 6: the model profile advertises only values the constructor accepts.

Every model's profile on each surface (`model.profile`): its reasoning-effort levels, output
limit and tool calling are tried there: an agent that reads the profile and sets what it advertises must not
be refused.
"""

from __future__ import annotations

import pytest

from langchain_perplexity_strict.data._profiles import MODEL_FACTS
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
@pytest.mark.parametrize("name", sorted(MODEL_FACTS))
def test_the_profile_advertises_only_values_the_constructor_accepts(
    emu: PerplexityEmulator, name: str, api: str
) -> None:
    model = make(emu, api, model=name)
    profile = model.profile or {}
    for level in profile.get("reasoning_effort_levels") or []:
        make(emu, model.api, model=name, reasoning_effort=level)
    if profile.get("max_output_tokens"):
        make(emu, model.api, model=name, max_tokens=profile["max_output_tokens"])
    if profile.get("tool_calling"):
        model.bind_tools([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}])
