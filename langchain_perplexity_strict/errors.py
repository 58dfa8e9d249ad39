"""The package's errors, each of one langchain-core kind (`langchain_core.exceptions`), with its retry flag.

HTTP errors surface as langchain-openai's exceptions (both an `openai` error
and a langchain-core `Model*Error`), with Perplexity's message; the classes
below cover what those lack. Middleware reads the kind (`SummarizationMiddleware`
catches `ContextOverflowError`) and `is_retryable` (`ModelRetryMiddleware` and
`with_retry(retry_if_exception_type=default_retry_on)` retry only when it is
true): each class here sets that flag, and `_error_kinds` picks the class.
"""

from __future__ import annotations

import openai
from langchain_core.exceptions import (
    ContextOverflowError,
    ModelAPIError,
    ModelError,
    ModelInvalidRequestError,
)
from langchain_core.messages import AIMessage

__all__ = [
    "PerplexityBatchError",
    "PerplexityBatchTimeoutError",
    "PerplexityBudgetExceededError",
    "PerplexityContextOverflowError",
    "PerplexityIncompleteError",
    "PerplexityInvalidRequestError",
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
