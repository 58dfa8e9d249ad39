"""What a setting accepts, one way for every public class, and the refusal of an argument no class takes.

A rule is a strict pydantic type; `Accepts` pairs it with the words a refusal shows. Nothing is coerced.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import httpx
import openai
from annotated_types import Predicate
from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    InstanceOf,
    SecretStr,
    Strict,
    StrictStr,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)
from pydantic.fields import FieldInfo

from langchain_perplexity_strict._redact import close_names, named, shown
from langchain_perplexity_strict.errors import PerplexityRequestTypeError


def ruled(check: Callable[[Any], str | None], base: Any = Any) -> Any:
    """A `base` value, checked by `check`: why it breaks the rule, or None."""

    def validate(value: Any) -> Any:
        why = check(value)
        if why is not None:
            raise ValueError(why)
        return value

    return Annotated[base, AfterValidator(validate)]


def holds(check: Callable[[Any], bool]) -> Any:
    """A validator with no reason beyond what is accepted."""
    return Predicate(check)


@dataclass(frozen=True)
class Accepts:
    """A setting's strict `type`, and `accepted`, the words a refusal ends with."""

    accepted: str
    type: Any
    refusal: str = ""
    """Words after `name=value` in a refusal (`" is not a URL"`)."""
    _adapter: TypeAdapter[Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_adapter", TypeAdapter(self.type))

    def problem(self, value: Any) -> str | None:
        """None when `value` is accepted; else `expected ...`, with the rule's reason."""
        try:
            self._adapter.validate_python(value, strict=True)
        except ValidationError as error:
            reasons = [str(e["ctx"]["error"]) for e in error.errors() if e["type"] == "value_error"]
            reason = next((r for r in reasons if r), "")
            return f"expected {self.accepted}" + (f" ({reason})" if reason else "")
        return None


def one_of(*values: str) -> Accepts:
    """The rule of a set of words."""
    return Accepts("one of " + ", ".join(values), Literal[values])


def check(name: str, value: Any, accepts: Accepts) -> None:
    """Raise `ValueError` naming `name`, the value and what `accepts` takes."""
    problem = accepts.problem(value)
    if problem is not None:
        msg = f"{name}={shown(value, name)}{accepts.refusal}: {problem}."
        raise ValueError(msg)


TOKEN_BUDGET = Accepts("an integer >= 0 (0: no compaction) or None", None | Annotated[int, Strict(), Field(ge=0)])
"""The chat model's `max_input_tokens`."""
NON_BLANK = Annotated[StrictStr, StringConstraints(pattern=r"\S")]  # a name: neither empty nor only spaces


def _is_url(value: str) -> bool:
    try:
        parts = urlsplit(value)
        return parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # an unclosed IPv6 bracket, a port that is not a number in 1-65535
        return False


SECONDS = Annotated[float, Strict(), Field(gt=0, allow_inf_nan=False)]


def _parts(value: Any) -> Any:
    """An openai or httpx `Timeout` as its (connect, read, write, pool) tuple, checked as one."""
    if isinstance(value, (openai.Timeout, httpx.Timeout)):
        return (value.connect, value.read, value.write, value.pool)
    return value


def _key_problem(value: str | SecretStr) -> str | None:
    """What of the key an HTTP header cannot carry (h11 and httpx would refuse it mid-request, showing it), or None."""
    key = value.get_secret_value() if isinstance(value, SecretStr) else value
    if key != key.strip():
        end = "ends with a newline" if key.endswith(("\n", "\r")) else "starts or ends with whitespace"
        return f"{end}; strip it"
    return None if key.isascii() and key.isprintable() else "holds a non-ASCII or control character (a tab, a newline)"


API_KEY = Accepts(
    "a string or SecretStr of printable ASCII characters, no whitespace at either end (the Perplexity API key: "
    "api_key=..., else PPLX_API_KEY or PERPLEXITY_API_KEY; sent in an HTTP header)",
    ruled(_key_problem, StrictStr | InstanceOf[SecretStr]),
)
BASE_URL = Accepts(
    "http:// or https://, a host, and an optional path, such as 'https://api.perplexity.ai'",
    Annotated[StrictStr, holds(_is_url)],
    refusal=" is not a URL",
)
TIMEOUT = Accepts(
    "seconds > 0 (finite), a (connect, read) pair of them or None (a third and fourth: write, pool), "
    "an openai.Timeout or httpx.Timeout whose set parts are, or None for the client's default "
    "(the forms ChatOpenAI takes)",
    None | SECONDS | Annotated[tuple[SECONDS | None, ...], Field(min_length=2, max_length=4), BeforeValidator(_parts)],
)

IDEMPOTENCY_KEY = Accepts(
    "None (each submission its own) or a non-empty string of printable ASCII characters, not only spaces "
    "(sent as the Idempotency-Key header, shared by every submission that passes it)",
    None | Annotated[StrictStr, StringConstraints(pattern=r"^[ -~]*[!-~][ -~]*$")],
)
"""`submit_batch(idempotency_key=...)`; never empty."""
RESULTS_TIMEOUT = Accepts(
    "seconds >= 0 (finite; 0: look once), or None to wait as long as it takes",
    None | Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)],
)
"""A batch job's `results(timeout=...)`."""

CONNECTION: Mapping[str, Accepts] = {
    "api_key": API_KEY,
    "base_url": BASE_URL,
    "timeout": TIMEOUT,
    "max_retries": Accepts("an integer >= 0", Annotated[int, Strict(), Field(ge=0)]),
}
"""Every class's connection settings, and their rules (a missing key has its own message)."""


def check_connection_setting(name: str, value: Any, owner: str = "") -> None:
    """Raise `ValueError` naming `name` unless `value` is a usable connection setting."""
    if name == "api_key" and (value in (None, "") or (isinstance(value, SecretStr) and not value.get_secret_value())):
        to = f" to {owner}" if owner else ""
        msg = (
            f"api_key: no key given{to}, and neither PPLX_API_KEY nor PERPLEXITY_API_KEY is set. "
            "Pass api_key=... (for offline tests, any key works against "
            "langchain_perplexity_strict.testing.PerplexityEmulator)."
        )
        if os.environ.get("OPENAI_API_KEY"):  # why it is not read
            msg += (
                " OPENAI_API_KEY is set but not read (it may hold an OpenAI key, which must not reach another "
                "server): put your Perplexity key in PPLX_API_KEY, and the server root, if not Perplexity's, in "
                "PPLX_BASE_URL."
            )
        raise ValueError(msg)
    check(name, value, CONNECTION[name])


def _distance(a: str, b: str) -> int:
    """Optimal string alignment distance from `a` to `b`."""
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
    """The accepted name `name` is one edit from (two past five letters) or cuts short at a word, or None."""
    names = list(accepted)
    limit = 1 if len(name) <= 5 else 2
    scored = sorted((_distance(name.lower(), n.lower()), n) for n in names)
    if scored and scored[0][0] <= limit:
        return scored[0][1]
    longer = [n for n in names if n.startswith(name + "_")]
    return longer[0] if len(longer) == 1 else None


def suggestion(name: str, names: Iterable[str], foreign: Mapping[str, str]) -> tuple[str, list[str]]:
    """A near typo's " Did you mean ...?" (a `foreign` one's with its meaning) or "", and the names it resembles."""
    names = [*names, *foreign]
    close = near_typo(name, names)
    hint = "" if close is None else f" Did you mean {close!r}?" + (f" {foreign[close]}." if close in foreign else "")
    return hint, close_names(name, names)


class UnknownArgumentError(PerplexityRequestTypeError):
    """An argument the class does not take: a `TypeError` and a `ValueError`, not retryable."""


def check_known(
    values: Any, fields: Mapping[str, FieldInfo | None], owner: str, instead: Mapping[str, str], foreign: Any = None
) -> None:
    """Refuse the first argument `fields` (or their `AliasChoices`) do not take, with the closest accepted or
    `foreign` name, else every accepted one; `instead` says why some are not taken."""
    if not isinstance(values, dict):
        return
    accepted = set(fields)
    for info in fields.values():
        accepted.update(
            c for c in getattr(getattr(info, "validation_alias", None), "choices", ()) if isinstance(c, str)
        )
    unknown = sorted(k for k in values if k not in accepted)
    if unknown:
        name, why = unknown[0], instead.get(unknown[0])
        names = sorted(n for n in accepted if not n.startswith("_"))
        hint, like = suggestion(name, names, foreign or {})
        listed = hint or f" Accepted: {', '.join(names)}."
        shown_name = named(name, values[name], *like)
        raise UnknownArgumentError(f"{shown_name} is not an argument of {owner}{f' ({why})' if why else ''}.{listed}")
