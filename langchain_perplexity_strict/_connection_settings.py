"""The connection settings shared by the search and embeddings classes, and the transport built from them.

The same fields, environment variables and `Transport` as `ChatPerplexityStrict`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.utils import from_env, secret_from_env
from pydantic import AliasChoices, Field, PrivateAttr, SecretStr, model_validator
from typing_extensions import Self

from langchain_perplexity_strict._accepts import (
    COPYING,
    ConnectionChecks,
    ValidatedCopy,
    check_known,
    openai_base_url_warning,
)
from langchain_perplexity_strict._once import OncePerOwner
from langchain_perplexity_strict._redact import Redacted
from langchain_perplexity_strict._transport import DEFAULT_BASE_URL, Transport

_PLACEHOLDER_MODEL = "perplexity/sonar"
"""`ChatOpenAI` needs a model name; these endpoints name theirs in the body."""

INSTEAD = {
    "client": (
        "langchain-perplexity's perplexity SDK client is not used here: requests go through the chat model's "
        "transport; pass its settings instead: api_key=..., base_url=..., timeout=..., max_retries=..."
    ),
    "async_client": "not used here; pass api_key=..., base_url=..., timeout=..., max_retries=... instead",
}
"""Arguments other integrations take, with what to pass here instead."""


_WARNINGS = OncePerOwner()
"""Each instance's own warnings."""


class PerplexityConnection(ConnectionChecks, ValidatedCopy, Redacted):
    """Key, server root, timeout and retries, and the `Transport` they make."""

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
    """Retries on 429 and 5xx."""

    _api_name: ClassVar[str] = "search"
    """How errors name the API."""
    _transport: Transport | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _known_arguments(cls, values: Any) -> Any:
        check_known(values, cls.model_fields, cls.__name__, INSTEAD)
        return values

    @model_validator(mode="after")
    def _build_transport(self) -> Self:
        # Built now, as the chat model does: loading the TLS trust store blocks.
        _ = self.transport
        unread = openai_base_url_warning("base_url" in self.model_fields_set)
        if unread is not None and not COPYING.get():
            _WARNINGS.warn(self, "OPENAI_BASE_URL", unread)
        return self

    @property
    def transport(self) -> Transport:
        """The chat model's transport, pointed at the server root."""
        key: tuple[Any, ...] = (self.base_url, self.api_key, self.timeout, self.max_retries)
        if self._transport is None or self._transport.key != key:
            self._transport = Transport.build(self.base_url, key, model=_PLACEHOLDER_MODEL, owner=type(self).__name__)
        return self._transport

    def _post(self, path: str, body: bytes) -> dict[str, Any]:
        """POST `body` to the endpoint `path`; errors name this API."""
        return self.transport.post(path, body, api=self._api_name)

    async def _apost(self, path: str, body: bytes) -> dict[str, Any]:
        return await self.transport.apost(path, body, api=self._api_name)

    def _get(self, path: str) -> dict[str, Any]:
        """GET the endpoint `path`; errors name this API."""
        return self.transport.get(path, api=self._api_name)

    async def _aget(self, path: str) -> dict[str, Any]:
        return await self.transport.aget(path, api=self._api_name)
