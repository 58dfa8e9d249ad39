"""Content parts and tool-call arguments as the wire writes them: one definition for every surface.

Each surface gives only its table: canonical kind -> the part it sends.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from langchain_perplexity_strict.normalize._content import canonical_blocks, text_of

PartTable = Mapping[str, Callable[[dict[str, Any]], dict[str, Any]]]
"""A surface's part for each canonical block kind."""


def content_parts(content: Any, parts: PartTable, *, text_as_string: bool) -> str | list[dict[str, Any]]:
    """`content` as a string, or as the surface's parts.

    With `text_as_string`, all-text content is sent as one string.
    """
    if isinstance(content, str):
        return content
    blocks = canonical_blocks(content)
    if text_as_string and all(b["type"] == "text" for b in blocks):
        return text_of(blocks)
    return [parts[block["type"]](block) for block in blocks]


def tool_arguments(call: Mapping[str, Any]) -> str:
    """A tool call's arguments as a JSON string."""
    return json.dumps(call.get("args") or {}, ensure_ascii=False)
