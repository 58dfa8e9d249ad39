"""What the Agent API cannot take of the content chat completions take: the one drop of it, with its report.

Chat completions take a video (`video_url`) and a file in a tool result
(`file_url`); the Agent API has no video part, and its function output
(`FunctionCallOutputInputInput.output`) takes text and images only. The
Agent API surface puts `AGENT_CONTENT` before the model's rules, so this is
the only place such content is left out (the body builder never sees it),
and the normalizer's report says so: a video is left out, a file a tool
returned is named in the text where it was. The newest user turn warns when
it loses a video, and is refused when nothing else is left (dropping it would
make the model answer the previous question again); the newest tool result
warns when a file is named in its place.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from langchain_perplexity_strict.normalize._content import (
    REASONING_TYPES,
    TEXT_TYPES,
    TOOL_CALL_TYPES,
    canonical_content,
)
from langchain_perplexity_strict.normalize._rule_types import Change, Entry

NOT_SENT = "a file the tool returned is not sent"
_NEITHER = frozenset({*TEXT_TYPES, *REASONING_TYPES, *TOOL_CALL_TYPES, "image", "image_url", "input_image"})
"""Block types that are never a video or a file: not canonicalized to find out (most blocks of a history)."""
"""How a tool result's file is named in its text on the Agent API."""


class AgentContent:
    """Leave out videos and name tool results' files, for the Agent API (`AGENT_CONTENT`)."""

    name = "agent_content"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        roles = [e.role for e in entries]
        newest = max((i for i, r in enumerate(roles) if r == "user"), default=-1)
        answered = max((i for i, r in enumerate(roles) if r == "assistant"), default=-1)
        out: list[Entry] = []
        changes: list[Change] = []
        for index, entry in enumerate(entries):
            content = entry.message.content
            if entry.role == "assistant" or isinstance(content, str):
                out.append(entry)
                continue
            kept, videos, files = _sorted(content, tool=entry.role == "tool")
            if not videos and not files:
                out.append(entry)
                continue
            if videos:
                kinds = _listed(videos)
                if index == newest:
                    _newest_turn_lost(kinds, nothing_left=not kept)
                reason = f"video block(s) {kinds} left out (the Agent API takes no video; api='chat_completions' does)"
                changes.append(Change(self.name, entry.sources, reason))
            if files:
                names = _listed(files)
                if index > answered and index > newest:  # a result the model answers now: say what it cannot see
                    warnings.warn(
                        "The newest tool result lost its file(s), named in its text instead: the Agent API's "
                        "function output takes text and images only. Return the file's text, or use "
                        "api='chat_completions'.",
                        UserWarning,
                        stacklevel=4,
                    )
                changes.append(
                    Change(
                        self.name,
                        entry.sources,
                        f"file(s) {names} in a tool result named in its text (the Agent API's function output "
                        "takes text and images only; api='chat_completions' takes file_url)",
                    )
                )
            message = entry.message.model_copy(update={"content": kept})
            out.append(Entry(message, entry.role, entry.sources))
        return out, changes


AGENT_CONTENT: tuple[AgentContent, ...] = (AgentContent(),)
"""The Agent API surface's rules, run before the model's own (`_surfaces`)."""


def _sorted(content: list[Any], *, tool: bool) -> tuple[list[Any], list[str], list[str]]:
    """(the blocks kept, a file of a tool result named in text; the videos' kinds; the files' names)."""
    kept: list[Any] = []
    videos: list[str] = []
    files: list[str] = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") in _NEITHER:
            kept.append(block)
            continue
        canonical = canonical_content([block], assistant=False)
        if canonical.videos or (isinstance(canonical.content, list) and _is(canonical.content, "video")):
            videos.extend(canonical.videos or [str(block.get("kind") or block.get("type"))])
        elif tool and isinstance(canonical.content, list) and _is(canonical.content, "file"):
            file = canonical.content[0]
            name = str(file.get("filename") or file.get("url") or "a file")
            files.append(name)
            kept.append({"type": "text", "text": f"({name}: {NOT_SENT})"})
        else:
            kept.append(block)
    return kept, videos, files


def _is(blocks: list[dict[str, Any]], kind: str) -> bool:
    return len(blocks) == 1 and blocks[0].get("type") == kind


def _listed(names: list[str]) -> str:
    return ", ".join(repr(n) for n in dict.fromkeys(names))


def _newest_turn_lost(kinds: str, *, nothing_left: bool) -> None:
    if nothing_left:
        msg = (
            f"messages: content block(s) {kinds} left out of the newest user message (the Agent API takes no "
            "video; api='chat_completions' does), and nothing is left to answer. Send text, an image or a file."
        )
        raise ValueError(msg)
    warnings.warn(
        f"The newest user message lost content block(s) {kinds}: the Agent API takes no video.",
        UserWarning,
        stacklevel=4,
    )
