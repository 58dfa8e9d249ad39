"""What a request body is built from: one value both surfaces' builders take."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from langchain_perplexity_strict._continuation import Context


@dataclass(frozen=True)
class BodyInput:
    """Messages, settings, tools or response format, and the plan."""

    messages: Sequence[BaseMessage]
    settings: Mapping[str, Any]
    """Parameters by name, plus `model` and `model_kwargs`."""
    call: Mapping[str, Any] = field(default_factory=dict)
    """`tools`, `tool_choice` and `response_format`."""
    stream: bool = False
    model_explicit: bool = True
    """Whether the caller chose the model."""
    plan: Context | None = None
    """The continuation plan (Agent API)."""
    profile: Mapping[str, Any] = field(default_factory=dict)
    """The named model's profile (`_profile.call_profile`)."""
