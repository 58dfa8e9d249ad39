"""Content a model does not take, left out (or named in a tool result's text) with its report: one rule.

Limits come from the profile (`_profile.call_profile`); e.g. `FunctionCallOutputInputInput.output` takes
text and images only. The newest turn warns on a loss, and is refused when nothing is left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_perplexity_strict._once import warn
from langchain_perplexity_strict.normalize._content import (
    REASONING_TYPES,
    TEXT_TYPES,
    TOOL_CALL_TYPES,
    canonical_content,
)
from langchain_perplexity_strict.normalize._roles import Change, Entry, listed, newest_turn_lost

NOT_SENT = "a file the tool returned is not sent"
_NEITHER = frozenset({*TEXT_TYPES, *REASONING_TYPES, *TOOL_CALL_TYPES})
"""Block types that are never media."""
_LABELS = {"video": "video block(s)", "file": "file(s)", "image": "image(s)", "image_url": "image URL(s)"}


@dataclass(frozen=True)
class ContentLimits:
    """Leave out kinds in `turns`; name kinds in `tool_results` in the tool result's text.

    Kinds: `"video"`, `"file"`, `"image"`, `"image_url"`; each maps to why it is not sent.
    """

    name: str = "agent_content"
    turns: Mapping[str, str] = field(default_factory=dict)
    tool_results: Mapping[str, str] = field(default_factory=dict)

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
            tool = entry.role == "tool"
            kept, left_out, named = self._sorted(content, tool=tool)
            if not left_out and not named:
                out.append(entry)
                continue
            for kind, names in left_out.items():
                if index == newest:
                    send = "Send text, or content this model's profile takes."
                    newest_turn_lost(names, self.turns[kind], nothing_left=not kept, send=send)
                what = f"{_LABELS[kind]} {listed(names)} left out ({self.turns[kind]})"
                changes.append(Change(self.name, entry.sources, what))
            for kind, names in named.items():
                if index > answered and index > newest:  # the result the model answers now
                    _newest_result_lost(kind, self.tool_results[kind])
                what = f"{_LABELS[kind]} {listed(names)} in a tool result named in its text ({self.tool_results[kind]})"
                changes.append(Change(self.name, entry.sources, what))
            message = entry.message.model_copy(update={"content": kept})
            out.append(Entry(message, entry.role, entry.sources))
        return out, changes

    def _sorted(
        self, content: list[Any], *, tool: bool
    ) -> tuple[list[Any], dict[str, list[str]], dict[str, list[str]]]:
        """(blocks kept, kinds left out, kinds named)."""
        kept: list[Any] = []
        left_out: dict[str, list[str]] = {}
        named: dict[str, list[str]] = {}
        for block in content:
            if not isinstance(block, dict) or block.get("type") in _NEITHER:
                kept.append(block)
                continue
            canonical = canonical_content([block], assistant=False)
            kind, name = _kind(block, canonical)
            if tool and kind in self.tool_results:
                named.setdefault(kind, []).append(name)
                kept.append({"type": "text", "text": f"({name}: {NOT_SENT})"})
            elif kind in self.turns:
                left_out.setdefault(kind, []).append(name)
            else:
                kept.append(block)
        return kept, left_out, named


AGENT_CONTENT: tuple[ContentLimits, ...] = (
    ContentLimits(
        turns={"video": "the Agent API takes no video; api='chat_completions' does"},
        tool_results={
            "file": "the Agent API's function output takes text and images only; api='chat_completions' takes file_url"
        },
    ),
)
"""The Agent API surface's limits, run before the model's rules."""


def _kind(block: dict[str, Any], canonical: Any) -> tuple[str, str]:
    """A block's `ContentLimits` kind ("" if none) and its report name."""
    blocks = canonical.content if isinstance(canonical.content, list) else []
    if canonical.videos or (len(blocks) == 1 and blocks[0].get("type") == "video"):
        return "video", (canonical.videos or [str(block.get("kind") or block.get("type"))])[0]
    if len(blocks) != 1 or blocks[0].get("type") not in ("file", "image"):
        return "", ""
    converted = blocks[0]
    if converted["type"] == "file":
        return "file", str(converted.get("filename") or converted.get("url") or "a file")
    by_url = not str(converted["url"]).startswith("data:")
    return ("image_url" if by_url else "image"), str(block.get("type"))


def _newest_result_lost(kind: str, why: str) -> None:
    warn(
        f"The newest tool result lost its {_LABELS[kind]}, named in its text instead: {why}. Return the "
        "content's text, or use a model whose profile takes it."
    )
