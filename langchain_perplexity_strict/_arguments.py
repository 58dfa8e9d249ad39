"""Unknown constructor arguments: refused with the closest accepted name ("Did you mean 'dimensions'?").

Shared by the search and embeddings classes and by `ChatPerplexityStrict`
(`known_arguments` in `_request/_parameters.py` raises `unknown_argument`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic.fields import FieldInfo

from langchain_perplexity_strict._redact import close_names, named


def accepted_names(fields: Mapping[str, FieldInfo]) -> set[str]:
    """Every name a pydantic model takes: field names, their aliases and alias choices."""
    names = set(fields)
    for field in fields.values():
        if field.alias:
            names.add(field.alias)
        choices = getattr(field.validation_alias, "choices", None)
        names.update(c for c in choices or () if isinstance(c, str))
        if isinstance(field.validation_alias, str):
            names.add(field.validation_alias)
    return names


def unknown_argument(name: str, value: Any, accepted: Iterable[str], owner: str, why: str = "") -> ValueError:
    """The error for `name=value`, which `owner` does not take: the closest accepted name, then all of them.

    The value is shown only when known to be safe (`_redact.named`): a misspelt `api_kye=` holds a key.
    """
    names = sorted(n for n in accepted if not n.startswith("_"))
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" Did you mean {close[0]!r}?" if close and not why else ""
    return ValueError(
        f"{named(name, value, *close_names(name, names))} is not an argument of {owner}"
        f"{f' ({why})' if why else ''}.{hint} Accepted: {', '.join(names)}."
    )


def check_known(values: Any, fields: Mapping[str, FieldInfo], owner: str, instead: Mapping[str, str]) -> None:
    """Raise `unknown_argument` for the first argument in `values` that `fields` do not take.

    `instead` says what to pass in place of an argument that other integrations take.
    """
    if not isinstance(values, dict):
        return
    accepted = accepted_names(fields)
    unknown = sorted(k for k in values if k not in accepted)
    if unknown:
        name = unknown[0]
        raise unknown_argument(name, values[name], accepted, owner, instead.get(name, ""))
