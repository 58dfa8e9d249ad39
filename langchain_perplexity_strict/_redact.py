"""What may be shown of a caller's value: credentials never appear in an error, repr, trace or dump.

Hidden: values under a credential's name, URL user info, and key-shaped strings.
"""

from __future__ import annotations

import difflib
import functools
import operator
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast, get_args

from langchain_core.language_models import chat_models
from langchain_core.runnables import RunnableBinding
from pydantic import BaseModel, ConfigDict, SecretStr, SerializerFunctionWrapHandler, ValidationError, model_serializer
from pydantic_core import PydanticCustomError

HIDDEN = "***"

_SECRET_NAME = re.compile(
    r"key|secret|passw|pwd|auth|credential|cookie|header|bearer|session|signature|token(?!s)", re.IGNORECASE
)
_SAFE_NAMES = frozenset({"token_counter", "custom_get_token_ids", "prompt_cache_key"})
"""Names the pattern matches that hold no credential."""
_USERINFO = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://|^)[^/\s@?#]*@")
_KEY_SHAPED = re.compile(r"(?i)^\s*(bearer\s+\S|basic\s+\S|pplx-|sk-|xai-|gsk_|ghp_|eyJ)")


_CREDENTIAL_NAMES = ("api_key", "apikey", "password", "passwd", "authorization", "headers", "secret", "token")
"""Names whose misspellings (`api_kye`) still hold a credential."""


@functools.lru_cache(maxsize=1024)
def secret_name(name: Any) -> bool:
    """Whether a value under `name` may be a credential, misspelt or not."""
    if not isinstance(name, str) or name in _SAFE_NAMES:
        return False
    if _SECRET_NAME.search(name) is not None:
        return True
    return bool(difflib.get_close_matches(name.lower(), _CREDENTIAL_NAMES, n=1, cutoff=0.8))


def without_userinfo(text: str) -> str:
    """`text` with URL user info and credential query values hidden."""
    if "@" not in text and "=" not in text:
        return text
    return _QUERY_SECRET.sub(rf"\1{HIDDEN}", _USERINFO.sub(rf"\1{HIDDEN}@", text))


_KEY_IN_TEXT = re.compile(r"(?i)\b(?:bearer\s+|basic\s+)?(?:pplx-|sk-|xai-|gsk_|ghp_)[\w.-]+")
_NAMED = r"[\w-]*(?:key|secret|passw|auth|token(?!s))[\w-]*"
_QUERY_SECRET = re.compile(rf"([?&]{_NAMED}=)[^&#\s'\"]+", re.IGNORECASE)
"""A query parameter under a credential's name (`?token=`)."""
_SECRET_SETTING = re.compile(
    rf"((?<![\w-])--{_NAMED}(?:=|\s+)|{_NAMED}=|{_NAMED}:\s*(?=['\"]))(['\"]?)[^\s'\",;)}}]+", re.IGNORECASE
)
"""A credential's setting in text: `--api-key value`, `api_key=value`, `api_key: 'value'`."""


def redact_text(text: str, *secrets: str) -> str:
    """Free text with every credential in it, and the known `secrets`, hidden."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, HIDDEN)
    text = _KEY_IN_TEXT.sub(HIDDEN, without_userinfo(text))
    return _SECRET_SETTING.sub(rf"\1\2{HIDDEN}", text)


def redact(value: Any, name: Any = None) -> Any:
    """`value` with every credential hidden, recursively; the same object when nothing was."""
    if value is None or isinstance(value, SecretStr) or (isinstance(value, str) and not value):
        return value  # a SecretStr shows itself masked
    if name is not None and secret_name(name):
        return HIDDEN
    if isinstance(value, str):
        return HIDDEN if _KEY_SHAPED.match(value) else without_userinfo(value)
    if isinstance(value, Mapping):
        items = {k: redact(v, k) for k, v in value.items()}
        return items if any(items[k] is not v for k, v in value.items()) else value
    if isinstance(value, (list, tuple)):
        hidden = [redact(v) for v in value]
        if all(map(operator.is_, hidden, value)):
            return value
        return hidden if isinstance(value, list) else tuple(hidden)
    return value


def shown(value: Any, name: Any = None, limit: int | None = None) -> str:
    """`repr` of `value` redacted, cut to `limit` characters."""
    text = redact_text(repr(redact(value, name)))  # a key inside a malformed URL, too
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def close_names(name: str, accepted: Iterable[str]) -> list[str]:
    """The accepted names `name` is a misspelling of."""
    return difflib.get_close_matches(name, [n for n in accepted if isinstance(n, str)], n=3)


def named(name: str, value: Any, *like: str) -> str:
    """`name=value` for a refused argument if the value is a number, bool or None under no credential's name
    (nor `like` one); else `name`."""
    scalar = value is None or isinstance(value, (bool, int, float))
    return f"{name}={value!r}" if scalar and not any(map(secret_name, (name, *like))) else name


def secret_paths(values: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    """The dotted paths of every value `redact` would hide, for `lc_secrets`."""
    for key, value in values.items():
        if value is None or not isinstance(key, str) or "." in key:
            continue
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and not secret_name(key):
            yield from secret_paths(value, f"{path}.")
        elif redact(value, key) is not value:
            yield path


def redacted_error(error: ValidationError, fields: Mapping[str, Any]) -> ValidationError:
    """`error` with inputs redacted, unknown names' values hidden, and wrong types worded as any refusal is."""
    details: list[Any] = []
    wrong: dict[Any, list[Any]] = {}
    for record in error.errors():
        loc, value = record["loc"], record.get("input")
        if loc and loc[0] in fields and record["type"] not in ("value_error", "missing"):
            said = record["msg"].removeprefix("Input should be ").replace("a valid boolean", "True or False")
            wrong.setdefault(loc[0], [value]).append(said)
            continue
        if not loc and isinstance(value, Mapping):
            value = {k: redact(v, k) if k in fields else HIDDEN for k, v in value.items()}
        else:
            value = redact(value, next((part for part in loc if isinstance(part, str)), None))
            value = redact_text(value) if isinstance(value, str) else value
        detail: dict[str, Any] = {"input": value, **{k: record[k] for k in ("type", "loc", "ctx") if k in record}}
        try:
            ValidationError.from_exception_data(error.title, [cast(Any, detail)])
        except (KeyError, TypeError, ValueError):  # a custom error type
            message = record["msg"].replace("{", "{{").replace("}", "}}")
            detail = {"type": PydanticCustomError(record["type"], message), "loc": loc, "input": value}
        details.append(detail)
    for name, (value, *words) in wrong.items():
        words += ["None"] if type(None) in get_args(fields[name].annotation) else []
        text = f"{name}={shown(value, name)}: expected {' or '.join(dict.fromkeys(words))}."
        details.append({"type": "value_error", "loc": (name,), "input": HIDDEN, "ctx": {"error": ValueError(text)}})
    return ValidationError.from_exception_data(error.title, details, hide_input=True)


class Redacted(BaseModel):
    """A model whose repr, `model_dump`, pydantic errors and LangChain dump never show a credential."""

    model_config = ConfigDict(hide_input_in_errors=True, strict=True)  # a value is checked as given, never coerced

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().__init__(*args, **kwargs)
        except ValidationError as error:  # `errors()` still carries the input
            causes = [e.get("ctx", {}).get("error") for e in error.errors(include_url=False)]
            if len(causes) == 1 and isinstance(causes[0], TypeError):  # `UnknownArgumentError`
                raise causes[0] from None
            raise redacted_error(error, type(self).model_fields) from None

    def __repr_args__(self) -> Any:
        return [(k, redact(v, k)) for k, v in super().__repr_args__()]

    @model_serializer(mode="wrap")
    def _redacted(self, handler: SerializerFunctionWrapHandler) -> Any:
        return redact(handler(self))

    @property
    def lc_secrets(self) -> dict[str, str]:
        names = type(self).model_fields
        fields = {k: v for k, v in self.__dict__.items() if k in names}
        paths = {path: path.upper().replace(".", "_") for path in secret_paths(fields)}
        if "base_url" in paths:
            paths["base_url"] = "PPLX_BASE_URL"
        return {**paths, "api_key": "PPLX_API_KEY"} if "api_key" in fields else paths


_Binding: Any = getattr(chat_models, "_ChatModelBinding", RunnableBinding)


class RedactedBinding(Redacted, _Binding):
    """`BaseChatModel.bind`'s binding, whose repr and dump hide a bound credential."""
