"""`background=True`: poll `GET /v1/responses/{id}` with backoff until the run's status is final (`timeout`).

A failed poll (connection, 5xx) is tried again, up to `max_resumes` in a row; a caller who leaves before the end
(the `timeout` bound, an interrupt, a cancelled task) cancels the run (docs/long-runs.md).
"""

from __future__ import annotations

import time
from typing import Any

import openai

from langchain_perplexity_strict._transport._guard import pause
from langchain_perplexity_strict._transport._runs import Runs, RunSettings, Steps, adrive, drive
from langchain_perplexity_strict.errors import PerplexityResumeError, PerplexityRunTimeoutError

FIRST_POLL = 0.2
"""Seconds before the first poll; each later wait is 1.5 times longer, up to `MAX_POLL`."""
MAX_POLL = 5.0


class Poll:
    """The state of one wait: the run, the deadline, the next pause, failures in a row."""

    def __init__(self, response: dict[str, Any], timeout: float | None, max_resumes: int) -> None:
        self.response = response
        self.response_id = str(response.get("id"))
        self.deadline = time.monotonic() + timeout if timeout else None
        self.timeout = timeout
        self.max_resumes = max_resumes
        self.pause = FIRST_POLL
        self.failures = 0

    def next_pause(self) -> float:
        """Seconds to wait before the next poll; raises once the deadline has passed."""
        pause, self.pause = self.pause, min(self.pause * 1.5, MAX_POLL)
        if self.deadline is None:
            return pause
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            status = self.response.get("status")
            msg = (
                f"Perplexity run {self.response_id} was still {status!r} after timeout={self.timeout} seconds; "
                "it is cancelled on the server. Raise timeout (or set it to None) for longer runs."
            )
            raise PerplexityRunTimeoutError(msg, self.response_id, status)
        return min(pause, remaining)

    def failed(self, error: openai.APIError) -> None:
        """A poll failed: raise unless trying again may help (connection, 5xx) and the limit allows."""
        transient = isinstance(error, openai.APIConnectionError) or (
            isinstance(error, openai.APIStatusError) and error.status_code >= 500
        )
        self.failures += 1
        if transient and self.failures <= self.max_resumes:
            return
        status = error.status_code if isinstance(error, openai.APIStatusError) else None
        msg = (
            f"Perplexity run {self.response_id} could not be retrieved ({error}). The run was not posted again; "
            f"it may still finish on the server (GET /v1/responses/{self.response_id})."
        )
        if status == 404:
            msg = f"Perplexity no longer knows run {self.response_id} (HTTP 404). The run was not posted again."
        raise PerplexityResumeError(msg, self.response_id) from error


def abandon(runs: Runs, response: dict[str, Any]) -> None:
    """The caller left as the create's answer arrived (`_guard`): cancel the run it started, unless it is over."""
    if runs.states.pending(response):
        runs.cancel(str(response.get("id")))


async def aabandon(runs: Runs, response: dict[str, Any]) -> None:
    if runs.states.pending(response):
        await runs.acancel(str(response.get("id")))


def _wait(runs: Runs, response: dict[str, Any], settings: RunSettings) -> Steps[dict[str, Any]]:
    poll = Poll(response, settings.timeout, settings.max_resumes)
    try:
        while runs.states.pending(poll.response):
            yield "sleep", (poll.next_pause(),), {}
            try:
                poll.response = yield "retrieve", (poll.response_id,), {}
                poll.failures = 0
            except openai.APIError as error:
                poll.failed(error)
    except BaseException as error:
        # The caller left (interrupt, cancelled task, `timeout`): cancel the run; a failed poll leaves it to finish.
        leaving = isinstance(error, PerplexityRunTimeoutError) or not isinstance(error, (Exception, GeneratorExit))
        if leaving and runs.states.pending(poll.response):
            yield "cancel", (poll.response_id,), {}
        raise
    return poll.response


def wait(runs: Runs, response: dict[str, Any], settings: RunSettings) -> dict[str, Any]:
    """The run `response` began, once its status is final (a pause cut short when the caller left by Ctrl-C)."""
    return drive(runs, _wait(runs, response, settings), sleep=pause)


async def await_run(runs: Runs, response: dict[str, Any], settings: RunSettings) -> dict[str, Any]:
    return await adrive(runs, _wait(runs, response, settings))
