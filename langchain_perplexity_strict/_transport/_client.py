"""Stage 4 of a call: send bytes to a Perplexity path through `ChatOpenAI`'s own clients.

`ChatOpenAI` owns the key, the URL, retries and timeouts. Answers are Perplexity's JSON untouched (langchain-openai's
converters drop `search_results` and the cost); HTTP errors become langchain-openai's exceptions with Perplexity's
message.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable, Generator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial, partialmethod
from typing import Any, NoReturn, TypeVar

import openai
from langchain_openai import ChatOpenAI

from langchain_perplexity_strict._accepts import check_connection_setting
from langchain_perplexity_strict._redact import redact, redact_text
from langchain_perplexity_strict._transport._compat import http_error, langchain_openai_error
from langchain_perplexity_strict._transport._create import ONCE, acreate, create, not_sent
from langchain_perplexity_strict._transport._loops import (
    HTTP_ERROR,
    LIBRARY,
    LoopClients,
    sync_pool,
    template_async_pool,
    trust_store,
)
from langchain_perplexity_strict._transport._sse import SSEBatcher
from langchain_perplexity_strict.errors import (
    PerplexityResponseError,
    PerplexityStreamError,
    error_detail,
)

DEFAULT_BASE_URL = "https://api.perplexity.ai"
"""Perplexity's server root; each endpoint's path is relative to it."""
MAX_BODY_BYTES = 32 * 1024 * 1024  # docs/perplexity-rules.md: Perplexity answers 413 payload_too_large above 32 MiB


def encode_body(payload: Mapping[str, Any]) -> bytes:
    """The body's bytes as sent, serialized once as the openai client would; over 32 MiB (a 413) it is refused."""
    try:
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    except ValueError as error:
        msg = f"request body: {error}; NaN and infinite numbers are not JSON (check model_kwargs)."
        raise ValueError(msg) from error
    if len(body) > MAX_BODY_BYTES:
        msg = (
            f"request body: {len(body):,} bytes is over Perplexity's limit of {MAX_BODY_BYTES:,} bytes (32 MiB); "
            "shorten the conversation (max_input_tokens compacts it) or send smaller images."
        )
        raise ValueError(msg)
    return body


def client_timeout(value: Any) -> Any:
    """Any timeout `ChatOpenAI` takes: seconds or None kept, else an `openai.Timeout` (openai 3 refuses httpx's)."""
    if isinstance(value, tuple):
        return openai.Timeout(value)
    if value is None or isinstance(value, (int, float, openai.Timeout)):
        return value
    return openai.Timeout(connect=value.connect, read=value.read, write=value.write, pool=value.pool)


def timeout_seconds(value: Any) -> float | None:
    """The longest part of a timeout, in seconds: what bounds a background run's wait (None: unbounded)."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    value = client_timeout(value)
    return max((p for p in (value.connect, value.read, value.write, value.pool) if p is not None), default=None)


Hints = Mapping[str, str]
"""What to do about an error, by Perplexity's error `type`, added to its message (`_surfaces.ERROR_HINTS`)."""


def raise_perplexity_error(error: openai.APIError, api: str | None, hints: Hints | None = None) -> NoReturn:
    """Re-raise `error` as the exception of its kind, with Perplexity's words whatever the body's form."""
    sent = error.request.headers.get("authorization", "").removeprefix("Bearer ")  # hidden where an answer repeats it
    if isinstance(error, openai.APIStatusError):
        detail = error_detail(error.body)
        kind = detail.get("type")
        # The emulator names itself in a header on every answer.
        who = "Perplexity emulator" if error.response.headers.get("x-perplexity-emulator") else "Perplexity"
        message = f"{who} {api + ' ' if api else ''}API answered HTTP {error.status_code}"
        said = detail.get("message") or f"{error.response.reason_phrase or 'no reason given'}, with no body"
        # A server may echo what it was sent (a value, the key it refused): the message shows no credential.
        text = redact_text(str(said), sent)
        message += f" ({kind}): {text}" if kind else f": {text}"
        if isinstance(kind, str) and hints and kind in hints:
            message += f" {hints[kind]}"
        # Chained to a copy with the message shown, never to `error`: its text repeats the body unredacted.
        shown = type(error)(message, response=error.response, body=error.body)
        try:
            raise shown
        except openai.APIStatusError:
            shown.__context__ = None
            raise http_error(shown, message) from shown
    if type(error) is openai.APIConnectionError:  # openai says only "Connection error.": say where, and why
        url = error.request.url
        cause = f": {redact_text(str(error.__cause__), sent)}" if str(error.__cause__ or "") else ""
        where = f"the Perplexity {api + ' ' if api else ''}API at {url.scheme}://{url.netloc.decode()}"
        said = f"Could not connect to {where}" if not_sent(error) else f"The connection to {where} broke after sending"
        error = openai.APIConnectionError(message=said + cause, request=error.request)
    raise langchain_openai_error(error)


S = TypeVar("S", openai.Stream[Any], openai.AsyncStream[Any])
Params = Mapping[str, Any] | None
Headers = Mapping[str, str] | None


@dataclass(frozen=True)
class Fallback:
    """A second body, made and sent once only if the first request fails as `applies` says."""

    applies: Callable[[BaseException], bool]
    body: Callable[[], bytes]


class _ChatOpenAI(ChatOpenAI):
    """`ChatOpenAI`, whose repr hides a `base_url`'s user info as this package's classes do (`_redact`)."""

    def __repr_args__(self) -> Any:
        return [(name, redact(value, name)) for name, value in super().__repr_args__()]


class Transport:
    """Requests to one Perplexity server through one `ChatOpenAI`; `api` names the API in error messages."""

    def __init__(self, chat_openai: ChatOpenAI, key: tuple[Any, ...] = (), hints: Hints | None = None) -> None:
        self.chat_openai = chat_openai
        self.key = key
        """The settings this transport was built from (the chat model rebuilds it when they change)."""
        self.hints: Hints = dict(hints or {})
        self._loop_clients = LoopClients(chat_openai.root_async_client)
        trust_store()  # made here, outside any event loop

    def async_client(self) -> Any:  # an openai.AsyncOpenAI, typed as ChatOpenAI types its root_async_client
        """The async client for the running event loop (`_loops`: `ChatOpenAI`'s own is shared across loops)."""
        return self._loop_clients.current()

    @classmethod
    def build(cls, key: tuple[Any, ...], *, model: str, hints: Hints | None = None, owner: str = "") -> Transport:
        """A transport over a new `ChatOpenAI` from `key`, `(base_url, api_key, timeout, max_retries)`; `owner` names
        the class in a refusal."""
        base_url, api_key, timeout, max_retries = key
        # A setting assigned after construction (`model.base_url = ...`) is checked here, at the rebuild.
        for name, value in zip(("base_url", "api_key", "timeout", "max_retries"), key, strict=True):
            check_connection_setting(name, value, owner)
        timeout = client_timeout(timeout)
        # Paths start from the root: `base_url` without the `/v1` of Perplexity's OpenAI-compatibility guide.
        root = base_url.rstrip("/").removesuffix("/v1")
        # A sync pool of this key's own: langchain-openai's default is shared by every key, cookies included.
        secret = api_key.get_secret_value() if hasattr(api_key, "get_secret_value") else str(api_key or "")
        chat_openai = _ChatOpenAI(
            model=model,
            api_key=api_key,
            base_url=root,
            max_retries=max_retries,
            timeout=timeout,
            http_client=sync_pool(root, timeout, secret),
            http_async_client=template_async_pool(),
            # Both clients are given: with no socket options, langchain-openai skips its proxy scan on every build.
            http_socket_options=(),
        )
        return cls(chat_openai, key, hints)

    def post(
        self, path: str, body: bytes, headers: Headers = None, *, api: str | None = None, run: bool = False
    ) -> dict[str, Any]:
        """POST `body` to `path`; Perplexity's JSON answer (`run`: re-sent only if it surely started no run)."""
        client = self.chat_openai.root_client
        options: Any = {"headers": dict(headers or {}), **(ONCE if run else {})}
        request = partial(client.post, path, content=body, cast_to=object, options=options)
        with translated_errors(api, hints=self.hints):
            return create(request, client.max_retries) if run else request()

    async def apost(
        self, path: str, body: bytes, headers: Headers = None, *, api: str | None = None, run: bool = False
    ) -> dict[str, Any]:
        client = self.async_client()
        options: Any = {"headers": dict(headers or {}), **(ONCE if run else {})}
        request = partial(client.post, path, content=body, cast_to=object, options=options)
        with translated_errors(api, hints=self.hints):
            return await (acreate(request, client.max_retries) if run else request())

    def post_form(self, path: str, fields: Mapping[str, str], files: Files, *, api: str | None = None) -> Any:
        """POST a multipart form: `fields` as text parts, `files` as `{name: (filename, bytes, content type)}`."""
        with translated_errors(api, hints=self.hints):
            return self.chat_openai.root_client.post(
                path, body=dict(fields), files=list(files.items()), cast_to=object, options=_MULTIPART
            )

    async def apost_form(self, path: str, fields: Mapping[str, str], files: Files, *, api: str | None = None) -> Any:
        with translated_errors(api, hints=self.hints):
            return await self.async_client().post(
                path, body=dict(fields), files=list(files.items()), cast_to=object, options=_MULTIPART
            )

    def get_bytes(self, path: str, *, api: str | None = None) -> bytes:
        """GET `path`; the body's bytes as sent (a file's content), not JSON."""
        with translated_errors(api, hints=self.hints):
            return self.chat_openai.root_client.get(path, cast_to=LIBRARY.Response, options=_OCTETS).content

    async def aget_bytes(self, path: str, *, api: str | None = None) -> bytes:
        with translated_errors(api, hints=self.hints):
            return (await self.async_client().get(path, cast_to=LIBRARY.Response, options=_OCTETS)).content

    def get(self, path: str, params: Params = None, *, api: str | None = None) -> dict[str, Any]:
        """GET `path` with query `params`; Perplexity's JSON answer."""
        with translated_errors(api, hints=self.hints):
            return self.chat_openai.root_client.get(path, cast_to=object, options=_options(params))

    async def aget(self, path: str, params: Params = None, *, api: str | None = None) -> dict[str, Any]:
        with translated_errors(api, hints=self.hints):
            return await self.async_client().get(path, cast_to=object, options=_options(params))

    def stream(
        self,
        path: str,
        body: bytes | None = None,
        params: Params = None,
        *,
        api: str | None = None,
        read_timeout: float | None = None,
        run: bool = False,
    ) -> openai.Stream[Any]:
        """Open a server-sent-event stream: POST `body` to `path`, or GET `path` with `params` when no body.
        `read_timeout` bounds each read of the body; the head waits the client's timeout. `run` as in `post`."""
        client = self.chat_openai.root_client
        send = client.get if body is None else partial(client.post, content=body)
        opened = partial(send, path, cast_to=object, options=_options(params, run), stream=True, stream_cls=_STREAM)
        with translated_errors(api, self.hints):
            stream = create(opened, client.max_retries) if run else opened()
        return bound_body_reads(stream, read_timeout)

    async def astream(
        self,
        path: str,
        body: bytes | None = None,
        params: Params = None,
        *,
        api: str | None = None,
        read_timeout: float | None = None,
        run: bool = False,
    ) -> openai.AsyncStream[Any]:
        client = self.async_client()
        send = client.get if body is None else partial(client.post, content=body)
        opened = partial(send, path, cast_to=object, options=_options(params, run), stream=True, stream_cls=_ASTREAM)
        with translated_errors(api, self.hints):
            stream = await (acreate(opened, client.max_retries) if run else opened())
        return bound_body_reads(stream, read_timeout)

    # A first body refused as `fallback` says is replaced by the fallback's; the second value says whether it was.

    def send(
        self, path: str, body: bytes, fallback: Fallback | None = None, *, stream: bool = False, **options: Any
    ) -> tuple[Any, bool]:
        request = self.stream if stream else self.post
        try:
            return request(path, body, **options), False
        except Exception as error:
            if fallback is None or not fallback.applies(error):
                raise
        return request(path, fallback.body(), **options), True

    async def asend(
        self, path: str, body: bytes, fallback: Fallback | None = None, *, stream: bool = False, **options: Any
    ) -> tuple[Any, bool]:
        request = self.astream if stream else self.apost
        try:
            return await request(path, body, **options), False
        except Exception as error:
            if fallback is None or not fallback.applies(error):
                raise
        return await request(path, fallback.body(), **options), True

    open_stream = partialmethod(send, stream=True)
    aopen_stream = partialmethod(asend, stream=True)


Files = Mapping[str, tuple[str, bytes, str]]
"""A multipart form's files: `{field name: (filename, content, content type)}`."""
_MULTIPART: Any = {"headers": {"Content-Type": "multipart/form-data"}}  # the client adds the boundary
_OCTETS: Any = {"headers": {"Accept": "application/octet-stream"}}  # as the SDK's `responses.files.content`
_STREAM, _ASTREAM = openai.Stream[object], openai.AsyncStream[object]


def _options(params: Params, run: bool = False) -> Any:
    """Request options: the query `params`, and the client's retries off for a run's create (`_create`)."""
    return {**({"params": dict(params)} if params else {}), **(ONCE if run else {})}


def bound_body_reads(stream: S, seconds: float | None) -> S:
    """`stream` with each read of its body bounded at `seconds`, so a stall is caught early and a slow head waited for:
    httpcore (and httpcore2) read the body's timeout from the request's `timeout` extension at its first read."""
    timeouts = stream.response.request.extensions.get("timeout") if seconds is not None else None
    if isinstance(timeouts, dict):
        timeouts["read"] = seconds
    return stream


DONE: dict[str, Any] = {"type": "[DONE]"}
"""Ends the batch that held Sonar's `data: [DONE]`, so a reader tells a whole stream from a cut."""


def iterate_batches(
    stream: openai.Stream[Any], api: str | None = None, hints: Hints | None = None
) -> Generator[tuple[list[dict[str, Any]], bool], None, None]:
    """The stream's JSON events, a batch per network read, each with whether the stream ended there."""
    batcher = SSEBatcher()
    with translated_errors(api, hints=hints, mid_stream=True):
        for data in stream.response.iter_bytes():
            batch = batcher.feed(data)
            if batcher.done:
                yield [*batch, DONE], True
                return
            if batch:
                yield batch, False
        yield batcher.close(), True


async def aiterate_batches(
    stream: openai.AsyncStream[Any], api: str | None = None, hints: Hints | None = None
) -> AsyncGenerator[tuple[list[dict[str, Any]], bool], None]:
    batcher = SSEBatcher()
    with translated_errors(api, hints=hints, mid_stream=True):
        async for data in stream.response.aiter_bytes():
            batch = batcher.feed(data)
            if batcher.done:
                yield [*batch, DONE], True
                return
            if batch:
                yield batch, False
        yield batcher.close(), True


@dataclass(frozen=True)
class translated_errors(AbstractContextManager):
    """Re-raise the transport's errors as this package's; a connection broken `mid_stream`: `PerplexityStreamError`."""

    api: str | None
    hints: Hints | None = None
    mid_stream: bool = False

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        if error is None:
            return
        if self.mid_stream and isinstance(error, _BROKEN):
            cause = error.__cause__ or error
            what = f"{type(cause).__name__}: {cause}"
            msg = f"the connection to Perplexity broke mid-stream ({what}); the answer is incomplete"
            raise PerplexityStreamError(msg) from error
        if isinstance(error, openai.APIError):
            raise_perplexity_error(error, self.api, self.hints)
        if isinstance(error, ValueError):
            raise PerplexityResponseError(f"Perplexity sent a body that is not valid JSON ({error})") from error


_BROKEN = (openai.APIConnectionError, HTTP_ERROR, ConnectionError)
"""What a connection broken mid-stream raises."""
