"""What the package gives openai's client is built for the HTTP library that client runs on.

openai runs on httpx before openai 3 and on httpx2 from it; each refuses the other's objects.
The forms, from the sources:

- what reaches the client: the timeout (`_transport._client.client_timeout`), the sync and per-loop async
  connection pools and their TLS context (`_transport._loops`), a stream's
  body-read bound (`_transport._runs`);
- the timeout's forms `ChatOpenAI` takes: seconds (int, float), a (connect, read) pair, with None
  parts, a third and fourth part (write, pool), `openai.Timeout` (the library's own), `httpx.Timeout`,
  `perplexity.Timeout` (the official SDK's, a langchain-perplexity user's), `openai.DEFAULT_TIMEOUT`;
- every class that takes connection settings: the chat model on both surfaces, the retriever, the
  search tool, both embeddings classes, `PerplexityDecision`, `list_models`;
- every call mode: sync and async (a client per event loop), invoke and stream.

Run by `make test` on the newest releases and by `make test-lowest` on the lowest (httpx).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import openai
import perplexity
import pytest

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityDecision,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
    alist_models,
    list_models,
)
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import KEY

LIBRARY = openai.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0]
"""The library openai's client runs on here: httpx or httpx2."""

FORMS: list[Any] = [
    3,
    2.5,
    (5, 10),
    (5, None),
    (5, 10, 20),
    (5, 10, 20, 30),
    openai.Timeout(10, connect=2),
    httpx.Timeout(10, connect=2),
    httpx.Timeout(None, read=5),
    perplexity.Timeout(8, connect=3),
    openai.DEFAULT_TIMEOUT,
]


def _parts(timeout: Any) -> tuple[Any, ...]:
    """(connect, read, write, pool) of a timeout as httpx reads any of its forms."""
    if isinstance(timeout, (int, float)):
        return (float(timeout),) * 4
    if isinstance(timeout, tuple):
        return (*timeout, *(None,) * (4 - len(timeout)))
    return (timeout.connect, timeout.read, timeout.write, timeout.pool)


def _assert_fits(client: Any, timeout: Any) -> None:
    """`client` (an openai client) sends on openai's library's pool, with `timeout`'s parts (each request
    takes the client's timeout, whatever its pool's default)."""
    assert type(client._client).__mro__[1].__module__.startswith(LIBRARY), type(client._client)
    held = client.timeout
    if isinstance(timeout, (int, float)):
        assert held == timeout
    else:
        assert isinstance(held, openai.Timeout), type(held)
        assert (held.connect, held.read, held.write, held.pool) == _parts(timeout)


def _classes(emu: PerplexityEmulator, timeout: Any) -> dict[str, tuple[Any, Callable[[], Any], Callable[[], Any]]]:
    """Each class with `timeout`, a sync call and an async call (a coroutine function)."""
    c = {"api_key": KEY, "base_url": emu.base_url, "timeout": timeout}
    agent = ChatPerplexityStrict(**c)  # type: ignore[arg-type]
    sonar = ChatPerplexityStrict(**c, api="chat_completions", model="sonar")  # type: ignore[arg-type]
    retriever = PerplexitySearchRetriever(**c)
    tool = PerplexitySearchResults(**c)
    plain = PerplexityEmbeddings(**c, model="pplx-embed-v1-0.6b")
    contextual = PerplexityContextualizedEmbeddings(**c, model="pplx-embed-context-v1-0.6b")
    decide = PerplexityDecision(**c, questions={"urgent": {"type": "noul", "criteria": {"true": "a blocker"}}})
    return {
        "agent": (agent, lambda: agent.invoke("hi"), lambda: agent.ainvoke("hi")),
        "agent stream": (agent, lambda: list(agent.stream("hi")), lambda: _collect(agent.astream("hi"))),
        "sonar": (sonar, lambda: sonar.invoke("hi"), lambda: sonar.ainvoke("hi")),
        "sonar stream": (sonar, lambda: list(sonar.stream("hi")), lambda: _collect(sonar.astream("hi"))),
        "retriever": (retriever, lambda: retriever.invoke("q"), lambda: retriever.ainvoke("q")),
        "search tool": (tool, lambda: tool.invoke("q"), lambda: tool.ainvoke("q")),
        "embeddings": (plain, lambda: plain.embed_query("q"), lambda: plain.aembed_query("q")),
        "contextualized": (
            contextual,
            lambda: contextual.embed_in_context([["a", "b"]]),
            lambda: contextual.aembed_in_context([["a", "b"]]),
        ),
        "decision": (decide, lambda: decide.invoke("it is down"), lambda: decide.ainvoke("it is down")),
        "list_models": (
            None,
            lambda: list_models(**c),
            lambda: alist_models(**c),
        ),
    }


async def _collect(stream: Any) -> list[Any]:
    return [chunk async for chunk in stream]


KINDS = [
    "agent",
    "agent stream",
    "sonar",
    "sonar stream",
    "retriever",
    "search tool",
    "embeddings",
    "contextualized",
    "decision",
    "list_models",
]


@pytest.mark.parametrize("timeout", FORMS, ids=repr)
@pytest.mark.parametrize("kind", KINDS)
def test_every_timeout_form_reaches_every_client_as_its_library_takes_it(
    emu: PerplexityEmulator, kind: str, timeout: Any
) -> None:
    owner, call, acall = _classes(emu, timeout)[kind]
    assert call()
    assert asyncio.run(acall())  # a new event loop: its own async pool, built from the client's timeout
    if owner is None:
        return
    assert owner.timeout is timeout  # kept as given
    _assert_fits(owner.transport.chat_openai.root_client, timeout)
    _assert_fits(owner.transport.chat_openai.root_async_client, timeout)


@pytest.mark.parametrize("timeout", FORMS, ids=repr)
async def test_the_running_loops_client_takes_the_timeout_in_its_library(emu: PerplexityEmulator, timeout: Any) -> None:
    model = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, timeout=timeout)  # type: ignore[arg-type]
    assert (await model.ainvoke("hi")).content
    _assert_fits(model.transport.async_client(), timeout)


@pytest.mark.parametrize("way", ["constructor", "model_copy", "configurable", "assigned"])
def test_a_pair_given_any_way_reaches_the_client_as_its_library_takes_it(emu: PerplexityEmulator, way: str) -> None:
    from langchain_core.runnables import ConfigurableField

    base = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url)  # type: ignore[arg-type]
    if way == "constructor":
        model = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, timeout=(4, 9))  # type: ignore[arg-type]
    elif way == "model_copy":
        model = base.model_copy(update={"timeout": (4, 9)})
    elif way == "configurable":
        runnable = base.configurable_fields(timeout=ConfigurableField(id="t"))
        assert runnable.invoke("hi", config={"configurable": {"t": (4, 9)}}).content
        model = runnable.with_config(configurable={"t": (4, 9)})._prepare(  # type: ignore[attr-defined]
            {"configurable": {"t": (4, 9)}}
        )[0]
    else:
        model = base
        model.timeout = (4, 9)
    assert model.invoke("hi").content
    _assert_fits(model.transport.chat_openai.root_client, (4, 9))


@pytest.mark.parametrize("timeout", [(5, 0.2), openai.Timeout(5, read=0.2), httpx.Timeout(5, read=0.2)], ids=repr)
def test_a_read_timeout_given_in_any_form_ends_a_request_that_gets_no_answer(
    emu: PerplexityEmulator, timeout: Any
) -> None:
    """The read part takes effect: a held request (never answered) ends as a timeout, not a crash."""
    model = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, timeout=timeout, max_retries=0)  # type: ignore[arg-type]
    emu.inject(Fault("hold"))
    with pytest.raises(openai.APITimeoutError):
        model.invoke("hi")
    emu.release()
