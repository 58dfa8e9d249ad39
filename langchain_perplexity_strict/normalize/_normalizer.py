"""Turn any LangChain conversation into one Perplexity accepts.

Pure: no I/O, and the caller's messages are never mutated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from typing import Any

from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.messages.utils import MessageLikeRepresentation

from langchain_perplexity_strict.normalize._roles import ROLE_BY_CLASS, role_of
from langchain_perplexity_strict.normalize._rule_types import Change, Entry, Rule
from langchain_perplexity_strict.normalize._rules import DEFAULT_RULES

_MESSAGE, _SOURCES = itemgetter(0), itemgetter(2)


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
