"""Other integrations' argument names, as data: what each means here, or what to write instead.

`translate` applies `HABITS` (`ChatPerplexity`'s and `ChatOpenAI`'s names) at every entry point, before any check.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from langchain_perplexity_strict._redact import HIDDEN, named, secret_name, shown

Where = Literal["constructor", "call"]
OWNER = "ChatPerplexityStrict"


@dataclass(frozen=True)
class Rename:
    """The same setting, under this package's name."""

    to: str


@dataclass(frozen=True)
class Convert:
    """A value converted into this package's arguments."""

    means: str
    """What it becomes, in words."""
    keys: Mapping[str, str] | None = None
    """A dict value's keys -> the arguments they become."""
    convert: Callable[[Any, Where], dict[str, Any]] | None = None
    """The conversion, when it is not renaming `keys`."""


@dataclass(frozen=True)
class Refuse:
    """Not in Perplexity's published request models: what to write instead."""

    instead: str


def _as_dict(name: str, value: Any) -> dict[str, Any]:
    """`value` as a dict: a mapping, or a pydantic model."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(exclude_none=True)
    if not isinstance(value, Mapping):
        msg = f"{name}={shown(value, name)} is not accepted: expected a dict."
        raise ValueError(msg)
    return dict(value)


_OPTIONS = ("search_context_size", "user_location", "search_type", "image_results_enhanced_relevance")
WEB_SEARCH_OPTIONS = {**{name: name for name in _OPTIONS}, "image_search_relevance_enhanced": _OPTIONS[-1]}
"""`WebSearchOptionsInput`, and langchain-perplexity's name for `image_results_enhanced_relevance`."""


def _use_responses_api(value: Any, where: Where) -> dict[str, Any]:
    if where == "call":
        msg = (
            "use_responses_api is chosen when the model is built: "
            "ChatPerplexityStrict(api='agent' or 'chat_completions')."
        )
        raise ValueError(msg)
    if value is None:
        return {}
    if not isinstance(value, bool):
        msg = f"use_responses_api={shown(value)} is not accepted: expected True, False or None."
        raise ValueError(msg)
    return {"api": "agent" if value else "chat_completions"}


def check_parallel_tool_calls(value: Any) -> None:
    """Refuse `parallel_tool_calls=False`, which Perplexity cannot honour."""
    if value is not None and value is not True:
        msg = (
            f"parallel_tool_calls={shown(value)}: the published Agent API has no parallel_tool_calls, and its "
            "model may call several tools in one turn; remove it (True or None are accepted) and handle every "
            "tool call."
        )
        raise ValueError(msg)


def _parallel_tool_calls(value: Any, where: Where) -> dict[str, Any]:
    if where == "constructor":
        msg = (
            f"parallel_tool_calls={shown(value)} is not taken by {OWNER}(...): it belongs to "
            "bind_tools(tools, parallel_tool_calls=...), as in ChatOpenAI; True or None only (False is not "
            "supported: Perplexity's model may call several tools in one turn)."
        )
        raise ValueError(msg)
    check_parallel_tool_calls(value)
    return {}  # what Perplexity does anyway


_HTTP = (
    "the package builds its own HTTP client (ChatOpenAI's transport, which reads HTTPS_PROXY and the other proxy "
    "variables); pass api_key=..., base_url=..., timeout=... and max_retries=... instead"
)
_NOT_PUBLISHED = "not in Perplexity's published request models (perplexity.generated.api); remove it"

HABITS: dict[str, Rename | Convert | Refuse] = {
    "model_name": Rename("model"),
    **dict.fromkeys(("max_output_tokens", "max_completion_tokens"), Rename("max_tokens")),
    "stop_sequences": Rename("stop"),
    **dict.fromkeys(("pplx_api_key", "perplexity_api_key", "openai_api_key"), Rename("api_key")),
    "openai_api_base": Rename("base_url"),
    "request_timeout": Rename("timeout"),
    "web_search_options": Convert(
        f"{', '.join(_OPTIONS[:-1])} and {_OPTIONS[-1]} (on the Agent API, the web_search tool's fields)",
        WEB_SEARCH_OPTIONS,
    ),
    # `ReasoningConfigInput` has only `effort`.
    "reasoning": Convert("reasoning_effort (the Agent API's reasoning.effort)", {"effort": "reasoning_effort"}),
    "stream_options": Convert("stream_usage", {"include_usage": "stream_usage"}),
    "use_responses_api": Convert("api='agent' (True) or api='chat_completions' (False)", convert=_use_responses_api),
    "parallel_tool_calls": Convert(
        "bind_tools(tools, parallel_tool_calls=True or None), not sent; False is refused (Perplexity's model "
        "may call several tools in one turn)",
        convert=_parallel_tool_calls,
    ),
    **dict.fromkeys(
        ("client", "async_client", "root_client", "root_async_client", "http_client", "http_async_client"),
        Refuse(_HTTP),
    ),
    "http_socket_options": Refuse(_HTTP),
    "openai_proxy": Refuse("set the HTTPS_PROXY environment variable, which the HTTP client reads"),
    **dict.fromkeys(("openai_organization", "organization"), Refuse("Perplexity has no organizations; remove it")),
    "default_headers": Refuse(
        "Perplexity's published API takes no extra headers (authentication comes from api_key); remove it"
    ),
    "default_query": Refuse("Perplexity's published API takes no query parameters; remove it"),
    "media_response": Refuse(
        "not in Perplexity's published request models; for images pass return_images=True "
        "(api='chat_completions') or bind_tools([image_search_tool(), web_search_tool()]) (api='agent'); videos "
        "have no request field"
    ),
    "previous_response_id": Refuse(
        "pass use_previous_response_id=True (api='agent'): the package finds the stored response in the history "
        "and sends only what follows it"
    ),
    "truncation": Refuse(
        "Perplexity has no truncation; max_input_tokens=... compacts older turns to fit (the model "
        "profile's limit by default)"
    ),
    "context_management": Refuse("Perplexity has no context management; max_input_tokens=... compacts older turns"),
    "include": Refuse(
        "the published Agent API has no include; citations, search results and reasoning come back "
        "without asking (additional_kwargs and the content blocks)"
    ),
    "include_response_headers": Refuse(
        "headers are not kept; response_metadata carries the id, model, status, usage and cost"
    ),
    "disabled_params": Refuse("nothing to disable: a parameter Perplexity lacks is refused before sending, never sent"),
    "prompt_cache_options": Refuse("pass prompt_cache_key=... (the Agent API's prompt caching)"),
    "tiktoken_model_name": Refuse("pass token_counter=... (it counts tokens for compaction and get_num_tokens)"),
    "verbosity": Refuse(_NOT_PUBLISHED + "; ask for brevity in instructions=... or a system message"),
    "text": Refuse("pass response_format=... or use with_structured_output (Perplexity's response_format)"),
    **dict.fromkeys(("seed", "logit_bias", "prediction", "modalities", "audio", "user"), Refuse(_NOT_PUBLISHED)),
    **dict.fromkeys(
        ("logprobs", "top_logprobs"),
        Refuse("Perplexity's published responses carry no logprobs on either API; remove it"),
    ),
    "max_search_results": Refuse(
        "the published web_search tool has no max_results; "
        "use search_max_tokens or search_max_tokens_per_page to bound what search adds"
    ),
}
"""Every foreign argument name, with its fate (`extra_body` is unpacked by `translate`)."""


def what_it_is_here(name: str) -> str:
    """A foreign name's fate in a sentence."""
    habit = HABITS[name]
    if isinstance(habit, Rename):
        return f"{name} carries over, as {habit.to}"
    if isinstance(habit, Convert):
        return f"{name} carries over: it becomes {habit.means}"
    return f"{name} is not taken by {OWNER}: {habit.instead}"


FOREIGN_HINTS = {name: what_it_is_here(name) for name in HABITS}
"""A typo of a foreign name is told its fate."""


_Check = Callable[[str, str, Any], None]


class _Translation:
    """One `translate` call's result, and where each setting came from (for errors)."""

    def __init__(self, where: Where, known: Collection[str], check_converted: _Check) -> None:
        self.where, self.known, self.check_converted = where, known, check_converted
        self.out: dict[str, Any] = {}
        self.came: dict[str, str] = {}

    def put(self, name: str, value: Any, given_as: str) -> None:
        if name in self.out and self.out[name] != value:
            msg = f"{name} is given twice, as {self.came[name]} and as {given_as}, with different values; give it once."
            raise ValueError(msg)
        self.out[name], self.came[name] = value, given_as

    def put_extra(self, key: str, item: Any, given_as: str) -> None:
        extra = dict(self.out.get("model_kwargs") or {})
        if key in extra and extra[key] != item:
            msg = f"model_kwargs[{key!r}] is given twice, the second time as {given_as}, with different values."
            raise ValueError(msg)
        extra[key] = item
        self.out["model_kwargs"] = extra
        self.came.setdefault("model_kwargs", given_as)

    def unpack(self, name: str, value: Any, given_as: str, settings: Collection[str]) -> None:
        for key, item in _as_dict(name, value).items():
            entry = f"{given_as}[{key!r}]"
            if key in settings or key in HABITS or key == "extra_body":
                self.take(key, item, entry)
            elif secret_name(key):
                msg = (
                    f"{entry}={HIDDEN} is not sent: a credential does not belong in the request body; "
                    "pass the Perplexity key as api_key=... (or PPLX_API_KEY)."
                )
                raise ValueError(msg)
            else:
                if name == "extra_body":  # named as given, before it joins model_kwargs
                    self.check_converted(entry, "model_kwargs", {key: item})
                self.put_extra(key, item, entry)

    def take(self, name: str, value: Any, given_as: str) -> None:
        habit = HABITS.get(name)
        if name == "extra_body":
            self.unpack(name, value, given_as, self.known)
        elif name == "model_kwargs" and isinstance(value, Mapping):
            self.out.setdefault(name, {})
            self.unpack(name, value, given_as, ())
        elif habit is None:
            self.put(name, value, given_as)
        elif isinstance(habit, Rename):
            self.put(habit.to, value, given_as)
        elif isinstance(habit, Convert):
            self.convert(name, value, given_as, habit)
        else:
            raise ValueError(f"{named(given_as, value, name)} is not taken by {OWNER}: {habit.instead}.")

    def convert(self, name: str, value: Any, given_as: str, habit: Convert) -> None:
        if habit.convert is not None:
            converted = habit.convert(value, self.where)
        else:  # a dict's keys renamed; another key is refused
            given, keys = _as_dict(name, value), habit.keys or {}
            unknown = sorted(k for k in given if k not in keys)
            if unknown:
                msg = (
                    f"{name}[{unknown[0]!r}] is not in Perplexity's published request models; "
                    f"{name} takes {', '.join(sorted(keys))}."
                )
                raise ValueError(msg)
            converted = {keys[k]: v for k, v in given.items() if v is not None}
            for key in given:
                if keys[key] in converted:
                    self.check_converted(f"{name}[{key!r}]", keys[key], converted[keys[key]])
        for key, item in converted.items():
            self.take(key, item, given_as)


def translate(
    values: Mapping[str, Any],
    where: Where,
    known: Collection[str],
    check_converted: _Check,
) -> dict[str, Any]:
    """`values` in this package's names, by `HABITS`; an `extra_body` entry naming a `known` setting becomes that
    argument, the others (not a credential) go to `model_kwargs`."""
    run = _Translation(where, known, check_converted)
    for name, value in values.items():
        run.take(name, value, name)
    return run.out
