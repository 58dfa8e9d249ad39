"""MCP approvals in a history, in `ChatOpenAI`'s form: the requests an answer carried, the app's responses.

Requests sit in `additional_kwargs`, `non_standard` blocks or bare in `content`; responses in user content.
The Agent API takes both as input items (`McpApprovalRequestInputInput`, `McpApprovalResponseInputInput`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from langchain_perplexity_strict._message_keys import MCP_APPROVAL_REQUESTS

REQUEST_FIELDS = ("type", "id", "name", "arguments", "server_label", "connector_id", "thought_signature")
RESPONSE_FIELDS = ("type", "approval_request_id", "approve", "reason", "id")
SERVER_ITEM_TYPES = frozenset(
    {
        "search_results",
        "fetch_url_results",
        "image_search_results",
        "mcp_list_tools",
        "mcp_call",
        "mcp_approval_request",
        "tool_search_output",
        "skill_loaded",
        "sandbox_results",
        "sandbox_write_file",
        "sandbox_read_file",
        "sandbox_edit_file",
        "sandbox_grep",
        "sandbox_glob",
        "sandbox_apply_patch",
        "share_file",
        "unknown",
    }
)
"""Server tool and skill items of `OutputItemOutput`."""
SERVER_BLOCK_TYPES = frozenset({"server_tool_call", "server_tool_call_chunk", "server_tool_result"})


def _unwrapped(block: Any) -> Any:
    if isinstance(block, dict) and block.get("type") == "non_standard" and isinstance(block.get("value"), dict):
        return block["value"]
    return block


def is_server_output(block: Any) -> bool:
    """Whether `block` is a server tool's work in an earlier answer; it is not sent back."""
    if not isinstance(block, dict):
        return False
    return block.get("type") in SERVER_BLOCK_TYPES or _unwrapped(block).get("type") in SERVER_ITEM_TYPES


def is_approval_response(block: Any) -> bool:
    """Whether `block` is an `mcp_approval_response`."""
    value = _unwrapped(block)
    return isinstance(value, dict) and value.get("type") == "mcp_approval_response"


def approval_responses(content: Any) -> list[dict[str, Any]]:
    """User content's approval responses, published fields only."""
    if not isinstance(content, list):
        return []
    return [_fields(_unwrapped(b), RESPONSE_FIELDS) for b in content if is_approval_response(b)]


def approval_requests(message: BaseMessage) -> list[dict[str, Any]]:
    """An answer's approval requests, once each (the first by id), published fields only."""
    found = [*(message.additional_kwargs.get(MCP_APPROVAL_REQUESTS) or [])]
    if isinstance(message.content, list):
        found.extend(map(_unwrapped, message.content))
    once: dict[str, dict[str, Any]] = {}
    for item in found:
        if isinstance(item, dict) and item.get("type") == "mcp_approval_request" and isinstance(item.get("id"), str):
            once.setdefault(item["id"], _fields(item, REQUEST_FIELDS))
    return list(once.values())


def _fields(item: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {k: item[k] for k in fields if item.get(k) is not None}


def check_approval_history(messages: Iterable[BaseMessage]) -> None:
    """Raise `ValueError` when an `mcp_approval_response` answers no pending `mcp_approval_request`.

    Run on the caller's messages, before merging would blur the error.
    """
    pending: dict[str, None] = {}  # ordered, for the error
    answered: set[str] = set()
    for message in messages:
        if type(message.content) is str and MCP_APPROVAL_REQUESTS not in message.additional_kwargs:
            continue  # text alone holds neither requests nor responses
        if isinstance(message, AIMessage):
            pending.update(dict.fromkeys(r["id"] for r in approval_requests(message)))
            continue
        for response in approval_responses(message.content):
            request_id = response.get("approval_request_id")
            if request_id in pending:
                del pending[request_id]
                answered.add(request_id)
                continue
            if request_id in answered:
                problem = "was answered already"
            elif not pending and not answered:
                problem = "has no mcp_approval_request before it in the history"
            else:
                problem = "names no pending mcp_approval_request; pending: " + (", ".join(pending) or "none")
            msg = (
                f"mcp_approval_response (approval_request_id={request_id!r}) {problem}. An approval answers "
                "an mcp_approval_request of an earlier answer: keep that answer in the history and use its id."
            )
            raise ValueError(msg)
