"""Check a JSON value against a published shape before it is sent, with an error naming the field.

pydantic validates; this module words its first error as path, value and what is accepted.
"""

from __future__ import annotations

import copy
import functools
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union

from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic_core import SchemaValidator
from typing_extensions import NotRequired, get_type_hints, is_typeddict

from langchain_perplexity_strict._redact import shown

PUBLISHED = ConfigDict(extra="forbid", strict=True, hide_input_in_errors=True)
"""The pydantic config of every published shape: strict, no unknown fields."""


def check_shape(value: Any, shape: Any, path: str) -> None:
    """Raise `ValueError` unless `value` has the shape `shape` (a TypedDict or a type it uses)."""
    try:
        _validator(shape).validate_python(value)
    except ValidationError as error:  # the first record a walk of `value` would meet
        found = [f for r in error.errors(include_url=False) if (f := _located(value, shape, path, r)) is not None]
    else:
        return
    raise ValueError(min(found, key=lambda f: f[0])[1])  # outside `except`: pydantic's error holds the value


def check_tagged(value: Any, shapes: Mapping[str, Any], path: str, what: str) -> None:
    """Raise `ValueError` unless `value` has the shape its `type` names among `shapes`."""
    kind = value.get("type") if isinstance(value, Mapping) else value
    if not isinstance(value, Mapping) or str(kind) not in shapes:
        raise ValueError(f"{path}.type: {kind!r} is not {what}; expected one of {', '.join(shapes)}")
    check_shape(value, shapes[str(kind)], path)


@functools.cache
def _validator(shape: Any) -> SchemaValidator:
    """pydantic's validator of `shape`, where an optional field may also be null."""
    return SchemaValidator(_null_optionals(copy.deepcopy(TypeAdapter(shape).core_schema)))


def _null_optionals(schema: Any) -> Any:
    if isinstance(schema, dict) and schema.get("type") == "typed-dict-field" and not schema.get("required", True):
        schema["schema"] = {"type": "nullable", "schema": schema["schema"]}
    for item in schema.values() if isinstance(schema, dict) else schema if isinstance(schema, list) else ():
        _null_optionals(item)
    return schema


def _located(value: Any, shape: Any, path: str, record: Any) -> tuple[list[tuple[int, int]], str] | None:
    """(the record's place in the walk, its message); None for an irrelevant union member's record."""
    order: list[tuple[int, int]] = []
    loc = list(record["loc"])
    while loc:
        if typing.get_origin(shape) in (Union, types.UnionType):
            members = typing.get_args(shape)
            # The member of the value's own kind names the field.
            alike = [m for m in members if _same_kind(value, m)]
            if len(alike) != 1:
                return order, _bad(path, value, describe(shape))
            if (alike[0].__name__ if is_typeddict(alike[0]) else "") != loc[0]:  # pydantic's name of the member
                return None
            shape, loc = alike[0], loc[1:]
            continue
        step = loc.pop(0)
        if is_typeddict(shape) and isinstance(value, Mapping):
            hints = _hints(shape)
            if not loc and record["type"] == "extra_forbidden":
                order.append((0, list(value).index(step)))
                return order, (
                    f"{path}: unknown field {step!r} (Perplexity refuses unknown fields); "
                    f"accepted: {', '.join(sorted(hints))}"
                )
            if not loc and record["type"] == "missing":
                order.append((1, sorted(hints).index(step)))
                return order, f"{path}: missing field {step!r}, which {describe(shape)} requires"
            order.append((2, list(value).index(step)))
            shape, value, path = hints[step], value[step], f"{path}.{step}"
        elif typing.get_origin(shape) is list and isinstance(step, int):
            order.append((2, step))
            shape, value, path = typing.get_args(shape)[0], value[step], f"{path}[{step}]"
        elif typing.get_origin(shape) is dict and step in value:
            order.append((2, list(value).index(step)))
            shape, value, path = typing.get_args(shape)[1], value[step], f"{path}[{step!r}]"
        else:
            break
    return order, _bad(path, value, describe(shape))


def _hints(shape: Any) -> dict[str, Any]:
    """A TypedDict's field types, with their `Annotated` ranges and without `NotRequired`."""
    hints = get_type_hints(shape, include_extras=True)
    return {k: typing.get_args(h)[0] if typing.get_origin(h) is NotRequired else h for k, h in hints.items()}


def _same_kind(value: Any, shape: Any) -> bool:
    """Whether `value` is the JSON kind `shape` takes."""
    if is_typeddict(shape) or typing.get_origin(shape) is dict:
        return isinstance(value, Mapping)
    return typing.get_origin(shape) is list and isinstance(value, list)


def describe(shape: Any) -> str:
    """What `shape` accepts, in words."""
    if is_typeddict(shape):
        tag = get_type_hints(shape).get("type")
        name = typing.get_args(tag)[0] if typing.get_origin(tag) is Literal else None
        return f"a {name!r} object" if name else f"an object with {', '.join(sorted(get_type_hints(shape)))}"
    origin = typing.get_origin(shape)
    if origin is Annotated:  # a documented range (`_filters`)
        inner, interval = typing.get_args(shape)
        return f"{describe(inner)} from {interval.ge} to {interval.le}"
    if origin is Literal:
        values = typing.get_args(shape)
        return "one of " + ", ".join(map(repr, values)) if len(values) > 1 else repr(values[0])
    if origin is list:
        return f"a list of {describe(typing.get_args(shape)[0])}"
    if origin is dict:
        return f"an object of {describe(typing.get_args(shape)[1])} values"
    if origin in (Union, types.UnionType):
        return " or ".join(describe(m) for m in typing.get_args(shape))
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
    return names.get(shape, getattr(shape, "__name__", str(shape)))


def _bad(path: str, value: Any, accepted: str) -> str:
    # Named by its whole path, so values under `headers` are hidden.
    return f"{path}: {shown(value, path, limit=80)} is not accepted; expected {accepted}"
