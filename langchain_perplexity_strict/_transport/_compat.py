"""The private langchain-openai and openai helpers this package reuses.

Perplexity's HTTP errors go through langchain-openai's own error mapping as the exception of their kind
(`errors.kind_of`): `ChatOpenAI`'s (an `openai` error and a langchain-core `ModelAPIError`), or this package's
where langchain-openai has no class, so middleware reads the kind and retry flag. A run's create is retried by
`_create` with the installed openai's own numbers and `Retry-After` parsing, so they cannot drift.
"""

from __future__ import annotations

from typing import Any

import openai
from langchain_openai.chat_models.base import (
    OpenAIAPIError,
    OpenAIAuthenticationError,
    OpenAIContextOverflowError,
    OpenAIInvalidRequestError,
    OpenAIModelNotFoundError,
    OpenAIPermissionDeniedError,
    OpenAIRateLimitError,
    _handle_openai_api_error,
    _handle_openai_bad_request,
)
from openai import _constants
from openai._base_client import BaseClient

from langchain_perplexity_strict.errors import (
    PerplexityInvalidRequestError,
    PerplexityServerError,
    PerplexityUnprocessableEntityError,
    error_detail,
    kind_of,
)

OPENAI_KINDS: dict[str, type[openai.APIStatusError]] = {
    "context_overflow": OpenAIContextOverflowError,
    "invalid_request": OpenAIInvalidRequestError,
    "auth": OpenAIAuthenticationError,
    "permission": OpenAIPermissionDeniedError,
    "not_found": OpenAIModelNotFoundError,
    "rate_limit": OpenAIRateLimitError,
    "server": OpenAIAPIError,
}
"""langchain-openai's HTTP error class of each kind: an `openai` error and a langchain-core one."""


def langchain_openai_error(error: openai.APIError) -> Exception:
    """The exception langchain-openai raises for `error` (its 400 reading for a `BadRequestError`), else `error`.

    Its helpers end in a bare `raise` for errors they do not map, so they are called within an `except` for `error`.
    """
    helper = _handle_openai_bad_request if isinstance(error, openai.BadRequestError) else _handle_openai_api_error
    try:
        try:
            raise error
        except openai.APIError:
            helper(error)  # type: ignore[arg-type]
    except Exception as raised:
        return raised
    return error


def http_error(error: openai.APIStatusError, message: str) -> Exception:
    """`error` as the exception of its kind, with `message` (Perplexity's words)."""
    kind = kind_of(error_detail(error.body), error.status_code)
    fields: Any = {"message": message, "response": error.response, "body": error.body}
    if kind == "invalid_request" and isinstance(error, openai.BadRequestError):
        # langchain-openai's own reading (an overflow by its wording, a structured-output hint)
        return langchain_openai_error(openai.BadRequestError(**fields))
    if kind == "invalid_request":
        unprocessable = isinstance(error, openai.UnprocessableEntityError)
        return (PerplexityUnprocessableEntityError if unprocessable else PerplexityInvalidRequestError)(**fields)
    if kind == "server" and not isinstance(error, openai.InternalServerError):
        return PerplexityServerError(**fields)
    return OPENAI_KINDS[kind if kind is not None else "server"](**fields)


INITIAL_RETRY_DELAY: float = _constants.INITIAL_RETRY_DELAY
MAX_RETRY_DELAY: float = _constants.MAX_RETRY_DELAY
MAX_RETRY_AFTER_DELAY: float = getattr(_constants, "MAX_RETRY_AFTER_DELAY", 60.0)
"""The longest `Retry-After` the openai client waits for (60 s inline in releases without the constant)."""


def parse_retry_after(headers: Any) -> float | None:
    """The seconds `retry-after-ms` or `Retry-After` asks for, as the openai client reads them; None if unreadable."""
    # An instance method that reads nothing of its instance, on every openai release since 1.0.
    return BaseClient._parse_retry_after_header(None, headers)  # type: ignore[arg-type]
