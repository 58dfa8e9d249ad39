"""Errors for answers Perplexity gave with HTTP 200 that are not complete answers.

HTTP errors surface as langchain-openai's exceptions (both an `openai`
error and a langchain-core `Model*Error`), with Perplexity's message.
"""

from __future__ import annotations

from langchain_core.exceptions import ModelAPIError
from langchain_core.messages import AIMessage


class PerplexityResponseError(ModelAPIError):
    """Perplexity reported a failed or cancelled run, or an `error` stream event.

    `partial` is what the run produced before it ended, when Perplexity sent it: the text so far (a
    cancelled run may carry a partial message), and the usage and cost it reported
    (`response_metadata["cost"]`), as a failed run that used tokens is billed. Nothing is lost, but it is
    never returned as if it were a complete answer; None when nothing came back.
    """

    def __init__(self, message: str, partial: AIMessage | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class PerplexityIncompleteError(PerplexityResponseError):
    """The answer stopped early (`status: incomplete` / `finish_reason: length`); `partial` holds it."""


class PerplexityStreamError(PerplexityResponseError):
    """The stream ended before its terminal event: the answer may be cut short."""


class PerplexityRunUnknownError(PerplexityStreamError):
    """A run may have started on Perplexity, and be billed, but no response id came back to follow it by.

    Raised when the request creating a background run, or a stream the package
    would resume, failed after it was sent (a read timeout, a reset, a 5xx), and
    when such a stream broke before its first event. Posting it again could run,
    and bill, it twice, so it was not; `max_retries` re-sends it only when no run
    was started (docs/long-runs.md).
    """


class PerplexityResumeError(PerplexityStreamError):
    """A broken stream could not be resumed, or a background run could no longer be polled.

    Either Perplexity refused (`GET /v1/responses/{id}` answered 404: it no
    longer knows the run; or it will not stream a plain run again), or
    `max_resumes` resume requests in a row failed. The run was never posted
    again. `response_id` and `sequence_number` (the last event received) say
    where it stopped.
    """

    def __init__(self, message: str, response_id: str | None = None, sequence_number: int | None = None) -> None:
        super().__init__(message)
        self.response_id = response_id
        self.sequence_number = sequence_number


class PerplexityRunTimeoutError(PerplexityResponseError, TimeoutError):
    """A background run did not reach a final status within `timeout` seconds.

    The run is cancelled on the server (`POST /v1/responses/{id}/cancel`),
    so it bills no further; `response_id` and `status` (the last seen) say which run it was.
    """

    def __init__(self, message: str, response_id: str | None = None, status: str | None = None) -> None:
        super().__init__(message)
        self.response_id = response_id
        self.status = status


class PerplexityBudgetExceededError(RuntimeError):
    """A cost budget (`get_perplexity_cost_callback(budget_usd=...)`) is spent: the next call is not made.

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
    """

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
    `batch_id` and `status` (the last seen) say which and where it was."""

    def __init__(self, message: str, batch_id: str, status: str) -> None:
        super().__init__(message)
        self.batch_id = batch_id
        self.status = status
