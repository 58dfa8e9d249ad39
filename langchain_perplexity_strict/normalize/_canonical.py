"""The first rule: every message as a plain LangChain class with content Perplexity takes.

Later rules see only System, Human, AI and Tool messages with canonical content. An id-less tool call
gets a stable id; empty messages are dropped before the turn rules run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict._message_keys import MCP_APPROVAL_REQUESTS
from langchain_perplexity_strict._once import warn
from langchain_perplexity_strict.normalize._approvals import approval_requests, approval_responses
from langchain_perplexity_strict.normalize._content import (
    VIEW_KWARGS,
    CanonicalContent,
    canonical_content,
    is_own,
    kwarg_sources,
    standard_view,
)
from langchain_perplexity_strict.normalize._roles import is_developer
from langchain_perplexity_strict.normalize._rule_types import Change, Entry

_PLAIN = frozenset({HumanMessage, AIMessage, SystemMessage, ToolMessage})
_CLASS_OF: dict[str, type[BaseMessage]] = {"user": HumanMessage, "assistant": AIMessage, "tool": ToolMessage}
"""The class `_rebuild` copies per role; system is built (developer marker)."""
_ID = repeat("id")


@dataclass(frozen=True)
class CanonicalMessages:
    """Plain message classes and canonical content; messages left empty are dropped."""

    name: str = "canonical_messages"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        first = first_to_convert(entries)
        if first is None:
            return entries if isinstance(entries, list) else list(entries), []
        out: list[Entry] = list(entries[:first])
        changes: list[Change] = []
        unanswered: list[str] = []  # generated ids, for id-less tool messages
        newest = max((i for i, entry in enumerate(entries) if entry.role == "user"), default=-1)
        for index, entry in enumerate(entries[first:], start=first):
            if first_to_convert([entry]) is None:  # plain class, string content
                out.append(entry)
                if entry.role == "assistant":
                    unanswered = []
                continue
            converted = self._convert(entry, changes, unanswered, newest=index == newest)
            if converted is not None:
                out.append(converted)
        return out, changes

    def _convert(self, entry: Entry, changes: list[Change], unanswered: list[str], *, newest: bool) -> Entry | None:
        message = entry.message
        assistant = entry.role == "assistant"
        content = standard_view(message) if assistant else message.content
        canonical = canonical_content(content, assistant=assistant, own=is_own(message))
        if newest and (canonical.dropped or canonical.reasoning) and not approval_responses(message.content):
            _newest_turn_lost(canonical)
        notes = _notes(canonical, entry)
        invalid = getattr(message, "invalid_tool_calls", None) or [] if assistant else []
        if invalid:
            names = ", ".join(repr(c.get("name") or c.get("id")) for c in invalid)
            notes.append(f"invalid tool call(s) {names} left out (their arguments are not JSON)")
        tool_calls = getattr(message, "tool_calls", None) or [] if assistant else []
        if assistant:
            tool_calls = _with_ids(tool_calls, entry.sources, unanswered)
        tool_call_id = getattr(message, "tool_call_id", "") if entry.role == "tool" else ""
        if entry.role == "tool" and not tool_call_id and unanswered:
            tool_call_id = unanswered.pop(0)
        approvals = _approvals(message, entry.role)
        if canonical.empty and entry.role != "tool" and not tool_calls and not approvals:
            reason = "; ".join(notes) or "the message has no content"
            changes.append(Change(self.name, entry.sources, f"{reason}; nothing is left, so the message is not sent"))
            return None
        if notes:
            changes.append(Change(self.name, entry.sources, "; ".join(notes)))
        rebuilt = _rebuild(message, entry.role, canonical.content, tool_calls, tool_call_id)
        if approvals and assistant:
            rebuilt.additional_kwargs[MCP_APPROVAL_REQUESTS] = approvals
        elif approvals:
            rebuilt.content = [*rebuilt.content, *approvals]
        return Entry(rebuilt, entry.role, entry.sources)


def _notes(canonical: CanonicalContent, entry: Entry) -> list[str]:
    """What converting the content flattened, left out or moved, one note each."""
    assistant = entry.role == "assistant"
    notes = []
    if canonical.flattened:
        notes.append(f"{_kinds(canonical.flattened)} sent as text")
    if canonical.reasoning:
        notes.append(f"reasoning block(s) {_kinds(canonical.reasoning)} left out (reasoning is not sent back)")
    if canonical.dropped:
        notes.append(
            f"content block(s) {_kinds(canonical.dropped)} left out (Perplexity takes text, and images and files "
            "by URL or inline data" + (", and an assistant turn only text)" if assistant else ")")
        )
    sources = [*canonical.citations, *(kwarg_sources(entry.message.additional_kwargs) if assistant else ())]
    if sources:
        notes.append(
            f"citation(s) {_kinds(sources)} left out (a request carries no citations; the text is sent as written)"
        )
    if canonical.videos:
        notes.append(
            f"video block(s) {_kinds(canonical.videos)} sent as video_url on chat completions; the Agent "
            "API takes no video, so there each is left out (and a newest turn of videos alone is refused)"
        )
    if entry.role == "tool" and (files := _file_names(canonical.content)):
        notes.append(
            f"file(s) {files} in a tool result named in its text on the Agent API (a function output takes "
            "text and images only) and sent as file_url on chat completions"
        )
    return notes


def _newest_turn_lost(canonical: CanonicalContent) -> None:
    """Warn that the newest user turn lost blocks; raise if nothing is left to answer."""
    kinds = _kinds([*canonical.dropped, *canonical.reasoning])
    if canonical.empty:
        msg = (
            f"messages: content block(s) {kinds} left out of the newest user message (Perplexity takes text, and "
            "images and files by URL or inline data), and nothing is left to answer. Send it as text, or an image "
            "or a file by URL or inline data."
        )
        raise ValueError(msg)
    warn(
        f"The newest user message lost content block(s) {kinds}: Perplexity takes text, and images and files "
        "by URL or inline data; the rest of the message is sent."
    )


def _approvals(message: BaseMessage, role: str) -> list[dict[str, Any]]:
    """An answer's MCP approval requests, or a user turn's responses."""
    if role == "assistant":
        return approval_requests(message)
    return approval_responses(message.content) if role == "user" else []


def first_to_convert(entries: Sequence[Entry]) -> int | None:
    """The index of the first message that is not a plain class with string content (and ids), or None."""
    for index, (message, role, _) in enumerate(entries):
        content = message.content
        if type(content) is not str or type(message) not in _PLAIN:
            return index
        if role == "assistant":
            calls = message.tool_calls  # type: ignore[attr-defined]
            if not (content or calls) or message.invalid_tool_calls or not all(map(dict.get, calls, _ID)):  # type: ignore[attr-defined]
                return index
            if message.additional_kwargs and not VIEW_KWARGS.isdisjoint(message.additional_kwargs):
                return index
        elif role == "tool" and not getattr(message, "tool_call_id", None):
            return index
    return None


def _file_names(content: str | list[dict[str, Any]]) -> str:
    """The files among canonical blocks, by name or URL."""
    files = [b for b in content if isinstance(b, dict) and b.get("type") == "file"] if isinstance(content, list) else []
    return _kinds([str(b.get("filename") or b.get("url") or "a file") for b in files])


def _kinds(kinds: list[str]) -> str:
    return ", ".join(repr(k) for k in dict.fromkeys(kinds))


def _with_ids(calls: list[Any], sources: tuple[int, ...], generated: list[str]) -> list[Any]:
    """`calls` with ids; a missing one is a hash of place, name and arguments, added to `generated`."""
    generated.clear()
    out = []
    for index, call in enumerate(calls):
        if not call.get("id"):
            key = json.dumps([list(sources), index, call.get("name"), call.get("args")], sort_keys=True, default=str)
            call = {**call, "id": "call_" + hashlib.sha256(key.encode()).hexdigest()[:24]}
            generated.append(call["id"])
        out.append(call)
    return out


def _rebuild(
    message: BaseMessage, role: str, content: Any, tool_calls: list[Any], tool_call_id: str = ""
) -> BaseMessage:
    """The message as its role's plain class, keeping id, name and provider metadata; copied when possible."""
    kwargs = message.additional_kwargs
    if role == "assistant":  # the view has read these
        kwargs = {k: v for k, v in kwargs.items() if k not in VIEW_KWARGS}
    metadata = {
        "additional_kwargs": dict(kwargs),
        "response_metadata": dict(message.response_metadata),
    }
    if type(message) is _CLASS_OF.get(role):
        update: dict[str, Any] = {"content": content, **metadata}
        if role == "assistant":  # as built below
            update |= {"tool_calls": [dict(c) for c in tool_calls], "invalid_tool_calls": [], "usage_metadata": None}
        elif role == "tool":
            update["tool_call_id"] = tool_call_id
        return message.model_copy(update=update)
    common: dict[str, Any] = {"content": content, "id": message.id, "name": message.name, **metadata}
    if role == "assistant":
        return AIMessage(**common, tool_calls=[dict(c) for c in tool_calls])
    if role == "tool":
        return ToolMessage(
            **common,
            tool_call_id=tool_call_id,
            artifact=getattr(message, "artifact", None),
            status=getattr(message, "status", "success"),
        )
    if role == "system":
        if is_developer(message):
            common["additional_kwargs"]["__openai_role__"] = "developer"
        return SystemMessage(**common)
    return HumanMessage(**common)
