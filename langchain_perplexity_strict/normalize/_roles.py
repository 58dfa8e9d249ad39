"""The role Perplexity sees for each LangChain message, and the records the normalizer's rules exchange."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Literal, NamedTuple, Protocol

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from langchain_perplexity_strict._once import warn

Role = Literal["system", "user", "assistant", "tool"]

_CHAT_MESSAGE_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
}

ACCEPTED_ROLES = "system, developer, user (human), assistant (ai) and tool"


ROLE_BY_CLASS: dict[type, Role] = {
    HumanMessage: "user",
    AIMessage: "assistant",
    SystemMessage: "system",
    ToolMessage: "tool",
}


def role_of(message: BaseMessage, *, index: int | None = None) -> Role:
    """Return the Perplexity role of `message`; `ValueError` when it has none."""
    role = next((r for cls, r in ROLE_BY_CLASS.items() if isinstance(message, cls)), None)
    if role is not None:
        return role
    where = f"messages[{index}]" if index is not None else "message"
    if isinstance(message, ChatMessage):
        role = _CHAT_MESSAGE_ROLES.get(message.role.lower())
        if role is not None:
            return role
        msg = f"{where}: unknown role {message.role!r}; Perplexity accepts {ACCEPTED_ROLES}."
        raise ValueError(msg)
    if isinstance(message, FunctionMessage):
        msg = (
            f"{where}: FunctionMessage (role 'function', name {message.name!r}) is "
            "the legacy OpenAI function-calling result, which Perplexity does not "
            "accept; send the result as a ToolMessage with the call's tool_call_id."
        )
        raise ValueError(msg)
    msg = (
        f"{where}: unknown message type {type(message).__name__} "
        f"(type {message.type!r}); Perplexity accepts {ACCEPTED_ROLES}."
    )
    raise ValueError(msg)


def is_developer(message: BaseMessage) -> bool:
    if isinstance(message, ChatMessage):
        return message.role.lower() == "developer"
    return isinstance(message, SystemMessage) and message.additional_kwargs.get("__openai_role__") == "developer"


class Entry(NamedTuple):
    """One message on its way through the rules; `sources` are its input positions."""

    message: BaseMessage
    role: Role
    sources: tuple[int, ...]


@dataclass(frozen=True)
class Change:
    """What one rule did to some input messages, and why."""

    rule: str
    sources: tuple[int, ...]
    reason: str

    def __str__(self) -> str:
        return f"{self.rule}: {_positions(self.sources) or '(inserted)'}: {self.reason}"


def _positions(sources: tuple[int, ...]) -> str:
    """Positions as `#1, #2`, with runs of three or more as `#1-#82`."""
    runs = [[i for _, i in run] for _, run in groupby(enumerate(sources), lambda pair: pair[1] - pair[0])]
    return ", ".join(f"#{run[0]}-#{run[-1]}" if len(run) > 2 else ", ".join(f"#{i}" for i in run) for run in runs)


class Rule(Protocol):
    """A rewrite of the conversation: the rewritten entries and what changed; `name` names it in the report."""

    @property
    def name(self) -> str: ...

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]: ...


def listed(names: list[str]) -> str:
    """Names once each, quoted, in order."""
    return ", ".join(repr(n) for n in dict.fromkeys(names))


def newest_turn_lost(kinds: list[str], why: str, *, nothing_left: bool, send: str) -> None:
    """Warn that the newest user turn lost blocks of `kinds`; raise, saying what to `send`, if nothing is left."""
    if nothing_left:
        msg = (
            f"messages: content block(s) {listed(kinds)} left out of the newest user message ({why}), and nothing "
            f"is left to answer. {send}"
        )
        raise ValueError(msg)
    warn(f"The newest user message lost content block(s) {listed(kinds)}: {why}; the rest of the message is sent.")
