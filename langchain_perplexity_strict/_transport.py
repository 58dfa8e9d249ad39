"""Send a request body to Perplexity through `ChatOpenAI`'s own clients.

The `ChatOpenAI` instance owns the key, the base URL, retries (429 with
`Retry-After`, 5xx) and timeouts; this module posts the body the request
rules built and returns Perplexity's JSON untouched, because langchain-openai's
response converters drop `search_results` and the cost. HTTP errors are
re-raised as langchain-openai's exceptions, carrying Perplexity's message.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, NoReturn, TypeVar

import httpx
import openai
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models.base import (
    _handle_openai_api_error,
    _handle_openai_bad_request,
)

from langchain_perplexity_strict._continuation import forgot_the_response
from langchain_perplexity_strict._sse import SSEBatcher
from langchain_perplexity_strict.errors import (
    PerplexityResponseError,
    PerplexityStreamError,
)

RETIRED_HINT = (
    " Perplexity ended Sonar chat completions on 2026-09-27: use ChatPerplexityStrict(api='agent'), the default."
)


def raise_perplexity_error(error: openai.APIError, api: str) -> NoReturn:
    """Re-raise `error` with Perplexity's type and message, as langchain-openai does."""
    if isinstance(error, openai.APIStatusError):
        body = error.body if isinstance(error.body, dict) else {}
        detail = body.get("error", body) if isinstance(body, dict) else {}
        kind = detail.get("type") if isinstance(detail, dict) else None
        text = detail.get("message") if isinstance(detail, dict) else None
        message = f"Perplexity {api} API answered HTTP {error.status_code}"
        message += f" ({kind}): {text or error.message}" if kind else f": {text or error.message}"
        if kind == "chat_completions_not_available":
            message += RETIRED_HINT
        error = type(error)(message, response=error.response, body=error.body)
        if isinstance(error, openai.BadRequestError):
            _handle_openai_bad_request(error)
    _handle_openai_api_error(error)
    raise error  # _handle_openai_api_error re-raises everything; this satisfies type checkers


T = TypeVar("T")
Fallback = Callable[[], bytes] | None
"""A continuation's whole-conversation body, made only if the server forgot the stored response."""


class Transport:
    """Posts bodies for one surface through one `ChatOpenAI`."""

    def __init__(self, chat_openai: ChatOpenAI, api: str, path: str, key: tuple[Any, ...] = ()) -> None:
        self.chat_openai = chat_openai
        self.api = api
        self.path = path
        self.key = key
        """The settings this transport was built from (the chat model rebuilds it when they change)."""

    @classmethod
    def build(cls, api: str, base_url: str, path: str, key: tuple[Any, ...], *, model: str) -> Transport:
        """A transport over a new `ChatOpenAI` pointed at `base_url` (key, retries and timeout from `key`)."""
        _, _, api_key, timeout, max_retries = key
        chat_openai = ChatOpenAI(
            model=model,
            api_key=api_key,
            base_url=base_url,
            use_responses_api=api == "agent",
            max_retries=max_retries,
            timeout=timeout,
        )
        return cls(chat_openai, api, path, key)

    # `body` is the JSON the request rules built, already serialized (`encode_body`);
    # the client posts `content` as it is, with its JSON content type.

    def create(self, body: bytes) -> dict[str, Any]:
        with translated_errors(self.api):
            return self.chat_openai.root_client.post(self.path, content=body, cast_to=object)

    async def acreate(self, body: bytes) -> dict[str, Any]:
        with translated_errors(self.api):
            return await self.chat_openai.root_async_client.post(self.path, content=body, cast_to=object)

    # A stream's `timeout` replaces the client's for that request (the stall detection's read timeout).

    def stream(self, body: bytes, timeout: Any = None) -> openai.Stream[Any]:
        with translated_errors(self.api):
            return self.chat_openai.root_client.post(
                self.path, content=body, cast_to=object, stream=True, stream_cls=openai.Stream[object],
                options=_options(timeout),
            )  # fmt: skip

    async def astream(self, body: bytes, timeout: Any = None) -> openai.AsyncStream[Any]:
        with translated_errors(self.api):
            return await self.chat_openai.root_async_client.post(
                self.path, content=body, cast_to=object, stream=True, stream_cls=openai.AsyncStream[object],
                options=_options(timeout),
            )  # fmt: skip

    # With a continuation, `fallback` is the whole conversation: sent once, transparently, if the
    # server no longer knows the stored response. The second value says whether it was.

    def send(self, body: bytes, fallback: Fallback = None) -> tuple[dict[str, Any], bool]:
        return _once_more(self.create, body, fallback)

    def open_stream(
        self, body: bytes, fallback: Fallback = None, timeout: Any = None
    ) -> tuple[openai.Stream[Any], bool]:
        return _once_more(lambda data: self.stream(data, timeout=timeout), body, fallback)

    async def asend(self, body: bytes, fallback: Fallback = None) -> tuple[dict[str, Any], bool]:
        return await _aonce_more(self.acreate, body, fallback)

    async def aopen_stream(
        self, body: bytes, fallback: Fallback = None, timeout: Any = None
    ) -> tuple[openai.AsyncStream[Any], bool]:
        return await _aonce_more(lambda data: self.astream(data, timeout=timeout), body, fallback)


def _options(timeout: Any) -> Any:
    return {"timeout": timeout} if timeout is not None else {}


def _once_more(post: Callable[[bytes], T], body: bytes, fallback: Fallback) -> tuple[T, bool]:
    """`post(body)`; if the server forgot the stored response, `post` the whole conversation instead."""
    try:
        return post(body), False
    except Exception as error:
        if fallback is None or not forgot_the_response(error):
            raise
    return post(fallback()), True


async def _aonce_more(post: Callable[[bytes], Awaitable[T]], body: bytes, fallback: Fallback) -> tuple[T, bool]:
    """Async twin of `_once_more`."""
    try:
        return await post(body), False
    except Exception as error:
        if fallback is None or not forgot_the_response(error):
            raise
    return await post(fallback()), True


def iterate_batches(stream: openai.Stream[Any], api: str) -> Iterator[tuple[list[dict[str, Any]], bool]]:
    """The stream's JSON events, a batch per network read, each with whether the stream ended there.

    Transport failures become clear errors.
    """
    batcher = SSEBatcher()
    with translated_errors(api, mid_stream=True, transport=http_errors(stream.response)):
        for data in stream.response.iter_bytes():
            batch = batcher.feed(data)
            if batch or batcher.done:
                yield batch, batcher.done
            if batcher.done:
                return
        yield batcher.close(), True


async def aiterate_batches(
    stream: openai.AsyncStream[Any], api: str
) -> AsyncIterator[tuple[list[dict[str, Any]], bool]]:
    """Async twin of `iterate_batches`."""
    batcher = SSEBatcher()
    with translated_errors(api, mid_stream=True, transport=http_errors(stream.response)):
        async for data in stream.response.aiter_bytes():
            batch = batcher.feed(data)
            if batch or batcher.done:
                yield batch, batcher.done
            if batcher.done:
                return
        yield batcher.close(), True


def http_errors(response: Any) -> tuple[type[BaseException], ...]:
    """The HTTP library's own error class for `response` (httpx, or the httpx2 fork newer openai uses)."""
    library = sys.modules.get(type(response).__module__.partition(".")[0])
    error = getattr(library, "HTTPError", None)
    return (error,) if isinstance(error, type) and issubclass(error, BaseException) else ()


class translated_errors:
    """Re-raise what the transport raises as this package's errors, for every call path.

    HTTP errors become langchain-openai's exceptions with Perplexity's message;
    a body that is not JSON becomes `PerplexityResponseError`; and, once a
    stream has started (`mid_stream`), a broken connection becomes
    `PerplexityStreamError`, because part of the answer already arrived.
    """

    def __init__(self, api: str, *, mid_stream: bool = False, transport: tuple[type[BaseException], ...] = ()) -> None:
        self.api = api
        self.mid_stream = mid_stream
        self.broken = (openai.APIConnectionError, httpx.HTTPError, ConnectionError, *transport)

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        if error is None:
            return
        if self.mid_stream and isinstance(error, self.broken):
            raise _broken_stream(error) from error
        if isinstance(error, openai.APIError):
            raise_perplexity_error(error, self.api)
        if isinstance(error, ValueError):
            raise _malformed(error) from error


def _malformed(error: ValueError) -> PerplexityResponseError:
    return PerplexityResponseError(f"Perplexity sent a body that is not valid JSON ({error})")


def _broken_stream(error: BaseException) -> PerplexityStreamError:
    cause = error.__cause__ or error
    return PerplexityStreamError(
        f"the connection to Perplexity broke mid-stream ({type(cause).__name__}: {cause}); the answer is incomplete"
    )
