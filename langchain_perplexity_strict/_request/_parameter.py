"""The vocabulary a parameter is declared in: what it accepts, and where it goes on each surface.

A `Parameter` says what it accepts (checked at construction and at
call time, so a request Perplexity would refuse is never sent and a
parameter is never silently dropped) and its place in each surface's body:
a dotted path such as `"max_output_tokens"`, `"reasoning.effort"` or
`"web_search.filters.search_domain_filter"` (`web_search.*` is the
Agent API's `web_search` tool), `CLIENT` for what the package does
itself (`n`, `stop`), or None where the surface has no such parameter.
Each parameter is declared once, as a field of `PerplexityParameters`
annotated with its `Parameter` (`_parameters`).

Sources: the Agent API fields are those of `ResponsesRequestInput` and
`WebSearchToolInput` in `perplexity.generated.api` (Perplexity's SDK,
generated from its OpenAPI spec); chat completions are
`ApiChatCompletionsRequestInput`. Ranges beyond the types are in
`docs/perplexity-rules.md`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from langchain_perplexity_strict._request._filters import domains_problem, parse_date
from langchain_perplexity_strict._request._ranges import RANGES

Api = Literal["agent", "chat_completions"]
CLIENT = "client"

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")  # ReasoningConfigInput.effort
CHAT_REASONING_EFFORTS = ("minimal", "low", "medium", "high")  # ApiChatCompletionsRequestInput.reasoning_effort
SERVICE_TIERS = ("auto", "default", "flex", "priority", "fast")  # ResponsesRequestInput.service_tier
DATE_FILTERS = ("search_after_date_filter", "search_before_date_filter",
                "last_updated_after_filter", "last_updated_before_filter")  # fmt: skip
LOCATION_FIELDS = ("city", "country", "region", "latitude", "longitude")  # ToolUserLocationInput

Check = Callable[[Any, Api], bool]


def number(low: float, high: float) -> Check:
    return lambda v, a: isinstance(v, (int, float)) and not isinstance(v, bool) and low <= v <= high


def integer(low: int, high: int | None = None) -> Check:
    return lambda v, a: (
        isinstance(v, int) and not isinstance(v, bool) and v >= low and (high is None or v <= high)
    )  # fmt: skip


def one_of(*values: Any) -> Check:
    return lambda v, a: v in values


def text(v: Any, a: Api) -> bool:
    return isinstance(v, str) and bool(v)


def flag(v: Any, a: Api) -> bool:
    return isinstance(v, bool)


def seconds(v: Any, a: Api) -> bool:
    """A finite number of seconds >= 0 (0 turns the setting off; None, too, is never checked)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


STALL = "a number of seconds >= 0 (0 or None: no stall detection)"


def per_surface(agent: Callable[[Any], bool], chat_completions: Callable[[Any], bool]) -> Check:
    """A check that differs by surface: each surface's own, looked up by name."""
    checks = {"agent": agent, "chat_completions": chat_completions}
    return lambda v, a: checks[a](v)


# Agent API: [0, 2]; chat completions: [0, 2), per Perplexity's chat-completions reference.
temperature = per_surface(
    agent=lambda v: number(0, 2)(v, "agent"), chat_completions=lambda v: number(0, 2)(v, "agent") and v < 2
)


def domains(v: Any, a: Api) -> bool:
    return domains_problem(v) is None


def location(v: Any, a: Api) -> bool:
    """`ToolUserLocationInput`, as a bound `web_search`'s `user_location` is checked: names as strings,
    coordinates as numbers in the documented ranges (`RANGES`)."""
    if not isinstance(v, dict) or not set(v) <= set(LOCATION_FIELDS):
        return False
    for key, value in v.items():
        if key in ("latitude", "longitude"):
            low, high, _ = RANGES[("web_search", f"user_location.{key}")]
            if not number(low, high)(value, a):
                return False
        elif not isinstance(value, str):
            return False
    return True


LOCATION = "a dict with some of city, country, region (strings), latitude in [-90, 90], longitude in [-180, 180]"
SEARCH_TOKENS = RANGES[("web_search", "max_tokens")][1]
"""The `web_search` tool's `max_tokens` and `max_tokens_per_page` bound, whether set on the model or the tool."""


def stop(v: Any, a: Api) -> bool:
    return isinstance(v, str) or (isinstance(v, list) and all(isinstance(s, str) and s for s in v))


reasoning = per_surface(agent=lambda v: v in REASONING_EFFORTS, chat_completions=lambda v: v in CHAT_REASONING_EFFORTS)
search_type = per_surface(agent=lambda v: v in ("web", "fast"), chat_completions=lambda v: v in ("fast", "pro", "auto"))
# Chat completions store nothing to continue from.
continue_flag = per_surface(agent=lambda v: isinstance(v, bool), chat_completions=lambda v: v is False)


def date(v: Any, a: Api) -> bool:
    return parse_date(v) is not None


def models(v: Any, a: Api) -> bool:
    return isinstance(v, list) and 1 <= len(v) <= 5 and all(isinstance(m, str) for m in v)


def string(v: Any, a: Api) -> bool:
    return isinstance(v, str)


def frequency_penalty(v: Any, a: Api) -> bool:
    return number(0, float("inf"))(v, a) and v > 0


@dataclass(frozen=True)
class Parameter:
    """One parameter: what it accepts, and its path in each surface's body (None: not there).

    Written as the `Annotated` metadata of its field; `name` is filled in from the field.
    """

    accepted: str
    check: Check
    agent: str | None
    chat: str | None
    name: str = ""
    nullable: bool = True
    """Whether None is a value (unset, or off); filled in from the field's type."""

    def path(self, api: Api) -> str | None:
        """Where the value goes on `api` (`CLIENT`: handled by the package; None: not available)."""
        return {"agent": self.agent, "chat_completions": self.chat}[api]


WS = "web_search."
FILTERS = WS + "filters."


def place(body: dict[str, Any], path: str, value: Any) -> None:
    """Set `value` at the dotted `path` of `body` (a parameter's path), creating the objects on the way."""
    *parents, leaf = path.split(".")
    target = body
    for key in parents:
        target = target.setdefault(key, {})
    target[leaf] = value
