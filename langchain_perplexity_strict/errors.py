"""The package's errors, each of one langchain-core kind (`langchain_core.exceptions`), with its retry flag.

HTTP errors surface as langchain-openai's exceptions (both an `openai` error
and a langchain-core `Model*Error`), with Perplexity's message; the classes
below cover what those lack. Middleware reads the kind (`SummarizationMiddleware`
catches `ContextOverflowError`) and `is_retryable` (`ModelRetryMiddleware` and
`with_retry(retry_if_exception_type=default_retry_on)` retry only when it is
true): each class here sets that flag, and `kind_of` below picks the kind.
"""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterator, Mapping
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
    """The package refused a call before sending anything: a retry would be refused alike (not retryable)."""


class PerplexityRequestTypeError(PerplexityRequestError, TypeError):
    """`PerplexityRequestError` for a value of the wrong type (a `TypeError` too)."""


class PerplexityInvalidRequestError(openai.APIStatusError, ModelInvalidRequestError):
    """Perplexity refused the request with a 4xx langchain-openai has no class for (413, 422, ...)."""


class PerplexityUnprocessableEntityError(openai.UnprocessableEntityError, PerplexityInvalidRequestError):
    """Perplexity refused the request's body (HTTP 422, `{"detail": [...]}`)."""


class PerplexityServerError(openai.APIStatusError, ModelAPIError):
    """A failure a retry may get past, answered with a status openai does not count as a server error
    (408, 409, 424): retryable."""


class PerplexityResponseError(ModelAPIError):
    """Perplexity reported a failed or cancelled run, or an `error` stream event; a retry may succeed.

    `partial` is what the run produced before it ended, when Perplexity sent it: the text so far (a
    cancelled run may carry a partial message), and the usage and cost it reported
    (`response_metadata["cost"]`), as a failed run that used tokens is billed. Nothing is lost, but it is
    never returned as if it were a complete answer; None when nothing came back.
    """

    def __init__(self, message: str, partial: AIMessage | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class PerplexityContextOverflowError(PerplexityResponseError, ContextOverflowError):
    """A run failed, or its stream ended, because the input exceeds the model's context (not retryable)."""

    is_retryable = False


class PerplexityRateLimitError(PerplexityResponseError, ModelRateLimitError):
    """A run failed, or its stream ended, on a rate limit: retryable, once the limit resets."""


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
    """A run failed, or its stream ended, because its request is invalid: the same request fails alike
    (not retryable)."""

    is_retryable = False


class PerplexityIncompleteError(PerplexityResponseError):
    """The answer stopped early (`status: incomplete` / `finish_reason: length`); `partial` holds it.

    The same request stops at the same limit: not retryable."""

    is_retryable = False


class PerplexityStreamError(PerplexityResponseError):
    """The stream ended before its terminal event: the answer may be cut short."""


class PerplexityRunUnknownError(PerplexityStreamError):
    """A run may have started on Perplexity, and be billed, but no response id came back to follow it by.

    Raised when the request creating a background run, or a stream the package
    would resume, failed after it was sent (a read timeout, a reset, a 5xx), and
    when such a stream broke before its first event. Posting it again could run,
    and bill, it twice, so it was not; `max_retries` re-sends it only when no run
    was started (docs/long-runs.md). Not retryable, for the same reason.
    """

    is_retryable = False


class PerplexityResumeError(PerplexityStreamError):
    """A broken stream could not be resumed, or a background run could no longer be polled.

    Either Perplexity refused (`GET /v1/responses/{id}` answered 404: it no
    longer knows the run; or it will not stream a plain run again), or
    `max_resumes` resume requests in a row failed. The run was never posted
    again. `response_id` and `sequence_number` (the last event received) say
    where it stopped. Not retryable: the run may still be going on.
    """

    is_retryable = False

    def __init__(self, message: str, response_id: str | None = None, sequence_number: int | None = None) -> None:
        super().__init__(message)
        self.response_id = response_id
        self.sequence_number = sequence_number


class PerplexityRunTimeoutError(PerplexityResponseError, TimeoutError):
    """A background run did not reach a final status within `timeout` seconds.

    The run is cancelled on the server (`POST /v1/responses/{id}/cancel`),
    so it bills no further; `response_id` and `status` (the last seen) say which run it was.
    Not retryable: the same run would take as long again.
    """

    is_retryable = False

    def __init__(self, message: str, response_id: str | None = None, status: str | None = None) -> None:
        super().__init__(message)
        self.response_id = response_id
        self.status = status


class PerplexityBudgetExceededError(RuntimeError, ModelError):
    """A cost budget (`get_perplexity_cost_callback(budget_usd=...)`) is spent: the next call is not made.

    Not retryable: the budget stays spent.

    `spent_usd` is what Perplexity reported for the calls so far, `budget_usd` the budget.
    """

    def __init__(self, spent_usd: float, budget_usd: float) -> None:
        super().__init__(
            f"Perplexity cost budget spent: {spent_usd:.6f} USD reported so far, budget {budget_usd:.6f} USD; "
            "the call was not made. Raise budget_usd or start a new get_perplexity_cost_callback()."
        )
        self.spent_usd = spent_usd
        self.budget_usd = budget_usd


class PerplexityBatchError(PerplexityResponseError):
    """One input of a batch (`submit_batch`) has no answer: its line failed, or its batch ended without it.

    It stands in that input's place in `job.results()`, the other inputs answered. The message names the
    input (`index`, its position in the inputs), the line's `custom_id`, the `batch_id`, and Perplexity's
    error (`code`, and the message); `partial` is what the line's run produced, when Perplexity sent it.
    Not retryable: a batch line is not sent again by retrying a call.
    """

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
    """A batch did not end within `results(timeout=...)`. It goes on on Perplexity (it is not cancelled):
    `job.results()` later, in this process or another (`get_batch(batch_id)`), collects it.
    `batch_id` and `status` (the last seen) say which and where it was. Not retryable: the batch goes on."""

    is_retryable = False

    def __init__(self, message: str, batch_id: str, status: str) -> None:
        super().__init__(message)
        self.batch_id = batch_id
        self.status = status


Kind = Literal["context_overflow", "invalid_request", "auth", "permission", "not_found", "rate_limit", "server"]

ERROR_KINDS: dict[str, Kind] = {
    # Sonar's over-long input, recorded live (400); OpenAI's name for it, which langchain-openai also reads.
    "too_many_prompt_tokens": "context_overflow",
    "context_length_exceeded": "context_overflow",
    # The Agent API's published error types (docs.perplexity.ai, API error reference).
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
    # OpenAI's codes, which the Agent API's `error` event and failed run follow (`ResponseError.code`;
    # platform.openai.com/docs/guides/error-codes for a refused key).
    "rate_limit_exceeded": "rate_limit",
    "invalid_api_key": "auth",
}
"""Perplexity's error `type` (or `code`) → its kind (`kind_of` says when it counts)."""

STATUS_KINDS: dict[int, Kind] = {
    401: "auth",
    403: "permission",
    404: "not_found",
    408: "server",  # a timeout and a conflict, both retried by openai's client
    409: "server",
    424: "server",  # a failed dependency
    429: "rate_limit",
}
"""The statuses with a meaning of their own (and every 5xx, a server error)."""

REFUSALS = frozenset({"context_overflow", "invalid_request", "auth", "permission", "not_found"})
"""The kinds a retry does not get past: what a body may narrow a plain 4xx to."""


def kind_of(detail: Mapping[str, Any], status: int | None = None) -> Kind | None:
    """The kind of an error object (`{"type", "code", "message"}`) answered with HTTP `status`.

    A status with a meaning of its own (`STATUS_KINDS`, 5xx) decides the kind; any other 4xx is an invalid
    request, which the body's type or code (`ERROR_KINDS`) narrows to another refusal (a context overflow, say);
    with no status (an error inside an answer), the type or code alone decides.
    """
    named = next((ERROR_KINDS[str(detail[k])] for k in ("type", "code") if str(detail.get(k)) in ERROR_KINDS), None)
    if status is None:
        return named
    if status in STATUS_KINDS or status >= 500:
        return STATUS_KINDS.get(status, "server")
    return named if named in REFUSALS else "invalid_request"


def error_detail(body: Any) -> dict[str, Any]:
    """The error object of a body in any form Perplexity or a gateway sends, with `message` filled when the
    body has words: `{"error": {...}}`, `{"error": "..."}`, FastAPI's `{"detail": ...}`, text or HTML."""
    if isinstance(body, Mapping):  # openai's `body` is the envelope's `error` object when there is one
        error = body.get("error", body)
        if not isinstance(error, Mapping):
            return {"message": str(error)} if error else {}
        detail = dict(error)
        if not detail.get("message") and "detail" in detail:
            detail["message"] = _fastapi_words(detail["detail"])
        return detail
    return {"message": _page_words(body)} if isinstance(body, str) and body.strip() else {}


def _fastapi_words(detail: Any) -> str:
    """FastAPI's validation errors (`[{"loc", "msg", "type"}]`, the schema's `HTTPValidationError`) as text."""
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
    """A text or HTML body's words (a gateway's error page), its tags and extra spaces dropped."""
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
"""The class of each kind of error reported inside an answer; any other is a `PerplexityResponseError`."""


def reported_error(message: str, detail: Mapping[str, Any], partial: Any = None) -> PerplexityResponseError:
    """The error for a failure Perplexity reported inside an answer (a failed run, a stream `error` event)."""
    return REPORTED.get(kind_of(detail), PerplexityResponseError)(message, partial)


@contextlib.contextmanager
def refused_before_sending() -> Iterator[None]:
    """A plain `ValueError` or `TypeError` raised while a call is checked, as `PerplexityRequestError` (still a
    `ValueError` or `TypeError`): langchain's retry middleware reads "not retryable" only from a `ModelError`."""
    try:
        yield
    except (ValueError, TypeError) as error:
        if type(error) not in (ValueError, TypeError):
            raise
        kind = PerplexityRequestTypeError if type(error) is TypeError else PerplexityRequestError
        raise kind(*error.args).with_traceback(error.__traceback__) from None
