"""A row of the parameter table (`Parameter`): what a parameter accepts, and where it goes on each surface.

A `Parameter` says what it accepts, as a strict pydantic type checked by
`_accepts.Accepts` (at construction and at call time alike, so a request Perplexity would refuse is never sent and a
parameter is never silently dropped) and its place in each surface's body:
a dotted path such as `"max_output_tokens"`, `"reasoning.effort"` or
`"web_search.filters.search_domain_filter"` (`web_search.*` is the
Agent API's `web_search` tool), `CLIENT` for what the package does
itself (`n`, `stop`), or None where the surface has no such parameter.
Each parameter is declared once, as a field of `PerplexityParameters`
annotated with its `Parameter` (`_parameter_table`).

Sources: the Agent API fields are those of `ResponsesRequestInput` and
`WebSearchToolInput` in `perplexity.generated.api` (Perplexity's SDK,
generated from its OpenAPI spec); chat completions are
`ApiChatCompletionsRequestInput`. Ranges beyond the types are in
`docs/perplexity-rules.md`.
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
LOCATION_FIELDS = ("city", "country", "region", "latitude", "longitude")  # ToolUserLocationInput
EFFORT_LEVELS = EFFORT_NAMES
"""The Agent API's effort levels (docs.perplexity.ai/docs/agent-api/effort), not `reasoning.effort`'s."""


def _number(low: float, high: float) -> Any:
    return Annotated[float, Strict(), Field(ge=low, le=high)]


def _integer(low: int, high: int | None = None) -> Any:
    return Annotated[int, Strict(), Field(ge=low, le=high)]


TEXT = Annotated[str, Strict(), StringConstraints(min_length=1)]
FLAG = StrictBool
STRING = StrictStr
SECONDS = Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)]
"""A finite number of seconds >= 0 (0 turns the setting off; None, too, is never checked)."""
STALL = "a number of seconds >= 0 (0 or None: no stall detection)"
TEMPERATURE = _number(0, 2)
# Chat completions: [0, 2), per Perplexity's chat-completions reference.
CHAT_TEMPERATURE = Annotated[float, Strict(), Field(ge=0, lt=2)]
DOMAINS = ruled(domains_problem)
DATE = Annotated[StrictStr, holds(lambda v: parse_date(v) is not None)]
STOP = StrictStr | list[TEXT]
MODELS = Annotated[list[StrictStr], Field(min_length=1, max_length=5)]
FREQUENCY_PENALTY = Annotated[float, Strict(), Field(gt=0)]
# An effort level, optionally pinned to a released version (`fast@2026-10-16.0`, the effort page's example).
# The published field is a free string; the names are the effort page's, the version's format is Perplexity's
# to define (one example published), so any version without spaces or another `@` goes through.
EFFORT = Annotated[
    StrictStr, StringConstraints(pattern=r"^(" + "|".join(EFFORT_LEVELS) + r")(@[0-9A-Za-z][0-9A-Za-z._-]*)?$")
]
EFFORT_ACCEPTED = "one of " + ", ".join(EFFORT_LEVELS) + ", optionally pinned to a version (fast@2026-10-16.0)"
# Chat completions store nothing to continue from.
NO_CONTINUATION = Annotated[StrictBool, holds(lambda v: v is False)]


def _coordinate(name: str) -> Any:
    low, high, _ = RANGES[("web_search", f"user_location.{name}")]  # the bound web_search tool's, too
    return _number(low, high)


class UserLocation(TypedDict, total=False):
    """`ToolUserLocationInput`, as a bound `web_search`'s `user_location` is checked: names as strings,
    coordinates as numbers in the documented ranges (`RANGES`)."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]

    city: StrictStr
    country: StrictStr
    region: StrictStr
    latitude: _coordinate("latitude")  # type: ignore[valid-type]
    longitude: _coordinate("longitude")  # type: ignore[valid-type]


LOCATION = "a dict with some of city, country, region (strings), latitude in [-90, 90], longitude in [-180, 180]"
SEARCH_TOKENS = RANGES[("web_search", "max_tokens")][1]
"""The `web_search` tool's `max_tokens` and `max_tokens_per_page` bound, whether set on the model or the tool."""


def one_of(*values: str) -> Any:
    return Literal[values]


def number(low: float, high: float) -> Any:
    return _number(low, high)


def integer(low: int, high: int | None = None) -> Any:
    return _integer(low, high)


SAME: Any = object()
"""`Parameter.chat_type`'s default: chat completions accept what the Agent API accepts."""


@dataclass(frozen=True)
class Parameter:
    """One parameter: what it accepts, and its path in each surface's body (None: not there).

    Written as the `Annotated` metadata of its field; `name` is filled in from the field.
    """

    accepted: str
    type: Any
    """What the Agent API (and, unless `chat_type` says otherwise, chat completions) accepts, as a pydantic type."""
    agent: str | None
    chat: str | None
    chat_type: Any = SAME
    """What chat completions accept, where it differs from the Agent API."""
    name: str = ""
    nullable: bool = True
    """Whether None is a value (unset, or off); filled in from the field's type."""

    _rules: dict[str, Accepts] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        chat = self.type if self.chat_type is SAME else self.chat_type
        rules = {"agent": Accepts(self.accepted, self.type), "chat_completions": Accepts(self.accepted, chat)}
        object.__setattr__(self, "_rules", rules)

    def accepts(self, api: Api) -> Accepts:
        """This parameter's rule on `api` (its `TypeAdapter` built once, see `_accepts`)."""
        return self._rules[api]

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
