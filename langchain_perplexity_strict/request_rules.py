"""Build the request body for each surface from a normalized conversation.

langchain-openai converts the messages and tools (``ChatOpenAI._get_request_payload``);
the functions here rewrite what it produced into the shape Perplexity
accepts, because the Agent API refuses any field it does not know
(perplexity-api.md §3, rule zero) and langchain-openai writes a few that
Perplexity does not have (``text.format``, item ids, ``type: "message"``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models.base import _construct_responses_api_input

from langchain_perplexity_strict.models import agent_target
from langchain_perplexity_strict.parameters import DATE_FILTERS

# Call-time keyword arguments that shape the request rather than sampling.
TOOL_KWARGS = ("tools", "tool_choice", "parallel_tool_calls")

_AGENT_SETTINGS = {  # our name -> Agent API field
    "temperature": "temperature",
    "top_p": "top_p",
    "max_tokens": "max_output_tokens",
    "language_preference": "language_preference",
    "models": "models",
    "max_steps": "max_steps",
}
_CHAT_SETTINGS = (
    "temperature", "top_p", "top_k", "max_tokens", "presence_penalty",
    "frequency_penalty", "reasoning_effort", "language_preference", "search_mode",
    "return_images", "return_related_questions", "disable_search",
    "search_domain_filter", "search_recency_filter", *DATE_FILTERS,
)  # fmt: skip


def agent_request(
    transport: ChatOpenAI,
    messages: Sequence[BaseMessage],
    settings: Mapping[str, Any],
    call: Mapping[str, Any],
    *,
    stream: bool,
) -> dict[str, Any]:
    """The Agent API body (``POST /v1/responses``)."""
    tool_kwargs = {k: call[k] for k in TOOL_KWARGS if call.get(k) is not None}
    # langchain-openai converts the tools; without tools there is nothing for it to build here.
    payload = transport._get_request_payload([], **tool_kwargs) if tool_kwargs else {}
    payload.pop("text", None)
    payload.pop("include", None)
    payload.pop("store", None)
    check_content_blocks(messages)
    payload["input"] = agent_input(messages)
    payload["stream"] = stream
    target = agent_target(settings["model"])
    preset = settings.get("preset") or target.preset
    if preset:
        payload.pop("model", None)
        payload["preset"] = preset
    else:
        payload["model"] = target.model
    for ours, theirs in _AGENT_SETTINGS.items():
        if settings.get(ours) is not None:
            payload[theirs] = settings[ours]
    if settings.get("reasoning_effort") is not None:
        payload["reasoning"] = {"effort": settings["reasoning_effort"]}
    tools = [_agent_function_tool(t) for t in payload.get("tools") or []]
    search_tool = web_search_tool(settings, has_preset=bool(preset))
    if search_tool is not None:
        tools.append(search_tool)
    if tools:
        payload["tools"] = tools
    if "tool_choice" in payload:
        payload["tool_choice"] = _agent_tool_choice(payload["tool_choice"])
    if call.get("response_format") is not None:
        # Top level, chat-completions shape; OpenAI's text.format is refused.
        payload["response_format"] = call["response_format"]
    payload.update(settings.get("model_kwargs") or {})
    return payload


MAX_BODY_BYTES = 32 * 1024 * 1024  # perplexity-api.md §4: 413 payload_too_large above this


def encode_body(payload: Mapping[str, Any]) -> bytes:
    """The body's bytes, exactly as sent; a body Perplexity would answer 413 is refused here.

    Serialized once, with the openai client's own settings (compact, UTF-8, no
    NaN), and posted as bytes: the size checked is the size sent, and the
    client does not serialize the body a second time.
    """
    try:
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    except ValueError as error:
        msg = f"request body: {error}; NaN and infinite numbers are not JSON (check model_kwargs)."
        raise ValueError(msg) from error
    size = len(body)
    if size > MAX_BODY_BYTES:
        msg = (
            f"request body: {size:,} bytes is over Perplexity's limit of {MAX_BODY_BYTES:,} bytes (32 MiB); "
            "shorten the conversation (max_input_tokens compacts it) or send smaller images."
        )
        raise ValueError(msg)
    return body


def web_search_tool(settings: Mapping[str, Any], *, has_preset: bool) -> dict[str, Any] | None:
    """The built-in ``web_search`` tool with its filters, or None when search is off.

    A bare model is ungrounded on the Agent API; the tool makes it answer as
    a Sonar model did. A preset searches on its own, so the tool is added to
    a preset only to carry filters.
    """
    if not settings.get("web_search", True):
        return None
    filters = {
        k: settings[k]
        for k in ("search_domain_filter", "search_recency_filter", *DATE_FILTERS)
        if settings.get(k) is not None
    }
    tool: dict[str, Any] = {"type": "web_search"}
    if filters:
        tool["filters"] = filters
    for ours, theirs in (
        ("search_context_size", "search_context_size"),
        ("user_location", "user_location"),
        ("max_search_results", "max_results"),
    ):
        if settings.get(ours) is not None:
            tool[theirs] = settings[ours]
    if has_preset and len(tool) == 1:
        return None
    return tool


def _agent_function_tool(tool: dict[str, Any]) -> dict[str, Any]:
    if tool.get("type") == "function" and "function" in tool:
        tool = {"type": "function", **tool["function"]}
    if tool.get("type") == "function":
        return {k: tool[k] for k in ("type", "name", "description", "parameters", "strict") if k in tool}
    return tool


def _agent_tool_choice(choice: Any) -> Any:
    if isinstance(choice, dict):
        name = choice.get("name") or (choice.get("function") or {}).get("name")
        if name:
            return {"name": name}
    return choice


# Content block types Perplexity takes in user, system and tool messages: text
# and images (perplexity-api.md §3 input; §3 "Removed": file/pdf/video parts).
ACCEPTED_BLOCKS = frozenset({"text", "image_url", "image", "input_text", "input_image"})


def check_content_blocks(messages: Sequence[BaseMessage]) -> None:
    """Refuse content blocks Perplexity does not take, naming the caller's own block type.

    Checked before langchain-openai converts the messages: it drops some block
    types silently (``video_url`` on the Responses path), which would send a
    message without its content.
    """
    for index, message in enumerate(messages):
        if isinstance(message, AIMessage) or isinstance(message.content, str):
            continue
        for block in message.content:
            kind = block.get("type") if isinstance(block, dict) else "text"
            if kind not in ACCEPTED_BLOCKS:
                msg = (
                    f"messages[{index}]: content block of type {kind!r} is not accepted by Perplexity; "
                    f"it accepts {', '.join(sorted(ACCEPTED_BLOCKS))} (text and images)."
                )
                raise ValueError(msg)


def agent_input(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """Agent API ``input`` items, in the documented shapes only.

    Converted one message at a time: langchain-openai's converter scans every
    item built so far for each assistant message (quadratic on tool-calling
    histories), and the ids it looks for only repeat within one message, so
    per-message conversion gives the same items in linear time.
    """
    items: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        plain = _plain_item(message)
        if plain is not None:
            items.append(plain)
            continue
        for item in _construct_responses_api_input([message]):
            clean = _agent_item(item, index)
            if clean is not None:
                items.append(clean)
    return items


def _plain_item(message: BaseMessage) -> dict[str, Any] | None:
    """The item of a message that is only a role and a text, as the converter would give it.

    Most of a history is such messages; building their items directly halves the
    cost of the body. Anything else (None here) goes through the converter.
    """
    if not isinstance(message.content, str) or message.additional_kwargs:
        return None
    kind = type(message)
    if kind is HumanMessage:
        return {"role": "user", "content": message.content}
    if kind is SystemMessage:
        return {"role": "system", "content": message.content}
    if kind is AIMessage and isinstance(message, AIMessage) and not (message.tool_calls or message.invalid_tool_calls):
        return {"role": "assistant", "content": [{"type": "output_text", "text": message.content}]}
    return None


def _agent_item(item: dict[str, Any], index: int) -> dict[str, Any] | None:
    kind = item.get("type", "message")
    if kind == "message":
        role = item["role"]
        content = item.get("content")
        if isinstance(content, list):
            content = [_agent_part(p, role, index) for p in content]
        return {"role": role, "content": content}
    if kind == "function_call":
        return {k: item[k] for k in ("type", "call_id", "name", "arguments")}
    if kind == "function_call_output":
        output = item.get("output")
        if not isinstance(output, str):
            output = json.dumps(output)
        return {
            "type": "function_call_output",
            "call_id": item["call_id"],
            "output": output,
        }
    if kind == "reasoning":
        # Another model's reasoning items: the Agent API has no reasoning input.
        return None
    msg = (
        f"messages[{index}]: a {kind!r} item cannot be sent to Perplexity's Agent API; "
        "it accepts messages, function calls and function call outputs."
    )
    raise ValueError(msg)


def _agent_part(part: Any, role: str, index: int) -> dict[str, Any]:
    text_type = "output_text" if role == "assistant" else "input_text"
    if isinstance(part, str):
        return {"type": text_type, "text": part}
    kind = part.get("type")
    if kind in ("input_text", "output_text", "text"):
        return {"type": text_type, "text": part.get("text", "")}
    if kind == "input_image" and part.get("image_url"):
        image = {"type": "input_image", "image_url": part["image_url"]}
        if part.get("detail"):
            image["detail"] = part["detail"]
        return image
    msg = (
        f"messages[{index}]: content block of type {kind!r} is not accepted by "
        "Perplexity's Agent API; it accepts text and images (image URLs or data URLs)."
    )
    raise ValueError(msg)


def chat_completions_request(
    transport: ChatOpenAI,
    messages: Sequence[BaseMessage],
    settings: Mapping[str, Any],
    call: Mapping[str, Any],
    *,
    stream: bool,
) -> dict[str, Any]:
    """The Sonar chat-completions body (``POST /chat/completions``)."""
    check_content_blocks(messages)
    tool_kwargs = {k: call[k] for k in TOOL_KWARGS if call.get(k) is not None}
    payload = transport._get_request_payload(list(messages), **tool_kwargs)
    payload["messages"] = [_chat_message(m, i) for i, m in enumerate(payload["messages"])]
    payload["model"] = settings["model"]
    payload["stream"] = stream
    payload.pop("stream_options", None)
    for key in _CHAT_SETTINGS:
        if settings.get(key) is not None:
            payload[key] = settings[key]
    options = {k: settings[k] for k in ("search_context_size", "user_location") if settings.get(k) is not None}
    if options:
        payload["web_search_options"] = options
    if call.get("response_format") is not None:
        payload["response_format"] = call["response_format"]
    payload.update(settings.get("model_kwargs") or {})
    return payload


def _chat_message(message: dict[str, Any], index: int) -> dict[str, Any]:
    message = {k: v for k, v in message.items() if k != "name"}
    if message["role"] == "developer":
        message["role"] = "system"
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else "text"
            if kind not in ("text", "image_url"):
                msg = (
                    f"messages[{index}]: content block of type {kind!r} is not accepted by "
                    "Perplexity's chat completions; it accepts text and image_url blocks."
                )
                raise ValueError(msg)
    return message
