"""What both surfaces' body builders share: the value they build from, content parts, tool-call arguments."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from langchain_perplexity_strict._continuation import Context
from langchain_perplexity_strict.normalize._content import canonical_blocks, text_of


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
    plan: Context | None = None  # Agent API
    profile: Mapping[str, Any] = field(default_factory=dict)
    """The named model's profile (`_profile.call_profile`)."""


PartTable = Mapping[str, Callable[[dict[str, Any]], dict[str, Any]]]
"""A surface's part for each canonical block kind."""


def content_parts(content: Any, parts: PartTable, *, text_as_string: bool) -> str | list[dict[str, Any]]:
    """`content` as a string, or as the surface's parts (all-text content as one string with `text_as_string`)."""
    if isinstance(content, str):
        return content
    blocks = canonical_blocks(content)
    if text_as_string and all(b["type"] == "text" for b in blocks):
        return text_of(blocks)
    return [parts[block["type"]](block) for block in blocks]


def tool_arguments(call: Mapping[str, Any]) -> str:
    """A tool call's arguments as a JSON string."""
    return json.dumps(call.get("args") or {}, ensure_ascii=False)
