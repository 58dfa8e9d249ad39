"""The settings base of every public class: connection settings, their checks, redaction, copies, the transport."""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any, ClassVar, cast

from langchain_core.utils import from_env, secret_from_env
from pydantic import AliasChoices, Field, SecretStr, ValidationInfo, field_validator, model_validator
from typing_extensions import Self

from langchain_perplexity_strict._accepts import CONNECTION, check_connection_setting, check_known
from langchain_perplexity_strict._once import OncePerOwner
from langchain_perplexity_strict._redact import Redacted
from langchain_perplexity_strict._transport import DEFAULT_BASE_URL, Transport

_PLACEHOLDER_MODEL = "perplexity/sonar"
"""`ChatOpenAI` needs a model name; the bodies name theirs."""

INSTEAD = dict.fromkeys(
    ("client", "async_client"),
    "langchain-perplexity's perplexity SDK client is not used here: requests go through the chat model's transport; "
    "pass its settings instead: api_key=..., base_url=..., timeout=..., max_retries=...",
)
"""Arguments other integrations take, with what to pass here instead."""

_WARNINGS = OncePerOwner()

_COPYING: ContextVar[bool] = ContextVar("_COPYING", default=False)
"""True while `model_copy` validates: copies do not repeat the original's warnings."""


class PerplexityConnection(Redacted):
    """Key, server root, timeout and retries, checked however they come; copies validated; the `Transport`."""

    api_key: SecretStr | None = Field(
        default_factory=secret_from_env(["PPLX_API_KEY", "PERPLEXITY_API_KEY"], default=None),
        validate_default=True,
        validation_alias=AliasChoices("api_key", "pplx_api_key", "perplexity_api_key", "openai_api_key"),
    )
    """Perplexity API key (default: `PPLX_API_KEY` or `PERPLEXITY_API_KEY`)."""
    base_url: str = Field(
        default_factory=from_env("PPLX_BASE_URL", default=DEFAULT_BASE_URL),
        validate_default=True,
        validation_alias=AliasChoices("base_url", "openai_api_base"),
    )
    """The server root (default: `PPLX_BASE_URL`, else `https://api.perplexity.ai`)."""
    timeout: Any = Field(default=None, validation_alias=AliasChoices("timeout", "request_timeout"))
    """Request timeout, in `ChatOpenAI`'s forms."""
    max_retries: int = 2
    """Retries on 429 and 5xx (`ChatOpenAI`'s)."""

    _error_hints: ClassVar[Mapping[str, str] | None] = None
    """What the transport's errors add, by kind (the chat model's surfaces')."""

    @model_validator(mode="before")
    @classmethod
    def _known_arguments(cls, values: Any) -> Any:
        """Refuse an argument this class does not take."""
        check_known(values, cls.model_fields, cls.__name__, INSTEAD)
        return values

    @field_validator(*CONNECTION, mode="before")
    @classmethod
    def _connection_setting(cls, value: Any, info: ValidationInfo) -> Any:
        """Environment defaults included, before pydantic converts it."""
        check_connection_setting(str(info.field_name), value, cls.__name__)
        return value

    @model_validator(mode="after")
    def _connected(self) -> Self:
        """Build the transport now, as ChatOpenAI does (the trust store blocks); warn of an unread OPENAI_BASE_URL."""
        _ = self.transport
        root = os.environ.get("OPENAI_BASE_URL", "").strip()
        told = "base_url" in self.model_fields_set or os.environ.get("PPLX_BASE_URL") or _COPYING.get()
        if root and not told and not root.rstrip("/").startswith(DEFAULT_BASE_URL):
            _WARNINGS.warn(
                self,
                "OPENAI_BASE_URL",
                f"OPENAI_BASE_URL is set but not read: requests go to {DEFAULT_BASE_URL}. To send them to the server "
                "OPENAI_BASE_URL names (a gateway), set PPLX_BASE_URL to it or pass base_url=...; to keep "
                "Perplexity's and silence this, pass base_url= or set PPLX_BASE_URL.",
            )
        return self

    @property
    def transport(self) -> Transport:
        """Rebuilt when its settings change; in `__dict__`, as a `PrivateAttr` would add a `model_post_init`."""
        key = (self.base_url, self.api_key, self.timeout, self.max_retries)
        transport = self.__dict__.get("_transport")
        if transport is None or transport.key != key:
            transport = self.__dict__["_transport"] = Transport.build(
                key, model=_PLACEHOLDER_MODEL, hints=self._error_hints, owner=type(self).__name__
            )
        return transport

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """With `update`, validated as the constructor validates (pydantic's skips it)."""
        copy = super().model_copy(deep=deep)
        if not update:
            return copy
        given = {name: copy.__dict__[name] for name in copy.model_fields_set}
        token = _COPYING.set(True)
        try:
            return type(self)(**{**given, **update})
        finally:
            _COPYING.reset(token)


class PerplexitySettings(PerplexityConnection):
    """The Runnable classes' base: `configurable_fields` refuses a misspelt name with the near one."""

    def configurable_fields(self, **kwargs: Any) -> Any:
        check_known(kwargs, type(self).model_fields, f"{type(self).__name__}.configurable_fields", {})
        return cast(Any, super()).configurable_fields(**kwargs)
