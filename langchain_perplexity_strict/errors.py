"""The package's errors, each of one langchain-core kind (`langchain_core.exceptions`), with its retry flag.

HTTP errors surface as langchain-openai's exceptions; these classes cover what those lack.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any, Literal

import openai
from langchain_core.exceptions import (
    ContextOverflowError,
    ModelAPIError,
    ModelAuthenticationError,
    ModelError,
    ModelInvalidRequestError,
    ModelNotFoundError,
    ModelPermissionDeniedError,
    ModelRateLimitError,
)
from langchain_core.messages import AIMessage

__all__ = [
    "PerplexityAuthenticationError",
    "PerplexityBatchError",
    "PerplexityBatchTimeoutError",
    "PerplexityBudgetExceededError",
    "PerplexityContextOverflowError",
    "PerplexityIncompleteError",
    "PerplexityInvalidRequestError",
    "PerplexityNotFoundError",
    "PerplexityPermissionDeniedError",
    "PerplexityRateLimitError",
    "PerplexityRefusedRunError",
    "PerplexityRequestError",
    "PerplexityRequestTypeError",
    "PerplexityResponseError",
    "PerplexityResumeError",
    "PerplexityRunTimeoutError",
    "PerplexityRunUnknownError",
    "PerplexityServerError",
    "PerplexityStreamError",
    "PerplexityUnprocessableEntityError",
]


class PerplexityRequestError(ModelInvalidRequestError, ValueError):
    """The package refused a call before sending it (not retryable)."""


class PerplexityRequestTypeError(PerplexityRequestError, TypeError):
    """`PerplexityRequestError` for a value of the wrong type."""


class PerplexityInvalidRequestError(openai.APIStatusError, ModelInvalidRequestError):
    """A 4xx langchain-openai has no class for (413, 422, ...)."""


class PerplexityUnprocessableEntityError(openai.UnprocessableEntityError, PerplexityInvalidRequestError):
    """Perplexity refused the request's body (HTTP 422)."""


class PerplexityServerError(openai.APIStatusError, ModelAPIError):
    """A retryable status openai does not count as a server error (408, 409, 424)."""


class PerplexityResponseError(ModelAPIError):
    """Perplexity reported a failed or cancelled run, or an `error` stream event.

    `partial`: what the run produced before it ended (text, usage, cost), or None.
    """

    def __init__(self, message: str, partial: AIMessage | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class PerplexityContextOverflowError(PerplexityResponseError, ContextOverflowError):
    """The input exceeds the model's context (not retryable)."""

    is_retryable = False


class PerplexityRateLimitError(PerplexityResponseError, ModelRateLimitError):
    """A run failed, or its stream ended, on a rate limit (retryable, once the limit resets)."""


class PerplexityAuthenticationError(PerplexityResponseError, ModelAuthenticationError):
    """A run failed, or its stream ended, because the key was refused (not retryable)."""

    is_retryable = False


class PerplexityPermissionDeniedError(PerplexityResponseError, ModelPermissionDeniedError):
    """A run failed, or its stream ended, because the key may not do what was asked (not retryable)."""

    is_retryable = False


class PerplexityNotFoundError(PerplexityResponseError, ModelNotFoundError):
    """A run failed, or its stream ended, because what it named does not exist (not retryable)."""

    is_retryable = False


class PerplexityRefusedRunError(PerplexityResponseError, ModelInvalidRequestError):
    """A run failed, or its stream ended, because its request is invalid (not retryable)."""

    is_retryable = False


class PerplexityIncompleteError(PerplexityResponseError):
    """The answer stopped early at a length limit; `partial` holds it (not retryable)."""

    is_retryable = False


class PerplexityStreamError(PerplexityResponseError):
    """The stream ended before its terminal event: the answer may be cut short."""


class PerplexityRunUnknownError(PerplexityStreamError):
    """A run may have started, and be billed, but no response id came back (not retryable: docs/long-runs.md)."""

    is_retryable = False


class PerplexityResumeError(PerplexityStreamError):
    """A broken stream could not be resumed, or a background run polled (not retryable: the run may go on).

    `response_id` and `sequence_number` say where it stopped.
    """

    is_retryable = False

    def __init__(self, message: str, response_id: str | None = None, sequence_number: int | None = None) -> None:
        super().__init__(message)
        self.response_id = response_id
        self.sequence_number = sequence_number


class PerplexityRunTimeoutError(PerplexityResponseError, TimeoutError):
    """A background run did not end within `timeout` seconds; it is cancelled (not retryable)."""

    is_retryable = False

    def __init__(self, message: str, response_id: str | None = None, status: str | None = None) -> None:
        super().__init__(message)
        self.response_id = response_id
        self.status = status


class PerplexityBudgetExceededError(RuntimeError, ModelError):
    """A cost budget is spent: the next call is not made (not retryable)."""

    def __init__(self, spent_usd: float, budget_usd: float) -> None:
        super().__init__(
            f"Perplexity cost budget spent: {spent_usd:.6f} USD reported so far, budget {budget_usd:.6f} USD; "
            "the call was not made. Raise budget_usd or start a new get_perplexity_cost_callback()."
        )
        self.spent_usd = spent_usd
        self.budget_usd = budget_usd


class PerplexityBatchError(PerplexityResponseError):
    """One batch input has no answer; it stands in that input's place in `job.results()` (not retryable)."""

    is_retryable = False

    def __init__(
        self,
        message: str,
        *,
        index: int,
        custom_id: str,
        batch_id: str,
        code: str | None = None,
        partial: AIMessage | None = None,
    ) -> None:
        super().__init__(message, partial)
        self.index = index
        self.custom_id = custom_id
        self.batch_id = batch_id
        self.code = code


class PerplexityBatchTimeoutError(PerplexityResponseError, TimeoutError):
    """A batch did not end within `results(timeout=...)`; it goes on (not retryable)."""

    is_retryable = False

    def __init__(self, message: str, batch_id: str, status: str) -> None:
        super().__init__(message)
        self.batch_id = batch_id
        self.status = status


Kind = Literal["context_overflow", "invalid_request", "auth", "permission", "not_found", "rate_limit", "server"]

ERROR_KINDS: dict[str, Kind] = {
    "too_many_prompt_tokens": "context_overflow",  # Sonar's, recorded live
    "context_length_exceeded": "context_overflow",
    # The Agent API's error types (docs.perplexity.ai, API error reference).
    "invalid_request": "invalid_request",
    "invalid_model": "invalid_request",
    "invalid_parameter": "invalid_request",
    "invalid_message": "invalid_request",
    "payload_too_large": "invalid_request",
    "chat_completions_not_available": "permission",
    "forbidden": "permission",
    "not_found": "not_found",
    "request_rate_limit_exceeded": "rate_limit",
    "internal_error": "server",
    "server_error": "server",
    "bad_gateway": "server",
    "service_unavailable": "server",
    "gateway_timeout": "server",
    "upstream_structured_output_failed": "server",
    # OpenAI's codes, which the Agent API's `error` event and failed run follow (`ResponseError.code`).
    "rate_limit_exceeded": "rate_limit",
    "invalid_api_key": "auth",
}

STATUS_KINDS: dict[int, Kind] = {
    401: "auth",
    403: "permission",
    404: "not_found",
    408: "server",  # retried by openai's client, as is 409
    409: "server",
    424: "server",
    429: "rate_limit",
}
"""The statuses with a meaning of their own, besides 5xx."""

REFUSALS = frozenset({"context_overflow", "invalid_request", "auth", "permission", "not_found"})


def kind_of(detail: Mapping[str, Any], status: int | None = None) -> Kind | None:
    """The kind of an error object (`{"type", "code", "message"}`) answered with HTTP `status`.

    `STATUS_KINDS` and 5xx decide; the body's type or code (`ERROR_KINDS`) narrows another 4xx to a refusal
    (`REFUSALS`), and alone decides an error inside an answer (no status).
    """
    named = next((ERROR_KINDS[str(detail[k])] for k in ("type", "code") if str(detail.get(k)) in ERROR_KINDS), None)
    if status is None:
        return named
    if status in STATUS_KINDS or status >= 500:
        return STATUS_KINDS.get(status, "server")
    return named if named in REFUSALS else "invalid_request"


def error_detail(body: Any) -> dict[str, Any]:
    """The error object of a body in any form Perplexity or a gateway sends, with its `message`."""
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if not isinstance(error, Mapping):
            return {"message": str(error)} if error else {}
        detail = dict(error)
        if not detail.get("message") and "detail" in detail:
            detail["message"] = _fastapi_words(detail["detail"])
        return detail
    return {"message": _page_words(body)} if isinstance(body, str) and body.strip() else {}


def _fastapi_words(detail: Any) -> str:
    """FastAPI's validation errors as text."""
    if not isinstance(detail, list):
        return str(detail)
    said = [
        f"{'.'.join(str(part) for part in item.get('loc') or ())}: {item.get('msg')}"
        if isinstance(item, dict)
        else str(item)
        for item in detail
    ]
    return "; ".join(said)


def _page_words(text: str, limit: int = 500) -> str:
    if "<" in text and ">" in text:
        text = html.unescape(re.sub(r"<[^>]*>", " ", re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", text)))
    words = " ".join(text.split())
    return words if len(words) <= limit else words[: limit - 1] + "…"


REPORTED: dict[Kind | None, type[PerplexityResponseError]] = {
    "context_overflow": PerplexityContextOverflowError,
    "invalid_request": PerplexityRefusedRunError,
    "auth": PerplexityAuthenticationError,
    "permission": PerplexityPermissionDeniedError,
    "not_found": PerplexityNotFoundError,
    "rate_limit": PerplexityRateLimitError,
}
"""The class of each kind of error reported inside an answer, else `PerplexityResponseError`."""


def reported_error(message: str, detail: Mapping[str, Any], partial: Any = None) -> PerplexityResponseError:
    """The error for a failure Perplexity reported inside an answer (a failed run, a stream `error` event)."""
    return REPORTED.get(kind_of(detail), PerplexityResponseError)(message, partial)


def refused_before_sending(error: ValueError | TypeError) -> PerplexityRequestError:
    """A `ValueError`/`TypeError` raised before sending, as `PerplexityRequestError`, so retries skip it."""
    kind = PerplexityRequestTypeError if type(error) is TypeError else PerplexityRequestError
    return kind(*error.args).with_traceback(error.__traceback__)
