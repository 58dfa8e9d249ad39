"""The Agent API (`/v1/responses`, `/v1/agent`) as the emulator enforces and answers it.

A body is first checked against the published request schema
(`.agent_schema`); then against the rules Perplexity documents beyond
the types, each with its source below. Answers, output items, usage and
stream events are in the shapes of `ResponsesResponseOutput` and
`ResponseStreamEventOutput` (`perplexity.generated.api`).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

from langchain_perplexity_strict.testing import builtin_tools
from langchain_perplexity_strict.testing.agent_events import output_as_input, stream_events
from langchain_perplexity_strict.testing.agent_schema import ERROR_TYPE, check_schema
from langchain_perplexity_strict.testing.answers import (
    EmulatedAnswer,
    approx_tokens,
    choose_tool_calls,
    fetched_pages,
    image_results_for,
    instance_of,
    last_user_text,
    search_results_for,
    text_answer,
    trailing_tool_outputs,
    urls_in,
)
from langchain_perplexity_strict.testing.errors import invalid

# GET /v1/models is authoritative (docs.perplexity.ai, "Models"); these are the emulator's.
AGENT_MODELS = (
    "perplexity/sonar",
    "openai/gpt-5.1",
    "openai/gpt-5-mini",
    "anthropic/claude-sonnet-4-5",
    "anthropic/claude-haiku-4-5",
    "google/gemini-2.5-pro",
    "xai/grok-4",
)
# Effort levels (and the deprecated presets, an open set: docs.perplexity.ai, "Presets"); the emulator knows
# a few and serves any other with perplexity/sonar. The model a level picks is the emulator's choice.
PRESETS = {
    "fast": "perplexity/sonar",
    "low": "perplexity/sonar",
    "medium": "openai/gpt-5.1",
    "high": "openai/gpt-5.1",
    "xhigh": "anthropic/claude-sonnet-4-5",
    "wide-research": "openai/gpt-5.1",
}
# Models whose function calls carry a thought_signature (thinking models; Perplexity's
# migration guide asks clients to echo it).
THINKING_PREFIXES = ("google/", "anthropic/")
# Names of built-in tools, which a custom function may not take (docs.perplexity.ai, Agent API "Tools").
RESERVED_FUNCTION_NAMES = frozenset(
    {"web_search", "search_web", "people_search", "search_people", "fetch_url", "finance_search", "sandbox"}
)
RECENCY_EXCLUSIVE = (
    "search_after_date_filter",
    "search_before_date_filter",
    "last_updated_after_filter",
    "last_updated_before_filter",
)
_DATE = re.compile(r"^(0?[1-9]|1[0-2])/(0?[1-9]|[12]\d|3[01])/\d{4}$")  # MM/DD/YYYY or M/D/YYYY


def validate_request(body: Any, models: tuple[str, ...]) -> str:
    """Check an Agent API body; return the model that will serve it.

    The schema first (types, required fields, unknown fields), then the
    documented rules beyond it.
    """
    check_schema(body)
    served = _check_model(body, models)
    # An effort level bundles its own parameters (docs.perplexity.ai/docs/agent-api/effort): the rule is the caller's
    # only when the caller named the model.
    by_level = body.get("model") is None and bool(body.get("effort") or body.get("preset"))
    if "max_output_tokens" not in body and served.startswith("anthropic/") and not by_level:
        # docs.perplexity.ai, Agent API "Models": Anthropic models require max_output_tokens.
        raise invalid("invalid_parameter", f"max_output_tokens is required for {served}", "max_output_tokens")
    _range(body, "max_output_tokens", 1, None)
    _range(body, "temperature", 0, 2)  # docs.perplexity.ai API reference: temperature 0..2
    _range(body, "top_p", 0, 1)
    _range(body, "max_steps", 1, 100)  # docs.perplexity.ai API reference: max_steps 1..100
    for i, tool in enumerate(body.get("tools") or []):
        _check_tool(tool, f"tools[{i}]")
    if isinstance(body["input"], list) and not body["input"]:
        raise invalid(ERROR_TYPE, "input must not be empty", "input")
    return served


def _range(body: dict[str, Any], key: str, low: float, high: float | None) -> None:
    value = body.get(key)
    if value is not None and (value < low or (high is not None and value > high)):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise invalid("invalid_parameter", f"{key} must be in {bound}, got {value!r}", key)


def _check_model(body: dict[str, Any], models: tuple[str, ...]) -> str:
    fallbacks = body.get("models")
    if fallbacks is not None:
        if not 1 <= len(fallbacks) <= 5:  # docs.perplexity.ai, "Model fallback": at most 5
            raise invalid("invalid_parameter", "models holds 1 to 5 model slugs", "models")
        for i, slug in enumerate(fallbacks):
            if slug not in models:
                raise invalid("invalid_model", f"unknown model {slug!r}", f"models[{i}]")
    model = body.get("model")
    # "If both are supplied, effort takes precedence when non-null" (ResponsesRequestInput.preset); a pinned
    # level (`fast@2026-10-16.0`, docs.perplexity.ai/docs/agent-api/effort) picks its level's model here.
    preset = body.get("effort") or body.get("preset")
    if model is None:
        if preset is not None:
            return PRESETS.get(preset.split("@")[0], "perplexity/sonar")
        if fallbacks:
            return str(fallbacks[0])
        raise invalid(ERROR_TYPE, "model, models or preset is required", "model")
    if model not in models:
        hint = (
            " (a Sonar name: the Agent API uses provider/model slugs, or a preset)" if model.startswith("sonar") else ""
        )
        raise invalid("invalid_model", f"unknown model {model!r}{hint}; GET /v1/models lists them", "model")
    return str(model)


def _check_tool(tool: dict[str, Any], path: str) -> None:
    kind = tool.get("type")
    if kind == "function" and tool["name"] in RESERVED_FUNCTION_NAMES:
        raise invalid(
            "invalid_parameter", f"function name {tool['name']!r} is reserved for a built-in tool", f"{path}.name"
        )
    if kind != "web_search" or not tool.get("filters"):
        return
    # docs.perplexity.ai, "Search filters": at most 20 scheme-less domains; dates as M/D/YYYY (zero-padded or not);
    # recency and dates exclusive.
    filters, where = tool["filters"], f"{path}.filters"
    domains = filters.get("search_domain_filter") or []
    if len(domains) > 20 or any("://" in d for d in domains):
        raise invalid(
            "invalid_parameter",
            "search_domain_filter holds at most 20 scheme-less domains",
            f"{where}.search_domain_filter",
        )
    for key in RECENCY_EXCLUSIVE:
        if key in filters and not _DATE.match(str(filters[key])):
            raise invalid("invalid_parameter", f"{key} must be MM/DD/YYYY, got {filters[key]!r}", f"{where}.{key}")
    if filters.get("search_recency_filter") and any(k in filters for k in RECENCY_EXCLUSIVE):
        raise invalid(
            "invalid_parameter",
            "search_recency_filter cannot be combined with date filters",
            f"{where}.search_recency_filter",
        )


# ---- answering ---------------------------------------------------------------


def build_answer(body: dict[str, Any], first_input: int = 0) -> EmulatedAnswer:
    """What the emulated model answers to a valid Agent API body.

    `body["input"]` is the whole conversation; `first_input` is where the
    request's own `input` starts in it (after a stored response's items).
    """
    items = body["input"] if isinstance(body["input"], list) else [{"role": "user", "content": body["input"]}]
    question = last_user_text(items)
    trailing_outputs = trailing_tool_outputs(items, _tool_output)
    tools = body.get("tools") or []
    kinds = {t.get("type") for t in tools}
    functions = [t for t in tools if t.get("type") == "function"]
    answer = EmulatedAnswer(skills=[_skill_name(s) for s in body.get("skills") or []])
    if "web_search" in kinds or body.get("preset") or body.get("effort"):
        answer.queries = [question[:100]]
        answer.search_results = search_results_for(question)
        answer.invocations["web_search"] = 1
    by_kind = {t.get("type"): t for t in tools}
    if "fetch_url" in kinds and urls_in(question):
        answer.fetched = fetched_pages(urls_in(question)[: max(1, by_kind["fetch_url"].get("max_urls") or 10)])
        answer.invocations["fetch_url"] = len(answer.fetched)
    if "image_search" in kinds:
        answer.image_queries = [question[:100]]
        answer.images = image_results_for(question, max(1, by_kind["image_search"].get("max_results") or 2))
        answer.invocations["image_search"] = 1
    for kind in ("people_search", "finance_search"):
        if kind in kinds:
            answer.verticals.append((kind, [question[:100]], builtin_tools.vertical_results(kind, question)))
            answer.invocations[kind] = 1
    if "reasoning" in body:
        answer.reasoning = f"Thinking about: {question[:80]}"
    tool_outputs, notes = _server_tools(answer, tools, items, question, first_input)
    if answer.status == "requires_action":
        return answer
    if functions and not trailing_outputs:
        answer.tool_calls = choose_tool_calls(
            functions, body.get("tool_choice", "auto"), question, True, answered_calls(items)
        )
        if answer.tool_calls:
            return answer
    fmt = body.get("response_format")
    if fmt and fmt.get("type") == "json_schema":
        answer.text = json.dumps(instance_of(fmt["json_schema"]["schema"], question))
        return answer
    answer.text = text_answer(question, min(2, len(answer.search_results)), trailing_outputs + tool_outputs)
    answer.text = " ".join([answer.text, *notes])
    return answer


def _skill_name(skill: dict[str, Any]) -> str:
    """The name a `skill_loaded` item gives a skill: its `name`, or a custom skill's `id` (chosen here)."""
    return str(skill.get("name") or skill["id"])


def _server_tools(
    answer: EmulatedAnswer, tools: list[dict[str, Any]], items: list[dict[str, Any]], question: str, first_input: int
) -> tuple[list[str], list[str]]:
    """Run the sandbox and the MCP servers; answer approvals. Returns (tool outputs, sentences) for the text."""
    outputs: list[str] = []
    notes: list[str] = []
    answered = set()
    for response, request in builtin_tools.approval_answers(items, first_input):
        calls, said = builtin_tools.resolve(response, request)
        answer.tool_items.extend(calls)
        answered.add(request["server_label"])
        if calls:
            outputs.append(said)
            kind = "connector" if request.get("connector_id") else "mcp"
            answer.invocations[kind] = answer.invocations.get(kind, 0) + 1
        else:
            notes.append(said + ".")
    if any(t.get("type") == "sandbox" for t in tools):
        sandbox, note = builtin_tools.sandbox_items(question)
        answer.tool_items.extend(sandbox)
        answer.invocations["sandbox"] = 1
        notes.append(note)
    for tool in tools:
        if tool.get("type") not in ("mcp", "connector") or tool["server_label"] in answered:
            continue
        listed, said_by_server, waiting = builtin_tools.mcp_items(tool, question)
        answer.tool_items.extend(listed)
        outputs.extend(said_by_server)
        if waiting:
            answer.status = "requires_action"
        else:
            answer.invocations[tool["type"]] = answer.invocations.get(tool["type"], 0) + 1
    return outputs, notes


def _tool_output(item: dict[str, Any]) -> str | None:
    """The text of a `function_call_output` item (images as `[image]`); None for any other item."""
    if item.get("type") != "function_call_output":
        return None
    output = item.get("output")
    if isinstance(output, list):
        return " ".join(str(p.get("text") or "[image]") for p in output if isinstance(p, dict))
    return str(output)


def answered_calls(items: list[dict[str, Any]]) -> frozenset[tuple[str, str]]:
    """(name, arguments) of every function call in `items` that already has its output."""
    answered = {i.get("call_id") for i in items if i.get("type") == "function_call_output"}
    return frozenset(
        (i["name"], i["arguments"]) for i in items if i.get("type") == "function_call" and i.get("call_id") in answered
    )


def response_object(
    body: dict[str, Any],
    served: str,
    answer: EmulatedAnswer,
    *,
    status: str = "completed",
    response_id: str | None = None,
) -> dict[str, Any]:
    """`ResponsesResponseOutput` for `answer`."""
    output: list[dict[str, Any]] = [{"type": "skill_loaded", "name": name} for name in answer.skills]
    if answer.search_results:
        output.append({"type": "search_results", "queries": answer.queries, "results": answer.search_results})
    for _, queries, results in answer.verticals:
        output.append({"type": "search_results", "queries": queries, "results": results})
    if answer.fetched:
        output.append({"type": "fetch_url_results", "contents": answer.fetched})
    if answer.images:
        output.append({"type": "image_search_results", "queries": answer.image_queries, "results": answer.images})
    output.extend(answer.tool_items)
    thinking = served.startswith(THINKING_PREFIXES)
    output.extend(function_call_item(call, thinking) for call in answer.tool_calls)
    if answer.text:
        output.append(message_item(answer))
    input_tokens = approx_tokens(json.dumps(body.get("input")))
    output_tokens = approx_tokens(answer.text + answer.reasoning + json.dumps(answer.tool_calls))
    response: dict[str, Any] = {
        "id": response_id or f"resp_{uuid.uuid4().hex}",
        "object": "response",
        "created_at": int(time.time()),
        "status": status if answer.status == "completed" else answer.status,
        "model": served,
        "output": output,
        "usage": usage(input_tokens, output_tokens, answer.invocations, cached=input_tokens // 2),
    }
    for key in ("background", "preset", "effort", "store", "prompt_cache_key", "service_tier", "previous_response_id"):
        if body.get(key) is not None:
            response[key] = body[key]
    return response


def usage(input_tokens: int, output_tokens: int, invocations: dict[str, int], cached: int = 0) -> dict[str, Any]:
    """`ResponsesUsageOutput` with `cost` and per-tool `tool_calls_details`; the prices are the emulator's."""
    input_cost = round(input_tokens * 1e-6, 8)
    output_cost = round(output_tokens * 1e-6, 8)
    details, tool_cost = builtin_tools.tool_details(invocations)
    out: dict[str, Any] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "input_tokens_details": {"cache_read_input_tokens": cached, "cache_creation_input_tokens": 0},
        "cost": {
            "currency": "USD",
            "input_cost": input_cost,
            "output_cost": output_cost,
            "tool_calls_cost": tool_cost,
            "total_cost": round(input_cost + output_cost + tool_cost, 8),
        },
    }
    if details:
        out["tool_calls_details"] = details
    return out


def function_call_item(call: dict[str, Any], thinking: bool = False) -> dict[str, Any]:
    """`FunctionCallOutputItemOutput`; thinking models add a `thought_signature`."""
    call_id = "call_" + uuid.uuid5(uuid.NAMESPACE_URL, call["name"] + call["arguments"]).hex[:12]
    item = {
        "type": "function_call",
        "id": "fc_" + call_id[5:],
        "call_id": call_id,
        "name": call["name"],
        "arguments": call["arguments"],
        "status": "completed",
    }
    if thinking:
        item["thought_signature"] = "sig_" + call_id[5:]
    return item


def message_item(answer: EmulatedAnswer) -> dict[str, Any]:
    """`MessageOutputItemOutput` with `url_citation` annotations."""
    return {
        "type": "message",
        "id": "msg_" + uuid.uuid4().hex[:16],
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": answer.text, "annotations": url_citations(answer)}],
    }


def url_citations(answer: EmulatedAnswer) -> list[dict[str, Any]]:
    """A `url_citation` for each `[n]` marker in the text."""
    out = []
    for n, result in enumerate(answer.search_results, start=1):
        marker = f"[{n}]"
        start = answer.text.find(marker)
        if start >= 0:
            out.append(
                {
                    "type": "url_citation",
                    "url": result["url"],
                    "title": result["title"],
                    "start_index": start,
                    "end_index": start + len(marker),
                }
            )
    return out


__all__ = ["ERROR_TYPE", "build_answer", "output_as_input", "response_object", "stream_events", "validate_request"]
