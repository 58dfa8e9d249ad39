"""Every parameter in one table: the values it accepts and where it goes on each surface.

A `Parameter` says what it accepts (checked at construction and at
call time, so a request Perplexity would refuse is never sent and a
parameter is never silently dropped) and its place in each surface's body:
a dotted path such as `"max_output_tokens"`, `"reasoning.effort"` or
`"web_search.filters.search_domain_filter"` (`web_search.*` is the
Agent API's `web_search` tool), `CLIENT` for what the package does
itself (`n`, `stop`), or None where the surface has no such parameter.
Adding a parameter is one entry.

Sources: the Agent API fields are those of `ResponsesRequestInput` and
`WebSearchToolInput` in `perplexity.generated.api` (Perplexity's SDK,
generated from its OpenAPI spec); chat completions are
`ApiChatCompletionsRequestInput`. Ranges beyond the types are in
`docs/perplexity-rules.md`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Api = Literal["agent", "chat_completions"]
CLIENT = "client"

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")  # ReasoningConfigInput.effort
CHAT_REASONING_EFFORTS = ("minimal", "low", "medium", "high")  # ApiChatCompletionsRequestInput.reasoning_effort
SERVICE_TIERS = ("auto", "default", "flex", "priority", "fast")  # ResponsesRequestInput.service_tier
RECENCY = ("hour", "day", "week", "month", "year")
DATE_FILTERS = ("search_after_date_filter", "search_before_date_filter",
                "last_updated_after_filter", "last_updated_before_filter")  # fmt: skip
LOCATION_FIELDS = ("city", "country", "region", "latitude", "longitude")  # ToolUserLocationInput
_DATE = re.compile(r"^(0[1-9]|1[0-2])/(0[1-9]|[12]\d|3[01])/\d{4}$")

Check = Callable[[Any, Api], bool]


def _number(low: float, high: float) -> Check:
    return lambda v, a: isinstance(v, (int, float)) and not isinstance(v, bool) and low <= v <= high


def _integer(low: int, high: int | None = None) -> Check:
    return lambda v, a: (
        isinstance(v, int) and not isinstance(v, bool) and v >= low and (high is None or v <= high)
    )  # fmt: skip


def _one_of(*values: Any) -> Check:
    return lambda v, a: v in values


def _text(v: Any, a: Api) -> bool:
    return isinstance(v, str) and bool(v)


def _flag(v: Any, a: Api) -> bool:
    return isinstance(v, bool)


def _temperature(v: Any, a: Api) -> bool:
    # Agent API: [0, 2]; chat completions: [0, 2), per Perplexity's chat-completions reference.
    return _number(0, 2)(v, a) and (a == "agent" or v < 2)


def _domains(v: Any, a: Api) -> bool:
    return isinstance(v, list) and len(v) <= 20 and all(isinstance(d, str) and d and "://" not in d for d in v)


def _location(v: Any, a: Api) -> bool:
    return isinstance(v, dict) and set(v) <= set(LOCATION_FIELDS)


def _stop(v: Any, a: Api) -> bool:
    return isinstance(v, str) or (isinstance(v, list) and all(isinstance(s, str) and s for s in v))


def _reasoning(v: Any, a: Api) -> bool:
    return v in (REASONING_EFFORTS if a == "agent" else CHAT_REASONING_EFFORTS)


def _search_type(v: Any, a: Api) -> bool:
    return v in (("web", "fast") if a == "agent" else ("fast", "pro", "auto"))


@dataclass(frozen=True)
class Parameter:
    """One parameter: what it accepts, and its path in each surface's body (None: not there)."""

    name: str
    accepted: str
    check: Check
    agent: str | None
    chat: str | None

    def path(self, api: Api) -> str | None:
        """Where the value goes on `api` (`CLIENT`: handled by the package; None: not available)."""
        return self.agent if api == "agent" else self.chat


_WS = "web_search."
_FILTERS = _WS + "filters."

PARAMETERS: dict[str, Parameter] = {
    p.name: p
    for p in [
        Parameter("temperature", "a number in [0, 2] (agent) or [0, 2) (chat_completions)", _temperature,
                  "temperature", "temperature"),
        Parameter("top_p", "a number in [0, 1]", _number(0, 1), "top_p", "top_p"),
        Parameter("max_tokens", "an integer >= 1", _integer(1), "max_output_tokens", "max_tokens"),
        Parameter("n", "an integer >= 1 (run as n requests)", _integer(1), CLIENT, CLIENT),
        Parameter("stop", "a string or a list of non-empty strings", _stop, CLIENT, CLIENT),
        Parameter("reasoning_effort", "one of " + ", ".join(REASONING_EFFORTS) + " (agent) or "
                  + ", ".join(CHAT_REASONING_EFFORTS) + " (chat_completions)", _reasoning,
                  "reasoning.effort", "reasoning_effort"),
        Parameter("language_preference", "a language name or code", _text,
                  "language_preference", "language_preference"),
        Parameter("search_domain_filter", "at most 20 scheme-less domains ('-' prefix denies)", _domains,
                  _FILTERS + "search_domain_filter", "search_domain_filter"),
        Parameter("search_recency_filter", "one of " + ", ".join(RECENCY), _one_of(*RECENCY),
                  _FILTERS + "search_recency_filter", "search_recency_filter"),
        *[
            Parameter(name, "a date as MM/DD/YYYY", lambda v, a: isinstance(v, str) and bool(_DATE.match(v)),
                      _FILTERS + name, name)
            for name in DATE_FILTERS
        ],
        Parameter("search_context_size", "one of low, medium, high", _one_of("low", "medium", "high"),
                  _WS + "search_context_size", "web_search_options.search_context_size"),
        Parameter("user_location", "a dict with some of " + ", ".join(LOCATION_FIELDS), _location,
                  _WS + "user_location", "web_search_options.user_location"),
        Parameter("search_type", "web or fast (agent); fast, pro or auto (chat_completions)", _search_type,
                  _WS + "search_type", "web_search_options.search_type"),
        Parameter("search_max_tokens", "an integer >= 1", _integer(1), _WS + "max_tokens", None),
        Parameter("search_max_tokens_per_page", "an integer >= 1", _integer(1), _WS + "max_tokens_per_page", None),
        Parameter("web_search", "True or False", _flag, CLIENT, None),
        Parameter("use_previous_response_id", "True or False (True only on api='agent': chat completions store "
                  "nothing to continue from)", lambda v, a: isinstance(v, bool) and (a == "agent" or not v),
                  CLIENT, CLIENT),
        Parameter("preset", "a preset name such as fast, low, medium, high, xhigh", _text, "preset", None),
        Parameter("effort", "an effort name (supersedes preset)", _text, "effort", None),
        Parameter("models", "a list of 1 to 5 model slugs",
                  lambda v, a: isinstance(v, list) and 1 <= len(v) <= 5 and all(isinstance(m, str) for m in v),
                  "models", None),
        Parameter("max_steps", "an integer in [1, 100]", _integer(1, 100), "max_steps", None),
        Parameter("instructions", "a string", lambda v, a: isinstance(v, str), "instructions", None),
        Parameter("store", "True or False", _flag, "store", None),
        Parameter("background", "True or False", _flag, "background", None),
        Parameter("prompt_cache_key", "a string", _text, "prompt_cache_key", None),
        Parameter("service_tier", "one of " + ", ".join(SERVICE_TIERS), _one_of(*SERVICE_TIERS),
                  "service_tier", None),
        Parameter("top_k", "an integer in [0, 2048] (0 disables)", _integer(0, 2048), None, "top_k"),
        Parameter("presence_penalty", "a number in [-2, 2]", _number(-2, 2), None, "presence_penalty"),
        Parameter("frequency_penalty", "a number > 0 (1.0 means no penalty)",
                  lambda v, a: _number(0, float("inf"))(v, a) and v > 0, None, "frequency_penalty"),
        Parameter("search_mode", "one of web, academic, sec", _one_of("web", "academic", "sec"),
                  None, "search_mode"),
        Parameter("return_images", "True or False", _flag, None, "return_images"),
        Parameter("return_related_questions", "True or False", _flag, None, "return_related_questions"),
        Parameter("disable_search", "True or False", _flag, None, "disable_search"),
    ]
}  # fmt: skip

# What the Agent API offers instead of a chat-completions-only parameter.
_AGENT_INSTEAD = {
    "disable_search": "on the Agent API, pass web_search=False",
    "top_k": "it was removed from the Agent API",
    "presence_penalty": "it was removed from the Agent API",
    "frequency_penalty": "it was removed from the Agent API",
    "search_mode": "it was removed from the Agent API",
    "return_images": "it was removed from the Agent API; add the image_search tool with bind_tools",
    "return_related_questions": "it was removed from the Agent API",
}

# Parameters no Perplexity surface has, with what to do instead.
UNSUPPORTED = {
    "logit_bias": "not in Perplexity's published schema",
    "logprobs": "not in Perplexity's published Agent API schema",
    "top_logprobs": "not in Perplexity's published Agent API schema",
    "seed": "not in Perplexity's published schema",
    "prediction": "not in Perplexity's published schema",
    "modalities": "not in Perplexity's published schema",
    "audio": "not in Perplexity's published schema",
    "parallel_tool_calls": "not in Perplexity's published Agent API schema",
    "max_search_results": (
        "the published web_search tool has no max_results; "
        "use search_max_tokens or search_max_tokens_per_page to bound what search adds"
    ),
}


def check_parameters(values: Mapping[str, Any], api: Api) -> None:
    """Raise `ValueError` naming the field, the value and what is accepted."""
    for name, value in values.items():
        if value is None:
            continue
        if name in UNSUPPORTED:
            msg = f"{name}={value!r}: {UNSUPPORTED[name]}; remove it."
            raise ValueError(msg)
        parameter = PARAMETERS.get(name)
        if parameter is None:
            continue
        if parameter.path(api) is None:
            other = "chat_completions" if api == "agent" else "agent"
            why = f" ({_AGENT_INSTEAD[name]})" if api == "agent" and name in _AGENT_INSTEAD else ""
            msg = f"{name}={value!r} is not available on api={api!r}{why}; it exists on api={other!r}."
            raise ValueError(msg)
        if not parameter.check(value, api):
            msg = f"{name}={value!r} is not accepted on api={api!r}: expected {parameter.accepted}."
            raise ValueError(msg)
    present = {k for k, v in values.items() if v is not None}
    if {"presence_penalty", "frequency_penalty"} <= present:
        msg = (
            f"presence_penalty={values['presence_penalty']!r} and frequency_penalty="
            f"{values['frequency_penalty']!r}: Perplexity accepts one or the other, not both."
        )
        raise ValueError(msg)
    if values.get("background") and values.get("store") is False:
        msg = (
            "background=True with store=False: a background run is followed with GET /v1/responses/{id}, "
            "which store=False hides; drop store=False."
        )
        raise ValueError(msg)
    dates = sorted(present & set(DATE_FILTERS))
    if "search_recency_filter" in present and dates:
        msg = (
            f"search_recency_filter={values['search_recency_filter']!r} cannot be combined "
            f"with {', '.join(dates)}: use a recency or dates, not both."
        )
        raise ValueError(msg)


def place(body: dict[str, Any], path: str, value: Any) -> None:
    """Set `value` at the dotted `path` of `body`, creating the objects on the way."""
    *parents, leaf = path.split(".")
    target = body
    for key in parents:
        target = target.setdefault(key, {})
    target[leaf] = value


def stop_list(stop: Any) -> list[str]:
    """Stop sequences as a list; a value of the wrong type is refused by the parameter check, not here."""
    if isinstance(stop, str):
        return [stop]
    return list(stop) if isinstance(stop, (list, tuple)) else []


# Keyword arguments a call may carry besides the parameters: they shape the request.
CALL_KWARGS = ("tools", "tool_choice", "response_format")
# Passed by LangChain itself (structured-output tracing, stream_usage) or by callers used to
# ChatOpenAI (parallel_tool_calls, which the published Agent API lacks): accepted, not sent.
IGNORED_KWARGS = ("ls_structured_output_format", "stream_usage", "parallel_tool_calls")


def call_arguments(kwargs: Mapping[str, Any], api: Api) -> tuple[dict[str, Any], dict[str, Any]]:
    """A call's keyword arguments as (tools, tool choice and response format; parameters).

    Raises `ValueError` for an argument that is neither, naming it and listing what a call takes.
    """
    params = {k: v for k, v in kwargs.items() if k not in IGNORED_KWARGS}
    call = {k: params.pop(k) for k in CALL_KWARGS if k in params}
    unknown = sorted(k for k in params if k not in PARAMETERS)
    if unknown:
        msg = (
            f"{unknown[0]}={params[unknown[0]]!r} is not a parameter of ChatPerplexityStrict "
            f"(api={api!r}); call-time parameters are: {', '.join(sorted(PARAMETERS))}, {', '.join(CALL_KWARGS)}."
        )
        raise ValueError(msg)
    return call, params


def ls_params(model: Any, stop: Any, kwargs: Mapping[str, Any]) -> Any:
    """LangSmith's parameters for a call of `model` (provider "perplexity")."""
    from langchain_core.language_models.chat_models import LangSmithParams

    params = LangSmithParams(ls_provider="perplexity", ls_model_name=kwargs.get("model") or model.model,
                             ls_model_type="chat")  # fmt: skip
    temperature = kwargs.get("temperature", model.temperature)
    if temperature is not None:
        params["ls_temperature"] = temperature
    max_tokens = kwargs.get("max_tokens", model.max_tokens)
    if max_tokens is not None:
        params["ls_max_tokens"] = max_tokens
    stops = stop_list(stop if stop is not None else model.stop)
    if stops:
        params["ls_stop"] = stops
    return params
