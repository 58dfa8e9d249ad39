"""Perplexity's published models (``perplexity.generated.api``), strict: unknown fields forbidden everywhere.

The SDK's models allow extra fields so that it keeps working as the API grows;
the Agent API itself refuses unknown fields at any depth, so the contract
tests validate against the same models with ``extra="forbid"`` on each.
"""

from __future__ import annotations

import json
import typing
from functools import cache
from typing import Any

import pydantic
from perplexity.generated import api


@cache
def _strict() -> None:
    models = [
        v
        for v in vars(api).values()
        if isinstance(v, type) and issubclass(v, pydantic.BaseModel) and v.__module__ == api.__name__
    ]
    for model in models:
        model.model_config["extra"] = "forbid"
    for model in models:
        model.model_rebuild(force=True)


@cache
def _adapter(name: str) -> pydantic.TypeAdapter[Any]:
    _strict()
    kind = getattr(api, name)
    args = typing.get_args(kind)
    if args and any(isinstance(a, typing.ForwardRef) for a in args):  # a union alias of the module's models
        kind = typing.Union[tuple(getattr(api, a.__forward_arg__) for a in args)]  # noqa: UP007
    return pydantic.TypeAdapter(kind)


def validate(name: str, value: Any) -> None:
    """Validate ``value`` (JSON data) as the published model ``name``, strictly; raise ``ValidationError``."""
    _adapter(name).validate_json(json.dumps(value), strict=True)


def agent_request(body: dict[str, Any]) -> None:
    validate("ResponsesRequestInput", body)


def chat_request(body: dict[str, Any]) -> None:
    validate("ApiChatCompletionsRequestInput", body)


def agent_response(response: dict[str, Any]) -> None:
    validate("ResponsesResponseOutput", response)


def agent_event(event: dict[str, Any]) -> None:
    validate("ResponseStreamEventOutput", event)


def verdict(name: str, value: Any) -> bool:
    """Whether ``value`` is valid as ``name``."""
    try:
        validate(name, value)
    except pydantic.ValidationError:
        return False
    return True
