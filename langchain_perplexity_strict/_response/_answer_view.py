"""What `_render` reads of an answer, as a protocol: `_answer.Answer` is one.

It keeps `_render` from importing `_answer`, which imports `_render`.
"""

from __future__ import annotations

from typing import Any, Protocol

from langchain_core.messages import AIMessage
from langchain_core.messages.ai import UsageMetadata

from langchain_perplexity_strict._continuation import Context
from langchain_perplexity_strict._response._server_item_collector import ServerItems


class AnswerView(Protocol):
    """What rendering reads of an answer."""

    output_version: str
    text: str
    reasoning: str
    tool_calls: list[dict[str, Any]]
    citations: list[str]
    search_results: list[dict[str, Any]]
    annotations: list[dict[str, Any]]
    extras: dict[str, Any]
    thought_signatures: dict[str, str]
    context: Context | None
    usage: UsageMetadata | None
    metadata: dict[str, Any]
    finished: bool
    parse_as: type | None
    stream_usage: bool
    server: ServerItems

    def take_pending(self) -> tuple[str, str]: ...

    def unsent_sources(self) -> dict[str, Any]: ...

    def context_record(self, message: AIMessage) -> dict[str, Any] | None: ...
