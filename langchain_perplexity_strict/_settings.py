"""The Perplexity parameters of `ChatPerplexityStrict`, as pydantic fields with their docstrings.

Kept apart from the chat model so the model's module shows the call path;
what each accepts and where it goes on each surface is in
`langchain_perplexity_strict._parameters`.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from langchain_perplexity_strict._parameters import UNSUPPORTED
from langchain_perplexity_strict.rules import DEFAULT_RULES


class PerplexityParameters(BaseModel):
    """The settings of a call: client-side options, then Perplexity's parameters (`None`: not sent).

    The options that shape the call on the client (`stop`, `n`, compaction, the
    normalizer's rules) come first; the rest go in the request body, as
    `langchain_perplexity_strict._parameters` places them.
    """

    stop: list[str] | str | None = None
    """Stop sequences, applied on the client (neither surface takes them on the Agent API)."""
    n: int = 1
    """Answers per call, as `n` concurrent requests (Perplexity has no `n`)."""
    streaming: bool = False
    """Stream under `invoke` too (one answer only)."""
    timeout: float | None = None
    """Request timeout in seconds (`ChatOpenAI`'s)."""
    max_retries: int = 2
    """Retries on 429 and 5xx (`ChatOpenAI`'s)."""
    stream_chunk_timeout: float | None = Field(default=120.0, ge=0)
    """Seconds without a byte on a stream before it counts as stalled (`ChatOpenAI`'s name and default;
    None or 0: off). A stalled background stream is resumed; a plain one raises `PerplexityStreamError`."""
    max_resumes: int = Field(default=5, ge=0)
    """Background runs: reconnections in a row that may bring nothing new before `PerplexityResumeError`."""
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra body fields, sent as they are (Perplexity validates them)."""
    max_input_tokens: int | None = None
    """Token budget for the conversation: older turns are compacted to fit. Defaults to the model
    profile's input limit, off when unknown; 0 turns compaction off."""
    token_counter: Any = Field(default=None, exclude=True)
    """Counts tokens for compaction: text or messages -> int, or an object with
    `encode`; defaults to langchain-core's approximate counter (works offline)."""
    use_previous_response_id: bool = False
    """Agent API: continue from the latest stored answer in the history and send only what follows it,
    when that is exactly what the whole conversation would send (see the README, "Continuations")."""
    rules: Sequence[Any] = Field(default=DEFAULT_RULES, exclude=True)
    """The normalizer's rules, in order (each a `langchain_perplexity_strict.rules.Rule`)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    temperature: float | None = None
    """Sampling temperature."""
    top_p: float | None = None
    """Nucleus sampling."""
    max_tokens: int | None = None
    """Answer length limit (`max_output_tokens` on the Agent API; defaulted for `anthropic/*`, which need it)."""
    preset: str | None = None
    """Agent API preset (`fast`, `low`, `medium`, ...; an open set); without `model`, it picks the model."""
    effort: str | None = None
    """Agent API `effort`, which supersedes `preset`."""
    models: list[str] | None = None
    """Agent API fallback models (1 to 5)."""
    max_steps: int | None = None
    """Agent API step limit (1 to 100)."""
    instructions: str | None = None
    """Agent API `instructions` (with a preset, they replace the preset's prompt)."""
    store: bool | None = None
    """Agent API `store`."""
    background: bool | None = None
    """Agent API `background`: the run outlives the connection; invoke polls it, stream resumes it
    (see the README, "Long runs"). Also per call: `model.invoke(..., background=True)`."""
    prompt_cache_key: str | None = None
    """Agent API `prompt_cache_key`."""
    service_tier: str | None = None
    """Agent API `service_tier`: auto, default, flex, priority or fast."""
    web_search: bool | None = None
    """Add the `web_search` tool (Agent API; on unless set to False)."""
    search_max_tokens: int | None = None
    """The `web_search` tool's `max_tokens` (Agent API)."""
    search_max_tokens_per_page: int | None = None
    """The `web_search` tool's `max_tokens_per_page` (Agent API)."""
    search_type: str | None = None
    """Search type: web or fast (Agent API); fast, pro or auto (chat completions)."""
    reasoning_effort: str | None = None
    """Reasoning effort (`reasoning.effort` on the Agent API)."""
    language_preference: str | None = None
    """Answer language."""
    search_domain_filter: list[str] | None = None
    """At most 20 domains to search (`-` prefix excludes)."""
    search_recency_filter: str | None = None
    """hour, day, week, month or year."""
    search_after_date_filter: str | None = None
    """Published after, MM/DD/YYYY."""
    search_before_date_filter: str | None = None
    """Published before, MM/DD/YYYY."""
    last_updated_after_filter: str | None = None
    """Updated after, MM/DD/YYYY."""
    last_updated_before_filter: str | None = None
    """Updated before, MM/DD/YYYY."""
    search_context_size: str | None = None
    """low, medium or high."""
    user_location: dict[str, Any] | None = None
    """Where the user is: some of city, country, region, latitude, longitude."""
    top_k: int | None = None
    """Chat completions only."""
    presence_penalty: float | None = None
    """Chat completions only."""
    frequency_penalty: float | None = None
    """Chat completions only."""
    search_mode: str | None = None
    """Chat completions only: web, academic or sec."""
    return_images: bool | None = None
    """Chat completions only."""
    return_related_questions: bool | None = None
    """Chat completions only."""
    disable_search: bool | None = None
    """Chat completions only (on the Agent API, `web_search=False`)."""


# Names other integrations use for a field of this one.
ALIASES = {
    "max_output_tokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
    "model_name": "model",
    "pplx_api_key": "api_key",
    "perplexity_api_key": "api_key",
    "request_timeout": "timeout",
}


def known_arguments(values: Any, fields: dict[str, Any]) -> Any:
    """Constructor arguments with aliases mapped; an unknown one is refused with the closest name."""
    if not isinstance(values, dict):
        return values
    values = dict(values)
    for alias, name in ALIASES.items():
        if alias in values and name not in values:
            values[name] = values.pop(alias)
    accepted = set(fields) | {f.alias for f in fields.values() if f.alias}
    unknown = sorted(k for k in values if k not in accepted)
    if unknown:
        name = unknown[0]
        close = difflib.get_close_matches(name, sorted(accepted), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        where = f" ({UNSUPPORTED[name]})" if name in UNSUPPORTED else ""
        msg = (
            f"{name}={values[name]!r} is not an argument of ChatPerplexityStrict{where}.{hint} "
            f"Accepted: {', '.join(sorted(n for n in fields if not n.startswith('_')))}."
        )
        raise ValueError(msg)
    return values
