"""The Agent API body (`POST /v1/responses`), in the shapes Perplexity publishes.

Every field and item here is one of `perplexity.generated.api`'s
`ResponsesRequestInput` (the models Perplexity's SDK generates from its
OpenAPI spec); the Agent API refuses any other field, at any depth, with a
400. The items are built by hand rather than by langchain-openai's Responses
converter: that converter writes `output_text` parts for assistant turns,
item ids and `detail` on images, none of which the published input takes,
and it scans every earlier item for each assistant message (quadratic).

The messages come from the normalizer, so they are plain classes with
canonical content (`langchain_perplexity_strict._content`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict._content import canonical_blocks, canonical_text, data_url, text_of
from langchain_perplexity_strict._models import agent_target, default_max_output_tokens
from langchain_perplexity_strict._parameters import CLIENT, PARAMETERS, place
from langchain_perplexity_strict._tools import agent_tool, agent_tool_choice, with_search
from langchain_perplexity_strict.roles import is_developer

THOUGHT_SIGNATURES = "thought_signatures"
"""`AIMessage.additional_kwargs` key: `{call_id: thought_signature}` of the calls of a thinking model,
echoed on the `function_call` items as Perplexity's migration guide asks."""


def agent_body(
    messages: Sequence[BaseMessage],
    settings: Mapping[str, Any],
    call: Mapping[str, Any],
    *,
    stream: bool,
    model_explicit: bool = True,
    items: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The whole body: input items, model or preset, parameters, tools and response format.

    `items`, when given, are the input items to send instead of those of `messages`
    (a continuation sends only what follows the stored response).
    """
    body: dict[str, Any] = {"input": agent_input(messages) if items is None else items}
    body.update(model_fields(settings, model_explicit))
    preset = body.get("preset")
    search: dict[str, Any] = {"type": "web_search"}
    for name, value in settings.items():
        parameter = PARAMETERS.get(name)
        if value is None or parameter is None or parameter.agent in (None, CLIENT):
            continue
        if parameter.agent.startswith("web_search."):
            place(search, parameter.agent.removeprefix("web_search."), value)
        else:
            place(body, parameter.agent, value)
    if "max_output_tokens" not in body and body.get("model"):
        default = default_max_output_tokens(body["model"])
        if default:
            body["max_output_tokens"] = default
    # A bare model is ungrounded on the Agent API; the tool makes it search as a Sonar
    # model did. A preset searches on its own, so it gets the tool only to carry options.
    default = bool(settings.get("web_search", True)) and (len(search) > 1 or not preset)
    tools = with_search([agent_tool(t) for t in call.get("tools") or []], search, default)
    if tools:
        body["tools"] = tools
    if call.get("tool_choice") is not None:
        body["tool_choice"] = agent_tool_choice(call["tool_choice"])
    if call.get("response_format") is not None:
        body["response_format"] = call["response_format"]
    body["stream"] = stream
    body.update(settings.get("model_kwargs") or {})
    return body


def model_fields(settings: Mapping[str, Any], model_explicit: bool) -> dict[str, Any]:
    """`model` and `preset` as the body carries them (Sonar names mapped by Perplexity's table).

    A preset picks its own model: the default model is left out, a model the caller chose is sent too.
    """
    target = agent_target(settings["model"])
    preset = settings.get("preset") or target.preset
    fields: dict[str, Any] = {}
    if target.model and (model_explicit or not preset):
        fields["model"] = target.model
    if preset:
        fields["preset"] = preset
    return fields


def agent_input(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """The `input` items: messages, `function_call` and `function_call_output` items."""
    return [item for items in agent_items(messages) for item in items]


def agent_items(messages: Sequence[BaseMessage]) -> list[list[dict[str, Any]]]:
    """The `input` items of each message (an assistant turn with tool calls is several items)."""
    out: list[list[dict[str, Any]]] = []
    call_names: dict[str, str] = {}
    for message in messages:
        items: list[dict[str, Any]] = []
        if isinstance(message, AIMessage):
            _assistant_items(message, items, call_names)
        elif isinstance(message, ToolMessage):
            item: dict[str, Any] = {
                "type": "function_call_output",
                "call_id": message.tool_call_id,
                "output": _tool_output(message.content),
            }
            name = message.name or call_names.get(message.tool_call_id)
            if name:
                item["name"] = name
            items.append(item)
        elif isinstance(message, SystemMessage):
            role = "developer" if is_developer(message) else "system"
            items.append({"role": role, "content": _parts(message.content)})
        else:
            items.append({"role": "user", "content": _parts(message.content)})
        out.append(items)
    return out


def _assistant_items(message: AIMessage, items: list[dict[str, Any]], call_names: dict[str, str]) -> None:
    text = message.content if isinstance(message.content, str) else canonical_text(message.content)
    if text:
        items.append({"role": "assistant", "content": text})
    signatures = message.additional_kwargs.get(THOUGHT_SIGNATURES) or {}
    for call in message.tool_calls:
        call_id = str(call.get("id") or "")
        item = {
            "type": "function_call",
            "call_id": call_id,
            "name": call["name"],
            "arguments": json.dumps(call.get("args") or {}, ensure_ascii=False),
        }
        if isinstance(signatures, dict) and signatures.get(call_id):
            item["thought_signature"] = signatures[call_id]
        call_names[call_id] = call["name"]
        items.append(item)


def _parts(content: Any) -> str | list[dict[str, Any]]:
    """User, system and developer content: a string, or input_text / input_image / input_file parts."""
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for block in canonical_blocks(content):
        kind = block["type"]
        if kind == "text":
            parts.append({"type": "input_text", "text": block["text"]})
        elif kind == "image":
            parts.append({"type": "input_image", "image_url": block["url"]})
        else:
            part: dict[str, Any] = {"type": "input_file"}
            data = data_url(block)
            if data is not None:
                part["file_data"] = data
            else:
                part["file_url"] = block["url"]
            if block.get("filename"):
                part["filename"] = block["filename"]
            parts.append(part)
    return parts


def _tool_output(content: Any) -> str | list[dict[str, Any]]:
    """A tool result: its text, or input_text and input_image parts when it carries images.

    `FunctionCallOutputInputInput.output` takes a string or those two part
    types; a file in a tool result is named in the text (the output has no file part).
    """
    if isinstance(content, str):
        return content
    blocks = canonical_blocks(content)
    if all(b["type"] == "text" for b in blocks):
        return text_of(blocks)
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if block["type"] == "text":
            parts.append({"type": "input_text", "text": block["text"]})
        elif block["type"] == "image":
            parts.append({"type": "input_image", "image_url": block["url"]})
        else:
            name = block.get("filename") or block.get("url") or "a file"
            parts.append({"type": "input_text", "text": f"({name}: a file the tool returned is not sent)"})
    return parts
