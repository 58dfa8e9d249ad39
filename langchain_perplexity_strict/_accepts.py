"""What a setting accepts, one way for every public class: a strict pydantic type and the words for it.

A setting's rule is a pydantic type, constrained and strict, as langchain-openai
and openai-python carry theirs (`Annotated[float, Strict(), Field(ge=0, le=2)]`,
`Literal[...]`, `StringConstraints`), with a validator for a rule Perplexity
documents beyond types (a date format, a domain list). `Accepts` pairs the type
with the words a refusal shows and builds its `TypeAdapter` once; the chat
model's parameters (`_request/_parameter_table`), the Search API's fields
(`_search/_request`) and the connection settings every class shares
(`api_key`, `base_url`, `timeout`, `max_retries`: `CONNECTION`, checked by
`ConnectionChecks` on each class) are declared in it, and their constructors
and call-time checks all ask it. Nothing is coerced (`"0.5"` is not 0.5, `True`
is not 1), and the value validated is never the one kept: the caller's value
stays theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
from typing_extensions import Self

from langchain_perplexity_strict._arguments import openai_environment_note
from langchain_perplexity_strict._redact import shown


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
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # such as an unclosed IPv6 bracket
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
