"""A value that means "unset", given over a setting already held, keeps the held one.

A model built with `search_domain_filter=[...]` (or a binding holding `tools`, `tool_choice`,
`response_format`, `stop`) then called, bound or configured with `None`, `[]`, `{}`, `""` or the
OpenAI SDK's "not given" sentinels (`NOT_GIVEN`, `omit`) for it would otherwise send a wider request
than the one the model was built for. `over` is the one merge rule; the model's call, `bind`
(`KeptBinding`) and `configurable_fields` (`CopiedFields`) apply it. `model_copy(update=...)` builds
another model, as the constructor would, and is the way to lift a setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import openai

from langchain_perplexity_strict._redact import named

_SENTINELS = tuple(t for t in (getattr(openai, "NotGiven", None), getattr(openai, "Omit", None)) if t is not None)
"""openai 2 and 3 export both (`NOT_GIVEN` and `omit` are their instances)."""

WIDENED_BY_FALSE = {"disable_search": "searches again"}
"""Flags whose True restricts and whose False, the default, lifts it: given False over a held True is
ambiguous (unset, or on purpose?), so it is refused rather than guessed."""


def not_given(value: Any) -> bool:
    """Whether `value` is the OpenAI SDK's "not given" (`NOT_GIVEN`, `omit`)."""
    return isinstance(value, _SENTINELS)


def is_unset(value: Any) -> bool:
    """Whether `value` means "unset": None, a "not given" sentinel, or an empty string, list, tuple or dict."""
    if value is None or not_given(value):
        return True
    return isinstance(value, (str, list, tuple, dict)) and not value


def over(held: Mapping[str, Any], given: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """`given` to merge over `held` (`{**held, **over(held, given)}`): an unset value for a setting `held` sets
    is left out, so the held one stays; a "not given" sentinel is always left out. `owner` names what holds."""
    kept = {}
    for name, value in given.items():
        held_value = held.get(name)
        if not_given(value) or (is_unset(value) and not is_unset(held_value)):
            continue
        if value is False and held_value is True and name in WIDENED_BY_FALSE:
            msg = (
                f"{named(name, value)} over {owner}'s {name}=True is ambiguous: the model "
                f"{WIDENED_BY_FALSE[name]} only if built without it. Leave {name} out of the call to keep it, "
                f"or build a model without it (model_copy(update={{{name!r}: None}}))."
            )
            raise ValueError(msg)
        kept[name] = value
    return kept
