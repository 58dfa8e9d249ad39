"""Long runs: background mode, resumed streams, stall detection and cancellation, against the emulator.

Every behaviour runs in the call modes it concerns (sync and async, invoke
and stream) and both output versions where the answer's shape differs.
"""

from __future__ import annotations

import _thread
import asyncio
import atexit
import json
import signal
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.errors import (
    PerplexityResponseError,
    PerplexityResumeError,
    PerplexityRunTimeoutError,
    PerplexityStreamError,
)
from langchain_perplexity_strict.testing import Fault, ManualClock, PerplexityEmulator
from tests.integration_tests.clocks import advance_once_waited
from tests.integration_tests.factory import KEY, make
from tests.integration_tests.reads import recorded_reads, replay
from tests.integration_tests.tools import add, get_weather

QUESTION = "Why is the sky blue?"
MODES = ["invoke", "ainvoke", "stream", "astream"]
STREAMS = ["stream", "astream"]
VERSIONS = ["v0", "v1"]
HTTP = httpx.Client(headers={"Authorization": f"Bearer {KEY}"})
"""One client for the raw requests here: each `httpx.get` or `httpx.post` builds an SSL context (~40 ms of CPU)."""
atexit.register(HTTP.close)  # its kept-alive sockets, left to the collector at exit, were ResourceWarnings;
# closed at the process's exit, not the module's: under xdist a module's tests may come back to a worker later


@pytest.fixture(scope="module")
def timed() -> Iterator[PerplexityEmulator]:
    """Runs that take a moment (so they can be polled, dropped, stalled or cancelled on the way), on a clock the
    requests move (`runs`)."""
    with PerplexityEmulator(api_key=KEY, run_duration=0.6, queue_time=0.1) as emu:
        yield emu


@pytest.fixture(scope="module")
def research() -> Iterator[PerplexityEmulator]:
    """Runs with silent research steps longer than an idle-dropping proxy waits (time-compressed, 2 s long), on a
    clock that jumps to each moment a stream waits for: the silences, and the drops they cause, come in the
    schedule's order whatever the machine's speed, and take no time."""
    with PerplexityEmulator(api_key=KEY, run_duration=2.0, clock=ManualClock(autojump=True)) as emu:
        yield emu


@pytest.fixture
def runs(timed: PerplexityEmulator, quick_client_waits: None) -> Iterator[PerplexityEmulator]:
    """`timed` on a clock of this test's: a stream goes through its silences at once (`autojump`), and each
    request moves the clock 0.3 s, so a polled run is queued when created, under way at the first two polls,
    over at the third (a stream an earlier test left keeps its own clock)."""
    timed.clear()
    timed.clock = ManualClock(autojump=True, per_request=0.3)
    timed.set_fault_rates({})
    yield timed
    timed.set_fault_rates({})
    timed.clear()


@pytest.fixture(scope="module")
def lasting() -> Iterator[PerplexityEmulator]:
    """Runs that go on until the test moves their clock (`running`): a test acting on a run still going is never
    too late, however loaded the machine."""
    with PerplexityEmulator(api_key=KEY, run_duration=2.0, queue_time=0.1) as emu:
        yield emu


@pytest.fixture
def running(lasting: PerplexityEmulator, quick_client_waits: None) -> Iterator[PerplexityEmulator]:
    """`lasting` with a clock of its own for this test, which only the test moves (`advance_once_waited`)."""
    lasting.clear()
    lasting.clock = ManualClock()
    yield lasting
    lasting.clear()


async def call(llm: Any, mode: str, text: str = QUESTION, **kwargs: Any) -> tuple[BaseMessage, list[str]]:
    """The answer as one message, and the text of each chunk (streams; one entry for invoke)."""
    if mode == "invoke":
        message = llm.invoke(text, **kwargs)
        return message, [message.text]
    if mode == "ainvoke":
        message = await llm.ainvoke(text, **kwargs)
        return message, [message.text]
    chunks = list(llm.stream(text, **kwargs)) if mode == "stream" else [c async for c in llm.astream(text, **kwargs)]
    merged: AIMessageChunk = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    return merged, [c.text for c in chunks]


def essentials(message: BaseMessage) -> dict[str, Any]:
    """What a caller reads from an answer: text, content blocks, tool calls, citations, usage."""
    assert isinstance(message, AIMessage)
    return {
        "text": message.text,
        "content": message.content,
        "tool_calls": [(c["name"], c["args"], c["id"]) for c in message.tool_calls],
        "citations": message.additional_kwargs.get("citations"),
        "search_results": message.additional_kwargs.get("search_results"),
        "usage": message.usage_metadata,
        "cost": message.response_metadata.get("cost"),
    }


def kinds(emu: PerplexityEmulator) -> list[str]:
    return [r.kind for r in emu.requests]


def cancel_requests(emu: PerplexityEmulator) -> list[str]:
    return [r.path for r in emu.requests if r.kind == "cancel"]


async def plain(instant: PerplexityEmulator, mode: str, version: str, **kwargs: Any) -> dict[str, Any]:
    """The uninterrupted answer to compare a background or resumed one with, from an emulator without a clock
    (`emu`): the timed ones answer the same, only later."""
    message, _ = await call(make(instant, output_version=version, **kwargs), mode)
    return essentials(message)


# --- background: invoke polls, stream follows -------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
async def test_background_answers_as_the_plain_run_does(
    runs: PerplexityEmulator, emu: PerplexityEmulator, mode: str, version: str
) -> None:
    expected = await plain(emu, mode, version)
    message, _ = await call(make(runs, output_version=version, background=True), mode)
    assert essentials(message) == expected
    assert runs.requests[0].body["background"] is True
    if mode.endswith("invoke"):
        # Polled until final: the create answers `queued`, the first two polls find the run under way (each
        # request moves the clock 0.3 s of the 0.7 s run), the third finds it over.
        assert kinds(runs) == ["create", "retrieve", "retrieve", "retrieve"]
    else:
        assert kinds(runs) == ["create"]  # an unbroken stream needs nothing else


@pytest.mark.parametrize("mode", MODES)
async def test_a_background_run_ending_in_function_calls_answers_with_them(
    runs: PerplexityEmulator, emu: PerplexityEmulator, mode: str
) -> None:
    question = 'Use get_weather for "Paris" and add 2 and 3'
    expected, _ = await call(make(emu).bind_tools([get_weather, add]), mode, question)  # as `plain`
    message, _ = await call(make(runs, background=True).bind_tools([get_weather, add]), mode, question)
    assert {c["name"] for c in message.tool_calls} == {"get_weather", "add"}  # type: ignore[attr-defined]
    calls = [(c["name"], c["args"]) for c in message.tool_calls]  # type: ignore[attr-defined]
    assert calls == [(c["name"], c["args"]) for c in expected.tool_calls]  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
async def test_a_failed_background_run_raises(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("failed"))
    with pytest.raises(PerplexityResponseError, match="failed"):
        await call(make(runs, background=True), mode)


@pytest.mark.parametrize("mode", MODES)
async def test_a_background_run_cancelled_elsewhere_raises(running: PerplexityEmulator, mode: str) -> None:
    def cancel_once_created() -> None:
        while not running.requests:
            threading.Event().wait(0.01)
        response_id = _response_id(running)
        HTTP.post(f"{running.base_url}/v1/responses/{response_id}/cancel")

    canceller = threading.Thread(target=cancel_once_created)
    canceller.start()
    try:
        with pytest.raises(PerplexityResponseError, match="cancelled"):
            await call(make(running, background=True), mode)
    finally:
        canceller.join()


def _response_id(emu: PerplexityEmulator) -> str:
    """The id of the run under way (read from the emulator's run store: no public request shows it yet)."""
    while True:
        live = list(emu._state.runs._runs)
        if live:
            return live[0]
        threading.Event().wait(0.01)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_polling_is_bounded_by_timeout_and_cancels_the_run(mode: str) -> None:
    """`timeout` bounds each request too: 1.5 s leaves a loaded machine time for the create and a first poll."""
    with PerplexityEmulator(api_key=KEY, run_duration=30.0) as emu:
        with pytest.raises(PerplexityRunTimeoutError, match=r"timeout=1\.5") as caught:
            await call(make(emu, background=True, timeout=1.5), mode)
        assert caught.value.response_id and caught.value.status == "in_progress"
        assert kinds(emu)[0] == "create" and kinds(emu)[-1] == "cancel"
        assert cancel_requests(emu) == [f"/v1/responses/{caught.value.response_id}/cancel"]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_a_run_forgotten_while_polled_raises_typed_and_is_left_alone(
    running: PerplexityEmulator, mode: str
) -> None:
    """The run lasts 2 s: its first poll finds it pending, so the next one finds it forgotten."""

    def forget_once_polled() -> None:
        while "retrieve" not in kinds(running):
            threading.Event().wait(0.01)
        running.clear()

    forgetter = threading.Thread(target=forget_once_polled)
    forgetter.start()
    try:
        with pytest.raises(PerplexityResumeError, match="HTTP 404"):
            await call(make(running, background=True), mode)
    finally:
        forgetter.join()
    assert "create" not in kinds(running) and cancel_requests(running) == []


# --- resumed streams ----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", STREAMS)
@pytest.mark.usefixtures("quick_client_waits")  # resumes after idle ones in a row wait 0.01 s, doubling
async def test_idle_drops_are_resumed_into_one_stream(
    research: PerplexityEmulator, emu: PerplexityEmulator, mode: str, version: str
) -> None:
    research.clear()
    research.clock = ManualClock(autojump=True)  # this test's own
    expected = await plain(emu, mode, version)
    # Every connection behind a proxy dropping it after 0.2 s of silence: 4 of the run's silences are longer, one
    # over 0.4 s (its resumed connection dropped too, before any event, and resumed from the same event again).
    research.set_fault_rates({Fault("idle_drop", seconds=0.2): 1.0})
    try:
        message, texts = await call(make(research, output_version=version, background=True), mode)
    finally:
        research.set_fault_rates({})
    assert essentials(message) == expected
    assert "".join(texts) == expected["text"]  # no text twice, none lost
    assert kinds(research).count("create") == 1  # never posted again
    resumes = message.response_metadata["resumes"]
    assert resumes and {r["reason"] for r in resumes} == {"ended before the terminal event"}
    afters = [r["starting_after"] for r in resumes]
    assert afters == sorted(afters) and len(set(afters)) < len(afters)


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_reset_mid_stream_is_resumed_after_the_last_event(
    runs: PerplexityEmulator, emu: PerplexityEmulator, mode: str
) -> None:
    expected = await plain(emu, mode, "v0")
    runs.inject(Fault("reset", after_events=5))
    message, texts = await call(make(runs, background=True), mode)
    assert essentials(message) == expected and "".join(texts) == expected["text"]
    assert message.response_metadata["resumes"] == [{"starting_after": 5, "reason": "connection broken"}]
    assert kinds(runs) == ["create", "resume"] and "starting_after=5" in runs.requests[1].query


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", STREAMS)
async def test_a_stall_triggers_the_resume(emu: PerplexityEmulator, mode: str, version: str) -> None:
    """The stall follows the first event, which comes with the head (the emulator has no clock here): no silence
    before it can be a loaded machine's; one after it only adds resumes."""
    expected = await plain(emu, mode, version)
    emu.clear()
    emu.inject(Fault("stall", seconds=2.0, after_events=1))
    message, texts = await call(make(emu, output_version=version, background=True, stream_chunk_timeout=0.2), mode)
    assert essentials(message) == expected and "".join(texts) == expected["text"]
    # after the first event, numbered 0 as the live API numbers them
    assert message.response_metadata["resumes"][0] == {"starting_after": 0, "reason": "stall"}
    assert kinds(emu).count("create") == 1


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_plain_stream_is_resumed_where_the_server_allows(
    runs: PerplexityEmulator, emu: PerplexityEmulator, mode: str
) -> None:
    expected = await plain(emu, mode, "v0")
    runs.inject(Fault("reset", after_events=5))
    message, texts = await call(make(runs), mode)
    assert essentials(message) == expected and "".join(texts) == expected["text"]
    assert kinds(runs) == ["create", "resume"]


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_plain_stream_the_server_will_not_resume_raises_typed(mode: str) -> None:
    clock = ManualClock(autojump=True)  # a run on a clock, through in no time
    with PerplexityEmulator(api_key=KEY, run_duration=0.3, resumable_streams=False, clock=clock) as emu:
        emu.inject(Fault("reset", after_events=5))
        with pytest.raises(PerplexityResumeError, match="background=True") as caught:
            await call(make(emu), mode)
        assert caught.value.sequence_number == 5 and caught.value.response_id
        assert kinds(emu) == ["create", "resume"]


@pytest.mark.parametrize("mode", STREAMS)
@pytest.mark.parametrize("fault", [Fault("reset", after_events=0), Fault("cut_stream", after_events=0)])
async def test_a_break_before_the_run_has_an_id_is_not_reposted(
    runs: PerplexityEmulator, mode: str, fault: Fault
) -> None:
    runs.inject(fault)
    with pytest.raises(PerplexityStreamError, match="it was not posted again"):
        await call(make(runs, background=True), mode)
    assert kinds(runs) == ["create"]


class _ForgetRuns(BaseCallbackHandler):
    """On the first token, the emulator forgets its runs (as a server past its retention would) and its log."""

    def __init__(self, emu: PerplexityEmulator) -> None:
        self.emu = emu
        self.done = False

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        if not self.done:
            self.done = True
            self.emu.clear()


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_run_the_server_forgot_raises_typed(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("reset", after_events=5))
    with pytest.raises(PerplexityResumeError, match="HTTP 404") as caught:
        await call(make(runs, background=True), mode, config={"callbacks": [_ForgetRuns(runs)]})
    assert caught.value.sequence_number == 5
    assert kinds(runs) == ["resume"]  # after the emulator forgot everything: one resume, no create


@pytest.mark.parametrize("mode", STREAMS)
async def test_the_resume_limit_raises_typed(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("reset", after_events=5), *[Fault("server_error", status=503)] * 3)
    with pytest.raises(PerplexityResumeError, match=r"max_resumes=2") as caught:
        await call(make(runs, background=True, max_resumes=2, max_retries=0), mode)
    assert caught.value.sequence_number == 5
    assert kinds(runs).count("create") == 1 and kinds(runs).count("resume") == 2
    assert cancel_requests(runs) == []  # a call that failed leaves its run to finish (the error names it)


@pytest.mark.parametrize("mode", STREAMS)
async def test_resuming_can_be_turned_off(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("reset", after_events=5))
    with pytest.raises(PerplexityResumeError, match=r"resuming is off \(max_resumes=0\)") as caught:
        await call(make(runs, background=True, max_resumes=0), mode)
    assert caught.value.sequence_number == 5
    assert kinds(runs) == ["create"]  # not resumed, and the run left to finish


# --- cancellation -------------------------------------------------------------------------------------


def test_closing_a_background_stream_early_cancels_the_run(running: PerplexityEmulator) -> None:
    stream = make(running, background=True).stream(QUESTION)
    with advance_once_waited(running, 1.0):
        next(stream)  # the first chunk comes 0.8 s into the 2.1 s run, and the clock stops at 1 s
    stream.close()
    assert len(cancel_requests(running)) == 1
    assert _status(running, cancel_requests(running)[0]) == "cancelled"


def test_a_keyboard_interrupt_in_a_sync_stream_cancels_the_run(running: PerplexityEmulator) -> None:
    class Interrupt(BaseCallbackHandler):
        raise_error = True

        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), advance_once_waited(running, 1.0):
        for _ in make(running, background=True).stream(QUESTION, config={"callbacks": [Interrupt()]}):
            pass
    assert len(cancel_requests(running)) == 1
    assert _status(running, cancel_requests(running)[0]) == "cancelled"


def test_a_keyboard_interrupt_while_polling_cancels_the_run(running: PerplexityEmulator) -> None:
    def interrupt_once_polled() -> None:
        while "retrieve" not in kinds(running):
            threading.Event().wait(0.01)
        _thread.interrupt_main()  # what Ctrl-C does

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # ignored in a `make test &` shell
    interrupter = threading.Thread(target=interrupt_once_polled)
    interrupter.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            make(running, background=True).invoke(QUESTION)
    finally:
        interrupter.join()
        signal.signal(signal.SIGINT, previous)
    assert len(cancel_requests(running)) == 1
    assert _status(running, cancel_requests(running)[0]) == "cancelled"


async def test_closing_a_background_async_stream_early_cancels_the_run(running: PerplexityEmulator) -> None:
    stream = make(running, background=True).astream(QUESTION)
    with advance_once_waited(running, 1.0):
        await anext(stream)
    await stream.aclose()
    # LangChain's astream does not close the model's own generator: asyncio's finalizer does, a moment later.
    while not cancel_requests(running):
        await asyncio.sleep(0.01)
    assert len(cancel_requests(running)) == 1
    assert _status(running, cancel_requests(running)[0]) == "cancelled"


@pytest.mark.parametrize("mode", ["ainvoke", "astream"])
async def test_a_cancelled_task_cancels_the_run(running: PerplexityEmulator, mode: str) -> None:
    started = asyncio.Event()

    class Started(BaseCallbackHandler):
        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            started.set()

    llm = make(running, background=True, streaming=mode == "astream")
    with advance_once_waited(running, 1.0):  # a stream's first token; a polled run is polled, never over
        task = asyncio.create_task(llm.ainvoke(QUESTION, config={"callbacks": [Started()]}))
        while not (started.is_set() or "retrieve" in kinds(running)):
            await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # Cancelled between two chunks, the stream generator is closed by asyncio's finalizer a moment later.
    while not cancel_requests(running):
        await asyncio.sleep(0.01)
    assert len(cancel_requests(running)) == 1
    assert _status(running, cancel_requests(running)[0]) == "cancelled"


def test_a_matched_stop_cancels_the_rest_of_a_background_run(emu: PerplexityEmulator) -> None:
    """The run's stream arrives an event per read: over a socket, a loaded machine may read the stop and the
    terminal event together, and a run whose end has arrived is not cancelled (the cancel goes to the server)."""
    llm = make(emu, background=True)
    reads = recorded_reads(llm, QUESTION)["one event per read"]
    replay(llm, reads)
    text = "".join(c.text for c in llm.stream(QUESTION, stop=["sources"]))
    assert "sources" not in text
    run_id = json.loads(reads[0].removeprefix(b"data: "))["response"]["id"]
    assert cancel_requests(emu) == [f"/v1/responses/{run_id}/cancel"]


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_finished_or_plain_stream_sends_no_cancel(runs: PerplexityEmulator, mode: str) -> None:
    await call(make(runs, background=True), mode)
    stream = make(runs).stream(QUESTION)
    next(stream)
    stream.close()
    assert cancel_requests(runs) == []


def _status(emu: PerplexityEmulator, cancel_path: str) -> str:
    path = cancel_path.removesuffix("/cancel")
    answer = HTTP.get(emu.base_url + path).json()
    return str(answer["status"])


def test_chat_perplexity_strict_exports_the_long_run_errors() -> None:
    assert issubclass(PerplexityResumeError, PerplexityStreamError)
    assert issubclass(PerplexityRunTimeoutError, TimeoutError)
    assert ChatPerplexityStrict.model_fields["stream_chunk_timeout"].default == 120.0
