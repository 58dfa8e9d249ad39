"""The Agent API body (`POST /v1/responses`), in the shapes Perplexity publishes.

Every field and item here is one of `perplexity.generated.api`'s
`ResponsesRequestInput` (the models Perplexity's SDK generates from its
OpenAPI spec); the Agent API refuses any other field, at any depth, with a
400. The items are built by hand rather than by langchain-openai's Responses
converter: that converter writes `output_text` parts for assistant turns,
item ids and `detail` on images, none of which the published input takes,
and it scans every earlier item for each assistant message (quadratic).

The messages come from the normalizer, so they are plain classes with
canonical content (`normalize._content`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict._message_keys import THOUGHT_SIGNATURES
from langchain_perplexity_strict._request._input import BodyInput
from langchain_perplexity_strict._request._model_names import agent_target, default_max_output_tokens
from langchain_perplexity_strict._request._parameter_row import place
from langchain_perplexity_strict._request._parameter_table import CLIENT, PARAMETERS
from langchain_perplexity_strict._request._parts import PartTable, content_parts, tool_arguments
from langchain_perplexity_strict._request._structured_output import agent_response_format
from langchain_perplexity_strict._request._tools import agent_tool, agent_tool_choice, with_search_tool
from langchain_perplexity_strict.normalize._agent_content import AGENT_CONTENT
from langchain_perplexity_strict.normalize._approvals import approval_requests, approval_responses
from langchain_perplexity_strict.normalize._content import canonical_text, data_url
from langchain_perplexity_strict.normalize._roles import is_developer


def agent_body(request: BodyInput) -> dict[str, Any]:
    """The whole body: input items, model or preset, parameters, tools and response format.

    With a `plan` (`use_previous_response_id`), its items are sent (already encoded
    while planning), and a continuation sends only what follows the stored response,
    with `previous_response_id`.
    """
    settings, call, plan = request.settings, request.call, request.plan
    continuation = plan.continuation if plan is not None else None
    if continuation is not None:
        body: dict[str, Any] = {"input": continuation.items}
    elif plan is not None and plan.items is not None:
        body = {"input": plan.items}
    else:
        body = {"input": agent_input(request.messages)}
    body.update(model_and_preset(settings, request.model_explicit))
    preset = body.get("effort") or body.get("preset")
    search: dict[str, Any] = {"type": "web_search"}
    names: dict[str, str] = {}  # a search tool field -> the parameter that set it, for errors
    for name, value in settings.items():
        parameter = PARAMETERS.get(name)
        if value is None or parameter is None or parameter.agent in (None, CLIENT) or name in _MODEL_CHOICE:
            continue
        if parameter.agent.startswith("web_search."):
            names[parameter.agent.removeprefix("web_search.")] = name
            place(search, parameter.agent.removeprefix("web_search."), value)
        else:
            place(body, parameter.agent, value)
    if "max_output_tokens" not in body:  # some models require it: any of the model and its fallbacks
        limit = request.profile.get("max_output_tokens")  # the named model's; a fallback's own limit for it
        models = [body.get("model"), *(body.get("models") or [])]
        needed = [default_max_output_tokens(m, limit if i == 0 else None) for i, m in enumerate(models) if m]
        if any(needed):
            body["max_output_tokens"] = min(n for n in needed if n)
    tools = [agent_tool(t, f"tools[{i}]") for i, t in enumerate(call.get("tools") or [])]
    # A bare model is ungrounded on the Agent API; the tool makes it search as a Sonar model did.
    # A preset searches on its own, so it gets the tool only to carry options. The model's search
    # settings reach a bound web_search with or without `web_search=False` (which only leaves the
    # default tool out); with search off and no bound web_search, they are refused (`with_search_tool`).
    tools = with_search_tool(tools, search, names, off=search_off(settings, call), bare=not preset)
    if tools:
        body["tools"] = tools
    if call.get("tool_choice") is not None:
        body["tool_choice"] = agent_tool_choice(call["tool_choice"])
    if call.get("response_format") is not None:
        body["response_format"] = agent_response_format(call["response_format"])
    body["stream"] = request.stream
    body.update(settings.get("model_kwargs") or {})
    if continuation is not None:
        body.update(continuation.body_fields())
    return body


def search_off(settings: Mapping[str, Any], call: Mapping[str, Any]) -> str:
    """The switch that turns the Agent API's web search off, as the user wrote it ('' when search is on).

    `disable_search=True` and `web_search=False` leave the default `web_search` tool out;
    `tool_choice='none'` lets the model call no tool, `web_search` included (`ToolChoiceInput`).
    """
    if settings.get("disable_search"):
        return "disable_search=True"
    if settings.get("web_search") is False:
        return "web_search=False"
    if call.get("tool_choice") == "none":
        return "tool_choice='none'"
    return ""


_MODEL_CHOICE = ("effort", "preset")
"""Parameters `model_and_preset` places (the model they pick depends on each other), not the loop."""


def model_and_preset(settings: Mapping[str, Any], model_explicit: bool) -> dict[str, Any]:
    """`model` and `effort` (or the deprecated `preset`) as the body carries them (Sonar names mapped by
    Perplexity's table, to an effort level).

    An effort level picks its own model: the default model is left out, a model the caller chose is sent
    too. With both `effort` and `preset`, only `effort` is sent: the published schema says effort takes
    precedence when both are supplied, so the preset would do nothing (`preset_notice` says so).
    """
    target = agent_target(settings["model"])
    effort, preset = settings.get("effort"), settings.get("preset")
    if not effort and not preset:
        effort = target.preset
    fields: dict[str, Any] = {}
    if target.model and (model_explicit or not (effort or preset)):
        fields["model"] = target.model
    if effort:
        fields["effort"] = effort
    elif preset:
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
            _user_items(message, items)
        out.append(items)
    return out


def _user_items(message: BaseMessage, items: list[dict[str, Any]]) -> None:
    """A user turn: its message, or the MCP approval responses it holds.

    An `mcp_approval_response` item is the user's turn in itself, answering the
    assistant turn that asked; a message beside it would be a second user turn in a row.
    """
    responses = approval_responses(message.content)
    parts = _parts(message.content)
    if responses and parts:
        msg = (
            "a user message that answers MCP approval requests (mcp_approval_response blocks) holds other "
            "content too; Perplexity reads the approval responses as the user's turn: send only the "
            "mcp_approval_response blocks, and anything else in a later message."
        )
        raise ValueError(msg)
    items.extend(responses or [{"role": "user", "content": parts}])


def _assistant_items(message: AIMessage, items: list[dict[str, Any]], call_names: dict[str, str]) -> None:
    text = message.content if isinstance(message.content, str) else canonical_text(message.content)
    if text:
        items.append({"role": "assistant", "content": text})
    items.extend(approval_requests(message))  # sent back, so the server can match the app's responses
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
    part: dict[str, Any] = {"type": "input_file"}
    data = data_url(block)
    if data is not None:
        part["file_data"] = data
    else:
        part["file_url"] = block["url"]
    if block.get("filename"):
        part["filename"] = block["filename"]
    return part


PARTS: PartTable = {
    "text": lambda block: {"type": "input_text", "text": block["text"]},
    "image": lambda block: {"type": "input_image", "image_url": block["url"]},
    "file": _file,
}
"""User, system and developer content: input_text / input_image / input_file parts (`InputContentPartInput`)."""

TOOL_OUTPUT_PARTS: PartTable = {"text": PARTS["text"], "image": PARTS["image"]}
"""A tool result: `FunctionCallOutputInputInput.output` takes a string or input_text and input_image parts
(a file in a tool result is named in its text by the normalizer's `AGENT_CONTENT`, with its report)."""

AGENT_RULES = AGENT_CONTENT
"""The normalizer's rules this body needs first: videos left out and tool results' files named
(`normalize._agent_content`, the one drop of what the Agent API cannot take)."""


def _parts(content: Any) -> str | list[dict[str, Any]]:
    return content_parts(content, PARTS, text_as_string=False)


def _tool_output(content: Any) -> str | list[dict[str, Any]]:
    return content_parts(content, TOOL_OUTPUT_PARTS, text_as_string=True)
