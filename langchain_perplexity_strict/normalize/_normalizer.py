"""Turn any LangChain conversation into one Perplexity accepts.

Pure: no I/O, and the caller's messages are never mutated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from typing import Any

from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.messages.utils import MessageLikeRepresentation

from langchain_perplexity_strict.normalize._agent_content import ContentLimits
from langchain_perplexity_strict.normalize._canonical import first_to_convert
from langchain_perplexity_strict.normalize._roles import ROLE_BY_CLASS, role_of
from langchain_perplexity_strict.normalize._rule_types import Change, Entry, Rule
from langchain_perplexity_strict.normalize._rules import DEFAULT_RULES
from langchain_perplexity_strict.normalize._tool_protocol import first_broken_turn

_MESSAGE, _ROLE, _SOURCES = itemgetter(0), itemgetter(1), itemgetter(2)
_KNOWN_RULES = frozenset({*map(type, DEFAULT_RULES), ContentLimits})
"""The package's rule classes: each passes a history in `_IN_ORDER` of plain text messages as it is."""
_LETTER = {"system": "s", "user": "u", "assistant": "a", "tool": "t"}
_IN_ORDER = re.compile(r"s*(?=[ut])(?:(?!uu|aa)[uat])+(?<!a)")
"""System first, then alternating turns that open and end with user or tool."""


@dataclass(frozen=True)
class NormalizationResult:
    """The normalized conversation and the report of what changed."""

    messages: list[BaseMessage]
    changes: list[Change] = field(default_factory=list)
    sources: list[tuple[int, ...]] = field(default_factory=list)
    """The input positions of each message sent."""

    @property
    def changed(self) -> bool:
        """Whether any rule changed the conversation."""
        return bool(self.changes)

    def report(self) -> str:
        """The changes, one line each; empty when nothing changed."""
        return "\n".join(str(c) for c in self.changes)


def normalize_messages(
    messages: Sequence[MessageLikeRepresentation] | MessageLikeRepresentation,
    *,
    rules: Sequence[Rule] = DEFAULT_RULES,
) -> NormalizationResult:
    """Rewrite `messages` so Perplexity accepts them, and say what changed.

    `messages` is anything `convert_to_messages` accepts; `rules` run in order.
    Raises `ValueError` for an empty conversation, an unknown role, or only system messages.
    """
    if isinstance(messages, (str, BaseMessage, dict, tuple)):
        messages = [messages]
    entries = _entries(messages if isinstance(messages, list) else list(messages))
    if not entries:
        msg = "messages: the conversation is empty; Perplexity needs at least one user message."
        raise ValueError(msg)
    given = len(entries)
    changes: list[Change] = []
    if _untouched(entries, rules):
        return NormalizationResult(list(map(_MESSAGE, entries)), changes, list(map(_SOURCES, entries)))
    for rule in rules:
        entries, rule_changes = rule(entries)
        changes.extend(rule_changes)
    if all(e.role == "system" for e in entries):
        msg = (
            "messages: the conversation has no user, assistant or tool message "
            f"({given} message(s) given, none left after normalization "
            "but system messages); Perplexity refuses a conversation of nothing "
            "but system messages. Add the user's message."
        )
        if changes:
            msg += " What the rules did: " + "; ".join(str(c) for c in changes)
        raise ValueError(msg)
    return NormalizationResult(list(map(_MESSAGE, entries)), changes, list(map(_SOURCES, entries)))


def _entries(messages: list[Any]) -> list[Entry]:
    """One entry per message: its role, and its position in the caller's list; plain classes in one C pass."""
    try:
        roles = map(ROLE_BY_CLASS.__getitem__, map(type, messages))
        return list(map(tuple.__new__, repeat(Entry), zip(messages, roles, zip(range(len(messages))), strict=True)))
    except KeyError:
        converted = [m if isinstance(m, BaseMessage) else convert_to_messages([m])[0] for m in messages]
        return [Entry(m, role_of(m, index=i), (i,)) for i, m in enumerate(converted)]


def _untouched(entries: list[Entry], rules: Sequence[Rule]) -> bool:
    """Whether the rules, all the package's, would pass `entries` as they are: one check, not each rule."""
    if not _KNOWN_RULES.issuperset(map(type, rules)):
        return False
    order = "".join(map(_LETTER.__getitem__, map(_ROLE, entries)))
    return bool(_IN_ORDER.fullmatch(order)) and first_to_convert(entries) is None and first_broken_turn(entries) is None
