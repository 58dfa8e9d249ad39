"""Unknown arguments: refused, with "Did you mean 'dimensions'?" only for a near typo of an accepted name.

Shared by the search and embeddings classes and by `ChatPerplexityStrict`
(`known_arguments` and `call_arguments` in `_request/_model_arguments.py`); a typo of another
integration's name gets that name's fate from its own table (`_request/_habits.py`), passed in.
Also what an app that ran `ChatOpenAI` has in its environment and this package does not read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic.fields import FieldInfo

from langchain_perplexity_strict._redact import close_names, named
from langchain_perplexity_strict.errors import PerplexityRequestTypeError


def openai_environment_note() -> str:
    """For a missing key: what an app that ran `ChatOpenAI` on Perplexity has set, and why it is not read."""
    if not os.environ.get("OPENAI_API_KEY"):
        return ""
    return (
        " OPENAI_API_KEY is set but not read (it may hold an OpenAI key, which must not reach another server): "
        "put your Perplexity key in PPLX_API_KEY, and the server root, if not Perplexity's, in PPLX_BASE_URL."
    )


PERPLEXITY_ROOT = "https://api.perplexity.ai"
"""Perplexity's server root (the transport's `DEFAULT_BASE_URL`; the base cannot import the transport)."""


def openai_base_url_warning(base_url_given: bool) -> str | None:
    """For a model built without `base_url` or `PPLX_BASE_URL` while `OPENAI_BASE_URL` names another server:
    the warning that it is not read, or None.

    An app that ran `ChatOpenAI` against a gateway set `OPENAI_BASE_URL`; this package reads only its own
    variable (an OpenAI setting may point at OpenAI, where a Perplexity key must not go), so the app
    would switch servers untold. Not an error: apps that use OpenAI and Perplexity side by side set both.
    The URL is not shown (it may carry user info).
    """
    openai_root = os.environ.get("OPENAI_BASE_URL", "").strip()
    if base_url_given or not openai_root or os.environ.get("PPLX_BASE_URL"):
        return None
    if openai_root.rstrip("/").startswith(PERPLEXITY_ROOT):  # ChatOpenAI pointed at Perplexity: the same server
        return None
    return (
        f"OPENAI_BASE_URL is set but not read: requests go to {PERPLEXITY_ROOT}. To send them to the server "
        "OPENAI_BASE_URL names (a gateway), set PPLX_BASE_URL to it or pass base_url=...; to keep Perplexity's "
        "and silence this, pass base_url= or set PPLX_BASE_URL."
    )


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


def _distance(a: str, b: str) -> int:
    """Edits from `a` to `b` (insert, delete, replace, swap two neighbours): optimal string alignment."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            cost = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, previous2[j - 2] + 1)
            row.append(cost)
        previous2, previous = previous, row
    return previous[-1]


def near_typo(name: str, accepted: Iterable[str]) -> str | None:
    """The accepted name `name` is a near typo of (`temprature` for `temperature`), or None.

    Near: one edit for a name of up to five letters, two for a longer one; or the name cut short at a
    word boundary, when one accepted name alone starts with it. Spelling distance alone
    says nothing about meaning (`web_search_options` is not `web_search`, `truncation` is not
    `instructions`), so a wider guess is never offered: other integrations' names have their own
    table (`_request/_habits.py`).
    """
    names = [n for n in accepted if isinstance(n, str)]
    limit = 1 if len(name) <= 5 else 2
    scored = sorted((_distance(name.lower(), n.lower()), n) for n in names)
    if scored and scored[0][0] <= limit:
        return scored[0][1]
    # A name cut short at a word (`search_recency` for `search_recency_filter`), when only one name fits.
    longer = [n for n in names if n.startswith(name + "_")]
    return longer[0] if len(longer) == 1 else None


class UnknownArgumentError(PerplexityRequestTypeError):
    """An argument the class does not take: a `TypeError`, as Python's own unexpected keyword is, a
    `ValueError`, as pydantic's refusals are, and not retryable. Never inside a pydantic `ValidationError`."""


def unknown_argument(
    name: str,
    value: Any,
    accepted: Iterable[str],
    owner: str,
    why: str = "",
    foreign: Mapping[str, str] | None = None,
) -> UnknownArgumentError:
    """The error for `name=value`, which `owner` does not take: the closest accepted name, else all of them.

    `foreign`: other integrations' names with their fate here (`_habits.FOREIGN_HINTS`). A typo is matched
    against them too, so `verbosty` is ChatOpenAI's `verbosity` (and its replacement), not `verbose`.
    The value is shown only when known to be safe (`_redact.named`): a misspelt `api_kye=` holds a key.
    """
    names = sorted(n for n in accepted if not n.startswith("_"))
    foreign = foreign or {}
    close = near_typo(name, [*names, *foreign])
    like = close_names(name, [*names, *foreign])
    if close is not None and close in foreign:
        hint = f" Did you mean {close!r}? {foreign[close]}."
    else:
        hint = f" Did you mean {close!r}?" if close and not why else ""
    listed = "" if hint else f" Accepted: {', '.join(names)}."
    return UnknownArgumentError(
        f"{named(name, value, *like)} is not an argument of {owner}{f' ({why})' if why else ''}.{hint}{listed}"
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
