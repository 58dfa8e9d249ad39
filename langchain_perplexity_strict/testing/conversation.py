"""Perplexity's conversation rules, checked on the wire.

This is the emulator's judge of a message history, written independently of
the normalizer (which rewrites histories; this only checks them). It works on
`Turn`s read from either surface: chat-completions `messages` or Agent API
`input` items.

Sources: docs/perplexity-rules.md (the conversation rules, statefulness,
user first).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_perplexity_strict.testing.errors import APIError, invalid

# Source: docs/perplexity-rules.md, the mid-2025 wording of the alternation error.
ALTERNATION_MESSAGE = (
    "After the (optional) system message(s), user or tool message(s) should alternate with assistant message(s)."
)


# Input items the model's side of the conversation produced (`InputItemInput`).
ASSISTANT_ITEMS = ("reasoning", "mcp_list_tools", "mcp_call", "mcp_approval_request")


@dataclass
class Turn:
    """One message as the rules see it: a role, a content key, tool links."""

    role: str
    key: str
    calls: list[str] = field(default_factory=list)
    answers: str | None = None
    approvals: bool = False
    """Whether the turn is the app's `mcp_approval_response` items (one turn however many)."""


@dataclass(frozen=True)
class ConversationRules:
    """Switches for the rules that public sources do not settle.

    `require_user_first` (default on): Perplexity's error wording says the turns go "user then
    assistant"; unverified on the current API.
    `allow_user_after_tool` (default on): the mid-2025 error wording speaks of
    "user or tool message(s)" as one side of the alternation.
    """

    require_user_first: bool = True
    allow_user_after_tool: bool = True


def content_key(value: Any) -> str:
    """A stable text key for a message's content, independent of its role."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def turns_from_chat_messages(messages: Any, error_type: str) -> list[Turn]:
    """Read chat-completions `messages` into turns (shape errors are a 400)."""
    if not isinstance(messages, list):
        raise invalid(error_type, "messages must be a list", "messages")
    turns: list[Turn] = []
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise invalid(error_type, f"{where} must be an object", where)
        role = message.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            raise invalid(
                error_type,
                f"{where}.role {role!r} is not one of system, user, assistant, tool",
                f"{where}.role",
            )
        turn = Turn(role, content_key(message.get("content")))
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                turn.calls.append(str(call.get("id")))
                turn.key += "\x00" + content_key(call)
        if role == "tool":
            turn.answers = message.get("tool_call_id")
            if not turn.answers:
                raise invalid(
                    error_type,
                    f"{where}: a tool message needs a tool_call_id",
                    f"{where}.tool_call_id",
                )
        turns.append(turn)
    return turns


def turns_from_agent_input(items: Sequence[dict[str, Any]]) -> list[Turn]:
    """Read Agent API `input` items into turns.

    A `function_call` item, and the server's own items (reasoning, MCP
    listings, calls and approval requests), belong to the assistant turn
    they follow (or open one); a `function_call_output` item is a tool
    message; `mcp_approval_response` items in a row are one user turn (the app
    answers every pending request at once, as consecutive `function_call_output`
    items answer one assistant turn; docs/perplexity-rules.md, "MCP approvals").
    """
    turns: list[Turn] = []
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call":
            call_key = content_key([item.get("call_id"), item.get("name"), item.get("arguments")])
            if turns and turns[-1].role == "assistant":
                turns[-1].calls.append(item["call_id"])
                turns[-1].key += "\x00" + call_key
            else:
                turns.append(Turn("assistant", "\x00" + call_key, [item["call_id"]]))
        elif kind == "function_call_output":
            turns.append(Turn("tool", content_key(item.get("output")), answers=item["call_id"]))
        elif kind in ASSISTANT_ITEMS:
            if turns and turns[-1].role == "assistant":
                turns[-1].key += "\x00" + content_key(item)
            else:
                turns.append(Turn("assistant", "\x00" + content_key(item)))
        elif kind == "mcp_approval_response":
            if turns and turns[-1].role == "user" and turns[-1].approvals:
                turns[-1].key += "\x00" + content_key(item)
            else:
                turns.append(Turn("user", content_key(item), approvals=True))
        else:
            role = item["role"]
            role = "system" if role == "developer" else role
            turns.append(Turn(role, content_key(item.get("content"))))
    return turns


def check_conversation(turns: Sequence[Turn], rules: ConversationRules, error_type: str) -> None:
    """Raise the 400 Perplexity gives for a history that breaks the conversation rules."""
    if not turns or all(t.role == "system" for t in turns):
        raise invalid(error_type, "the conversation needs a user message", "messages")
    leading = True
    previous: Turn | None = None
    pending: set[str] = set()
    for i, turn in enumerate(turns):
        if turn.role == "system":
            if not leading:
                raise invalid(error_type, "only the initial message can have the system role")
            continue
        if leading:
            leading = False
            if rules.require_user_first and turn.role != "user":
                raise invalid(
                    error_type,
                    ALTERNATION_MESSAGE + " The first turn must be the user's.",
                )
        if turn.role == "tool":
            if turn.answers not in pending:
                raise invalid(
                    error_type,
                    f"tool message {i} answers tool_call_id {turn.answers!r}, which "
                    "is not a pending call of the assistant turn before it",
                )
            pending.discard(turn.answers or "")
        else:
            if pending:
                raise invalid(
                    error_type,
                    "tool call(s) " + ", ".join(sorted(pending)) + " have no result before the next message",
                )
            if previous is not None and _same_side(previous, turn, rules):
                raise invalid(error_type, ALTERNATION_MESSAGE)
            pending = set(turn.calls)
        previous = turn
    if turns[-1].role not in ("user", "tool"):
        raise invalid(error_type, "the last message must have the user or tool role")


def _same_side(previous: Turn, turn: Turn, rules: ConversationRules) -> bool:
    if turn.role == "assistant":
        return previous.role == "assistant"
    if previous.role == "tool":
        return not rules.allow_user_after_tool
    return previous.role == "user"


class RoleMemory:
    """Remembers the role each message was sent under, per conversation prefix.

    Seeds 000/001: Perplexity keeps state within a conversation and rejects a
    message sent under one role on one turn and another role on the next. A
    message is identified by the contents of all messages up to it (roles
    excluded), so the same history prefix always names the same message, within one account: the
    conversations of two API keys are two, however alike.
    """

    def __init__(self, limit: int = 200_000) -> None:
        self._roles: dict[bytes, str] = {}
        self._limit = limit
        self._lock = threading.Lock()

    def check_and_remember(self, turns: Sequence[Turn], error_type: str, account: str = "") -> None:
        """Raise a 400 if a message comes back under another role for `account` (the API key); else remember."""
        digest = hashlib.blake2b(account.encode("utf-8", "surrogatepass") + b"\x1f", digest_size=16)
        keys = []
        for turn in turns:
            digest.update(turn.key.encode("utf-8", "surrogatepass") + b"\x1e")
            keys.append(digest.copy().digest())
        with self._lock:
            for i, (key, turn) in enumerate(zip(keys, turns, strict=True)):
                seen = self._roles.get(key)
                if seen is not None and seen != turn.role:
                    raise APIError(
                        400,
                        error_type,
                        f"message {i} was sent as {seen!r} earlier in this conversation and now as {turn.role!r}",
                    )
            if len(self._roles) + len(keys) > self._limit:
                self._roles.clear()
            for key, turn in zip(keys, turns, strict=True):
                self._roles[key] = turn.role
