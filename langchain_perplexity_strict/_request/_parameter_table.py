"""The parameters of `ChatPerplexityStrict`: one declaration each, and the checks on them.

Sources: `ResponsesRequestInput`, `WebSearchToolInput` and `ApiChatCompletionsRequestInput`
(`perplexity.generated.api`); ranges beyond the types: `docs/perplexity-rules.md`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Annotated, Any, Literal, get_args

from pydantic import ConfigDict, Field, StrictBool
from pydantic.fields import FieldInfo

from langchain_perplexity_strict._accepts import TOKEN_BUDGET, Accepts, check, suggestion
from langchain_perplexity_strict._connection_settings import PerplexitySettings
from langchain_perplexity_strict._redact import shown
from langchain_perplexity_strict._request import _parameter_row as rows
from langchain_perplexity_strict._request._filters import RECENCY
from langchain_perplexity_strict._request._habits import FOREIGN_HINTS, HABITS
from langchain_perplexity_strict._request._parameter_row import (
    CLIENT,
    FILTERS,
    SERVICE_TIERS,
    WS,
    Api,
    Parameter,
)
from langchain_perplexity_strict._request._skills import SKILLS
from langchain_perplexity_strict.normalize import DEFAULT_RULES

NAME = "{name}"
"""In a path: the parameter's own name."""

OPTIONS = "web_search_options."
"""Chat completions' search options."""

DateFilter = Annotated[str | None, Parameter(rows.DATE, FILTERS + NAME, NAME)]


class PerplexityParameters(PerplexitySettings):
    """The chat model's settings: the connection's, client options, then Perplexity's parameters (`None`: not sent).

    A parameter's field carries its `Parameter` as `Annotated` metadata, read into `PARAMETERS`.
    """

    stop: Annotated[list[str] | str | None, Parameter(rows.STOP, CLIENT, CLIENT)] = None
    """Stop sequences, applied on the client."""
    n: Annotated[int, Parameter(rows.integer(1, note="run as n requests"), CLIENT, CLIENT)] = 1
    """Answers per call, as `n` concurrent requests (Perplexity has no `n`)."""
    streaming: bool = False
    """Stream under `invoke` too (one answer only)."""
    raise_on_length: bool = False
    """Raise `PerplexityIncompleteError` for an answer cut at the output limit."""
    stream_usage: Annotated[bool | None, Parameter(Accepts("True, False or None", StrictBool), CLIENT, CLIENT)] = None
    """As `ChatOpenAI`'s: False leaves `usage_metadata` off a stream's chunks. Also per call."""
    stream_chunk_timeout: Annotated[float | None, Parameter(rows.STALL, CLIENT, CLIENT)] = 120.0
    """Seconds without a byte before a stream is stalled and resumed (None or 0: off; docs/long-runs.md)."""
    max_resumes: Annotated[int, Parameter(rows.integer(0, note="0: off"), CLIENT, CLIENT)] = 5
    """Failed resumes in a row before `PerplexityResumeError`."""
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra body fields, sent as they are."""
    max_input_tokens: int | None = None
    """Token budget: older turns are compacted to fit. Default: the profile's limit; 0: off."""
    token_counter: Any = Field(default=None, exclude=True)
    """Counts tokens for compaction and `get_num_tokens`: a callable or an object with `encode`."""
    use_previous_response_id: Annotated[bool, Parameter(rows.CONTINUATION, CLIENT, CLIENT, rows.NO_CONTINUATION)] = (
        False
    )
    """Agent API: send only what follows the latest stored answer (README, "Continuations")."""
    rules: Sequence[Any] = Field(default=DEFAULT_RULES, exclude=True)
    """The normalizer's rules, in order."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    temperature: Annotated[float | None, Parameter(rows.TEMPERATURE, NAME, NAME, rows.CHAT_TEMPERATURE)] = None
    """Sampling temperature."""
    top_p: Annotated[float | None, Parameter(rows.number(0, 1), NAME, NAME)] = None
    """Nucleus sampling."""
    max_tokens: Annotated[int | None, Parameter(rows.integer(1), "max_output_tokens", "max_tokens")] = None
    """Answer length limit (`max_output_tokens` on the Agent API)."""
    reasoning_effort: Annotated[
        str | None, Parameter(rows.REASONING, "reasoning.effort", NAME, rows.CHAT_REASONING)
    ] = None
    """Reasoning effort (`reasoning.effort` on the Agent API)."""
    language_preference: Annotated[str | None, Parameter(rows.LANGUAGE, NAME, NAME)] = None
    """Answer language."""
    search_domain_filter: Annotated[list[str] | None, Parameter(rows.DOMAINS, FILTERS + NAME, NAME)] = None
    """At most 20 domains to search (`-` prefix excludes)."""
    search_recency_filter: Annotated[str | None, Parameter(rows.one_of(*RECENCY), FILTERS + NAME, NAME)] = None
    """hour, day, week, month or year."""
    search_after_date_filter: DateFilter = None
    """Published after, MM/DD/YYYY."""
    search_before_date_filter: DateFilter = None
    """Published before, MM/DD/YYYY."""
    last_updated_after_filter: DateFilter = None
    """Updated after, MM/DD/YYYY."""
    last_updated_before_filter: DateFilter = None
    """Updated before, MM/DD/YYYY."""
    search_context_size: Annotated[str | None, Parameter(rows.CONTEXT_SIZE, WS + NAME, OPTIONS + NAME)] = None
    """low, medium or high."""
    user_location: Annotated[dict[str, Any] | None, Parameter(rows.LOCATION, WS + NAME, OPTIONS + NAME)] = None
    """Where the user is."""
    search_type: Annotated[
        str | None, Parameter(rows.SEARCH_TYPE, WS + NAME, OPTIONS + NAME, Literal["fast", "pro", "auto"])
    ] = None
    """Search type."""
    search_max_tokens: Annotated[int | None, Parameter(rows.SEARCH_TOKENS, WS + "max_tokens", None)] = None
    """The `web_search` tool's `max_tokens` (Agent API)."""
    search_max_tokens_per_page: Annotated[
        int | None, Parameter(rows.SEARCH_TOKENS, WS + "max_tokens_per_page", None)
    ] = None
    """The `web_search` tool's `max_tokens_per_page` (Agent API)."""
    web_search: Annotated[bool | None, Parameter(rows.FLAG, CLIENT, None)] = None
    """Add the `web_search` tool (Agent API; default on)."""
    effort: Annotated[str | None, Parameter(rows.EFFORT, NAME, None)] = None
    """Agent API effort level (not `reasoning_effort`): a Perplexity-managed configuration that picks the model
    unless given one. Replaces the deprecated `preset`."""
    preset: Annotated[str | None, Parameter(rows.PRESET, NAME, None)] = None
    """Deprecated in favour of `effort`; not sent with it."""
    models: Annotated[list[str] | None, Parameter(rows.MODELS, NAME, None)] = None
    """Agent API fallback models (1 to 5)."""
    max_steps: Annotated[int | None, Parameter(rows.integer(1, 100), NAME, None)] = None
    """Agent API step limit (1 to 100)."""
    instructions: Annotated[str | None, Parameter(rows.STRING, NAME, None)] = None
    """Agent API `instructions` (replace a preset's prompt)."""
    skills: Annotated[list[Any] | None, Parameter(SKILLS, NAME, None)] = None
    """Agent API skills (a skill turns the sandbox on)."""
    store: Annotated[bool | None, Parameter(rows.FLAG, NAME, None)] = None
    """Agent API `store`."""
    background: Annotated[bool | None, Parameter(rows.FLAG, NAME, None)] = None
    """Agent API `background`: the run outlives its connection (docs/long-runs.md). Also per call."""
    prompt_cache_key: Annotated[str | None, Parameter(Accepts("a string", rows.TEXT), NAME, None)] = None
    """Agent API `prompt_cache_key`."""
    service_tier: Annotated[str | None, Parameter(rows.one_of(*SERVICE_TIERS), NAME, None)] = None
    """Agent API `service_tier`."""
    top_k: Annotated[int | None, Parameter(rows.integer(0, 2048, note="0 disables"), None, NAME)] = None
    """Chat completions only."""
    presence_penalty: Annotated[float | None, Parameter(rows.number(-2, 2), None, NAME)] = None
    """Chat completions only."""
    frequency_penalty: Annotated[float | None, Parameter(rows.FREQUENCY_PENALTY, None, NAME)] = None
    """Chat completions only."""
    search_mode: Annotated[str | None, Parameter(rows.one_of("web", "academic", "sec"), None, NAME)] = None
    """Chat completions only."""
    return_images: Annotated[bool | None, Parameter(rows.FLAG, None, NAME)] = None
    """Chat completions only (False is accepted on the Agent API)."""
    return_related_questions: Annotated[bool | None, Parameter(rows.FLAG, None, NAME)] = None
    """Chat completions only (False is accepted on the Agent API)."""
    disable_search: Annotated[bool | None, Parameter(rows.FLAG, CLIENT, NAME)] = None
    """Turn web search off (on the Agent API, as `web_search=False` does)."""
    enable_search_classifier: Annotated[bool | None, Parameter(rows.FLAG, None, NAME)] = None
    """Chat completions only: let Perplexity decide whether to search (False is accepted on the Agent API)."""
    image_results_enhanced_relevance: Annotated[bool | None, Parameter(rows.FLAG, None, OPTIONS + NAME)] = None
    """Chat completions only."""


def _named(row: Parameter, name: str, info: FieldInfo) -> Parameter:
    def fill(path: str | None) -> str | None:
        return path.replace(NAME, name) if path else path

    nullable = type(None) in get_args(info.annotation) or info.annotation is Any
    return replace(row, agent=fill(row.agent), chat=fill(row.chat), nullable=nullable)


PARAMETERS: dict[str, Parameter] = {
    name: _named(row, name, info)
    for name, info in PerplexityParameters.model_fields.items()
    for row in info.metadata
    if isinstance(row, Parameter)
}
"""Every Perplexity parameter, in declaration order."""
DATE_FILTERS = {name for name, row in PARAMETERS.items() if row.rule is rows.DATE}
SETTINGS: dict[str, Accepts] = {"model": rows.MODEL, "max_input_tokens": TOKEN_BUDGET, "rules": rows.RULES}


_IMAGES = (
    "for images bind_tools([image_search_tool(), web_search_tool()]) (web_search_tool() carries the model's search "
    "settings, which image_search alone would bypass)"
)
_AGENT_INSTEAD = {  # what the Agent API offers instead of a chat-completions-only parameter
    "enable_search_classifier": (
        "the Agent API has no search classifier: the model decides when to call the web_search tool, as the "
        "classifier did; remove it"
    ),
    "image_results_enhanced_relevance": _IMAGES,
    **dict.fromkeys(
        ("top_k", "presence_penalty", "frequency_penalty", "search_mode", "return_related_questions"),
        "it was removed from the Agent API",
    ),
    "return_images": f"it was removed from the Agent API; {_IMAGES}",
}

_INSTEAD: dict[str, dict[str, str]] = {"agent": _AGENT_INSTEAD, "chat_completions": {}}
_OTHER_SURFACE = {"agent": "chat_completions", "chat_completions": "agent"}

# Chat-completions switches whose False the Agent API takes and does not send (langchain-perplexity's defaults).
FALSE_IS_DEFAULT_ON_AGENT = ("return_images", "return_related_questions", "enable_search_classifier")


def check_parameters(values: Mapping[str, Any], api: Api) -> None:
    """Raise `ValueError` naming the field, the value and what is accepted."""
    for name, value in values.items():
        if name in SETTINGS:
            check(name, value, SETTINGS[name])
        parameter = PARAMETERS.get(name)
        if parameter is None or (value is None and parameter.nullable):
            continue
        if value is None:  # it would silently mean 0 or off
            msg = f"{name}=None is not accepted on api={api!r}: expected {parameter.accepted}."
            raise ValueError(msg)
        if parameter.path(api) is None:
            if value is False and api == "agent" and name in FALSE_IS_DEFAULT_ON_AGENT:
                continue
            other = _OTHER_SURFACE[api]
            why = f" ({_INSTEAD[api][name]})" if name in _INSTEAD[api] else ""
            msg = f"{name}={shown(value, name)} is not available on api={api!r}{why}; it exists on api={other!r}."
            raise ValueError(msg)
        problem = parameter.accepts(api).problem(value)
        if problem is not None:
            msg = f"{name}={shown(value, name)} is not accepted on api={api!r}: {problem}."
            raise ValueError(msg)
    if values.get("model_kwargs"):
        check_model_kwargs(values["model_kwargs"], api)
    present = {k for k, v in values.items() if v is not None}
    if {"presence_penalty", "frequency_penalty"} <= present:
        msg = (
            f"presence_penalty={shown(values['presence_penalty'])} and frequency_penalty="
            f"{shown(values['frequency_penalty'])}: Perplexity accepts one or the other, not both."
        )
        raise ValueError(msg)
    if values.get("disable_search") and values.get("web_search"):
        msg = "disable_search=True and web_search=True contradict each other; pass one of them."
        raise ValueError(msg)
    if values.get("background") and values.get("store") is False:
        msg = (
            "background=True with store=False: a background run is followed with GET /v1/responses/{id}, "
            "which store=False hides; drop store=False."
        )
        raise ValueError(msg)
    dates = sorted(present & DATE_FILTERS)
    if "search_recency_filter" in present and dates:
        msg = (
            f"search_recency_filter={shown(values['search_recency_filter'])} cannot be combined "
            f"with {', '.join(dates)}: use a recency or dates, not both."
        )
        raise ValueError(msg)


_BUILT = {  # body fields the package writes itself, and how to set each
    "input": "the messages",
    "messages": "the messages",
    "model": "model=...",
    "stream": "stream() / invoke()",
    "tools": "bind_tools()",
    "tool_choice": "bind_tools(tool_choice=...)",
    "response_format": "with_structured_output()",
    "previous_response_id": "use_previous_response_id=True",
}


# Each surface's published top-level fields (`perplexity.generated.api`) besides the parameters' and the five
# both surfaces share.
_NO_PARAMETER: dict[Api, tuple[str, ...]] = {
    "agent": ("input", "previous_response_id", "profile", "step_budget_reminder"),
    "chat_completions": (
        "best_of",
        "country",
        "cum_logprobs",
        "diverse_first_token",
        "file_workspace_id",
        "has_image_url",
        "image_domain_filter",
        "image_format_filter",
        "latitude",
        "logprobs",
        "longitude",
        "messages",
        "n",
        "num_images",
        "num_search_results",
        "parallel_tool_calls",
        "ranking_model",
        "response_formatting_locale",
        "response_metadata",
        "safe_search",
        "search_internal_properties",
        "search_language_filter",
        "search_tenant",
        "stop",
        "stream_mode",
        "thread_id",
        "top_logprobs",
        "updated_after_timestamp",
        "updated_before_timestamp",
        "use_threads",
        "user_original_query",
    ),
}


def _sent_by_parameters(api: Api) -> set[str]:
    """The top-level body fields the parameters write on `api` (the `web_search` tool's go into `tools`)."""
    paths = [p.path(api) for p in PARAMETERS.values()]
    return {path.split(".")[0] for path in paths if path not in (None, CLIENT) and not path.startswith(WS)}


PUBLISHED_FIELDS: dict[str, frozenset[str]] = {
    api: frozenset({"model", "response_format", "stream", "tool_choice", "tools", *names, *_sent_by_parameters(api)})
    for api, names in _NO_PARAMETER.items()
}
"""Each surface's published top-level fields; a test checks them against the SDK."""


def check_model_kwargs(extra: Any, api: Api) -> None:
    """Raise `ValueError` when `model_kwargs`, sent unchecked, would carry a parameter, a built or unpublished field."""
    if not isinstance(extra, Mapping):
        raise ValueError(
            f"model_kwargs={shown(extra, 'model_kwargs')} is not accepted; expected a dict of extra body fields."
        )
    paths = {n: p.path(api) for n, p in PARAMETERS.items()}
    heads = {path.split(".")[0]: n for n, path in paths.items() if path is not None and path != CLIENT}
    for key in extra:
        name = key if key in PARAMETERS else heads.get(key)
        if name is not None:
            msg = (
                f"model_kwargs[{key!r}]: {key!r} is set by the parameter {name}; pass {name}=... instead, "
                "so it is checked (model_kwargs are sent as they are)."
            )
            raise ValueError(msg)
        if key in _BUILT:
            msg = f"model_kwargs[{key!r}]: the package builds {key!r} itself; set it with {_BUILT[key]}."
            raise ValueError(msg)
        if key not in PUBLISHED_FIELDS[api]:  # refused or silently ignored
            extra_fields = sorted(set(_NO_PARAMETER[api]) - set(_BUILT) - set(PARAMETERS) - set(HABITS))
            hint, _ = suggestion(str(key), {*PARAMETERS, *PUBLISHED_FIELDS[api]}, FOREIGN_HINTS)
            listed = "; the published fields with no parameter here, which model_kwargs and extra_body may carry: "
            msg = (
                f"model_kwargs[{key!r}] is not a field of Perplexity's published request on api={api!r} "
                f"(perplexity.generated.api), so it would be refused or ignored"
                + (f".{hint}" if hint else f"{listed}{', '.join(extra_fields)}.")
            )
            raise ValueError(msg)
