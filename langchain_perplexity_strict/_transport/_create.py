"""Create a run that may outlive its request: sent again only when the server surely did not start it.

A background create, or an Agent API stream the package would resume, bills whether or not its answer arrives,
and `POST /v1/responses` takes no idempotency key: the openai client's retries are off for it (docs/long-runs.md).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import openai

from langchain_perplexity_strict._redact import redact_text
from langchain_perplexity_strict._transport._compat import (
    INITIAL_RETRY_DELAY,
    MAX_RETRY_AFTER_DELAY,
    MAX_RETRY_DELAY,
    parse_retry_after,
)
from langchain_perplexity_strict.errors import PerplexityRunUnknownError, error_detail

T = TypeVar("T")

ONCE: dict[str, Any] = {"max_retries": 0}
NOT_SENT = frozenset({"ConnectError", "ConnectTimeout", "PoolTimeout"})
"""httpx's (and its fork's) errors raised before a request is written."""
REFUSALS = frozenset({408, 409, 429})


def not_sent(error: openai.APIError) -> bool:
    """Whether the request failed before it was written (the connection was never made)."""
    cause = error.__cause__
    return isinstance(error, openai.APIConnectionError) and any(
        kind.__name__ in NOT_SENT and kind.__module__.startswith("httpx") for kind in type(cause).__mro__
    )


def retry_delay(error: openai.APIError, attempt: int) -> float | None:
    """Seconds to wait before posting the create again, or None when it must not be posted again."""
    if isinstance(error, openai.APIStatusError):
        headers = error.response.headers
        after = parse_retry_after(headers)
        if after is not None and after > MAX_RETRY_AFTER_DELAY:
            return None  # a longer wait than the openai client's bound is not waited for
        safe = headers.get("x-should-retry")
        refused = error.status_code < 500 and (error.status_code in REFUSALS or after is not None)
        if safe == "false" or not (safe == "true" or refused):
            return None
        if after is not None and after > 0:
            return after
    elif not not_sent(error):
        return None
    # The openai client's backoff and jitter (`_calculate_retry_timeout`), from its own constants.
    backoff = min(INITIAL_RETRY_DELAY * 2.0 ** min(attempt, 1000), MAX_RETRY_DELAY)
    return backoff * (1 - 0.25 * random.random())


def may_have_started(error: openai.APIError) -> bool:
    """Whether the failed create may have started a run: it was sent, and no 4xx refused it."""
    if isinstance(error, openai.APIStatusError):
        return error.status_code >= 500
    return not not_sent(error)


def next_delay(error: openai.APIError, attempt: int, max_retries: int) -> float:
    """Seconds before sending the create again after `error`; else raised (`PerplexityRunUnknownError` if it ran)."""
    delay = retry_delay(error, attempt) if attempt < max_retries else None
    if delay is not None:
        return delay
    if not may_have_started(error):
        raise error
    if isinstance(error, openai.APIStatusError):  # its text repeats the body unredacted: shown redacted, unchained
        what = f"HTTP {error.status_code}: {redact_text(str(error_detail(error.body).get('message') or error.message))}"
    else:
        cause = error.__cause__ or error
        what = f"{type(cause).__name__}: {cause or error}"
    msg = (
        f"the request creating the Perplexity run failed after it was sent ({what}). The run may have started, "
        "and be billed, but no response id came back to follow it by, so it was not posted again "
        f"(max_retries={max_retries} re-sends such a request only when no run was started: the connection "
        "failed before sending, or Perplexity refused it with HTTP 408, 409, 429 or a Retry-After)."
    )
    raise PerplexityRunUnknownError(msg) from None if isinstance(error, openai.APIStatusError) else error


def create(post: Callable[[], T], max_retries: int) -> T:
    """`post()` (sent with `ONCE`), retried only while the server surely started no run."""
    attempt = 0
    while True:
        try:
            return post()
        except openai.APIError as error:
            failed = error  # judged after the handler, so that what it raises has no raw error as its context
        time.sleep(next_delay(failed, attempt, max_retries))
        attempt += 1


async def acreate(post: Callable[[], Awaitable[T]], max_retries: int) -> T:
    attempt = 0
    while True:
        try:
            return await post()
        except openai.APIError as error:
            failed = error
        await asyncio.sleep(next_delay(failed, attempt, max_retries))
        attempt += 1
