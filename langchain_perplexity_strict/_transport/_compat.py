"""The private langchain-openai and openai helpers this package reuses, behind one import with a clear error.

Perplexity's HTTP errors are re-raised through langchain-openai's own error mapping (`_handle_openai_api_error`,
`_handle_openai_bad_request`, private, added in 1.1.9) as the exception of their kind (`errors.kind_of`): what
`ChatOpenAI` raises (an `openai` error and a langchain-core `ModelAPIError`), or this package's where
langchain-openai has no class, so middleware reads the kind and retry flag. An install without those helpers
fails here with the version needed instead of a bare `cannot import name`.

A run's create is retried by the package itself (`_create`), with openai's own numbers and `Retry-After`
parsing, read from the installed openai so they cannot drift from the client's other retries.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

import openai
from openai import _constants, _legacy_response
from openai._base_client import BaseClient

from langchain_perplexity_strict.errors import (
    PerplexityInvalidRequestError,
    PerplexityServerError,
    PerplexityUnprocessableEntityError,
    error_detail,
    kind_of,
)

LANGCHAIN_OPENAI_NEEDED = "1.6.0"

try:
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
except ImportError as error:  # only on an install below the declared floor
    try:
        found = version("langchain-openai")
    except PackageNotFoundError:
        found = "not installed"
    message = (
        f"langchain-perplexity-strict needs langchain-openai>={LANGCHAIN_OPENAI_NEEDED},<2.0.0 (found {found}): "
        f"{error}. Upgrade it: pip install 'langchain-openai>={LANGCHAIN_OPENAI_NEEDED},<2.0.0'"
    )
    raise ImportError(message) from error


OPENAI_KINDS: dict[str, type[openai.APIStatusError]] = {
    "context_overflow": OpenAIContextOverflowError,
    "invalid_request": OpenAIInvalidRequestError,
    "auth": OpenAIAuthenticationError,
    "permission": OpenAIPermissionDeniedError,
    "not_found": OpenAIModelNotFoundError,
    "rate_limit": OpenAIRateLimitError,
    "server": OpenAIAPIError,
}
"""langchain-openai's HTTP error class of each kind (`http_error`): an `openai` error and a langchain-core one."""


def langchain_openai_error(error: openai.APIError) -> Exception:
    """The exception langchain-openai raises for `error` (its 400 reading for a `BadRequestError`), else `error`.

    Its helpers end in a bare `raise` for errors they do not map (a 409 or 422, say), which re-raises whatever
    is being handled: raised within an `except` for `error`, that is `error` itself, on every version.
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
"""The openai client's first backoff, in seconds (doubled on each retry)."""
MAX_RETRY_DELAY: float = _constants.MAX_RETRY_DELAY
"""The openai client's longest backoff, in seconds."""
MAX_RETRY_AFTER_DELAY: float = getattr(_constants, "MAX_RETRY_AFTER_DELAY", 60.0)
"""The longest `Retry-After` the openai client waits for. openai releases before the constant
bounded it at 60 s inline (`_calculate_retry_timeout`: `0 < retry_after <= 60`)."""


def parse_retry_after(headers: Any) -> float | None:
    """The seconds a response's `retry-after-ms` or `Retry-After` (seconds or an HTTP date) asks for, as the
    openai client reads them; None when neither is given or readable."""
    # An instance method that reads nothing of its instance, on every openai release since 1.0.
    return BaseClient._parse_retry_after_header(None, headers)  # type: ignore[arg-type]


BINARY: Any = _legacy_response.HttpxBinaryResponseContent
"""What openai's own `files.content` casts a file's bytes to (`.content`), on httpx and httpx2 alike."""
