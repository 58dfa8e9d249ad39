"""An async client per event loop, so that `asyncio.run(model.ainvoke(...))` works every time.

langchain-openai caches one async HTTP client per process, but pooled connections belong to the loop that opened
them: a second `asyncio.run` fails with `Event loop is closed` (langchain-ai/langchain#35783). Each loop gets its
own pool per server, timeout and account (a pool keeps cookies), closed with the loop; sync pools are keyed alike
and closed at exit. All is the HTTP library's under openai's clients (httpx2 from openai 3, httpx before).
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import ssl
import sys
import threading
from collections.abc import AsyncGenerator
from functools import cache
from types import ModuleType
from typing import Any

import openai

LIBRARY: ModuleType = sys.modules[openai.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0]]
"""httpx or httpx2: the package that defines the class openai's default client extends."""
HTTP_ERROR: type[BaseException] = LIBRARY.HTTPError
"""The library's base error (a read timeout, a reset): what a broken stream raises."""


@cache
def trust_store() -> ssl.SSLContext:
    """The process's TLS context, made first by a transport's construction, so that no event loop waits on it."""
    context: ssl.SSLContext = LIBRARY.create_ssl_context()
    return context


_LOCK = threading.RLock()
# Loop -> (server, timeout, owner) -> (pool, its closer). Not weak: a pool holds its loop; closed loops are dropped.
_POOLS: dict[asyncio.AbstractEventLoop, dict[tuple[str, str, str], tuple[Any, AsyncGenerator[None, None]]]] = {}
_SYNC_POOLS: dict[tuple[str, str, str], Any] = {}
"""(server, timeout, owner) -> the sync connection pool of the clients with those settings."""


def owner_tag(api_key: str, headers: Any = None, query: Any = None) -> str:
    """A one-way tag of what makes a client an account's: its key, custom headers and query."""
    owned = repr((api_key, sorted((headers or {}).items()), sorted((query or {}).items())))
    return hashlib.sha256(owned.encode()).hexdigest()


@atexit.register
def _close_sync_pools() -> None:
    """Close the sync pools at exit: kept-alive connections left to the collector are each a `ResourceWarning`."""
    with _LOCK:
        pools = list(_SYNC_POOLS.values())
        _SYNC_POOLS.clear()
    for pool in pools:
        pool.close()


def sync_pool(base_url: str, timeout: Any, api_key: str) -> Any:
    """The sync connection pool for clients of this server, timeout and key (made on first use)."""
    key = (str(base_url), repr(timeout), owner_tag(api_key))
    with _LOCK:
        if key not in _SYNC_POOLS:
            _SYNC_POOLS[key] = openai.DefaultHttpxClient(verify=trust_store(), timeout=timeout)
        return _SYNC_POOLS[key]


@cache
def template_async_pool() -> Any:
    """The async HTTP client every `ChatOpenAI` is built with (one CA bundle load), never sending (`LoopClients`)."""
    return openai.DefaultAsyncHttpxClient(verify=trust_store())


def _pool(client: openai.AsyncOpenAI, loop: asyncio.AbstractEventLoop) -> Any:
    """The running loop's connection pool for `client`'s server, timeout and owner, made on first use."""
    owner = owner_tag(client.api_key, client._custom_headers, client._custom_query)
    key = (str(client.base_url), repr(client.timeout), owner)
    with _LOCK:
        if loop not in _POOLS:
            _drop_closed(_POOLS)
        pools = _POOLS.setdefault(loop, {})
        if key not in pools:
            pool = openai.DefaultAsyncHttpxClient(verify=trust_store(), timeout=client.timeout)
            pools[key] = (pool, _closed_at_shutdown(pool, loop))
        return pools[key][0]


_HELD: set[asyncio.Future[Any]] = set()


def hold_open(request: asyncio.Future[Any]) -> None:
    """Keep `request` referenced until it ends, and its loop's pools open at shutdown until then: a cancel sent as
    `asyncio.run` closes the caller's generators is waited for, not cut."""
    _HELD.add(request)
    request.add_done_callback(_HELD.discard)


def _closed_at_shutdown(pool: Any, loop: asyncio.AbstractEventLoop) -> AsyncGenerator[None, None]:
    """An async generator, started on `loop`, that closes `pool` in `loop.shutdown_asyncgens()`, the one hook a loop
    offers before it closes. The caller keeps it: the loop holds it only weakly."""

    async def closer() -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            held = [request for request in _HELD if request.get_loop() is loop]
            if held:  # its own timeout bounds the wait
                await asyncio.wait(held)
            await pool.aclose()

    async def start() -> None:
        await anext(generator)  # first iterated on the loop: registered with it

    generator = closer()
    loop.create_task(start())
    return generator


def _drop_closed(by_loop: dict[asyncio.AbstractEventLoop, Any]) -> None:
    """Forget what belongs to closed loops (its connections cannot be used or closed any more)."""
    for loop in [loop for loop in by_loop if loop.is_closed()]:
        by_loop.pop(loop, None)


class LoopClients:
    """`client` (a `ChatOpenAI`'s root async client) rebound to the running loop's connection pool."""

    def __init__(self, client: openai.AsyncOpenAI) -> None:
        self._client = client
        self._bound: dict[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = {}

    def current(self) -> openai.AsyncOpenAI:
        """The client for the running loop: same key, server, timeout, retries and headers."""
        loop = asyncio.get_running_loop()
        bound = self._bound.get(loop)
        if bound is None:
            with _LOCK:  # threads, each with its own loop, may share one model
                _drop_closed(self._bound)
                bound = self._bound[loop] = self._client.copy(http_client=_pool(self._client, loop))
        return bound
