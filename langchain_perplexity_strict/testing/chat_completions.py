"""Sonar chat completions (`/chat/completions`, `/v1/chat/completions`) in the emulator.

Sources: docs/perplexity-rules.md (parameters, ranges and incompatibilities, the 403
after 2026-09-27) and `ApiChatCompletionsRequestInput` / `CompletionResponseOutput`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from langchain_perplexity_strict.testing.answers import (
    EmulatedAnswer,
    approx_tokens,
    choose_tool_calls,
    instance_of,
    last_user_text,
    search_results_for,
    text_answer,
    text_of,
    trailing_tool_outputs,
    words,
)
from langchain_perplexity_strict.testing.errors import APIError, invalid

ERROR_TYPE = "invalid_message"
# The Sonar models (docs.perplexity.ai, "Models", before the 2026-09-27 retirement).
SONAR_MODELS = ("sonar", "sonar-pro", "sonar-reasoning", "sonar-reasoning-pro", "sonar-deep-research")
REASONING_MODELS = ("sonar-reasoning", "sonar-reasoning-pro", "sonar-deep-research")

# The reply reported after the 2026-09-27 cut-over (unverified; a switch; docs/perplexity-rules.md).
RETIRED = APIError(
    403,
    "chat_completions_not_available",
    "Sonar is now the Agent API. Use /v1/responses instead of /v1/sonar.",
)


def _range(body: dict[str, Any], key: str, low: float, high: float, *, high_open: bool = False) -> None:
    if key not in body:
        return
    value = body[key]
    ok = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and low <= value
        and (value < high if high_open else value <= high)
    )
    if not ok:
        bracket = ")" if high_open else "]"
        raise invalid(
            "invalid_parameter",
            f"{key} must be in [{low}, {high}{bracket}, got {value!r}",
            key,
        )


def validate_request(body: Any, allow_function_tools: bool) -> str:
    """Check a chat-completions body; return the model."""
    if not isinstance(body, dict):
        raise invalid(ERROR_TYPE, "the request body must be a JSON object")
    model = body.get("model")
    if model not in SONAR_MODELS:
        raise invalid(
            "invalid_model",
            f"Invalid model {model!r}. Permitted models: {', '.join(SONAR_MODELS)}",
            "model",
        )
    # Every parameter checked below is optional in ApiChatCompletionsRequestInput: null means not set.
    body = {key: value for key, value in body.items() if value is not None}
    _range(body, "temperature", 0, 2, high_open=True)  # Perplexity's chat-completions reference: [0, 2)
    _range(body, "top_p", 0, 1)  # same reference: [0, 1]
    if "top_k" in body:  # same reference: integer [0, 2048]
        top_k = body["top_k"]
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 0 <= top_k <= 2048:
            raise invalid(
                "invalid_parameter",
                f"top_k must be an integer in [0, 2048], got {top_k!r}",
                "top_k",
            )
    _range(body, "presence_penalty", -2, 2)  # same reference
    if "frequency_penalty" in body:  # same reference: greater than 0
        value = body["frequency_penalty"]
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
            raise invalid(
                "invalid_parameter",
                f"frequency_penalty must be > 0, got {value!r}",
                "frequency_penalty",
            )
        if "presence_penalty" in body:  # same reference: the two are incompatible
            raise invalid(
                "invalid_parameter",
                "presence_penalty and frequency_penalty are incompatible",
                "frequency_penalty",
            )
    if "logit_bias" in body:  # not in ApiChatCompletionsRequestInput
        raise invalid("invalid_parameter", "logit_bias is not supported", "logit_bias")
    if "max_tokens" in body:
        value = body["max_tokens"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise invalid(
                "invalid_parameter",
                f"max_tokens must be a positive integer, got {value!r}",
                "max_tokens",
            )
    if body.get("tools") and not allow_function_tools:
        # the Sonar models have no client-side function tools (unverified; a switch).
        raise invalid("invalid_parameter", "tools are not supported by the Sonar models", "tools")
    fmt = body.get("response_format")
    if fmt is not None and (not isinstance(fmt, dict) or fmt.get("type") not in ("json_schema", "regex", "text")):
        raise invalid(
            "invalid_parameter",
            "response_format.type must be json_schema or regex",
            "response_format",
        )
    return str(model)


def _tool_output(message: dict[str, Any]) -> str | None:
    return text_of(message.get("content")) if message.get("role") == "tool" else None


def build_answer(body: dict[str, Any]) -> EmulatedAnswer:
    """What the emulated Sonar model answers."""
    messages = body["messages"]
    question = last_user_text(messages)
    trailing_outputs = trailing_tool_outputs(messages, _tool_output)
    answer = EmulatedAnswer()
    if not body.get("disable_search"):
        answer.queries = [question[:100]]
        answer.search_results = [{k: v for k, v in r.items() if k != "id"} for r in search_results_for(question)]
    if body["model"] in REASONING_MODELS:
        answer.reasoning = f"Thinking about: {question[:80]}"
    tools = [t["function"] for t in body.get("tools") or [] if t.get("type") == "function"]
    if tools and not trailing_outputs:
        results = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
        answered = frozenset(
            (c["function"]["name"], c["function"]["arguments"])
            for m in messages
            for c in m.get("tool_calls") or []
            if c.get("id") in results
        )
        answer.tool_calls = choose_tool_calls(tools, body.get("tool_choice", "auto"), question, True, answered)
        if answer.tool_calls:
            return answer
    fmt = body.get("response_format")
    if fmt and fmt.get("type") == "json_schema":
        answer.text = json.dumps(instance_of(fmt["json_schema"]["schema"], question))
    else:
        answer.text = text_answer(question, min(2, len(answer.search_results)), trailing_outputs)
    return answer


def _content(answer: EmulatedAnswer) -> str:
    # Sonar reasoning models put <think>…</think> inline, even with a JSON schema.
    if answer.reasoning:
        return f"<think>{answer.reasoning}</think>\n{answer.text}"
    return answer.text


def _usage(body: dict[str, Any], answer: EmulatedAnswer, completion_tokens: int) -> dict[str, Any]:
    prompt_tokens = approx_tokens(json.dumps(body["messages"]))
    citation_tokens = sum(approx_tokens(r["snippet"]) for r in answer.search_results)
    reasoning_tokens = approx_tokens(answer.reasoning) if answer.reasoning else 0
    total_cost = round((prompt_tokens + completion_tokens) * 1e-6 + 0.005 * len(answer.queries), 8)
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "citation_tokens": citation_tokens,
        "num_search_queries": len(answer.queries),
        "reasoning_tokens": reasoning_tokens,
        "search_context_size": "low",
        "cost": {
            "input_tokens_cost": round(prompt_tokens * 1e-6, 8),
            "output_tokens_cost": round(completion_tokens * 1e-6, 8),
            "request_cost": round(0.005 * len(answer.queries), 8),
            "total_cost": total_cost,
        },
    }


def _reasoning_steps(answer: EmulatedAnswer) -> list[dict[str, Any]]:
    """A reasoning model's search step (`ReasoningStepOutputOutput` in the published message), when it searched."""
    if not (answer.reasoning and answer.queries):
        return []
    search = {"search_keywords": list(answer.queries), "search_results": answer.search_results}
    return [{"thought": answer.reasoning, "type": "web_search", "web_search": search}]


def _tool_calls(answer: EmulatedAnswer) -> list[dict[str, Any]]:
    return [
        {
            "id": "call_" + uuid.uuid5(uuid.NAMESPACE_URL, c["name"] + c["arguments"]).hex[:12],
            "type": "function",
            "function": {"name": c["name"], "arguments": c["arguments"]},
        }
        for c in answer.tool_calls
    ]


def completion(body: dict[str, Any], answer: EmulatedAnswer, *, finish_reason: str = "stop") -> dict[str, Any]:
    """The chat completion (`CompletionResponseOutput`)."""
    content = _content(answer)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if _reasoning_steps(answer):
        message["reasoning_steps"] = _reasoning_steps(answer)
    if answer.tool_calls:
        message["tool_calls"] = _tool_calls(answer)
        finish_reason = "tool_calls"
    return {
        "id": str(uuid.uuid4()),
        "model": body["model"],
        "object": "chat.completion",
        "created": int(time.time()),
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "message": message,
                "delta": {"role": "assistant", "content": ""},
            }
        ],
        "citations": [r["url"] for r in answer.search_results],
        "search_results": answer.search_results,
        "usage": _usage(body, answer, approx_tokens(content)),
    }


def stream_chunks(
    body: dict[str, Any], answer: EmulatedAnswer, *, finish_reason: str = "stop"
) -> Iterator[dict[str, Any]]:
    """The stream: every chunk repeats `citations` and carries cumulative usage;
    `search_results` only in the last chunk, which is `chat.completion.done`."""
    chunk_id = str(uuid.uuid4())
    created = int(time.time())
    citations = [r["url"] for r in answer.search_results]
    content = _content(answer)
    pieces = words(content) if content else []
    emitted = ""
    base = {
        "id": chunk_id,
        "model": body["model"],
        "created": created,
        "citations": citations,
    }
    for n, piece in enumerate(pieces):
        emitted += piece
        delta: dict[str, Any] = {"content": piece}
        if n == 0:
            delta["role"] = "assistant"
        yield {
            **base,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "finish_reason": None, "delta": delta}],
            "usage": _usage(body, answer, approx_tokens(emitted)),
        }
    final_delta: dict[str, Any] = {"role": "assistant", "content": ""}
    if _reasoning_steps(answer):
        final_delta["reasoning_steps"] = _reasoning_steps(answer)
    if answer.tool_calls:
        final_delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(_tool_calls(answer))]
        finish_reason = "tool_calls"
    yield {
        **base,
        "object": "chat.completion.done",
        "search_results": answer.search_results,
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "delta": final_delta,
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": _usage(body, answer, approx_tokens(content) if content else 1),
    }
