"""The one way the integration tests build a model: pointed at the emulator, with the test key."""

from __future__ import annotations

from typing import Any

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator

KEY = "test-key"


def make(emu: PerplexityEmulator, api: str = "agent", model: str | None = None, **kw: Any) -> ChatPerplexityStrict:
    """``ChatPerplexityStrict`` on ``api`` against ``emu`` (the surface's usual model unless ``model`` is given)."""
    return ChatPerplexityStrict(
        **({"model": model} if model else {}),  # else the surface's default model
        api=api,  # type: ignore[arg-type]
        api_key=KEY,  # type: ignore[arg-type]
        base_url=emu.base_url,
        **kw,
    )
