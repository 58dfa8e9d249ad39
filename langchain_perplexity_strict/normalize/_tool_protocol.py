"""The rule that keeps every tool call next to its results.

Perplexity, like OpenAI, wants each call's result right after its assistant turn. Middleware,
`trim_messages` and unanswered calls break that. Each fix depends only on the turn and what follows
up to the next assistant turn, so it is stable across later calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langchain_perplexity_strict.normalize._content import text_of
from langchain_perplexity_strict.normalize._rule_types import Change, Entry

_ID = itemgetter("id")


@dataclass(frozen=True)
class RepairToolProtocol:
    """Results follow their calls; unanswered calls get a placeholder; orphaned results become user text."""

    missing_result: str = "(no result: this tool call was not answered)"
    name: str = "repair_tool_protocol"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        start = first_broken_turn(entries)
        if start is None:
            return entries if isinstance(entries, list) else list(entries), []
        out: list[Entry] = list(entries[:start])
        changes: list[Change] = []
        i, n = start, len(entries)
        while i < n:
            if entries[i].role != "assistant":
                entry = entries[i]
                out.append(self._orphan(entry, changes) if entry.role == "tool" else entry)
                i += 1
                continue
            j = i
            while j < n and entries[j].role == "assistant":
                j += 1
            k = j
            while k < n and entries[k].role != "assistant":
                k += 1
            out.extend(entries[i:j])
            window = entries[j:k]
            if j - i == 1 and _answered_in_order(entries[i], window):
                out.extend(window)
            else:
                out.extend(self._answer_turn(entries[i:j], window, k < n, changes))
            i = k
        return out, changes

    def _answer_turn(
        self, turn: Sequence[Entry], window: Sequence[Entry], more: bool, changes: list[Change]
    ) -> list[Entry]:
        calls = [c for e in turn for c in _calls(e)]
        pending = {c["id"]: c for c in calls}
        results: list[Entry] = []
        others: list[Entry] = []
        out_of_place = False
        for entry in window:
            call_id = getattr(entry.message, "tool_call_id", None) if entry.role == "tool" else None
            if call_id in pending:
                del pending[call_id]
                results.append(entry)
                out_of_place = out_of_place or bool(others)
            elif entry.role == "tool":
                others.append(self._orphan(entry, changes))
            else:
                others.append(entry)
        if out_of_place:
            moved = tuple(s for e in others for s in e.sources)
            changes.append(
                Change(
                    self.name,
                    moved,
                    "sent after the tool results of the assistant turn before it "
                    "(Perplexity wants results right after their calls)",
                )
            )
        if pending and (window or more):
            sources = tuple(s for e in turn for s in e.sources)
            names = ", ".join(f"{c.get('name')!r} ({c['id']})" for c in pending.values())
            changes.append(
                Change(self.name, sources, f"tool call(s) {names} had no result; a placeholder result is sent")
            )
            results += [
                Entry(ToolMessage(self.missing_result, tool_call_id=c["id"], name=c.get("name")), "tool", ())
                for c in pending.values()
            ]
        return results + others

    def _orphan(self, entry: Entry, changes: list[Change]) -> Entry:
        message = entry.message
        call_id = getattr(message, "tool_call_id", "")
        name = f" {message.name!r}" if message.name else ""
        changes.append(
            Change(
                self.name,
                entry.sources,
                f"a tool result for call {call_id!r} with no matching call before it is sent as a user message",
            )
        )
        prefix = f"Result of tool call{name} ({call_id}):\n"
        content: Any = message.content
        if isinstance(content, str):
            content = prefix + text_of(content)
        else:
            content = [{"type": "text", "text": prefix}, *content]
        return Entry(HumanMessage(content, id=message.id), "user", entry.sources)


def _calls(entry: Entry) -> list[dict[str, Any]]:
    message = entry.message
    return list(message.tool_calls) if isinstance(message, AIMessage) else []  # type: ignore[arg-type]


def first_broken_turn(entries: Sequence[Entry]) -> int | None:
    """The start of the first turn whose results are out of place, or None.

    Unanswered calls at the end count as in place: a later rule drops them.
    """
    pending: set[Any] = set()
    turn_start = 0
    previous = ""
    for index, (message, role, _) in enumerate(entries):
        if role == "tool":
            call_id = getattr(message, "tool_call_id", None)
            if call_id not in pending:
                return turn_start
            pending.discard(call_id)
        elif pending:
            return turn_start
        elif role == "assistant":
            if previous != "assistant":
                turn_start = index
            calls = getattr(message, "tool_calls", None)
            if calls:
                pending = set(map(_ID, calls))
        previous = role
    return None


def _answered_in_order(turn: Entry, window: Sequence[Entry]) -> bool:
    """Whether the turn's calls are answered right after it, in order, with no stray result."""
    calls = getattr(turn.message, "tool_calls", None) or []
    if len(window) < len(calls):
        return False
    for call, entry in zip(calls, window, strict=False):
        if entry.role != "tool" or getattr(entry.message, "tool_call_id", None) != call["id"]:
            return False
    return all(entry.role != "tool" for entry in window[len(calls) :])
