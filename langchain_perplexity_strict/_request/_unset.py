"""A value that means "unset", given over a setting already held, keeps the held one.

Else a model built with `search_domain_filter=[...]` (or a binding holding `tools`, ...) then called, bound or
configured with `None`, `[]`, `{}`, `""` or `NOT_GIVEN` would send a wider request; `model_copy(update=...)` lifts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import openai

from langchain_perplexity_strict._redact import named

_SENTINELS = (openai.NotGiven, openai.Omit)  # `NOT_GIVEN`, `omit`

WIDENED_BY_FALSE = {"disable_search": "searches again"}
"""Flags whose True restricts: False over a held True (unset, or on purpose?) is refused rather than guessed."""


def _unset(value: Any) -> bool:
    """None, a "not given" sentinel, or an empty string, list, tuple or dict."""
    return value is None or isinstance(value, _SENTINELS) or (isinstance(value, (str, list, tuple, dict)) and not value)


def over(held: Mapping[str, Any], given: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """`given` to merge over `held` (`{**held, **over(held, given)}`), less "not given" sentinels and unset values
    for a setting `held` sets. `owner` names what holds."""
    kept = {}
    for name, value in given.items():
        held_value = held.get(name)
        if isinstance(value, _SENTINELS) or (_unset(value) and not _unset(held_value)):
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
