"""Faults from the emulator: each is retried where safe or raised clearly, never a silent short answer."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import openai
import pytest

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.errors import PerplexityIncompleteError, PerplexityResponseError, PerplexityStreamError
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import make

MODES = ["invoke", "stream", "ainvoke", "astream"]
pytestmark = pytest.mark.usefixtures("quick_client_retries")  # what is retried is checked here, not the back-off


async def run(llm: ChatPerplexityStrict, mode: str, text: str = "fault test") -> str:
    if mode == "invoke":
        return str(llm.invoke(text).content)
    if mode == "ainvoke":
        return str((await llm.ainvoke(text)).content)
    if mode == "stream":
        return "".join(c.text for c in llm.stream(text))
    return "".join([c.text async for c in llm.astream(text)])


COMPLETE = "On fault test: the sources found agree on the main points [1], and [2] gives the details."


@pytest.mark.parametrize("mode", MODES)
async def test_rate_limit_retry_after_is_honoured(emu: PerplexityEmulator, mode: str) -> None:
    """Retry-After (0.5 s) is waited for, not the back-off without it (cut to 0.02 s here: `quick_client_retries`).
    A first call, untimed, leaves out of the timed one what a process's first call loads."""
    llm = make(emu)
    assert await run(llm, mode) == COMPLETE
    emu.clear()
    emu.inject(Fault("rate_limit", seconds=0.5))
    started = time.monotonic()
    assert await run(llm, mode) == COMPLETE
    assert time.monotonic() - started >= 0.5
    assert len(emu.requests) == 2


def ordinary(emu: PerplexityEmulator, mode: str, **kw: Any) -> ChatPerplexityStrict:
    """A model whose requests start no run followed by its id, so the client's retries apply as they are: a plain
    Agent API invoke, or a chat completions stream (an Agent API stream's create is never re-sent once it may have
    started a run: tests/integration_tests/test_long_runs_creates.py)."""
    return make(emu, "chat_completions" if "stream" in mode else "agent", **kw)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", [500, 502, 503])
async def test_server_errors_are_retried(emu: PerplexityEmulator, mode: str, status: int) -> None:
    emu.inject(Fault("server_error", status=status))
    assert await run(ordinary(emu, mode), mode) == COMPLETE
    assert len(emu.requests) == 2


@pytest.mark.parametrize("mode", MODES)
async def test_server_errors_past_max_retries_raise(emu: PerplexityEmulator, mode: str) -> None:
    emu.inject(*[Fault("server_error", status=503)] * 2)
    with pytest.raises(openai.InternalServerError, match="503"):
        await run(ordinary(emu, mode, max_retries=1), mode)
    assert len(emu.requests) == 2


@pytest.mark.parametrize("mode", MODES)
async def test_slow_server_times_out_without_hanging(emu: PerplexityEmulator, mode: str) -> None:
    emu.inject(Fault("hold"))  # not answered before the test ends (`clear` lets it go): only the timeout ends it
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        await run(ordinary(emu, mode, timeout=0.25, max_retries=0), mode)
    assert time.monotonic() - started < 2.5
    assert await asyncio.to_thread(emu.wait_holding, 1)  # read and held, not read late into the next test's log


# On the Agent API a broken stream is resumed after its last event instead (tests/integration_tests/test_long_runs.py).


@pytest.mark.parametrize("mode", ["stream", "astream"])
async def test_reset_mid_stream_raises(emu: PerplexityEmulator, mode: str) -> None:
    emu.inject(Fault("reset", after_events=3))
    with pytest.raises(PerplexityStreamError, match="mid-stream"):
        await run(make(emu, "chat_completions"), mode)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_reset_mid_body_is_retried(emu: PerplexityEmulator, mode: str) -> None:
    emu.inject(Fault("reset"))
    assert await run(make(emu), mode) == COMPLETE


@pytest.mark.parametrize("mode", ["stream", "astream"])
async def test_stream_cut_before_terminal_event_raises(emu: PerplexityEmulator, mode: str) -> None:
    emu.inject(Fault("cut_stream", after_events=4))
    with pytest.raises(PerplexityStreamError, match="ended before its final event"):
        await run(make(emu, "chat_completions"), mode)


@pytest.mark.parametrize("mode", MODES)
async def test_status_failed_raises(emu: PerplexityEmulator, mode: str) -> None:
    emu.inject(Fault("failed"))
    with pytest.raises(PerplexityResponseError, match="'failed': emulated failure"):
        await run(make(emu), mode)


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
@pytest.mark.parametrize("mode", MODES)
async def test_incomplete_raises_with_the_partial_answer(emu: PerplexityEmulator, mode: str, api: str) -> None:
    emu.inject(Fault("incomplete"))  # raising is opt-in (issue 18): by default the answer comes with "length"
    with pytest.raises(PerplexityIncompleteError) as info:
        await run(make(emu, api, raise_on_length=True), mode)
    assert info.value.partial is not None
    assert info.value.partial.content == COMPLETE


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
@pytest.mark.parametrize("mode", MODES)
async def test_malformed_json_raises(emu: PerplexityEmulator, mode: str, api: str) -> None:
    emu.inject(Fault("malformed_json"))
    with pytest.raises(PerplexityResponseError, match="not valid JSON"):
        await run(make(emu, api), mode)


def test_errors_are_langchain_model_errors_too(emu: PerplexityEmulator) -> None:
    from langchain_core.exceptions import ModelAPIError, ModelRateLimitError

    emu.inject(*[Fault("rate_limit", seconds=0)] * 1)
    with pytest.raises(ModelRateLimitError):
        make(emu, max_retries=0).invoke("x")
    emu.inject(Fault("failed"))
    with pytest.raises(ModelAPIError):
        make(emu).invoke("x")


CALLS: list[Callable[[ChatPerplexityStrict], Any]] = [lambda m: m.invoke("x"), lambda m: list(m.stream("x"))]
