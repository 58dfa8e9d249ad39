"""The rule that keeps every tool call next to its results.

Perplexity (like OpenAI) wants the results of an assistant turn's tool calls
right after that turn, one per `tool_call_id`, before any other message.
Real histories break this: an `after_model` middleware injects a system
message between a call and its result, a call is never answered,
`trim_messages` leaves a result whose call was cut, a result arrives twice.

`RepairToolProtocol` looks at each assistant turn (a run of adjacent
assistant messages) and the messages up to the next assistant turn:

- the results of that turn's calls are moved up to follow it, in order;
- other messages in between (injected instructions, a user's interjection)
  follow the results;
- a call with no result gets a placeholder result saying so, when something
  follows it (a trailing call with nothing after it is left for the rule
  that drops trailing assistant messages);
- a result with no call before it (orphaned) is sent as a user message that
  names the call, so neither its content nor its `tool_call_id` is lost.

Each decision depends only on the turn and the messages up to the next
assistant turn, so an earlier turn is rewritten the same way on every later
call (turn-stable).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langchain_perplexity_strict._content import text_of
from langchain_perplexity_strict.rule_types import Change, Entry


@dataclass(frozen=True)
class RepairToolProtocol:
    """Results follow their calls; unanswered calls get a placeholder; orphaned results become user text."""

    missing_result: str = "(no result: this tool call was not answered)"
    name: str = "repair_tool_protocol"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        if _well_formed(entries):  # the usual case, checked in one cheap pass
            return entries if isinstance(entries, list) else list(entries), []
        out: list[Entry] = []
        changes: list[Change] = []
        i, n = 0, len(entries)
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


def _well_formed(entries: Sequence[Entry]) -> bool:
    """Whether every result follows its call's turn directly, and no message comes between.

    A turn whose calls have no result yet at the very end is well formed too:
    the rule that drops trailing assistant messages handles it.
    """
    pending: set[Any] = set()
    for entry in entries:
        if entry.role == "tool":
            call_id = getattr(entry.message, "tool_call_id", None)
            if call_id not in pending:
                return False
            pending.discard(call_id)
            continue
        if pending:
            return False
        if entry.role == "assistant":
            calls = getattr(entry.message, "tool_calls", None)
            if calls:
                pending = {c["id"] for c in calls}
    return True
