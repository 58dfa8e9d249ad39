"""Turn any LangChain conversation into one Perplexity accepts: the rules, and the functions that run them.

A rule fixes one thing Perplexity rejects (docs/perplexity-rules.md): it maps `Entry`s to new entries and
`Change`s, never mutates, and passes untouched messages as the caller's objects.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby, repeat
from operator import itemgetter
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
    merge_message_runs,
)
from langchain_core.messages.utils import MessageLikeRepresentation, count_tokens_approximately

from langchain_perplexity_strict._message_keys import MCP_APPROVAL_REQUESTS, MODEL_PROVIDER
from langchain_perplexity_strict._once import warn
from langchain_perplexity_strict.normalize._compaction import RULE_NAME, TokenCounter, compact_messages
from langchain_perplexity_strict.normalize._content import (
    REASONING_TYPES,
    TEXT_TYPES,
    TOOL_CALL_TYPES,
    VIEW_KWARGS,
    CanonicalContent,
    approval_requests,
    approval_responses,
    canonical_blocks,
    canonical_content,
    check_approval_history,
    kwarg_sources,
    standard_view,
)
from langchain_perplexity_strict.normalize._roles import (
    ROLE_BY_CLASS,
    Change,
    Entry,
    Rule,
    is_developer,
    listed,
    newest_turn_lost,
    role_of,
)

_MESSAGE, _ROLE, _SOURCES = itemgetter(0), itemgetter(1), itemgetter(2)
_ID, _ID_KEY = itemgetter("id"), repeat("id")

# -- the rules, in the order DEFAULT_RULES runs them ------------------------------------------------

_WHY = "Perplexity takes text, and images and files by URL or inline data"


@dataclass(frozen=True)
class CanonicalMessages:
    """Plain message classes and canonical content; messages left empty are dropped, id-less tool calls get ids."""

    name: str = "canonical_messages"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        first = first_to_convert(entries)
        if first is None:
            return list(entries), []
        out: list[Entry] = list(entries[:first])
        changes: list[Change] = []
        unanswered: list[str] = []  # generated ids, for id-less tool results
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
        message, role = entry.message, entry.role
        assistant = role == "assistant"
        canonical = canonical_content(
            standard_view(message) if assistant else message.content,
            assistant=assistant,
            own=message.response_metadata.get("model_provider") in (None, MODEL_PROVIDER),
        )
        lost = [*canonical.dropped, *canonical.reasoning]
        if newest and lost and not approval_responses(message.content):
            send = "Send it as text, or an image or a file by URL or inline data."
            newest_turn_lost(lost, _WHY, nothing_left=not canonical.content, send=send)
        notes = _notes(canonical, entry)
        tool_calls: list[Any] = []
        if assistant:
            if invalid := getattr(message, "invalid_tool_calls", None):
                names = ", ".join(repr(c.get("name") or c.get("id")) for c in invalid)
                notes.append(f"invalid tool call(s) {names} left out (their arguments are not JSON)")
            tool_calls = _with_ids(getattr(message, "tool_calls", None) or [], entry.sources, unanswered)
        tool_call_id = getattr(message, "tool_call_id", "") if role == "tool" else ""
        if role == "tool" and not tool_call_id and unanswered:
            tool_call_id = unanswered.pop(0)
        approvals = (
            approval_requests(message) if assistant else approval_responses(message.content) if role == "user" else []
        )
        if not canonical.content and role != "tool" and not tool_calls and not approvals:
            reason = "; ".join(notes) or "the message has no content"
            changes.append(Change(self.name, entry.sources, f"{reason}; nothing is left, so the message is not sent"))
            return None
        if notes:
            changes.append(Change(self.name, entry.sources, "; ".join(notes)))
        rebuilt = _rebuild(message, role, canonical.content, tool_calls, tool_call_id)
        if approvals and assistant:
            rebuilt.additional_kwargs[MCP_APPROVAL_REQUESTS] = approvals
        elif approvals:
            rebuilt.content = [*rebuilt.content, *approvals]
        return Entry(rebuilt, role, entry.sources)


def _notes(canonical: CanonicalContent, entry: Entry) -> list[str]:
    assistant = entry.role == "assistant"
    notes = []
    if canonical.flattened:
        notes.append(f"{listed(canonical.flattened)} sent as text")
    if canonical.reasoning:
        notes.append(f"reasoning block(s) {listed(canonical.reasoning)} left out (reasoning is not sent back)")
    if canonical.dropped:
        notes.append(
            f"content block(s) {listed(canonical.dropped)} left out ({_WHY}"
            + (", and an assistant turn only text)" if assistant else ")")
        )
    sources = [*canonical.citations, *(kwarg_sources(entry.message.additional_kwargs) if assistant else ())]
    if sources:
        notes.append(
            f"citation(s) {listed(sources)} left out (a request carries no citations; the text is sent as written)"
        )
    if canonical.videos:
        notes.append(
            f"video block(s) {listed(canonical.videos)} sent as video_url on chat completions; the Agent "
            "API takes no video, so there each is left out (and a newest turn of videos alone is refused)"
        )
    content = canonical.content if entry.role == "tool" and isinstance(canonical.content, list) else []
    if files := [str(b.get("filename") or b.get("url") or "a file") for b in content if b.get("type") == "file"]:
        notes.append(
            f"file(s) {listed(files)} in a tool result named in its text on the Agent API (a function output takes "
            "text and images only) and sent as file_url on chat completions"
        )
    return notes


def first_to_convert(entries: Sequence[Entry]) -> int | None:
    """The index of the first message that is not a plain class with string content (and ids), or None."""
    for index, (message, role, _) in enumerate(entries):
        content = message.content
        if type(content) is not str or type(message) not in ROLE_BY_CLASS:
            return index
        if role == "assistant":
            calls = message.tool_calls  # type: ignore[attr-defined]
            if not (content or calls) or message.invalid_tool_calls or not all(map(dict.get, calls, _ID_KEY)):  # type: ignore[attr-defined]
                return index
            if message.additional_kwargs and not VIEW_KWARGS.isdisjoint(message.additional_kwargs):
                return index
        elif role == "tool" and not getattr(message, "tool_call_id", None):
            return index
    return None


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


def _rebuild(message: BaseMessage, role: str, content: Any, tool_calls: list[Any], tool_call_id: str) -> BaseMessage:
    kwargs = dict(message.additional_kwargs)
    if role == "assistant":  # the view has read these
        kwargs = {k: v for k, v in kwargs.items() if k not in VIEW_KWARGS}
    elif role == "system" and is_developer(message):
        kwargs["__openai_role__"] = "developer"
    common: dict[str, Any] = {"content": content, "id": message.id, "name": message.name}
    common |= {"additional_kwargs": kwargs, "response_metadata": dict(message.response_metadata)}
    if role == "assistant":
        return AIMessage(**common, tool_calls=[dict(c) for c in tool_calls])
    if role == "tool":
        return ToolMessage(
            **common,
            tool_call_id=tool_call_id,
            artifact=getattr(message, "artifact", None),
            status=getattr(message, "status", "success"),
        )
    return SystemMessage(**common) if role == "system" else HumanMessage(**common)


@dataclass(frozen=True)
class RepairToolProtocol:
    """Results follow their calls; unanswered calls get a placeholder; orphaned results become user text."""

    missing_result: str = "(no result: this tool call was not answered)"
    name: str = "repair_tool_protocol"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        start = first_broken_turn(entries)
        if start is None:
            return list(entries), []
        out: list[Entry] = list(entries[:start])
        changes: list[Change] = []
        turn: list[Entry] = []  # the assistant turn the entries after it answer
        for assistant, run in groupby(entries[start:], key=lambda entry: entry.role == "assistant"):
            if assistant:
                turn = list(run)
                out.extend(turn)
            else:
                out.extend(self._answer_turn(turn, list(run), changes))
        return out, changes

    def _answer_turn(self, turn: list[Entry], window: list[Entry], changes: list[Change]) -> list[Entry]:
        """The entries up to the next assistant turn: its results first, then the rest."""
        pending = {c["id"]: c for e in turn if isinstance(e.message, AIMessage) for c in e.message.tool_calls}
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
            why = (
                "sent after the tool results of the assistant turn before it "
                "(Perplexity wants results right after their calls)"
            )
            changes.append(Change(self.name, moved, why))
        if pending:
            sources = tuple(s for e in turn for s in e.sources)
            names = ", ".join(f"{c.get('name')!r} ({c['id']})" for c in pending.values())
            why = f"tool call(s) {names} had no result; a placeholder result is sent"
            changes.append(Change(self.name, sources, why))
            results += [
                Entry(ToolMessage(self.missing_result, tool_call_id=c["id"], name=c.get("name")), "tool", ())
                for c in pending.values()
            ]
        return results + others

    def _orphan(self, entry: Entry, changes: list[Change]) -> Entry:
        message = entry.message
        call_id = getattr(message, "tool_call_id", "")
        why = f"a tool result for call {call_id!r} with no matching call before it is sent as a user message"
        changes.append(Change(self.name, entry.sources, why))
        name = f" {message.name!r}" if message.name else ""
        prefix = f"Result of tool call{name} ({call_id}):\n"
        content = message.content
        text = prefix + content if isinstance(content, str) else [{"type": "text", "text": prefix}, *content]
        return Entry(HumanMessage(text, id=message.id), "user", entry.sources)


def first_broken_turn(entries: Sequence[Entry]) -> int | None:
    """The start of the first turn whose results are out of place, or None; unanswered calls at the end pass."""
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


@dataclass(frozen=True)
class DemoteLateSystemMessages:
    """Send a late system (or developer) message as user: "only the initial message can have the system role"."""

    name: str = "demote_late_system_messages"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        roles = list(map(_ROLE, entries))
        start = next((i for i, role in enumerate(roles) if role != "system"), len(roles))
        out: list[Entry] = list(entries)
        changes: list[Change] = []
        for index in [i for i, role in enumerate(roles[start:], start) if role == "system"]:
            (message, _, sources) = entries[index]
            kind = "developer" if is_developer(message) else "system"
            why = (
                f"a {kind} message after the conversation started is sent as a user message "
                "(Perplexity accepts system messages only at the start)"
            )
            changes.append(Change(self.name, sources, why))
            out[index] = Entry(HumanMessage(content=message.content, name=message.name, id=message.id), "user", sources)
        return out, changes


@dataclass(frozen=True)
class MergeAdjacentTurns:
    """Merge adjacent user messages, and adjacent assistant messages, into one; tool results never.

    Not `merge_message_runs`' content merge: it drops separators and leaves bare strings.
    """

    separator: str = "\n\n"
    name: str = "merge_adjacent_turns"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        roles = "".join(entry.role[0] for entry in entries)
        if "uu" not in roles and "aa" not in roles:
            return list(entries), []
        out: list[Entry] = []
        changes: list[Change] = []
        for role, group in groupby(entries, key=_ROLE):
            run = list(group)
            if len(run) == 1 or role == "system" or role == "tool":  # each result answers its own call
                out.extend(run)
                continue
            sources = tuple(s for e in run for s in e.sources)
            out.append(Entry(self._merge(run), role, sources))
            why = (
                f"{len(run)} adjacent {role} messages are sent as one "
                "(Perplexity requires user/tool and assistant turns to alternate)"
            )
            changes.append(Change(self.name, sources, why))
        return out, changes

    def _merge(self, run: Sequence[Entry]) -> BaseMessage:
        messages = [e.message for e in run]
        content = merge_contents([m.content for m in messages], self.separator)
        names = {m.name for m in messages}
        name = names.pop() if len(names) == 1 else None
        # As the class of their role, so `merge_message_runs` merges them; blank, so chunk addition cannot fold
        # blocks sharing an "index".
        wanted = AIMessage if run[0].role == "assistant" else HumanMessage
        blank = [
            m.model_copy(update={"content": ""})
            if isinstance(m, wanted)
            else wanted("", name=m.name, id=m.id, additional_kwargs=m.additional_kwargs)
            for m in messages
        ]
        (merged,) = merge_message_runs(blank)
        return merged.model_copy(update={"content": content, "name": name, "id": messages[0].id})


def merge_contents(contents: Sequence[str | list[Any]], separator: str) -> Any:
    """Join message contents: strings with `separator`, else one block list; empty strings are skipped."""
    if all(isinstance(c, str) for c in contents):
        return separator.join(c for c in contents if isinstance(c, str) and c)
    blocks = [b for c in contents for b in ([c] if isinstance(c, str) else c) if not isinstance(b, str) or b]
    return [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]


@dataclass(frozen=True)
class DropTrailingAssistantMessages:
    """Drop assistant messages at the end of the conversation: Perplexity requires a user or tool message last."""

    name: str = "drop_trailing_assistant_messages"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        end = len(entries)
        while end and entries[end - 1].role == "assistant":
            end -= 1
        if end == len(entries):
            return list(entries), []
        dropped = tuple(s for e in entries[end:] for s in e.sources)
        why = (
            "a trailing assistant message is not sent (Perplexity requires the "
            "last message to be user or tool; OpenAI ignores it server-side)"
        )
        return list(entries[:end]), [Change(self.name, dropped, why)]


@dataclass(frozen=True)
class StartWithUserTurn:
    """Open with a user turn (`opening`) when an assistant message comes first: Perplexity wants user first."""

    opening: str = "(conversation start)"
    name: str = "start_with_user_turn"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        first = next((i for i, e in enumerate(entries) if e.role != "system"), None)
        if first is None or entries[first].role != "assistant":
            return list(entries), []
        opening = Entry(HumanMessage(content=self.opening), "user", ())
        why = (
            f"the first turn is an assistant message; a user message {self.opening!r} is inserted "
            "before it (Perplexity expects user then assistant)"
        )
        return [*entries[:first], opening, *entries[first:]], [Change(self.name, entries[first].sources, why)]


DEFAULT_RULES: tuple[Rule, ...] = (
    CanonicalMessages(),
    RepairToolProtocol(),
    DemoteLateSystemMessages(),
    MergeAdjacentTurns(),
    DropTrailingAssistantMessages(),
    StartWithUserTurn(),
)
"""The rules `normalize_messages` applies, in order."""

# -- what a surface or a model's profile does not take, run before DEFAULT_RULES --------------------

NOT_SENT = "a file the tool returned is not sent"
_NEITHER = frozenset({*TEXT_TYPES, *REASONING_TYPES, *TOOL_CALL_TYPES})
"""Block types that are never media."""
_LABELS = {"video": "video block(s)", "file": "file(s)", "image": "image(s)", "image_url": "image URL(s)"}


@dataclass(frozen=True)
class ContentLimits:
    """Leave out kinds in `turns`, name kinds in `tool_results` in the result's text; each kind maps to why.

    Kinds: `"video"`, `"file"`, `"image"`, `"image_url"`.
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
            kept, left_out, named = self._sorted(content, tool=entry.role == "tool")
            for kind, names in left_out.items():
                if index == newest:
                    send = "Send text, or content this model's profile takes."
                    newest_turn_lost(names, self.turns[kind], nothing_left=not kept, send=send)
                what = f"{_LABELS[kind]} {listed(names)} left out ({self.turns[kind]})"
                changes.append(Change(self.name, entry.sources, what))
            for kind, names in named.items():
                if index > answered and index > newest:  # the result the model answers now
                    warn(
                        f"The newest tool result lost its {_LABELS[kind]}, named in its text instead: "
                        f"{self.tool_results[kind]}. Return the content's text, or use a model whose profile takes it."
                    )
                what = f"{_LABELS[kind]} {listed(names)} in a tool result named in its text ({self.tool_results[kind]})"
                changes.append(Change(self.name, entry.sources, what))
            if left_out or named:
                entry = Entry(entry.message.model_copy(update={"content": kept}), entry.role, entry.sources)
            out.append(entry)
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
            kind, name = _limit_kind(block)
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


def _limit_kind(block: dict[str, Any]) -> tuple[str, str]:
    """A block's `ContentLimits` kind ("" if none) and its report name."""
    converted = next(iter(canonical_blocks([block])), {})
    kind = converted.get("type")
    if kind == "video":
        return "video", converted["kind"]
    if kind == "file":
        return "file", str(converted.get("filename") or converted.get("url") or "a file")
    if kind == "image":
        return ("image" if converted["url"].startswith("data:") else "image_url"), str(block.get("type"))
    return "", ""


# -- running them ---------------------------------------------------------------------------------

_KNOWN_RULES = frozenset({*map(type, DEFAULT_RULES), ContentLimits})
"""The package's rule classes: each passes a history in `_IN_ORDER` of plain text messages as it is."""
_LETTER = {cls: role[0] for cls, role in ROLE_BY_CLASS.items()}
"""A plain class's role as one letter: s, u, a or t."""
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
    messages = messages if isinstance(messages, list) else list(messages)
    return _normalized(messages, rules)


def _normalized(messages: list[Any], rules: Sequence[Rule], *, check_approvals: bool = False) -> NormalizationResult:
    """`normalize_messages` on a list; plain text classes in order pass as they are when every rule is the package's."""
    sources: list[tuple[int, ...]] = list(zip(range(len(messages))))
    try:
        roles = map(ROLE_BY_CLASS.__getitem__, map(type, messages))
        entries = list(map(tuple.__new__, repeat(Entry), zip(messages, roles, sources, strict=True)))
    except KeyError:
        converted = [m if isinstance(m, BaseMessage) else convert_to_messages([m])[0] for m in messages]
        entries = [Entry(m, role_of(m, index=i), (i,)) for i, m in enumerate(converted)]
    else:
        if (
            _KNOWN_RULES.issuperset(map(type, rules))
            and _IN_ORDER.fullmatch("".join(map(_LETTER.__getitem__, map(type, messages))))
            and first_to_convert(entries) is None
            and first_broken_turn(entries) is None
        ):
            return NormalizationResult(list(messages), [], sources)
    if check_approvals:
        check_approval_history(messages)
    if not entries:
        msg = "messages: the conversation is empty; Perplexity needs at least one user message."
        raise ValueError(msg)
    changes: list[Change] = []
    for rule in rules:
        entries, rule_changes = rule(entries)
        changes.extend(rule_changes)
    if all(e.role == "system" for e in entries):
        msg = (
            f"messages: the conversation has no user, assistant or tool message ({len(messages)} message(s) given, "
            "none left after normalization but system messages); Perplexity refuses a conversation of nothing but "
            "system messages. Add the user's message."
        )
        if changes:
            msg += " What the rules did: " + "; ".join(str(c) for c in changes)
        raise ValueError(msg)
    return NormalizationResult(list(map(_MESSAGE, entries)), changes, list(map(_SOURCES, entries)))


@dataclass(frozen=True)
class Prepared:
    """A conversation ready to send, with its report and compaction summary."""

    result: NormalizationResult
    compaction: dict[str, Any] | None = None
    """What compaction dropped, for `response_metadata["compaction"]`; None when nothing."""
    kept_whole: bool = False

    @property
    def messages(self) -> list[BaseMessage]:
        return self.result.messages


def prepare(
    messages: list[BaseMessage],
    *,
    rules: Sequence[Rule] = DEFAULT_RULES,
    budget: int | None = None,
    counter: TokenCounter | None = None,
    keep_whole: Callable[[NormalizationResult], bool] | None = None,
) -> Prepared:
    """Normalize all (roles fixed before a cut), compact to `budget` unless `keep_whole`, normalize what is left.

    Approvals are checked before merging would blur the error.
    """
    whole = _normalized(messages, rules, check_approvals=True)
    if keep_whole is not None and keep_whole(whole):
        return Prepared(whole, kept_whole=True)
    result = compact_normalized(whole, rules, budget, counter)
    cuts = [] if result is whole else [c for c in result.changes if c.rule == RULE_NAME]
    if not cuts:
        return Prepared(result)
    summary = {
        "max_input_tokens": budget,
        "messages_in": len(messages),
        "messages_sent": len(result.messages),
        "dropped": sorted({s for c in cuts for s in c.sources}),
        "changes": [str(c) for c in cuts],
    }
    return Prepared(result, summary)


def compact_normalized(
    normalized: NormalizationResult, rules: Sequence[Any], budget: int | None, counter: TokenCounter | None
) -> NormalizationResult:
    """Compact a normalized history to `budget` tokens, and normalize what is left."""
    messages = normalized.messages
    if not budget or (
        counter is None
        and all(type(m.content) is str for m in messages)
        and count_tokens_approximately(messages) <= budget
    ):
        return normalized
    compacted = compact_messages(messages, budget, token_counter=counter)
    if not compacted.changes:
        return normalized
    origin = normalized.sources

    def caller(positions: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(s for p in positions for s in origin[p])

    again = normalize_messages(compacted.messages, rules=rules)
    kept = compacted.kept
    changes = [
        *normalized.changes,
        *(Change(c.rule, caller(c.sources), c.reason) for c in compacted.changes),
        *(Change(c.rule, caller(tuple(kept[i] for i in c.sources)), c.reason) for c in again.changes),
    ]
    sources = [caller(tuple(kept[i] for i in s)) for s in again.sources]
    return NormalizationResult(again.messages, changes, sources)
