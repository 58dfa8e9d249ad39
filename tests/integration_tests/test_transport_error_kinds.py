"""Every error's kind follows one rule (`errors.kind_of`), its retry flag what a retry would do.

The rule: a status with a meaning of its own (401, 403, 404, 429, 408, 409, 424, 5xx) decides the kind;
any other 4xx is an invalid request, which the body's type or code narrows to another refusal (a context
overflow, say); an error inside an answer takes the kind its code names. Forms, against the emulator:

HTTP errors, each status (400, 401, 403, 404, 408, 409, 413, 422, 429, 503), by each body form (Perplexity's
JSON envelope with a generic type; with a specific type: an overflow, a rate limit, a permission refusal;
FastAPI's `detail`; an HTML page; text; empty), by each entry point: chat on both surfaces by invoke and
stream, search, embeddings. The error is of exactly one langchain-core kind, the one the rule names;
retryable exactly for a rate limit or a server error; the message carries the body's words. On an Agent
API stream a 5xx is `PerplexityRunUnknownError` (the package refuses to re-post a run that may have started).

Errors inside an answer (Agent API): a stream's `error` event (stream, astream; the answer streamed before it
kept on `.partial`) and a failed run (invoke, ainvoke), with each code the table names a kind for, OpenAI's
and Perplexity's, and one it does not; a chat-completions stream's OpenAI-style error event.

LangChain's own machinery, requests counted at the emulator: `ModelRetryMiddleware` (an agent streaming its
model) and `with_retry(retry_if_exception_type=default_retry_on)` retry a rate-limit `error` event and not
an auth one.
"""

from __future__ import annotations

import http
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import ModelRetryMiddleware
from langchain.agents.middleware._retry import default_retry_on
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
from langchain_core.messages import AIMessage, HumanMessage

from langchain_perplexity_strict import PerplexityEmbeddings, PerplexitySearchRetriever
from langchain_perplexity_strict._transport._sse import SSEBatcher
from langchain_perplexity_strict.errors import PerplexityResponseError, PerplexityRunUnknownError
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import KEY, make

KINDS = [
    ContextOverflowError,
    ModelInvalidRequestError,
    ModelAuthenticationError,
    ModelPermissionDeniedError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelAPIError,
]
RETRYABLE = (ModelRateLimitError, ModelAPIError)

BY_STATUS = {
    401: ModelAuthenticationError,
    403: ModelPermissionDeniedError,
    404: ModelNotFoundError,
    408: ModelAPIError,
    409: ModelAPIError,
    429: ModelRateLimitError,
    503: ModelAPIError,
}
"""What each status with a meaning of its own means, whatever the body says."""

FORMS = [  # (form, type sent, the kind it narrows a plain 4xx to)
    ("json", None, ModelInvalidRequestError),
    ("typed", "too_many_prompt_tokens", ContextOverflowError),
    ("typed", "chat_completions_not_available", ModelPermissionDeniedError),
    ("typed", "request_rate_limit_exceeded", ModelInvalidRequestError),  # a refusal stays a refusal
    ("detail", None, ModelInvalidRequestError),
    ("html", None, ModelInvalidRequestError),
    ("text", None, ModelInvalidRequestError),
    ("empty", None, ModelInvalidRequestError),
]
STATUSES = [400, 401, 403, 404, 408, 409, 413, 422, 429, 503]


def only_kind(error: BaseException) -> type[BaseException]:
    """The one langchain-core kind `error` is of (a failure if it is of none or of two)."""
    kinds = [kind for kind in KINDS if isinstance(error, kind)]
    assert len(kinds) == 1, f"{type(error).__mro__} is of {kinds}"
    return kinds[0]


def words(status: int, form: str) -> str:
    """What the message carries of a body in `form` (the emulator's words for it)."""
    phrase = http.HTTPStatus(status).phrase
    return {
        "detail": "body.input: Field required",
        "html": f"{status} {phrase} {status} {phrase} openresty",
        "empty": f"HTTP {status}: {phrase}, with no body",
    }.get(form, f"upstream answered {status} {phrase}")


def chat(api: str, mode: str) -> Any:
    def call(emu: PerplexityEmulator) -> Any:
        llm = make(emu, api, max_retries=0)
        return llm.invoke("q") if mode == "invoke" else list(llm.stream("q"))

    call.__name__ = f"{api}_{mode}"
    return call


def search(emu: PerplexityEmulator) -> Any:
    return PerplexitySearchRetriever(api_key=KEY, base_url=emu.base_url, max_retries=0).invoke("q")  # type: ignore[arg-type]


def embed(emu: PerplexityEmulator) -> Any:
    return PerplexityEmbeddings(api_key=KEY, base_url=emu.base_url, max_retries=0).embed_query("q")  # type: ignore[arg-type]


CALLS = [chat(api, mode) for api in ("agent", "chat_completions") for mode in ("invoke", "stream")] + [search, embed]


@pytest.mark.parametrize("call", CALLS, ids=lambda call: call.__name__)
@pytest.mark.parametrize(("form", "code", "narrowed"), FORMS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("status", STATUSES)
def test_status_decides_unless_a_plain_4xx_body_narrows_it(
    emu: PerplexityEmulator, call: Any, status: int, form: Any, code: str | None, narrowed: type[ModelError]
) -> None:
    emu.inject(Fault("error_body", status=status, form=form, **({"code": code} if code else {})))
    with pytest.raises(ModelError) as info:
        call(emu)
    error = info.value
    if call.__name__ == "agent_stream" and status >= 500:  # the run may have started: not posted again
        assert isinstance(error, PerplexityRunUnknownError) and not error.is_retryable
        return
    kind = BY_STATUS.get(status, narrowed)
    assert only_kind(error) is kind
    assert error.is_retryable is issubclass(kind, RETRYABLE)
    assert default_retry_on(error) is error.is_retryable
    assert words(status, form) in str(error), str(error)
    assert len(emu.requests) == 1


# -- errors inside an answer ---------------------------------------------------------------------------------

REPORTED = [  # a code Perplexity (or OpenAI's shape it follows) reports inside an answer → its kind
    ("rate_limit_exceeded", ModelRateLimitError),
    ("request_rate_limit_exceeded", ModelRateLimitError),
    ("invalid_api_key", ModelAuthenticationError),
    ("forbidden", ModelPermissionDeniedError),
    ("chat_completions_not_available", ModelPermissionDeniedError),
    ("not_found", ModelNotFoundError),
    ("invalid_parameter", ModelInvalidRequestError),
    ("too_many_prompt_tokens", ContextOverflowError),
    ("service_unavailable", ModelAPIError),
    ("server_error", ModelAPIError),
    ("a_code_not_in_the_table", ModelAPIError),
]


def reported_kind(error: BaseException) -> type[BaseException]:
    """The kind of a `PerplexityResponseError` (all are `ModelAPIError`s): the one other it is of, if any."""
    assert isinstance(error, PerplexityResponseError)
    kinds = [kind for kind in KINDS if kind is not ModelAPIError and isinstance(error, kind)]
    assert len(kinds) <= 1, f"{type(error).__mro__} is of {kinds}"
    return kinds[0] if kinds else ModelAPIError


def check_reported(error: BaseException, code: str, kind: type[ModelError]) -> None:
    assert reported_kind(error) is kind
    assert error.is_retryable is issubclass(kind, RETRYABLE)
    assert default_retry_on(error) is error.is_retryable
    assert code in str(error)


@pytest.mark.parametrize(("code", "kind"), REPORTED)
@pytest.mark.parametrize("mode", ["stream", "astream"])
async def test_stream_error_event_takes_its_codes_kind(
    emu: PerplexityEmulator, mode: str, code: str, kind: type[ModelError]
) -> None:
    emu.inject(Fault("error_event", code=code, after_events=12))
    llm, streamed = make(emu, max_retries=0), []
    with pytest.raises(PerplexityResponseError) as info:
        if mode == "stream":
            streamed.extend(chunk.text for chunk in llm.stream("q"))
        else:
            async for chunk in llm.astream("q"):
                streamed.append(chunk.text)
    check_reported(info.value, code, kind)
    assert isinstance(info.value.partial, AIMessage)
    assert "".join(streamed) and info.value.partial.text == "".join(streamed)
    assert len(emu.requests) == 1


@pytest.mark.parametrize(("code", "kind"), REPORTED)
@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_failed_run_takes_its_codes_kind(
    emu: PerplexityEmulator, mode: str, code: str, kind: type[ModelError]
) -> None:
    emu.inject(Fault("failed", code=code))
    llm = make(emu, max_retries=0)
    with pytest.raises(PerplexityResponseError) as info:
        await llm.ainvoke("q") if mode == "ainvoke" else llm.invoke("q")
    check_reported(info.value, code, kind)
    assert isinstance(info.value.partial, AIMessage) and info.value.partial.text


@pytest.mark.parametrize(("code", "kind"), REPORTED)
def test_chat_completions_stream_error_event_takes_its_codes_kind(code: str, kind: type[ModelError]) -> None:
    event = b'data: {"error": {"message": "m", "type": "error", "code": "%s"}}\n\n' % code.encode()
    with pytest.raises(PerplexityResponseError) as info:
        SSEBatcher().feed(event)
    assert reported_kind(info.value) is kind
    assert info.value.is_retryable is issubclass(kind, RETRYABLE)


# -- LangChain's own machinery -------------------------------------------------------------------------------

RETRY_CASES = [("rate_limit_exceeded", True), ("invalid_api_key", False)]


@pytest.mark.parametrize(("code", "retryable"), RETRY_CASES)
def test_model_retry_middleware_retries_a_rate_limit_event_only(
    emu: PerplexityEmulator, code: str, retryable: bool
) -> None:
    agent = create_agent(
        make(emu, max_retries=0),
        middleware=[ModelRetryMiddleware(max_retries=2, initial_delay=0.0, jitter=False, on_failure="error")],
    )
    emu.inject(Fault("error_event", code=code, after_events=1))
    stream = agent.stream({"messages": [HumanMessage("hello")]}, stream_mode="messages")
    if retryable:
        assert any(isinstance(message, AIMessage) and message.text for message, _ in stream)
    else:
        with pytest.raises(ModelAuthenticationError):
            list(stream)
    assert len(emu.requests) == (2 if retryable else 1)


@pytest.mark.parametrize(("code", "retryable"), RETRY_CASES)
async def test_with_retry_retries_a_rate_limit_event_only(emu: PerplexityEmulator, code: str, retryable: bool) -> None:
    model = make(emu, max_retries=0, streaming=True).with_retry(
        retry_if_exception_type=default_retry_on, wait_exponential_jitter=False, stop_after_attempt=3
    )
    emu.inject(Fault("error_event", code=code, after_events=1))
    if retryable:
        assert (await model.ainvoke("hello")).text
    else:
        with pytest.raises(ModelAuthenticationError):
            await model.ainvoke("hello")
    assert len(emu.requests) == (2 if retryable else 1)
