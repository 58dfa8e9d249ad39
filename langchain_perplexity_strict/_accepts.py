"""What a setting accepts, one way for every public class, and the refusal of an argument no class takes.

A setting's rule is a strict, constrained pydantic type, as langchain-openai and
openai-python carry theirs; `Accepts` pairs it with the words a refusal shows.
The chat model's parameters, the Search API's fields and the connection settings
(`CONNECTION`, checked by `ConnectionChecks`) are declared with it. Nothing is
coerced, and the caller's value is kept as given. An unknown argument gets
"Did you mean ...?" only for a near typo (`unknown_argument`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Annotated, Any
from urllib.parse import urlsplit

import httpx
import openai
from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    InstanceOf,
    SecretStr,
    Strict,
    StrictStr,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.fields import FieldInfo
from typing_extensions import Self

from langchain_perplexity_strict._redact import close_names, named, shown
from langchain_perplexity_strict.errors import PerplexityRequestTypeError


def rule(check: Callable[[Any], str | None]) -> Any:
    """A validator for a documented rule: `check` says why a value breaks it (None: it does not)."""

    def validate(value: Any) -> Any:
        why = check(value)
        if why is not None:
            raise ValueError(why)
        return value

    return AfterValidator(validate)


def holds(check: Callable[[Any], bool]) -> Any:
    """A validator for a rule with nothing more to say than what is accepted."""
    return rule(lambda value: None if check(value) else "")


def ruled(check: Callable[[Any], str | None]) -> Any:
    """Any value, checked by `check` alone (a rule that tests the type itself, to say what is wrong)."""
    return Annotated[Any, rule(check)]


@dataclass(frozen=True)
class Accepts:
    """A setting's rule: `type`, validated strictly, and `accepted`, the words a refusal ends with."""

    accepted: str
    type: Any
    refusal: str = ""
    """What a refusal says after `name=value`, before `: expected ...` (`" is not a URL"`)."""
    _adapter: TypeAdapter[Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_adapter", TypeAdapter(self.type))

    def problem(self, value: Any) -> str | None:
        """None when `value` is accepted; else `expected ...`, with the documented rule's reason if it has one."""
        try:
            self._adapter.validate_python(value, strict=True)
        except ValidationError as error:
            reasons = [str(e["ctx"]["error"]) for e in error.errors() if e["type"] == "value_error"]
            reason = next((r for r in reasons if r), "")
            return f"expected {self.accepted}" + (f" ({reason})" if reason else "")
        return None


def check(name: str, value: Any, accepts: Accepts) -> None:
    """Raise `ValueError` naming `name`, the value (as `_redact.shown` allows) and what `accepts` takes."""
    problem = accepts.problem(value)
    if problem is not None:
        msg = f"{name}={shown(value, name)}{accepts.refusal}: {problem}."
        raise ValueError(msg)


RETRIES = Accepts("an integer >= 0", Annotated[int, Strict(), Field(ge=0)])
"""`max_retries`, of the chat model and of the search and embeddings classes alike."""
TOKEN_BUDGET = Accepts("an integer >= 0 (0: no compaction)", Annotated[int, Strict(), Field(ge=0)])
"""The chat model's `max_input_tokens`."""


def _is_url(value: str) -> bool:
    try:
        parts = urlsplit(value)
        return parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # an unclosed IPv6 bracket, a port that is not a number in 1-65535
        return False


SECONDS = Annotated[float, Strict(), Field(gt=0, allow_inf_nan=False)]
"""Seconds > 0, finite (an int is seconds too; a bool is not)."""
_SECONDS: TypeAdapter[float] = TypeAdapter(SECONDS)


_PART = SECONDS | None
"""A part of a timeout tuple: seconds, or None for no limit."""
_TIMEOUT_OBJECT = InstanceOf[openai.Timeout] | InstanceOf[httpx.Timeout]
"""The client's own `Timeout` (httpx2's from openai 3) or httpx's: either is rebuilt as the client's."""


def _timeout_in_seconds(value: Any) -> bool:
    """Whether every set part of a `Timeout` is `SECONDS`."""
    parts = [p for p in (value.connect, value.read, value.write, value.pool) if p is not None]
    try:
        for part in parts:
            _SECONDS.validate_python(part, strict=True)
    except ValidationError:
        return False
    return True


API_KEY = Accepts("a string or SecretStr (the Perplexity API key)", StrictStr | InstanceOf[SecretStr])
"""`api_key` of every class; None or empty (no key, none in the environment) has its own message."""
BASE_URL = Accepts(
    "http:// or https://, a host, and an optional path, such as 'https://api.perplexity.ai'",
    Annotated[StrictStr, holds(_is_url)],
    refusal=" is not a URL",
)
"""`base_url` of every class: checked at construction, not met at the first request as a connection error."""
TIMEOUT = Accepts(
    "seconds > 0 (finite), a (connect, read) pair of them or None (a third and fourth: write, pool), "
    "an openai.Timeout or httpx.Timeout whose set parts are, or None for the client's default "
    "(the forms ChatOpenAI takes)",
    None
    | SECONDS
    | tuple[_PART, _PART]
    | tuple[_PART, _PART, _PART]
    | tuple[_PART, _PART, _PART, _PART]
    | Annotated[_TIMEOUT_OBJECT, holds(_timeout_in_seconds)],
)
"""`timeout` of every class, in `ChatOpenAI`'s forms (`_transport._timeouts` gives it to the client)."""

IDEMPOTENCY_KEY = Accepts(
    "None (each submission its own) or a non-empty string of printable ASCII characters, not only spaces "
    "(sent as the Idempotency-Key header, shared by every submission that passes it)",
    None | Annotated[StrictStr, StringConstraints(pattern=r"^[ -~]*[!-~][ -~]*$")],
)
"""`submit_batch(idempotency_key=...)`: an empty key would be one key for every caller that passed one."""
RESULTS_TIMEOUT = Accepts(
    "seconds >= 0 (finite; 0: look once), or None to wait as long as it takes",
    None | Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)],
)
"""A batch job's `results(timeout=...)`."""

CONNECTION: Mapping[str, Accepts] = {
    "api_key": API_KEY,
    "base_url": BASE_URL,
    "timeout": TIMEOUT,
    "max_retries": RETRIES,
}
"""The settings every public class has for its connection, and their rules (one for every class)."""


def check_connection_setting(name: str, value: Any, owner: str = "") -> None:
    """Raise `ValueError` naming `name` unless `value` is a usable connection setting (`CONNECTION`).

    A missing key is refused here too, naming where a key is looked for (`owner`: the class).
    """
    if name == "api_key" and (value in (None, "") or (isinstance(value, SecretStr) and not value.get_secret_value())):
        to = f" to {owner}" if owner else ""
        msg = (
            f"api_key: no key given{to}, and neither PPLX_API_KEY nor PERPLEXITY_API_KEY is set. "
            "Pass api_key=... (for offline tests, any key works against "
            "langchain_perplexity_strict.testing.PerplexityEmulator)." + openai_environment_note()
        )
        raise ValueError(msg)
    check(name, value, CONNECTION[name])


class ConnectionChecks(BaseModel):
    """The one check of the connection settings (`CONNECTION`), for every class that has them.

    Each class declares its fields (with their defaults from the environment, validated too: a
    `PPLX_BASE_URL` that is not a URL is refused at construction); this validator runs on each,
    however the value came (constructor, `model_copy(update=...)`, `configurable_fields`,
    `init_chat_model`), before pydantic converts it (a string key to a `SecretStr`).
    """

    @field_validator(*CONNECTION, mode="before", check_fields=False)
    @classmethod
    def _connection_setting(cls, value: Any, info: ValidationInfo) -> Any:
        check_connection_setting(str(info.field_name), value, cls.__name__)
        return value


COPYING: ContextVar[bool] = ContextVar("COPYING", default=False)
"""True while `ValidatedCopy.model_copy` validates a copy: what the original warned about at construction
(such as an unread `OPENAI_BASE_URL`) is not repeated for each copy (a configurable model copies per call)."""


class ValidatedCopy(BaseModel):
    """`model_copy(update=...)` validated as the constructor validates: pydantic's own skips validation,
    so `{"timeout": -1}` or a misspelt name would reach the request unchecked.

    What the original was given stays given (a preset still picks its model); the rest is
    validated again with the update, as `type(self)(**given, **update)` would be.
    """

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        copy = super().model_copy(deep=deep)
        if not update:
            return copy
        given = {name: copy.__dict__[name] for name in copy.model_fields_set}
        token = COPYING.set(True)
        try:
            return type(self).model_validate({**given, **update})
        finally:
            COPYING.reset(token)


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
    for info in fields.values():
        if info.alias:
            names.add(info.alias)
        choices = getattr(info.validation_alias, "choices", None)
        names.update(c for c in choices or () if isinstance(c, str))
        if isinstance(info.validation_alias, str):
            names.add(info.validation_alias)
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
