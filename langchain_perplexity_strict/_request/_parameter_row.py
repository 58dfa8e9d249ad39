"""A row of the parameter table (`Parameter`): what a parameter accepts, and where it goes on each surface.

A path is dotted (`web_search.*` is the Agent API's tool), `CLIENT` (done by the package) or None (absent).
Sources: as `_parameter_table`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictBool, StrictStr, StringConstraints
from pydantic.types import Strict
from typing_extensions import TypedDict

from langchain_perplexity_strict._accepts import Accepts, holds, ruled
from langchain_perplexity_strict._request._filters import domains_problem, parse_date
from langchain_perplexity_strict._request._model_names import EFFORT_NAMES
from langchain_perplexity_strict._request._ranges import RANGES

Api = Literal["agent", "chat_completions"]
CLIENT = "client"

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")  # ReasoningConfigInput.effort
CHAT_REASONING_EFFORTS = ("minimal", "low", "medium", "high")  # ApiChatCompletionsRequestInput.reasoning_effort
SERVICE_TIERS = ("auto", "default", "flex", "priority", "fast")  # ResponsesRequestInput.service_tier
DATE_FILTERS = (
    "search_after_date_filter",
    "search_before_date_filter",
    "last_updated_after_filter",
    "last_updated_before_filter",
)


def number(low: float, high: float) -> Any:
    return Annotated[float, Strict(), Field(ge=low, le=high)]


def integer(low: int, high: int | None = None) -> Any:
    return Annotated[int, Strict(), Field(ge=low, le=high)]


def one_of(*values: str) -> Any:
    return Literal[values]


TEXT = Annotated[str, Strict(), StringConstraints(min_length=1)]
FLAG = StrictBool
STRING = StrictStr
SECONDS = Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)]
"""A finite number of seconds >= 0 (0: off)."""
STALL = "a number of seconds >= 0 (0 or None: no stall detection)"
TEMPERATURE = number(0, 2)
# Perplexity's chat-completions reference: [0, 2).
CHAT_TEMPERATURE = Annotated[float, Strict(), Field(ge=0, lt=2)]
DOMAINS = ruled(domains_problem)
DATE = Annotated[StrictStr, holds(lambda v: parse_date(v) is not None)]
STOP = StrictStr | list[TEXT]
MODELS = Annotated[list[StrictStr], Field(min_length=1, max_length=5)]
FREQUENCY_PENALTY = Annotated[float, Strict(), Field(gt=0)]
# An effort level, optionally pinned to a version (the effort page's example); the version format is unpublished.
EFFORT = Annotated[
    StrictStr, StringConstraints(pattern=r"^(" + "|".join(EFFORT_NAMES) + r")(@[0-9A-Za-z][0-9A-Za-z._-]*)?$")
]
EFFORT_ACCEPTED = "one of " + ", ".join(EFFORT_NAMES) + ", optionally pinned to a version (fast@2026-10-16.0)"
NO_CONTINUATION = Annotated[StrictBool, holds(lambda v: v is False)]


def _coordinate(name: str) -> Any:
    low, high, _ = RANGES[("web_search", f"user_location.{name}")]
    return number(low, high)


class UserLocation(TypedDict, total=False):
    """`ToolUserLocationInput`, with coordinates in the documented ranges."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]

    city: StrictStr
    country: StrictStr
    region: StrictStr
    latitude: _coordinate("latitude")  # type: ignore[valid-type]
    longitude: _coordinate("longitude")  # type: ignore[valid-type]


LOCATION = "a dict with some of city, country, region (strings), latitude in [-90, 90], longitude in [-180, 180]"
SEARCH_TOKENS = RANGES[("web_search", "max_tokens")][1]
"""The `web_search` tool's token bound."""


SAME: Any = object()
"""`Parameter.chat_type`'s default: as the Agent API."""


@dataclass(frozen=True)
class Parameter:
    """One parameter: what it accepts, and its path in each surface's body (None: not there)."""

    accepted: str
    type: Any
    """What the Agent API accepts, as a pydantic type."""
    agent: str | None
    chat: str | None
    chat_type: Any = SAME
    """What chat completions accept, if different."""
    name: str = ""
    nullable: bool = True
    """Whether None is a value; from the field's type."""

    _rules: dict[str, Accepts] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        chat = self.type if self.chat_type is SAME else self.chat_type
        rules = {"agent": Accepts(self.accepted, self.type), "chat_completions": Accepts(self.accepted, chat)}
        object.__setattr__(self, "_rules", rules)

    def accepts(self, api: Api) -> Accepts:
        """This parameter's rule on `api`."""
        return self._rules[api]

    def path(self, api: Api) -> str | None:
        """Where the value goes on `api`."""
        return {"agent": self.agent, "chat_completions": self.chat}[api]


WS = "web_search."
FILTERS = WS + "filters."


def place(body: dict[str, Any], path: str, value: Any) -> None:
    """Set `value` at the dotted `path` of `body`."""
    *parents, leaf = path.split(".")
    target = body
    for key in parents:
        target = target.setdefault(key, {})
    target[leaf] = value
