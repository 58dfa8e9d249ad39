"""The two Perplexity surfaces, each one object: where it lives, how a body is built, how an answer is read.

The chat model asks its `Surface` instead of comparing names; removing a
surface is deleting its entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_perplexity_strict._accumulator import ResponseAccumulator
from langchain_perplexity_strict._agent_reader import AgentStreamReader, read_agent_response
from langchain_perplexity_strict._agent_request import agent_body
from langchain_perplexity_strict._chat_reader import ChatStreamReader, read_chat_completion
from langchain_perplexity_strict._chat_request import chat_body
from langchain_perplexity_strict._continuation import Context


@dataclass(frozen=True)
class Surface:
    """One API: its paths, request builder, response and stream readers, and what it supports."""

    name: str
    base_path: str
    """Appended to the server root to make the OpenAI client's base URL."""
    path: str
    """The endpoint, relative to that base URL."""
    build_body: Callable[..., dict[str, Any]]
    read_response: Callable[[ResponseAccumulator, dict[str, Any]], None]
    stream_reader: Callable[[ResponseAccumulator], AgentStreamReader | ChatStreamReader]
    function_tools: bool
    """Whether client-side function tools exist (the Sonar models have none)."""


SURFACES: dict[str, Surface] = {
    "agent": Surface("agent", "/v1", "/responses", agent_body, read_agent_response, AgentStreamReader, True),
    "chat_completions": Surface(
        "chat_completions", "", "/chat/completions", chat_body, read_chat_completion, ChatStreamReader, False
    ),
}


@dataclass(frozen=True)
class PreparedCall:
    """A checked, normalized call, ready to send: the body as JSON and as the bytes posted."""

    body: dict[str, Any]
    data: bytes
    stops: tuple[str, ...]
    n: int
    output_version: str
    compaction: dict[str, Any] | None = None
    """What compaction kept and dropped (`response_metadata["compaction"]`), when it dropped anything."""
    context: Context | None = None
    """The conversation the server will hold (with `use_previous_response_id`), for the answer's record."""
    fallback: Callable[[], bytes] | None = None
    """A continuation's whole-conversation body, encoded and sent if the server no longer knows the stored response."""


def read_batch(reader: AgentStreamReader | ChatStreamReader, batch: list[dict[str, Any]], ended: bool) -> list[Any]:
    """The chunks one network read completes: what its events produced, then its text (and new sources) as one.

    At the end of the stream the text goes out with the final chunk instead.
    """
    chunks = [chunk for event in batch for chunk in reader.feed(event)]
    if not ended:
        chunks += reader.answer.take_text()
    return chunks
