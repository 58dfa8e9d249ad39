"""A row of the parameter table (`Parameter`): what a parameter accepts, and where it goes on each surface.

A path is dotted (`web_search.*` is the Agent API's tool), `CLIENT` (done by the package) or None (absent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictStr, StringConstraints

from langchain_perplexity_strict._accepts import NON_BLANK, Accepts, holds, one_of, ruled
from langchain_perplexity_strict._request._filters import (
    MAX_SEARCH_TOKENS,
    UserLocation,
    domains_problem,
    parse_date,
)
from langchain_perplexity_strict._request._model_names import EFFORT_NAMES

Api = Literal["agent", "chat_completions"]
CLIENT = "client"

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")  # ReasoningConfigInput.effort
CHAT_REASONING_EFFORTS = ("minimal", "low", "medium", "high")  # ApiChatCompletionsRequestInput.reasoning_effort
SERVICE_TIERS = ("auto", "default", "flex", "priority", "fast")  # ResponsesRequestInput.service_tier


def number(low: float, high: float) -> Accepts:
    return Accepts(f"a number in [{low}, {high}]", Annotated[float, Field(ge=low, le=high)])


def integer(low: int, high: int | None = None, note: str = "") -> Accepts:
    words = f"an integer in [{low}, {high}]" if high is not None else f"an integer >= {low}"
    return Accepts(words + (f" ({note})" if note else ""), Annotated[int, Field(ge=low, le=high)])


TEXT = Annotated[str, StringConstraints(min_length=1)]
FLAG = Accepts("True or False", StrictBool)
STRING = Accepts("a string", StrictStr)
LANGUAGE = Accepts("a language name or code", TEXT)
PRESET = Accepts("a preset name such as fast, low, medium, high, xhigh", TEXT)
CONTEXT_SIZE = one_of("low", "medium", "high")
STOP = Accepts("a string or a list of non-empty strings", StrictStr | list[TEXT])
STALL = Accepts(
    "a number of seconds >= 0 (0 or None: no stall detection)", Annotated[float, Field(ge=0, allow_inf_nan=False)]
)
TEMPERATURE = Accepts("a number in [0, 2] (agent) or [0, 2) (chat_completions)", Annotated[float, Field(ge=0, le=2)])
CHAT_TEMPERATURE = Annotated[float, Field(ge=0, lt=2)]  # Perplexity's chat-completions reference: [0, 2).
REASONING = Accepts(
    f"one of {', '.join(REASONING_EFFORTS)} (agent) or {', '.join(CHAT_REASONING_EFFORTS)} (chat_completions)",
    one_of(*REASONING_EFFORTS).type,
)
CHAT_REASONING = one_of(*CHAT_REASONING_EFFORTS).type
DOMAINS = Accepts(
    "at most 20 domains without a scheme, all allowed or all denied with a '-' prefix", ruled(domains_problem)
)
DATE = Accepts("a date as M/D/YYYY or MM/DD/YYYY", Annotated[StrictStr, holds(lambda v: parse_date(v) is not None)])
LOCATION = Accepts(
    "a dict with some of city, country, region (strings), latitude in [-90, 90], longitude in [-180, 180]",
    UserLocation,
)
SEARCH_TYPE = Accepts("web or fast (agent); fast, pro or auto (chat_completions)", Literal["web", "fast"])
SEARCH_TOKENS = integer(1, MAX_SEARCH_TOKENS)
"""The `web_search` tool's token bounds, as its shape has them."""
MODELS = Accepts("a list of 1 to 5 model slugs", Annotated[list[StrictStr], Field(min_length=1, max_length=5)])
FREQUENCY_PENALTY = Accepts("a number > 0 (1.0 means no penalty)", Annotated[float, Field(gt=0)])
# An effort level, optionally pinned to a version (the effort page's example); the version format is unpublished.
EFFORT = Accepts(
    "one of " + ", ".join(EFFORT_NAMES) + ", optionally pinned to a version (fast@2026-10-16.0)",
    Annotated[
        StrictStr, StringConstraints(pattern=r"^(" + "|".join(EFFORT_NAMES) + r")(@[0-9A-Za-z][0-9A-Za-z._-]*)?$")
    ],
)
CONTINUATION = Accepts(
    "True or False (True only on api='agent': chat completions store nothing to continue from)", StrictBool
)
NO_CONTINUATION = Annotated[StrictBool, holds(lambda v: v is False)]
MODEL = Accepts("a model name, not empty nor blank ('perplexity/sonar', 'sonar')", NON_BLANK, " is not accepted")
RULES = Accepts(
    "a list or tuple of callable normalizer rules", Annotated[list | tuple, holds(lambda v: all(map(callable, v)))]
)


@dataclass(frozen=True)
class Parameter:
    """One parameter: its rule (the Agent API's), and its path in each surface's body (None: not there)."""

    rule: Accepts
    agent: str | None
    chat: str | None
    chat_type: Any = None
    """What chat completions accept, if not the rule's type (in the rule's words)."""
    nullable: bool = True
    """Whether None is a value; from the field's type."""
    _rules: dict[str, Accepts] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        chat = self.rule if self.chat_type is None else Accepts(self.rule.accepted, self.chat_type)
        object.__setattr__(self, "_rules", {"agent": self.rule, "chat_completions": chat})

    @property
    def accepted(self) -> str:
        return self.rule.accepted

    def accepts(self, api: Api) -> Accepts:
        return self._rules[api]

    def path(self, api: Api) -> str | None:
        return self.agent if api == "agent" else self.chat


WS = "web_search."
FILTERS = WS + "filters."


def place(body: dict[str, Any], path: str, value: Any) -> None:
    """Set `value` at the dotted `path` of `body`."""
    *parents, leaf = path.split(".")
    target = body
    for key in parents:
        target = target.setdefault(key, {})
    target[leaf] = value
