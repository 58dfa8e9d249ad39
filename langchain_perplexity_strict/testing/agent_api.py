"""The Agent API (``/v1/responses``, ``/v1/agent``) as the emulator enforces and answers it.

Every check names its source in perplexity-api.md (§3 request, §4 response
and stream). Rule zero (§3): any unknown field, top-level or nested, is
``400 invalid_request`` with ``param``.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

from langchain_perplexity_strict.models import RESERVED_FUNCTION_NAMES
from langchain_perplexity_strict.testing.answers import (
    Answer,
    approx_tokens,
    choose_tool_calls,
    instance_of,
    last_user_text,
    search_results_for,
    text_answer,
    words,
)
from langchain_perplexity_strict.testing.errors import invalid, unknown_field

ERROR_TYPE = "invalid_request"

# §3 `model`: provider-prefixed slugs; GET /v1/models is authoritative.
AGENT_MODELS = (
    "perplexity/sonar",
    "openai/gpt-5.1",
    "openai/gpt-5-mini",
    "anthropic/claude-sonnet-4-5",
    "anthropic/claude-haiku-4-5",
    "google/gemini-2.5-pro",
    "xai/grok-4",
)
# §3 `preset`, with the old names; the model each resolves to is the
# emulator's choice (the real service may pick a third-party model).
PRESETS = {
    "fast": "perplexity/sonar",
    "low": "perplexity/sonar",
    "medium": "openai/gpt-5.1",
    "high": "openai/gpt-5.1",
    "xhigh": "anthropic/claude-sonnet-4-5",
    "fast-search": "perplexity/sonar",
    "pro-search": "perplexity/sonar",
    "deep-research": "openai/gpt-5.1",
    "advanced-deep-research": "anthropic/claude-sonnet-4-5",
}
# §3 "Removed": Sonar parameters the Agent API refuses.
REMOVED_PARAMETERS = (
    "stop", "n", "top_k", "presence_penalty", "frequency_penalty", "logit_bias",
    "logprobs", "disable_search", "enable_search_classifier", "search_mode",
    "return_images", "return_related_questions", "web_search_options",
    "search_language_filter", "media_response",
)  # fmt: skip
REASONING_EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")
RECENCY = ("hour", "day", "week", "month", "year")
DATE_FILTERS = (
    "search_after_date_filter", "search_before_date_filter",
    "last_updated_after_filter", "last_updated_before_filter",
)  # fmt: skip
_DATE = re.compile(r"^(0[1-9]|1[0-2])/(0[1-9]|[12]\d|3[01])/\d{4}$")

TOP_LEVEL_FIELDS = frozenset(
    {"model", "preset", "models", "input", "instructions", "max_output_tokens",
     "temperature", "top_p", "stream", "stream_options", "reasoning",
     "response_format", "tools", "tool_choice", "parallel_tool_calls",
     "max_steps", "max_tool_calls", "language_preference",
     "previous_response_id", "background", "metadata", "store", "truncation",
     "text"}
)  # fmt: skip


def _fields(obj: Any, allowed: frozenset[str] | set[str], path: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise invalid(ERROR_TYPE, f"{path} must be an object", path)
    for key in obj:
        if key not in allowed:
            raise unknown_field(f"{path}.{key}" if path else key)
    return obj


def _number(value: Any, path: str, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise invalid(
            "invalid_parameter",
            f"{path} must be a number in [{low}, {high}], got {value!r}",
            path,
        )


def _integer(value: Any, path: str, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise invalid(
            "invalid_parameter",
            f"{path} must be an integer {bound}, got {value!r}",
            path,
        )


def validate_request(body: Any, models: tuple[str, ...]) -> str:
    """Check an Agent API body strictly; return the model that will serve it."""
    if not isinstance(body, dict):
        raise invalid(ERROR_TYPE, "the request body must be a JSON object")
    for key in body:
        if key in REMOVED_PARAMETERS or key not in TOP_LEVEL_FIELDS:
            raise unknown_field(key)
    if "text" in body:  # §3: OpenAI's text.format is rejected as unknown.
        _fields(body["text"], frozenset(), "text")
    served = _check_model(body, models)
    if "input" not in body:
        raise invalid(ERROR_TYPE, "input is required", "input")
    _check_input(body["input"])
    if "instructions" in body and not isinstance(body["instructions"], str):
        raise invalid(ERROR_TYPE, "instructions must be a string", "instructions")
    if "max_output_tokens" in body:
        _integer(body["max_output_tokens"], "max_output_tokens", 16)
    elif served.startswith("anthropic/"):
        raise invalid(
            "invalid_parameter",
            f"max_output_tokens is required for {served}",
            "max_output_tokens",
        )
    if "temperature" in body:
        _number(body["temperature"], "temperature", 0, 2)
    if "top_p" in body:
        _number(body["top_p"], "top_p", 0, 1)
    if "stream_options" in body:
        _fields(body["stream_options"], {"include_usage"}, "stream_options")
    if "reasoning" in body:
        reasoning = _fields(body["reasoning"], {"effort"}, "reasoning")
        if reasoning.get("effort") not in REASONING_EFFORTS:
            raise invalid(
                "invalid_parameter",
                f"reasoning.effort must be one of {', '.join(REASONING_EFFORTS)}",
                "reasoning.effort",
            )
    if "response_format" in body:
        _check_response_format(body["response_format"])
    for i, tool in enumerate(body.get("tools") or []):
        _check_tool(tool, f"tools[{i}]")
    if "tool_choice" in body:
        _check_tool_choice(body["tool_choice"])
    if "max_steps" in body:
        _integer(body["max_steps"], "max_steps", 1, 100)
    if "max_tool_calls" in body:
        _integer(body["max_tool_calls"], "max_tool_calls", 1)
    if "truncation" in body and body["truncation"] not in ("auto", "disabled"):
        raise invalid("invalid_parameter", "truncation must be auto or disabled", "truncation")
    metadata = body.get("metadata")
    if metadata is not None and (not isinstance(metadata, dict) or len(metadata) > 16):
        raise invalid("invalid_parameter", "metadata holds at most 16 keys", "metadata")
    return served


def _check_model(body: dict[str, Any], models: tuple[str, ...]) -> str:
    preset = body.get("preset")
    if preset is not None and preset not in PRESETS:
        raise invalid(
            "invalid_parameter",
            f"unknown preset {preset!r}; use one of {', '.join(PRESETS)}",
            "preset",
        )
    fallbacks = body.get("models")
    if fallbacks is not None:
        if not isinstance(fallbacks, list) or not 1 <= len(fallbacks) <= 5:
            raise invalid("invalid_parameter", "models holds 1 to 5 model slugs", "models")
        for i, slug in enumerate(fallbacks):
            if slug not in models:
                raise invalid("invalid_model", f"unknown model {slug!r}", f"models[{i}]")
    model = body.get("model")
    if model is None:
        if preset is not None:
            return PRESETS[preset]
        if fallbacks:
            return str(fallbacks[0])
        raise invalid(ERROR_TYPE, "model or preset is required", "model")
    if model not in models:
        hint = (
            " (Sonar model names are not Agent API models; use perplexity/sonar or a preset)"
            if "/" not in str(model)
            else ""
        )
        raise invalid("invalid_model", f"unknown model {model!r}{hint}", "model")
    return str(model)


_MESSAGE_FIELDS = frozenset({"type", "role", "content"})
_PART_FIELDS = {
    "input_text": frozenset({"type", "text"}),
    "output_text": frozenset({"type", "text", "annotations"}),
    "input_image": frozenset({"type", "image_url", "detail"}),
}


def _check_input(value: Any) -> None:
    if isinstance(value, str):
        return
    if not isinstance(value, list) or not value:
        raise invalid(ERROR_TYPE, "input must be a string or a non-empty list of items", "input")
    for i, item in enumerate(value):
        path = f"input[{i}]"
        if not isinstance(item, dict):
            raise invalid(ERROR_TYPE, f"{path} must be an object", path)
        kind = item.get("type", "message")
        if kind == "function_call":
            _fields(item, {"type", "call_id", "name", "arguments"}, path)
            for key in ("call_id", "name", "arguments"):
                if not isinstance(item.get(key), str):
                    raise invalid(ERROR_TYPE, f"{path}.{key} must be a string", f"{path}.{key}")
        elif kind == "function_call_output":
            _fields(item, {"type", "call_id", "output"}, path)
            if not isinstance(item.get("call_id"), str):
                raise invalid(ERROR_TYPE, f"{path}.call_id must be a string", f"{path}.call_id")
        elif kind == "message":
            _fields(item, _MESSAGE_FIELDS, path)
            if item.get("role") not in ("user", "assistant", "system", "developer"):
                raise invalid(
                    ERROR_TYPE,
                    f"{path}.role must be user, assistant, system or developer",
                    f"{path}.role",
                )
            content = item.get("content")
            if isinstance(content, list):
                for j, part in enumerate(content):
                    part_path = f"{path}.content[{j}]"
                    allowed = _PART_FIELDS.get(str(part.get("type"))) if isinstance(part, dict) else None
                    if allowed is None:
                        # §3 "Removed": file/pdf/video content parts.
                        raise invalid(
                            ERROR_TYPE,
                            f"{part_path}: unsupported content part type "
                            f"{part.get('type') if isinstance(part, dict) else part!r}",
                            f"{part_path}.type",
                        )
                    _fields(part, allowed, part_path)
            elif not isinstance(content, str):
                raise invalid(
                    ERROR_TYPE,
                    f"{path}.content must be a string or parts",
                    f"{path}.content",
                )
        else:
            raise invalid(ERROR_TYPE, f"{path}.type {kind!r} is not supported", f"{path}.type")


def _check_response_format(value: Any) -> None:
    fmt = _fields(value, {"type", "json_schema"}, "response_format")
    if fmt.get("type") == "regex":  # §3: regex unsupported on the Agent API.
        raise invalid(
            "invalid_parameter",
            "response_format type regex is not supported",
            "response_format.type",
        )
    if fmt.get("type") not in ("json_schema", "text"):
        raise invalid(
            "invalid_parameter",
            "response_format.type must be json_schema",
            "response_format.type",
        )
    if fmt["type"] == "json_schema":
        spec = _fields(
            fmt.get("json_schema"),
            {"name", "schema", "strict", "description"},
            "response_format.json_schema",
        )
        if not isinstance(spec.get("schema"), dict):
            raise invalid(
                ERROR_TYPE,
                "response_format.json_schema.schema is required",
                "response_format.json_schema.schema",
            )


_WEB_SEARCH_FIELDS = frozenset({"type", "filters", "search_context_size", "user_location", "max_results"})
_FILTER_FIELDS = frozenset({"search_domain_filter", "search_recency_filter", *DATE_FILTERS})
_BUILTINS = {
    "fetch_url": frozenset({"type"}),
    "people_search": frozenset({"type"}),
    "finance_search": frozenset({"type"}),
    "sandbox": frozenset({"type"}),
    "mcp": frozenset(
        {
            "type",
            "server_label",
            "server_url",
            "headers",
            "allowed_tools",
            "require_approval",
        }
    ),
}


def _check_tool(tool: Any, path: str) -> None:
    kind = tool.get("type") if isinstance(tool, dict) else None
    if kind == "function":
        _fields(tool, {"type", "name", "description", "parameters", "strict"}, path)
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise invalid(ERROR_TYPE, f"{path}.name is required", f"{path}.name")
        if name in RESERVED_FUNCTION_NAMES:
            raise invalid(
                "invalid_parameter",
                f"function name {name!r} is reserved for a built-in tool",
                f"{path}.name",
            )
    elif kind == "web_search":
        _fields(tool, _WEB_SEARCH_FIELDS, path)
        if "max_results" in tool:
            _integer(tool["max_results"], f"{path}.max_results", 1, 50)
        if "search_context_size" in tool and tool["search_context_size"] not in (
            "low",
            "medium",
            "high",
        ):
            raise invalid(
                "invalid_parameter",
                "search_context_size must be low, medium or high",
                f"{path}.search_context_size",
            )
        if "user_location" in tool:
            _fields(
                tool["user_location"],
                {"country", "region", "city", "latitude", "longitude", "type"},
                f"{path}.user_location",
            )
        if "filters" in tool:
            _check_filters(
                _fields(tool["filters"], _FILTER_FIELDS, f"{path}.filters"),
                f"{path}.filters",
            )
    elif kind in _BUILTINS:
        _fields(tool, _BUILTINS[kind], path)
    else:
        raise invalid(ERROR_TYPE, f"{path}.type {kind!r} is not a supported tool", f"{path}.type")


def _check_filters(filters: dict[str, Any], path: str) -> None:
    domains = filters.get("search_domain_filter")
    if domains is not None:
        if not isinstance(domains, list) or len(domains) > 20:
            raise invalid(
                "invalid_parameter",
                "search_domain_filter holds at most 20 domains",
                f"{path}.search_domain_filter",
            )
        for d in domains:
            if not isinstance(d, str) or "://" in d:
                raise invalid(
                    "invalid_parameter",
                    f"search_domain_filter entries are scheme-less domains, got {d!r}",
                    f"{path}.search_domain_filter",
                )
    recency = filters.get("search_recency_filter")
    if recency is not None:
        if recency not in RECENCY:
            raise invalid(
                "invalid_parameter",
                f"search_recency_filter must be one of {', '.join(RECENCY)}",
                f"{path}.search_recency_filter",
            )
        if any(k in filters for k in DATE_FILTERS):
            raise invalid(
                "invalid_parameter",
                "search_recency_filter cannot be combined with date filters",
                f"{path}.search_recency_filter",
            )
    for key in DATE_FILTERS:
        if key in filters and not (isinstance(filters[key], str) and _DATE.match(filters[key])):
            raise invalid(
                "invalid_parameter",
                f"{key} must be MM/DD/YYYY, got {filters[key]!r}",
                f"{path}.{key}",
            )


def _check_tool_choice(choice: Any) -> None:
    if choice in ("none", "auto", "required"):
        return
    if isinstance(choice, dict):
        if set(choice) == {"name"} or (choice.get("type") == "function" and set(choice) == {"type", "name"}):
            return
        if set(choice) == {"type"} and choice["type"] in ("web_search", *_BUILTINS):
            return
    raise invalid("invalid_parameter", f"tool_choice {choice!r} is not supported", "tool_choice")


# ---- answering ---------------------------------------------------------------


def build_answer(body: dict[str, Any]) -> Answer:
    """What the emulated model answers to a valid Agent API body."""
    items = body["input"] if isinstance(body["input"], list) else [{"role": "user", "content": body["input"]}]
    question = last_user_text(items)
    trailing_outputs: list[str] = []
    for item in reversed(items):
        if item.get("type") != "function_call_output":
            break
        trailing_outputs.insert(0, str(item.get("output")))
    tools = body.get("tools") or []
    functions = [t for t in tools if t.get("type") == "function"]
    searches = any(t.get("type") == "web_search" for t in tools) or "preset" in body
    answer = Answer()
    if searches:
        answer.queries = [question[:100]]
        answer.search_results = search_results_for(question)
    if "reasoning" in body:
        answer.reasoning = f"Thinking about: {question[:80]}"
    if functions and not trailing_outputs:
        answer.tool_calls = choose_tool_calls(
            functions,
            body.get("tool_choice", "auto"),
            question,
            body.get("parallel_tool_calls", True) is not False,
            answered_calls(items),
        )
        if answer.tool_calls:
            return answer
    fmt = body.get("response_format")
    if fmt and fmt.get("type") == "json_schema":
        answer.text = json.dumps(instance_of(fmt["json_schema"]["schema"], question))
        return answer
    answer.text = text_answer(question, min(2, len(answer.search_results)), trailing_outputs)
    return answer


def answered_calls(items: list[dict[str, Any]]) -> frozenset[tuple[str, str]]:
    """(name, arguments) of every function call in ``items`` that already has its output."""
    answered = {i.get("call_id") for i in items if i.get("type") == "function_call_output"}
    return frozenset(
        (i["name"], i["arguments"]) for i in items if i.get("type") == "function_call" and i.get("call_id") in answered
    )


def response_object(
    body: dict[str, Any],
    served: str,
    answer: Answer,
    *,
    status: str = "completed",
    response_id: str | None = None,
    created_at: int | None = None,
) -> dict[str, Any]:
    """The Agent API response object (§4) for ``answer``."""
    output: list[dict[str, Any]] = []
    if answer.search_results:
        output.append(search_item(answer))
    for call in answer.tool_calls:
        output.append(function_call_item(call))
    if answer.text:
        output.append(message_item(answer))
    input_tokens = approx_tokens(json.dumps(body.get("input")))
    output_tokens = approx_tokens(answer.text + answer.reasoning + json.dumps(answer.tool_calls))
    return {
        "id": response_id or f"resp_{uuid.uuid4().hex}",
        "object": "response",
        "created_at": created_at or int(time.time()),
        "status": status,
        "model": served,
        "output": output,
        "usage": usage(input_tokens, output_tokens, len(answer.queries)),
        "error": None,
        "incomplete_details": None,
    }


def usage(input_tokens: int, output_tokens: int, searches: int) -> dict[str, Any]:
    """§4 `usage` with `cost`; the prices are the emulator's."""
    input_cost = round(input_tokens * 1e-6, 8)
    output_cost = round(output_tokens * 1e-6, 8)
    tool_cost = round(searches * 0.005, 8)
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "tool_calls_details": {"web_search": {"invocation": searches}} if searches else {},
        "cost": {
            "input_cost": input_cost,
            "output_cost": output_cost,
            "tool_calls_cost": tool_cost,
            "total_cost": round(input_cost + output_cost + tool_cost, 8),
            "currency": "USD",
            "tool_calls_cost_details": {"web_search": tool_cost} if searches else {},
        },
    }


def search_item(answer: Answer) -> dict[str, Any]:
    """§4: the `search_results` output item, where the citations live."""
    return {
        "type": "search_results",
        "queries": answer.queries,
        "results": answer.search_results,
    }


def function_call_item(call: dict[str, Any]) -> dict[str, Any]:
    """§4: a `function_call` output item."""
    call_id = "call_" + uuid.uuid5(uuid.NAMESPACE_URL, call["name"] + call["arguments"]).hex[:12]
    return {
        "type": "function_call",
        "id": "fc_" + call_id[5:],
        "call_id": call_id,
        "name": call["name"],
        "arguments": call["arguments"],
        "status": "completed",
    }


def message_item(answer: Answer) -> dict[str, Any]:
    """§4: the assistant `message` item with `url_citation` annotations."""
    return {
        "type": "message",
        "id": "msg_" + uuid.uuid4().hex[:16],
        "role": "assistant",
        "status": "completed",
        "content": [
            {
                "type": "output_text",
                "text": answer.text,
                "annotations": url_citations(answer),
            }
        ],
    }


def url_citations(answer: Answer) -> list[dict[str, Any]]:
    """A `url_citation` for each `[n]` marker in the text."""
    out = []
    for n, result in enumerate(answer.search_results, start=1):
        marker = f"[{n}]"
        start = answer.text.find(marker)
        if start >= 0:
            out.append(
                {"type": "url_citation", "url": result["url"], "title": result["title"],
                 "start_index": start, "end_index": start + len(marker)}
            )  # fmt: skip
    return out


def stream_events(
    response: dict[str, Any], answer: Answer, terminal: str = "response.completed"
) -> Iterator[dict[str, Any]]:
    """§4 stream: typed events with a monotonic ``sequence_number``, one terminal, no [DONE]."""
    seq = 0

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal seq
        seq += 1
        return {"type": kind, "sequence_number": seq, **fields}

    shell = {**response, "status": "in_progress", "output": [], "usage": None}
    yield event("response.created", response=shell)
    yield event("response.in_progress", response=shell)
    if answer.reasoning:
        yield event("response.reasoning.started", thought="")
        for piece in words(answer.reasoning):
            yield event("response.reasoning.delta", delta=piece)
        yield event("response.reasoning.done", thought=answer.reasoning)
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            yield event("response.output_item.added", output_index=index,
                        item={**item, "content": [], "status": "in_progress"})  # fmt: skip
            part = item["content"][0]
            yield event("response.content_part.added", output_index=index, item_id=item["id"],
                        content_index=0, part={"type": "output_text", "text": "", "annotations": []})  # fmt: skip
            for piece in words(part["text"]):
                yield event("response.output_text.delta", output_index=index, item_id=item["id"],
                            content_index=0, delta=piece)  # fmt: skip
            for a_index, annotation in enumerate(part["annotations"]):
                yield event("response.output_text.annotation.added", output_index=index,
                            item_id=item["id"], content_index=0, annotation_index=a_index,
                            annotation=annotation)  # fmt: skip
            yield event("response.output_text.done", output_index=index, item_id=item["id"],
                        content_index=0, text=part["text"])  # fmt: skip
            yield event("response.content_part.done", output_index=index, item_id=item["id"],
                        content_index=0, part=part)  # fmt: skip
        elif item["type"] == "function_call":
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": ""},
            )
            yield event("response.function_call_arguments.delta", output_index=index,
                        item_id=item["id"], delta=item["arguments"])  # fmt: skip
            yield event("response.function_call_arguments.done", output_index=index,
                        item_id=item["id"], arguments=item["arguments"])  # fmt: skip
        else:
            yield event("response.output_item.added", output_index=index, item=item)
        yield event("response.output_item.done", output_index=index, item=item)
    yield event(terminal, response=response)
