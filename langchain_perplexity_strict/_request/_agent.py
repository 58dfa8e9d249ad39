"""The Agent API body (`POST /v1/responses`): only `ResponsesRequestInput`'s fields, as others get a 400.

Hand-built: langchain-openai's Responses converter writes fields the published input refuses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict._message_keys import THOUGHT_SIGNATURES
from langchain_perplexity_strict._request._input import BodyInput, PartTable, content_parts, tool_arguments
from langchain_perplexity_strict._request._model_names import SONAR_TO_AGENT, AgentTarget
from langchain_perplexity_strict._request._parameter_row import place
from langchain_perplexity_strict._request._parameter_table import CLIENT, PARAMETERS
from langchain_perplexity_strict._request._structured_output import agent_response_format
from langchain_perplexity_strict._request._tools import agent_tool, with_search_tool
from langchain_perplexity_strict.data._profiles import MODEL_FACTS
from langchain_perplexity_strict.normalize._content import (
    approval_requests,
    approval_responses,
    canonical_text,
    data_url,
)
from langchain_perplexity_strict.normalize._normalizer import AGENT_CONTENT
from langchain_perplexity_strict.normalize._roles import is_developer


def agent_body(request: BodyInput) -> dict[str, Any]:
    """The whole body; a continuation sends only what follows the stored response."""
    settings, call, plan = request.settings, request.call, request.plan
    continuation = plan.continuation if plan is not None else None
    items = continuation.items if continuation is not None else plan.items if plan is not None else None
    if items is None:
        items = list(chain.from_iterable(agent_items(request.messages)))
    body: dict[str, Any] = {"input": items}
    body.update(model_and_preset(settings, request.model_explicit))
    preset = body.get("effort") or body.get("preset")
    for name, value in settings.items():
        parameter = PARAMETERS.get(name)
        if value is not None and parameter is not None and parameter.agent not in (None, CLIENT, "effort", "preset"):
            place(body, parameter.agent, value)
    if "max_output_tokens" not in body and (limit := _max_output_tokens(body, request.profile)):
        body["max_output_tokens"] = limit
    tools = [agent_tool(t) for t in call["tools"]] if call.get("tools") else []
    # A bare model is ungrounded on the Agent API; a preset searches on its own.
    tools = with_search_tool(tools, body.pop("web_search", {}), off=search_off(settings, call), bare=not preset)
    if tools:
        body["tools"] = tools
    if (choice := call.get("tool_choice")) is not None:  # `ToolChoiceInput`: a word or `{"name": fn}`
        body["tool_choice"] = {"name": choice["function"]["name"]} if isinstance(choice, dict) else choice
    if call.get("response_format") is not None:
        body["response_format"] = agent_response_format(call["response_format"])
    body["stream"] = request.stream
    body.update(settings.get("model_kwargs") or {})
    if continuation is not None:
        body.update(continuation.body_fields())
    return body


def search_off(settings: Mapping[str, Any], call: Mapping[str, Any]) -> str:
    """The switch that turns web search off, as the user wrote it ('' when search is on)."""
    if settings.get("disable_search"):
        return "disable_search=True"
    if settings.get("web_search") is False:
        return "web_search=False"
    if call.get("tool_choice") == "none":
        return "tool_choice='none'"
    return ""


ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS = 8_192


def _max_output_tokens(body: Mapping[str, Any], profile: Mapping[str, Any]) -> int | None:
    """Perplexity requires `max_output_tokens` for `anthropic/*` models: the lowest of their limits."""
    limits = []
    for i, model in enumerate((body.get("model"), *(body.get("models") or ()))):
        if model and model.startswith("anthropic/"):
            facts = profile if i == 0 and profile.get("max_output_tokens") else MODEL_FACTS.get(model, {})
            limits.append(int(facts.get("max_output_tokens") or ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS))
    return min(limits, default=None)


def model_and_preset(settings: Mapping[str, Any], model_explicit: bool) -> dict[str, Any]:
    """`model` and `effort` (or the deprecated `preset`, which `effort` overrides, as published).

    An effort level picks its own model unless the caller chose one.
    """
    target = SONAR_TO_AGENT.get(settings["model"]) or AgentTarget(settings["model"], None)
    preset = settings.get("preset")
    effort = settings.get("effort") or (None if preset else target.preset)
    choice = {"effort": effort} if effort else {"preset": preset} if preset else {}
    model = {"model": target.model} if target.model and (model_explicit or not choice) else {}
    return {**model, **choice}


def agent_items(messages: Sequence[BaseMessage]) -> list[list[dict[str, Any]]]:
    """The `input` items of each message."""
    out: list[list[dict[str, Any]]] = []
    call_names: dict[str, str] = {}
    for message in messages:
        items: list[dict[str, Any]] = []
        if isinstance(message, AIMessage):
            _assistant_items(message, items, call_names)
        elif isinstance(message, ToolMessage):
            output = content_parts(message.content, TOOL_OUTPUT_PARTS, text_as_string=True)
            item = {"type": "function_call_output", "call_id": message.tool_call_id, "output": output}
            if name := message.name or call_names.get(message.tool_call_id):
                item["name"] = name
            items.append(item)
        elif isinstance(message, SystemMessage):
            role = "developer" if is_developer(message) else "system"
            items.append({"role": role, "content": content_parts(message.content, PARTS, text_as_string=False)})
        else:
            _user_items(message, items)
        out.append(items)
    return out


def _user_items(message: BaseMessage, items: list[dict[str, Any]]) -> None:
    """A user turn: its message, or the MCP approval responses it holds (a turn in itself)."""
    responses = approval_responses(message.content)
    parts = content_parts(message.content, PARTS, text_as_string=False)
    if responses and parts:
        msg = (
            "a user message that answers MCP approval requests (mcp_approval_response blocks) holds other "
            "content too; Perplexity reads the approval responses as the user's turn: send only the "
            "mcp_approval_response blocks, and anything else in a later message."
        )
        raise ValueError(msg)
    items.extend(responses or [{"role": "user", "content": parts}])


def _assistant_items(message: AIMessage, items: list[dict[str, Any]], call_names: dict[str, str]) -> None:
    if text := canonical_text(message.content):
        items.append({"role": "assistant", "content": text})
    items.extend(approval_requests(message))  # so the server can match the responses
    signatures = message.additional_kwargs.get(THOUGHT_SIGNATURES) or {}
    for call in message.tool_calls:
        call_id = str(call.get("id") or "")
        item = {
            "type": "function_call",
            "call_id": call_id,
            "name": call["name"],
            "arguments": tool_arguments(call),
        }
        if isinstance(signatures, dict) and signatures.get(call_id):
            item["thought_signature"] = signatures[call_id]
        call_names[call_id] = call["name"]
        items.append(item)


def _file(block: dict[str, Any]) -> dict[str, Any]:
    data = data_url(block)
    part = {"type": "input_file", **({"file_url": block["url"]} if data is None else {"file_data": data})}
    if block.get("filename"):
        part["filename"] = block["filename"]
    return part


PARTS: PartTable = {
    "text": lambda block: {"type": "input_text", "text": block["text"]},
    "image": lambda block: {"type": "input_image", "image_url": block["url"]},
    "file": _file,
}
"""User, system and developer content parts (`InputContentPartInput`)."""

TOOL_OUTPUT_PARTS: PartTable = {"text": PARTS["text"], "image": PARTS["image"]}
"""A tool result's parts (`FunctionCallOutputInputInput.output`): no files."""

AGENT_RULES = AGENT_CONTENT
"""The normalizer's rules this body needs first (`normalize._normalizer.AGENT_CONTENT`)."""
