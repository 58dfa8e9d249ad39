"""Instances of Perplexity's published models (``perplexity.generated.api``), made from the models themselves.

``example(name, full=True)`` fills every field, optional ones too, with a
value of its declared type (the first member of a union, the first value of
a literal); ``full=False`` fills the required fields only. Field values are
derived from the field's name, so two examples of one model are equal and a
reader's output can be compared with what went in. Each example validates
under the strict published model (``tests.published_schema``).
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union

import pydantic
from perplexity.generated import api

from tests import published_schema


def example(name: str, *, full: bool = True) -> dict[str, Any]:
    """A JSON instance of the published model `name`, validated."""
    value = _model(getattr(api, name), full, name)
    published_schema.validate(name, value)
    return value


def _model(model: type[pydantic.BaseModel], full: bool, path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field_name, field in model.model_fields.items():
        if field.is_required() or full:
            out[field_name] = _value(field.annotation, full, f"{path}.{field_name}", field_name)
    return out


def _value(annotation: Any, full: bool, path: str, field_name: str) -> Any:
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin is Literal:
        return args[0]
    if origin in (Union, types.UnionType):
        return _value(args[0], full, path, field_name)
    if origin is list:
        return [_value(args[0], full, f"{path}[0]", field_name)]
    if origin is dict:
        return {"key": _value(args[1], full, path, field_name)} if args[1] is not Any else {"key": "value"}
    if isinstance(annotation, typing.ForwardRef):
        return _value(getattr(api, annotation.__forward_arg__), full, path, field_name)
    if isinstance(annotation, str):
        return _value(getattr(api, annotation), full, path, field_name)
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return _model(annotation, full, path)
    if annotation is bool:
        return True
    if annotation is int:
        return 3
    if annotation is float:
        return 0.25
    if annotation is str:
        return "{}" if field_name == "arguments" else f"{field_name}-of-{path.split('.')[0]}"
    if annotation is Any:
        return {"key": "value"}
    alias = getattr(api, str(annotation), None)
    if alias is not None:
        return _value(alias, full, path, field_name)
    raise TypeError(f"{path}: no example for {annotation!r}")


def output_item_models() -> dict[str, str]:
    """Published output item type → its model name (`OutputItemOutput`'s members)."""
    out = {}
    for member in typing.get_args(api.OutputItemOutput):
        name = member.__forward_arg__ if isinstance(member, typing.ForwardRef) else member.__name__
        model = getattr(api, name)
        kind = typing.get_args(model.model_fields["type"].annotation)[0]
        out[kind] = name
    return out
