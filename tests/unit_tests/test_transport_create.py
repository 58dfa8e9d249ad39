"""When a run's create may be sent again: only when the server surely started no run (no server needed)."""

from __future__ import annotations

import asyncio
import importlib.util
import traceback
from typing import Any

import httpx
import openai
import pytest
from openai import _constants as openai_constants

from langchain_perplexity_strict._transport._compat import parse_retry_after
from langchain_perplexity_strict._transport._create import acreate, create, may_have_started, retry_delay
from langchain_perplexity_strict.errors import PerplexityRunUnknownError

REQUEST = httpx.Request("POST", "https://api.perplexity.ai/v1/responses")
LIBRARIES = [httpx] + ([importlib.import_module("httpx2")] if importlib.util.find_spec("httpx2") else [])


def connection_error(cause: BaseException) -> openai.APIError:
    error: openai.APIError = (
        openai.APITimeoutError(request=REQUEST)
        if "Timeout" in type(cause).__name__
        else openai.APIConnectionError(request=REQUEST)
    )
    error.__cause__ = cause
    return error


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx.Response(status, headers=headers, request=REQUEST)
    return openai.APIStatusError(f"HTTP {status}", response=response, body=None)


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", ["ConnectError", "ConnectTimeout", "PoolTimeout"])
def test_a_connection_never_made_is_tried_again(library: object, name: str) -> None:
    error = connection_error(getattr(library, name)("no connection"))
    assert retry_delay(error, 0) is not None
    assert not may_have_started(error)


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", ["ReadTimeout", "ReadError", "RemoteProtocolError", "WriteError"])
def test_a_failure_after_sending_is_not_tried_again(library: object, name: str) -> None:
    error = connection_error(getattr(library, name)("gone"))
    assert retry_delay(error, 0) is None
    assert may_have_started(error)


@pytest.mark.parametrize(
    ("status", "headers", "again"),
    [
        (429, {}, True),
        (408, {}, True),
        (409, {}, True),
        (403, {"Retry-After": "1"}, True),
        (400, {}, False),
        (404, {}, False),
        (429, {"x-should-retry": "false"}, False),
        (429, {"Retry-After": "3600"}, False),
        (500, {}, False),
        (503, {"Retry-After": "1"}, False),
        (503, {"x-should-retry": "true"}, True),
    ],
)
def test_a_status_is_sent_again_only_when_it_refused(status: int, headers: dict[str, str], again: bool) -> None:
    assert (retry_delay(status_error(status, headers), 0) is not None) is again
    assert may_have_started(status_error(status, headers)) is (status >= 500)


def test_retry_after_is_honoured() -> None:
    assert retry_delay(status_error(429, {"Retry-After": "1.5"}), 0) == 1.5
    assert retry_delay(status_error(429, {"retry-after-ms": "250"}), 0) == 0.25


def test_create_sends_again_within_max_retries_and_then_raises_the_refusal() -> None:
    sent: list[int] = []

    def post() -> dict[str, str]:
        sent.append(1)
        raise status_error(429, {"Retry-After": "0.01"})

    with pytest.raises(openai.APIStatusError):
        create(post, max_retries=2)
    assert len(sent) == 3


def test_create_raises_run_unknown_once_the_run_may_have_started() -> None:
    sent: list[int] = []

    def post() -> dict[str, str]:
        sent.append(1)
        raise connection_error(httpx.ReadTimeout("timed out"))

    with pytest.raises(PerplexityRunUnknownError, match=r"\(ReadTimeout: timed out\).*max_retries=2"):
        create(post, max_retries=2)
    assert len(sent) == 1


# The numbers and the parsing are the installed openai client's own (`openai._constants`,
# `BaseClient._parse_retry_after_header`), so the create's retries cannot drift from the client's
# other retries; the decision (re-post only when no run was started) stays the package's.


def test_a_retry_after_up_to_the_openai_clients_bound_is_waited_for_and_a_longer_one_is_not() -> None:
    bound = getattr(openai_constants, "MAX_RETRY_AFTER_DELAY", 60.0)
    assert retry_delay(status_error(429, {"Retry-After": str(bound)}), 0) == bound
    assert retry_delay(status_error(429, {"Retry-After": str(bound + 1)}), 0) is None


HEADERS = {
    "seconds": {"Retry-After": "7"},
    "milliseconds": {"retry-after-ms": "1500"},
    "unreadable": {"Retry-After": "soon"},
    "absent": {},
    "http-date": {"Retry-After": "Wed, 21 Oct 2015 07:28:30 GMT"},
}


@pytest.mark.parametrize("headers", HEADERS.values(), ids=HEADERS.keys())
def test_retry_after_is_read_as_the_openai_client_reads_it(
    monkeypatch: pytest.MonkeyPatch, headers: dict[str, str]
) -> None:
    monkeypatch.setattr("time.time", lambda: 1445412480.0)  # 30 s before the date: both read the same clock
    response = httpx.Response(429, headers=headers, request=REQUEST)
    assert parse_retry_after(response.headers) == openai.OpenAI(
        api_key="unused", base_url="http://127.0.0.1:9"
    )._parse_retry_after_header(response.headers)


@pytest.mark.parametrize("attempt", [0, 1, 3, 10])
def test_the_backoff_is_the_openai_clients(monkeypatch: pytest.MonkeyPatch, attempt: int) -> None:
    monkeypatch.setattr("random.random", lambda: 0.0)  # no jitter: the delay is the backoff itself
    expected = min(openai_constants.INITIAL_RETRY_DELAY * 2.0**attempt, openai_constants.MAX_RETRY_DELAY)
    assert retry_delay(status_error(429), attempt) == expected


KEY = "pplx-canary0123456789abcdef"


def _chain(error: BaseException | None) -> str:
    """The traceback as printed, and every exception under `error` by `__cause__` or `__context__`, as text."""
    texts = ["".join(traceback.format_exception(error))] if error else []
    while error is not None:
        texts += [str(error), repr(error.args)]
        error = error.__cause__ or error.__context__
    return " ".join(texts)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_5xx_repeating_a_sent_key_like_value_is_shown_redacted_and_chained_to_nothing(asynchronous: bool) -> None:
    """A run's create answered 5xx names it in the error; the server's words may repeat a key-like `model`."""
    body = {"error": {"message": f"model {KEY!r} failed", "type": "internal_error"}}
    response = httpx.Response(500, json=body, request=REQUEST)

    def post() -> Any:
        raise openai.InternalServerError(f"Error code: 500 - {body}", response=response, body=body)

    async def apost() -> Any:
        post()

    with pytest.raises(PerplexityRunUnknownError, match=r"HTTP 500: model '\*\*\*' failed") as caught:
        asyncio.run(acreate(apost, 0)) if asynchronous else create(post, 0)
    assert KEY[5:] not in _chain(caught.value)
