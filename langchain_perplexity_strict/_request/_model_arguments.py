"""A call's and the constructor's arguments: parameters, aliases, unknown names; stop lists; bindings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from langchain_core.runnables import Runnable, RunnableConfig, ensure_config
from langchain_core.runnables.config import get_config_list, merge_configs
from langchain_core.runnables.configurable import RunnableConfigurableFields
from langchain_core.runnables.utils import ConfigurableField

from langchain_perplexity_strict._accepts import CONNECTION, check_known, suggestion
from langchain_perplexity_strict._redact import RedactedBinding, named, shown
from langchain_perplexity_strict._request._habits import FOREIGN_HINTS, translate
from langchain_perplexity_strict._request._model_names import DEFAULT_MODELS
from langchain_perplexity_strict._request._parameter_row import CLIENT, Api
from langchain_perplexity_strict._request._parameter_table import PARAMETERS, check_parameters
from langchain_perplexity_strict._request._unset import over

HELD = tuple(name for name, row in PARAMETERS.items() if name == "stop" or not row.agent == row.chat == CLIENT)
"""The settings an unset value cannot lift (`_unset.over`); a client option's (`n`, ...) None keeps its meaning."""


def held(model: Any) -> dict[str, Any]:
    fields = model.__dict__
    return {name: fields[name] for name in HELD}


def stop_list(stop: Any) -> list[str]:
    """Stop sequences as a list (types are checked elsewhere)."""
    if isinstance(stop, str):
        return [stop]
    return list(stop) if isinstance(stop, (list, tuple)) else []


CALL_KWARGS = ("tools", "tool_choice", "response_format")
IGNORED_KWARGS = ("ls_structured_output_format",)  # LangChain's own: not sent
CALL_ONLY = ("model", "model_kwargs")  # `extra_body=` becomes `model_kwargs`


def _check_converted(api: Api) -> Callable[[str, str, Any], None]:
    """`translate`'s check of a converted dict's entry on `api`, naming it as the user wrote it."""

    def check(given_as: str, target: str, value: Any) -> None:
        try:
            check_parameters({target: value}, api)
        except ValueError as error:
            row = PARAMETERS.get(target)
            paths = [p for p in (row.path(api), row.chat, row.agent) if p not in (None, CLIENT)] if row else []
            published = f"Perplexity's {paths[0]}, " if paths and paths[0] != target else ""
            raise ValueError(f"{given_as} ({published}taken as {target}=...): {error}") from None

    return check


def call_arguments(kwargs: Mapping[str, Any], api: Api) -> tuple[dict[str, Any], dict[str, Any]]:
    """A call's keyword arguments, other integrations' names translated, as (`CALL_KWARGS`; parameters)."""
    if not kwargs:
        return {}, {}
    if "model_kwargs" in kwargs:
        msg = (
            f"model_kwargs is not a parameter of ChatPerplexityStrict (api={api!r}) in a call: "
            "pass extra_body={...} to add body fields to one call (model_kwargs is the constructor's)."
        )
        raise ValueError(msg)
    kwargs = translate(kwargs, "call", {*PARAMETERS, *CALL_KWARGS, "model"}, _check_converted(api))
    params = {k: v for k, v in kwargs.items() if k not in IGNORED_KWARGS}
    call = {k: params.pop(k) for k in CALL_KWARGS if k in params}
    unknown = sorted(k for k in params if k not in PARAMETERS and k not in CALL_ONLY)
    if unknown:
        name = unknown[0]
        every = [*sorted(PARAMETERS), *CALL_KWARGS, "model", "extra_body"]
        hint, like = suggestion(name, every, FOREIGN_HINTS)
        listed = hint or f" Call-time parameters are: {', '.join(every)}."
        if name in CONNECTION:  # the client's settings belong to the model, as ChatOpenAI's do
            listed = f" {name} is set on the model: model.model_copy(update={{{name!r}: ...}})."
        msg = f"{named(name, params[name], *like)} is not a parameter of ChatPerplexityStrict (api={api!r}).{listed}"
        raise ValueError(msg)
    return call, params


def known_arguments(values: Any, fields: dict[str, Any]) -> Any:
    """Constructor arguments with other integrations' names translated, then checked; an unknown one is refused."""
    if not isinstance(values, dict):
        return values
    api: Api = "chat_completions" if values.get("api") == "chat_completions" else "agent"
    values = translate(values, "constructor", {*PARAMETERS, "model"}, _check_converted(api))
    if values.get("output_version") not in (None, "v0", "v1"):
        msg = (
            f"output_version={shown(values['output_version'])} is not accepted: use 'v1' for LangChain's "
            "standard content blocks (text, reasoning, citations as annotations; ChatOpenAI's 'responses/v1' "
            "is OpenAI's own Responses format), or leave it unset for a plain string."
        )
        raise ValueError(msg)
    surface_default = DEFAULT_MODELS.get(values.get("api"), fields["model"].default)
    if "model" not in values and surface_default != fields["model"].default:
        values["model"] = surface_default  # the field's default stays implicit
    check_known(values, fields, "ChatPerplexityStrict", {}, FOREIGN_HINTS)
    check_parameters(values, "chat_completions" if values.get("api") == "chat_completions" else "agent")
    return values


class _KeepsWhatItHolds:
    """`bind_tools`, `with_structured_output` and batches that keep what this runnable holds around the model
    (langchain-core's `__getattr__` hands them to the model, dropping bound arguments and configuration)."""

    def _model(self) -> Any:
        raise NotImplementedError

    def bind_tools(self, tools: Any, **kwargs: Any) -> Runnable:
        return cast(Any, self).bind(**self._model().bind_tools(tools, **kwargs).kwargs)

    def with_structured_output(self, schema: Any = None, **kwargs: Any) -> Runnable:
        return cast(Any, type(self._model())).with_structured_output(self, schema, **kwargs)

    def _batching(self, config: Any, kwargs: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
        return self._model(), config, kwargs


def _batch_method(name: str) -> Callable[..., Any]:
    """The model's `name` (docs/batches.md), with the configuration and arguments held around it."""

    def method(self: _KeepsWhatItHolds, first: Any, config: Any = None, **kwargs: Any) -> Any:
        model, config, kwargs = self._batching(config, kwargs)
        return getattr(model, name)(first, config, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


for _name in ("submit_batch", "asubmit_batch", "get_batch", "aget_batch"):
    setattr(_KeepsWhatItHolds, _name, _batch_method(_name))


class CopiedFields(_KeepsWhatItHolds, RunnableConfigurableFields):
    """`configurable_fields` whose values are set by `model_copy(update=...)`, not langchain-core's
    `cls(**every_field, ...)`, which marks every field as given."""

    def _prepare(self, config: RunnableConfig | None = None) -> Any:
        if not all(isinstance(spec, ConfigurableField) for spec in self.fields.values()):
            return super()._prepare(config)
        config = ensure_config(config)
        given = config.get("configurable", {})
        model = cast(Any, self.default)
        update = {key: given[spec.id] for key, spec in self.fields.items() if spec.id in given}
        update = over(held(model), update, "the model")
        return (model.model_copy(update=update) if update else model), config

    def _model(self) -> Any:
        return self.default

    def bind(self, **kwargs: Any) -> KeptBinding:
        return KeptBinding(bound=self, kwargs=kwargs, config={})

    def _configured(self, inputs: Any, config: Any) -> tuple[Any, list[Any] | None]:
        """The model as configured by `config`, and each input's model for a list of configs."""
        if not isinstance(config, list):
            return self.prepare(config)[0], None
        models = [self.prepare(c)[0] for c in get_config_list(config, len(inputs))]
        return (models[0] if models else self.prepare(None)[0]), models

    def submit_batch(self, inputs: list[Any], config: Any = None, **kwargs: Any) -> Any:
        model, models = self._configured(inputs, config)
        return model._submit_batch(inputs, config, kwargs, models)

    async def asubmit_batch(self, inputs: list[Any], config: Any = None, **kwargs: Any) -> Any:
        model, models = self._configured(inputs, config)
        return await model._asubmit_batch(inputs, config, kwargs, models)

    def _batching(self, config: Any, kwargs: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
        one = not isinstance(config, list)  # else one config per input: langchain-core's `DynamicRunnable` batches
        return (self.prepare(config)[0] if one else super(_KeepsWhatItHolds, self)), config, kwargs


class KeptBinding(_KeepsWhatItHolds, RedactedBinding):
    """`model.bind(...)`, whose settings stay bound through `bind_tools` and `with_structured_output`."""

    @classmethod
    def lc_id(cls) -> list[str]:
        return [*cls.get_lc_namespace(), "RunnableBinding"]

    def _model(self) -> Any:
        return self.bound

    def bind(self, **kwargs: Any) -> Runnable:
        return super().bind(**over(self.kwargs, kwargs, "the binding"))

    def _batching(self, config: Any, kwargs: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
        kwargs = {**self.kwargs, **over(self.kwargs, kwargs, "the binding")}
        if isinstance(config, list):  # one per input, as `RunnableBinding.batch` merges them
            return self.bound, [merge_configs(self.config, c) for c in config], kwargs
        return self.bound, merge_configs(self.config, config), kwargs


def _keeping(name: str) -> Callable[..., Any]:
    """`RunnableBinding`'s `name`, merging a call's arguments by `_unset.over` (langchain-core's `{**bound,
    **given}` lets a call's `tool_choice=None` lift a bound one)."""

    def method(self: KeptBinding, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return getattr(super(KeptBinding, self), name)(input, config, **over(self.kwargs, kwargs, "the binding"))

    method.__name__ = method.__qualname__ = name
    return method


for _name in ("invoke", "ainvoke", "batch", "abatch", "batch_as_completed", "abatch_as_completed", "stream", "astream"):
    setattr(KeptBinding, _name, _keeping(_name))
for _name in ("batch", "batch_as_completed"):  # the configured model's, whose threads leave with it on Ctrl-C
    setattr(CopiedFields, _name, _batch_method(_name))
for _name in ("transform", "atransform", "stream_events", "astream_events"):
    setattr(KeptBinding, _name, _keeping(_name))
