"""A call's and the constructor's arguments: parameters, aliases, unknown names; stop lists, LangSmith's parameters.

Split from `_parameters` (the declarations and their checks): how the
arguments of a call or a constructor are sorted before those checks run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.configurable import RunnableConfigurableFields
from langchain_core.runnables.utils import ConfigurableField

from langchain_perplexity_strict._arguments import unknown_argument
from langchain_perplexity_strict._request._model_names import DEFAULT_MODELS
from langchain_perplexity_strict._request._parameter import Api
from langchain_perplexity_strict._request._parameters import PARAMETERS, UNSUPPORTED


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


# Names other integrations use for a field of this one.
ALIASES = {
    "max_output_tokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
    "model_name": "model",
    "pplx_api_key": "api_key",
    "perplexity_api_key": "api_key",
    "request_timeout": "timeout",
    "openai_api_key": "api_key",  # ChatOpenAI's own aliases, for an app that pointed it at Perplexity
    "openai_api_base": "base_url",
}


def known_arguments(values: Any, fields: dict[str, Any]) -> Any:
    """Constructor arguments with aliases mapped; an unknown one is refused with the closest name."""
    if not isinstance(values, dict):
        return values
    values = dict(values)
    surface_default = DEFAULT_MODELS.get(values.get("api"), fields["model"].default)
    if not {"model", "model_name"} & set(values) and surface_default != fields["model"].default:
        values["model"] = surface_default  # the surface's own model; the field's default stays implicit (presets)
    for alias, name in ALIASES.items():
        if alias in values and name not in values:
            values[name] = values.pop(alias)
    accepted = set(fields) | {f.alias for f in fields.values() if f.alias}
    unknown = sorted(k for k in values if k not in accepted)
    if unknown:
        name = unknown[0]
        raise unknown_argument(name, values[name], accepted, "ChatPerplexityStrict", UNSUPPORTED.get(name, ""))
    return values


class CopiedFields(RunnableConfigurableFields):
    """`configurable_fields` whose configured values are set by the model's `model_copy(update=...)`.

    langchain-core builds the configured model as `cls(**every_field, **configured)`, so every field
    counts as given: a model left to a preset is then sent beside it. `model_copy` checks the values
    as the constructor does and keeps what was given as given. Option fields take langchain-core's path.
    """

    def _prepare(self, config: RunnableConfig | None = None) -> Any:
        if not all(isinstance(spec, ConfigurableField) for spec in self.fields.values()):
            return super()._prepare(config)
        given = (config or {}).get("configurable", {})
        update = {key: given[spec.id] for key, spec in self.fields.items() if spec.id in given}
        model = cast(Any, self.default)
        return (model.model_copy(update=update) if update else model), config or {}
