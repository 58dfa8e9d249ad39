"""The two Perplexity surfaces, each one object: where it lives, how a body is built, how an answer is read.

The chat model asks its :class:`Surface` instead of comparing names; removing a
surface is deleting its entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_perplexity_strict.agent_request import agent_body
from langchain_perplexity_strict.agent_response import AgentStream, read_agent_response
from langchain_perplexity_strict.chat_request import chat_body
from langchain_perplexity_strict.chat_response import ChatStream, read_chat_completion
from langchain_perplexity_strict.response_mapping import Answer


@dataclass(frozen=True)
class Surface:
    """One API: its paths, request builder, response and stream readers, and what it supports."""

    name: str
    base_path: str
    """Appended to the server root to make the OpenAI client's base URL."""
    path: str
    """The endpoint, relative to that base URL."""
    build_body: Callable[..., dict[str, Any]]
    read_response: Callable[[Answer, dict[str, Any]], None]
    stream_reader: Callable[[Answer], AgentStream | ChatStream]
    function_tools: bool
    """Whether client-side function tools exist (the Sonar models have none)."""


def _chat_body(messages: Any, settings: Any, call: Any, *, stream: bool, model_explicit: bool) -> dict[str, Any]:
    return chat_body(messages, settings, call, stream=stream)


SURFACES: dict[str, Surface] = {
    "agent": Surface("agent", "/v1", "/responses", agent_body, read_agent_response, AgentStream, True),
    "chat_completions": Surface(
        "chat_completions", "", "/chat/completions", _chat_body, read_chat_completion, ChatStream, False
    ),
}
