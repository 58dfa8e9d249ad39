"""What a request body is built from: one value both surfaces' builders take."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from langchain_perplexity_strict._continuation import Context


@dataclass(frozen=True)
class BodyInput:
    """The normalized messages, the call's settings and its tools or response format, and the plan."""

    messages: Sequence[BaseMessage]
    settings: Mapping[str, Any]
    """Parameters by name (`PARAMETERS`), plus `model` and `model_kwargs`."""
    call: Mapping[str, Any] = field(default_factory=dict)
    """`tools`, `tool_choice` and `response_format`, as bound or passed."""
    stream: bool = False
    model_explicit: bool = True
    """Whether the caller chose the model (a preset otherwise picks its own)."""
    plan: Context | None = None
    """The continuation plan (`use_previous_response_id`, Agent API): the items to send."""
    profile: Mapping[str, Any] = field(default_factory=dict)
    """The profile of the model the call names (`_profile.call_profile`: the application's, over the derived)."""
