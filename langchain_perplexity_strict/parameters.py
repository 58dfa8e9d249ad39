"""Which parameters each Perplexity surface has, and the values it accepts.

Checked at construction and again at call time, so a request Perplexity would
refuse is never sent and a parameter is never silently dropped. Ranges come
from seed 002 (chat completions) and perplexity-api.md §3 (Agent API).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Api = Literal["agent", "chat_completions"]
BOTH: tuple[Api, ...] = ("agent", "chat_completions")
AGENT: tuple[Api, ...] = ("agent",)
CHAT: tuple[Api, ...] = ("chat_completions",)

REASONING_EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")
CHAT_REASONING_EFFORTS = ("minimal", "low", "medium", "high")
PRESETS = ("fast", "low", "medium", "high", "xhigh", "fast-search", "pro-search",
           "deep-research", "advanced-deep-research")  # fmt: skip
RECENCY = ("hour", "day", "week", "month", "year")
DATE_FILTERS = ("search_after_date_filter", "search_before_date_filter",
                "last_updated_after_filter", "last_updated_before_filter")  # fmt: skip
_DATE = re.compile(r"^(0[1-9]|1[0-2])/(0[1-9]|[12]\d|3[01])/\d{4}$")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _temperature(value: Any, api: Api) -> bool:
    # Agent API: [0, 2]; chat completions: [0, 2) (seed 002).
    return _number(value) and value >= 0 and (value <= 2 if api == "agent" else value < 2)


def _domains(value: Any, api: Api) -> bool:
    return (
        isinstance(value, list) and len(value) <= 20 and all(isinstance(d, str) and d and "://" not in d for d in value)
    )


def _reasoning_effort(value: Any, api: Api) -> bool:
    return value in (REASONING_EFFORTS if api == "agent" else CHAT_REASONING_EFFORTS)


@dataclass(frozen=True)
class Parameter:
    """One parameter: where it exists and what values it accepts."""

    name: str
    surfaces: tuple[Api, ...]
    accepted: str
    check: Callable[[Any, Api], bool]


PARAMETERS: dict[str, Parameter] = {
    p.name: p
    for p in [
        Parameter(
            "model",
            BOTH,
            "a model name (an Agent API slug, a preset's model or a Sonar name)",
            lambda v, a: isinstance(v, str) and bool(v),
        ),
        Parameter("temperature", BOTH, "a number in [0, 2] (agent) or [0, 2) (chat_completions)", _temperature),
        Parameter("top_p", BOTH, "a number in [0, 1]", lambda v, a: _number(v) and 0 <= v <= 1),
        Parameter(
            "max_tokens",
            BOTH,
            "an integer >= 16 (agent) or >= 1 (chat_completions)",
            lambda v, a: _integer(v) and v >= (16 if a == "agent" else 1),
        ),
        Parameter("n", BOTH, "an integer >= 1 (run as n requests)", lambda v, a: _integer(v) and v >= 1),
        Parameter(
            "stop",
            BOTH,
            "a string or a list of non-empty strings",
            lambda v, a: isinstance(v, str) or (isinstance(v, list) and all(isinstance(s, str) and s for s in v)),
        ),
        Parameter(
            "reasoning_effort", BOTH, "one of minimal, low, medium, high (and xhigh, max on agent)", _reasoning_effort
        ),
        Parameter("language_preference", BOTH, "a language name or code", lambda v, a: isinstance(v, str) and bool(v)),
        Parameter("search_domain_filter", BOTH, "at most 20 scheme-less domains ('-' prefix denies)", _domains),
        Parameter("search_recency_filter", BOTH, "one of " + ", ".join(RECENCY), lambda v, a: v in RECENCY),
        *[
            Parameter(name, BOTH, "a date as MM/DD/YYYY", lambda v, a: isinstance(v, str) and bool(_DATE.match(v)))
            for name in DATE_FILTERS
        ],
        Parameter("search_context_size", BOTH, "one of low, medium, high", lambda v, a: v in ("low", "medium", "high")),
        Parameter(
            "user_location", BOTH, "a dict such as {'country': 'FR', 'city': 'Paris'}", lambda v, a: isinstance(v, dict)
        ),
        Parameter("preset", AGENT, "one of " + ", ".join(PRESETS), lambda v, a: v in PRESETS),
        Parameter(
            "models",
            AGENT,
            "a list of 1 to 5 model slugs",
            lambda v, a: isinstance(v, list) and 1 <= len(v) <= 5 and all(isinstance(m, str) for m in v),
        ),
        Parameter("max_steps", AGENT, "an integer in [1, 100]", lambda v, a: _integer(v) and 1 <= v <= 100),
        Parameter("max_search_results", AGENT, "an integer in [1, 50]", lambda v, a: _integer(v) and 1 <= v <= 50),
        Parameter("web_search", AGENT, "True or False", lambda v, a: isinstance(v, bool)),
        Parameter("top_k", CHAT, "an integer in [0, 2048] (0 disables)", lambda v, a: _integer(v) and 0 <= v <= 2048),
        Parameter("presence_penalty", CHAT, "a number in [-2, 2]", lambda v, a: _number(v) and -2 <= v <= 2),
        Parameter("frequency_penalty", CHAT, "a number > 0 (1.0 means no penalty)", lambda v, a: _number(v) and v > 0),
        Parameter("search_mode", CHAT, "one of web, academic, sec", lambda v, a: v in ("web", "academic", "sec")),
        Parameter("return_images", CHAT, "True or False", lambda v, a: isinstance(v, bool)),
        Parameter("return_related_questions", CHAT, "True or False", lambda v, a: isinstance(v, bool)),
        Parameter("disable_search", CHAT, "True or False", lambda v, a: isinstance(v, bool)),
    ]
}

# What the Agent API offers instead of a chat-completions-only parameter.
_AGENT_INSTEAD = {
    "top_k": "it was removed from the Agent API",
    "presence_penalty": "it was removed from the Agent API",
    "frequency_penalty": "it was removed from the Agent API",
    "disable_search": "on the Agent API, pass web_search=False",
    "search_mode": "it was removed from the Agent API",
    "return_images": "it was removed from the Agent API",
    "return_related_questions": "it was removed from the Agent API",
}

# OpenAI parameters that no Perplexity surface has.
UNSUPPORTED = {
    "logit_bias": "not in Perplexity's schema",
    "logprobs": "removed from the Agent API and absent from Sonar",
    "top_logprobs": "not offered by Perplexity",
    "seed": "not offered by Perplexity",
    "service_tier": "not offered by Perplexity",
    "prediction": "not offered by Perplexity",
    "modalities": "not offered by Perplexity",
    "audio": "not offered by Perplexity",
}


def check_parameters(values: Mapping[str, Any], api: Api) -> None:
    """Raise ``ValueError`` naming the field, the value and what is accepted."""
    for name, value in values.items():
        if value is None:
            continue
        if name in UNSUPPORTED:
            msg = f"{name}={value!r}: {UNSUPPORTED[name]}; remove it."
            raise ValueError(msg)
        parameter = PARAMETERS.get(name)
        if parameter is None:
            continue
        if api not in parameter.surfaces:
            other = parameter.surfaces[0]
            why = f" ({_AGENT_INSTEAD[name]})" if name in _AGENT_INSTEAD else ""
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
    dates = sorted(present & set(DATE_FILTERS))
    if "search_recency_filter" in present and dates:
        msg = (
            f"search_recency_filter={values['search_recency_filter']!r} cannot be combined "
            f"with {', '.join(dates)}: use a recency or dates, not both."
        )
        raise ValueError(msg)
