"""The role Perplexity sees for each LangChain message.

The one place that maps a message to system, user, assistant or tool, so all callers agree.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

Role = Literal["system", "user", "assistant", "tool"]

# ChatMessage role spellings.
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
    """Whether `message` is a developer message."""
    if isinstance(message, ChatMessage):
        return message.role.lower() == "developer"
    return isinstance(message, SystemMessage) and message.additional_kwargs.get("__openai_role__") == "developer"
