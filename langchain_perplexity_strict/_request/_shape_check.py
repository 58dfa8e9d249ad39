"""Check a JSON value against a TypedDict before it is sent, with an error naming the field.

The built-in tools and skills are declared once, as TypedDicts in
Perplexity's published shapes (`_builtin_tools`); this walks a value against
such a declaration, so a typo or a wrong type is refused on the client with
the path, the value and what is accepted, instead of a 400 from the Agent
API (which refuses unknown fields at any depth). The published models are in
the test dependencies only, so the declarations are checked against them by
a contract test rather than imported here.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, Union

from typing_extensions import get_type_hints, is_typeddict

from langchain_perplexity_strict._redact import shown


def check_shape(value: Any, shape: Any, path: str) -> None:
    """Raise `ValueError` unless `value` has the shape `shape` (a TypedDict or a type it uses)."""
    problem = _problem(value, shape, path)
    if problem is not None:
        raise ValueError(problem)


def _problem(value: Any, shape: Any, path: str) -> str | None:
    if is_typeddict(shape):
        return _typeddict_problem(value, shape, path)
    origin = typing.get_origin(shape)
    if origin is Literal:
        accepted = typing.get_args(shape)
        return None if value in accepted and type(value) is type(accepted[0]) else _bad(path, value, _options(accepted))
    if origin in (Union, types.UnionType):
        members = typing.get_args(shape)
        problems = [_problem(value, m, path) for m in members]
        if any(p is None for p in problems):
            return None
        # One member of the value's own kind (an object for `require_approval`'s filters): its deeper problem
        # names the field, where "expected 'always' or an object" would not.
        alike = [p for m, p in zip(members, problems, strict=True) if _same_kind(value, m)]
        return alike[0] if len(alike) == 1 else _bad(path, value, " or ".join(describe(m) for m in members))
    if origin is list:
        if not isinstance(value, list):
            return _bad(path, value, describe(shape))
        (item,) = typing.get_args(shape)
        return next((p for i, v in enumerate(value) if (p := _problem(v, item, f"{path}[{i}]"))), None)
    if origin is dict:
        if not isinstance(value, dict):
            return _bad(path, value, describe(shape))
        _, item = typing.get_args(shape)
        return next((p for k, v in value.items() if (p := _problem(v, item, f"{path}[{k!r}]"))), None)
    if shape is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if ok else _bad(path, value, "a number")
    if shape in (int, str, bool):
        ok = isinstance(value, shape) and (shape is bool or not isinstance(value, bool))
        return None if ok else _bad(path, value, describe(shape))
    return None if shape is Any else _bad(path, value, describe(shape))


def _same_kind(value: Any, shape: Any) -> bool:
    """Whether `value` is the JSON kind `shape` takes (an object for a TypedDict or dict, an array for a list)."""
    if is_typeddict(shape) or typing.get_origin(shape) is dict:
        return isinstance(value, Mapping)
    return typing.get_origin(shape) is list and isinstance(value, list)


def _typeddict_problem(value: Any, shape: Any, path: str) -> str | None:
    if not isinstance(value, Mapping):
        return _bad(path, value, describe(shape))
    hints = get_type_hints(shape)
    unknown = [k for k in value if k not in hints]
    if unknown:
        return (
            f"{path}: unknown field {unknown[0]!r} (Perplexity refuses unknown fields); "
            f"accepted: {', '.join(sorted(hints))}"
        )
    missing = [k for k in sorted(shape.__required_keys__) if k not in value]
    if missing:
        return f"{path}: missing field {missing[0]!r}, which {describe(shape)} requires"
    for key, field_value in value.items():
        if field_value is None and key not in shape.__required_keys__:
            continue  # the published models take null for an optional field
        problem = _problem(field_value, hints[key], f"{path}.{key}")
        if problem is not None:
            return problem
    return None


def describe(shape: Any) -> str:
    """What `shape` accepts, in words."""
    if is_typeddict(shape):
        tag = get_type_hints(shape).get("type")
        name = typing.get_args(tag)[0] if typing.get_origin(tag) is Literal else None
        return f"a {name!r} object" if name else f"an object with {', '.join(sorted(get_type_hints(shape)))}"
    origin = typing.get_origin(shape)
    if origin is Literal:
        return _options(typing.get_args(shape))
    if origin is list:
        return f"a list of {describe(typing.get_args(shape)[0])}"
    if origin is dict:
        return f"an object of {describe(typing.get_args(shape)[1])} values"
    if origin in (Union, types.UnionType):
        return " or ".join(describe(m) for m in typing.get_args(shape))
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
    return names.get(shape, getattr(shape, "__name__", str(shape)))


def _options(values: tuple[Any, ...]) -> str:
    return "one of " + ", ".join(repr(v) for v in values) if len(values) > 1 else repr(values[0])


def _bad(path: str, value: Any, accepted: str) -> str:
    # Named by its whole path: a value anywhere under `headers` or `authorization` is a credential.
    return f"{path}: {shown(value, path, limit=80)} is not accepted; expected {accepted}"
