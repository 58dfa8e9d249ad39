"""`_transport/_loops.py`: a client per running event loop, and nothing kept for loops that closed."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import openai

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict._transport import _loops

SERVER = openai.AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", timeout=12.0, max_retries=3)


def test_one_client_per_loop_with_the_servers_settings() -> None:
    clients = _loops.LoopClients(SERVER)

    async def twice() -> tuple[Any, Any]:
        return clients.current(), clients.current()

    first, again = asyncio.run(twice())
    assert first is again, "one loop, one client"
    second, _ = asyncio.run(twice())
    assert second is not first and second._client is not first._client, "a new loop gets its own pool"
    for client in (first, second):
        assert (client.api_key, str(client.base_url), client.timeout, client.max_retries) == (
            "k", "http://127.0.0.1:9/v1/", 12.0, 3)  # fmt: skip


def test_models_on_one_loop_share_its_pool() -> None:
    async def both() -> tuple[Any, Any]:
        return _loops.LoopClients(SERVER).current()._client, _loops.LoopClients(SERVER).current()._client

    one, other = asyncio.run(both())
    assert one is other


def test_a_loops_pool_is_closed_when_asyncio_run_ends() -> None:
    """Its connections are closed on their own loop, not left to the garbage collector (ResourceWarning)."""

    async def pool() -> Any:
        client = _loops.LoopClients(SERVER).current()._client
        assert not client.is_closed
        return client

    assert asyncio.run(pool()).is_closed


def test_nothing_is_kept_for_closed_loops() -> None:
    clients = _loops.LoopClients(SERVER)

    async def held() -> tuple[int, bool]:
        clients.current()
        return len(clients._bound), any(loop.is_closed() for loop in _loops._POOLS)

    for _ in range(5):
        assert asyncio.run(held()) == (1, False)


def test_threads_each_with_a_loop_get_their_own_client() -> None:
    """Four loops alive at once in four threads, one model: four clients, each on its own pool."""
    clients = _loops.LoopClients(SERVER)
    together = threading.Barrier(4)

    async def mine() -> Any:
        together.wait(timeout=30)  # every thread's loop is running when each asks
        return clients.current()

    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda _: asyncio.run(mine()), range(4)))
    assert len({id(c) for c in got}) == 4 and len({id(c._client) for c in got}) == 4


def test_a_model_of_a_new_server_builds_no_async_client_it_would_not_use(monkeypatch: Any) -> None:
    """langchain-openai builds a default async client, with a TLS context that loads the CA bundle (~25 ms of
    CPU), for each new server and timeout unless it is given one; every async request goes through the running
    loop's pool (`LoopClients`), so the model gives it `template_async_pool` and none is built."""
    from langchain_openai.chat_models import base

    def built(*_: Any, **__: Any) -> Any:
        raise AssertionError("langchain-openai built a default async client")

    monkeypatch.setattr(base, "_get_default_async_httpx_client", built)
    model = ChatPerplexityStrict(api_key="k", base_url="http://127.0.0.1:9", timeout=123.25)
    assert model.transport.chat_openai.root_async_client._client is _loops.template_async_pool()
