"""The normalizer's rules: small named steps, each fixing one thing Perplexity rejects.

A rule maps `Entry`s to new entries plus `Change` records; it never mutates, and untouched messages pass
as the caller's objects. Sources: docs/perplexity-rules.md. Pass your own list as `normalize_messages(rules=...)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    merge_message_runs,
)

from langchain_perplexity_strict.normalize._canonical import CanonicalMessages
from langchain_perplexity_strict.normalize._roles import is_developer
from langchain_perplexity_strict.normalize._rule_types import Change, Entry, Rule
from langchain_perplexity_strict.normalize._tool_protocol import RepairToolProtocol

__all__ = [
    "DEFAULT_RULES",
    "CanonicalMessages",
    "Change",
    "DemoteLateSystemMessages",
    "DropTrailingAssistantMessages",
    "Entry",
    "MergeAdjacentTurns",
    "RepairToolProtocol",
    "Rule",
    "StartWithUserTurn",
]


@dataclass(frozen=True)
class DemoteLateSystemMessages:
    """Send a system (or developer) message that follows any other message as user.

    Perplexity: "only the initial message can have the system role". A role depends only on what precedes it.
    """

    name: str = "demote_late_system_messages"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        roles = list(map(_ROLE, entries))
        n = len(roles)
        start = next((i for i, role in enumerate(roles) if role != "system"), n)
        late = _index(roles, "system", start)
        if late == n:
            return _as_list(entries), []
        out: list[Entry] = list(entries[:late])
        changes: list[Change] = []
        while late < n:
            entry = entries[late]
            following = _index(roles, "system", late + 1)
            out.append(self._demoted(entry, changes))
            out.extend(entries[late + 1 : following])
            late = following
        return out, changes

    def _demoted(self, entry: Entry, changes: list[Change]) -> Entry:
        message = entry.message
        kind = "developer" if is_developer(message) else "system"
        demoted = HumanMessage(
            content=message.content,
            name=message.name,
            id=message.id,
        )
        changes.append(
            Change(
                self.name,
                entry.sources,
                f"a {kind} message after the conversation started is sent as "
                "a user message (Perplexity accepts system messages only at "
                "the start)",
            )
        )
        return Entry(demoted, "user", entry.sources)


@dataclass(frozen=True)
class MergeAdjacentTurns:
    """Merge adjacent user messages, and adjacent assistant messages, into one.

    Perplexity wants user/tool and assistant turns to alternate. Other fields merge by
    `merge_message_runs`; its content merge is not used: it drops separators and leaves bare strings in lists.
    Tool messages are never merged: each answers its own call.
    """

    separator: str = "\n\n"
    name: str = "merge_adjacent_turns"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        # One letter per role; a doubled letter starts a run.
        letters = "".join(map(_MERGED.get, map(_ROLE, entries), repeat("-")))
        i = min((found for found in (letters.find("uu"), letters.find("aa")) if found >= 0), default=None)
        if i is None:
            return _as_list(entries), []
        out: list[Entry] = list(entries[:i])
        changes: list[Change] = []
        n = len(entries)
        while i < n:
            entry = entries[i]
            j = i + 1
            if entry.role in ("user", "assistant"):
                while j < n and entries[j].role == entry.role:
                    j += 1
            if j - i == 1:
                out.append(entry)
                i = j
                continue
            run = entries[i:j]
            merged = self._merge(run)
            sources = tuple(s for e in run for s in e.sources)
            out.append(Entry(merged, entry.role, sources))
            changes.append(
                Change(
                    self.name,
                    sources,
                    f"{len(run)} adjacent {entry.role} messages are sent as one "
                    "(Perplexity requires user/tool and assistant turns to "
                    "alternate)",
                )
            )
            i = j
        return out, changes

    def _merge(self, run: Sequence[Entry]) -> BaseMessage:
        messages = [e.message for e in run]
        content = merge_contents([m.content for m in messages], self.separator)
        names = {m.name for m in messages}
        name = names.pop() if len(names) == 1 else None
        if all(type(m) is HumanMessage and not m.additional_kwargs and not m.response_metadata for m in messages):
            # Plain user run: what `merge_message_runs` would give.
            return HumanMessage(
                content=content, additional_kwargs={}, response_metadata={}, name=name, id=messages[0].id
            )
        canonical = [_as_canonical_class(e) for e in run]
        # Blank content, so chunk addition cannot fold blocks sharing an "index".
        blank = [m.model_copy(update={"content": ""}) for m in canonical]
        (merged,) = merge_message_runs(blank)
        return merged.model_copy(update={"content": content, "name": name, "id": messages[0].id})


@dataclass(frozen=True)
class DropTrailingAssistantMessages:
    """Drop assistant messages at the end of the conversation.

    Perplexity requires a user or tool message last; OpenAI ignores a trailing one (docs/perplexity-rules.md).
    """

    name: str = "drop_trailing_assistant_messages"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        end = len(entries)
        while end and entries[end - 1].role == "assistant":
            end -= 1
        if end == len(entries):
            return _as_list(entries), []
        dropped = tuple(s for e in entries[end:] for s in e.sources)
        change = Change(
            self.name,
            dropped,
            "a trailing assistant message is not sent (Perplexity requires the "
            "last message to be user or tool; OpenAI ignores it server-side)",
        )
        return list(entries[:end]), [change]


@dataclass(frozen=True)
class StartWithUserTurn:
    """Open the conversation with a user turn when an assistant message comes first.

    Perplexity wants "user then assistant" (docs/perplexity-rules.md); `opening` goes before the greeting.
    """

    opening: str = "(conversation start)"
    name: str = "start_with_user_turn"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        first = next((i for i, e in enumerate(entries) if e.role != "system"), None)
        if first is None or entries[first].role != "assistant":
            return _as_list(entries), []
        opening = Entry(HumanMessage(content=self.opening), "user", ())
        change = Change(
            self.name,
            entries[first].sources,
            f"the first turn is an assistant message; a user message "
            f"{self.opening!r} is inserted before it (Perplexity expects user "
            "then assistant)",
        )
        return [*entries[:first], opening, *entries[first:]], [change]


DEFAULT_RULES: tuple[Rule, ...] = (
    CanonicalMessages(),
    RepairToolProtocol(),
    DemoteLateSystemMessages(),
    MergeAdjacentTurns(),
    DropTrailingAssistantMessages(),
    StartWithUserTurn(),
)
"""The rules `normalize_messages` applies, in order."""


def merge_contents(contents: Sequence[str | list[Any]], separator: str) -> Any:
    """Join message contents: strings with `separator`, else one block list; empty strings are skipped."""
    if all(isinstance(c, str) for c in contents):
        return separator.join(c for c in contents if isinstance(c, str) and c)
    blocks: list[Any] = []
    for content in contents:
        if isinstance(content, str):
            if content:
                blocks.append({"type": "text", "text": content})
            continue
        for block in content:
            if isinstance(block, str):
                if block:
                    blocks.append({"type": "text", "text": block})
            else:
                blocks.append(block)
    return blocks


def _as_canonical_class(entry: Entry) -> BaseMessage:
    """The message as the class of its role, so `merge_message_runs` merges it."""
    message = entry.message
    wanted = AIMessage if entry.role == "assistant" else HumanMessage
    if isinstance(message, wanted):
        return message
    return wanted(
        content=message.content,
        name=message.name,
        id=message.id,
        additional_kwargs=message.additional_kwargs,
    )


_ROLE = itemgetter(1)
_MERGED = {"user": "u", "assistant": "a"}
"""The roles `MergeAdjacentTurns` merges, one letter each."""


def _index(roles: list[str], role: str, start: int) -> int:
    """The first index of `role` from `start`, else `len(roles)`."""
    try:
        return roles.index(role, start)
    except ValueError:
        return len(roles)


def _as_list(entries: Sequence[Entry]) -> list[Entry]:
    """`entries` as a list, not copying a list."""
    return entries if isinstance(entries, list) else list(entries)
