"""A caller who leaves at any moment a billed background run may exist gets that run cancelled on the server.

Perplexity bills a background run from its create on (docs.perplexity.ai, Background Mode), and the
only handle to cancel it by, `POST /v1/responses/{id}/cancel`, is the id its create's answer brings. Each
test leaves at one moment, chosen by what the emulator has received (a `hold` fault keeps an answer back
until `release()`, so the leaving happens while it is on its way, not at a time a clock guesses), then
checks the server saw one cancel per run, each naming that run, and each run ended `cancelled`.

The moments, each for both call kinds (`background=True` invoke and stream), sync and async:

Sync calls leave by Ctrl-C (tests named `test_ctrl_c_...`), async ones by their task cancelled
(`test_leaving_...`). The moments, and the tests' names after that prefix:

- the create in flight (its answer, with the run's id, not back yet):
  `..._while_the_create_is_answered_cancels_its_run`;
- between the create and the first event (a stream's head in, its `response.created` not):
  `..._between_the_streams_head_and_its_first_event_cancels_its_run`;
- the first poll in flight: `..._during_the_first_poll_cancels_the_run` (invoke);
- a resume in flight (`GET ?stream=true&starting_after=N`): `..._during_a_resume_cancels_the_run` (stream);
- the generator closed (`break` out of stream / astream): `test_breaking_out_of_a(n)_(a)stream_cancels_the_run`;
- the create in flight inside `abatch`, its task cancelled:
  `test_cancelling_abatch_while_its_creates_are_answered_cancels_every_run`;
- the create in flight inside sync `batch`, or an invoke's `n` answers (threads), Ctrl-C:
  `test_ctrl_c_in_a_sync_batch_cancels_every_run`;
- every run under way in a sync batch's threads (`batch`, `batch_as_completed`, through `bind` and
  `configurable_fields`, `n` answers; polled, streamed, plain streams), Ctrl-C however it comes (a signal to the
  thread or the process, `_thread.interrupt_main()`): `test_ctrl_c_however_it_comes_reaches_every_thread_of_...`;
- the create in flight under `asyncio.wait_for` or `asyncio.timeout`:
  `test_a_timeout_around_the_call_while_the_create_is_answered_cancels_its_run`;
- the create in flight in `with_fallbacks` (the first model left, the fallback not tried):
  `..._a_model_with_fallbacks_while_the_create_is_answered_cancels_its_run`;
- the create in flight as `asyncio.run` ends (it cancels the task left):
  `test_asyncio_run_ending_while_the_create_is_answered_cancels_its_run`;
- the client `timeout` passing while a poll is in flight:
  `test_the_client_timeout_passing_during_a_poll_cancels_the_run`;
- the create in flight, for every way a call becomes a background one (the constructor, a call's argument,
  `model_copy`, `init_chat_model`, `configurable_fields`; `model_kwargs={"background": True}` is refused
  before anything is sent, as a parameter's field in `model_kwargs` is):
  `..._while_the_create_is_answered_cancels_its_run_however_the_call_is_made`;
- the client `timeout` passing before the create is answered:
  `test_a_create_unanswered_within_the_client_timeout_is_cancelled` (not fixed: a strict xfail).
"""

from __future__ import annotations

import _thread
import asyncio
import atexit
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from langchain.chat_models import init_chat_model
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import ConfigurableField, Runnable

from langchain_perplexity_strict._transport._guard import CALLER_LEFT
from langchain_perplexity_strict.errors import PerplexityRunTimeoutError, PerplexityRunUnknownError
from langchain_perplexity_strict.testing import Fault, ManualClock, PerplexityEmulator
from tests.integration_tests.clocks import advance_once_waited
from tests.integration_tests.factory import KEY, make

QUESTION = "Why is the sky blue?"
SYNC = ["invoke", "stream"]
ASYNC = ["ainvoke", "astream"]
STREAMED: dict[str, dict[str, Any]] = {
    "invoke": {"streaming": True},
    "ainvoke": {"streaming": True},
    "stream": {},
    "astream": {},
}
"""A stream for every mode: invoke streams with `streaming=True` (an explicit False would make `stream` invoke)."""
HTTP = httpx.Client(headers={"Authorization": f"Bearer {KEY}"})
atexit.register(HTTP.close)  # its kept-alive sockets, left to the collector at exit, were ResourceWarnings;
# closed at the process's exit, not the module's: under xdist a module's tests may come back to a worker later


WAIT = 30.0
"""Seconds a test waits, at most, for what the server must see (a bound for a stuck test, never a pace)."""


@pytest.fixture(scope="module")
def lasting() -> Iterator[PerplexityEmulator]:
    """Runs of ten minutes: still going when the client's cancel comes, however loaded the machine (runs of
    2 s once let a client paused long enough, between the create's answer and its cancel, find a run over)."""
    with PerplexityEmulator(api_key=KEY, run_duration=600.0, queue_time=0.1) as emu:
        yield emu


@pytest.fixture(scope="module")
def flowing_runs() -> Iterator[PerplexityEmulator]:
    """Runs of 2 s, for the tests that read a run's text before leaving it (its first text comes near its
    end: `testing.runs` schedules text after the slow steps), on a clock the test moves (`flowing`)."""
    with PerplexityEmulator(api_key=KEY, run_duration=2.0, queue_time=0.1) as emu:
        yield emu


@pytest.fixture
def flowing(flowing_runs: PerplexityEmulator) -> Iterator[PerplexityEmulator]:
    """A clock of this test's, moved 1 s once the run's stream waits on it: its first text goes out, and the run
    goes on no further, so it is still going when the caller leaves, however loaded the machine."""
    flowing_runs.clear()
    flowing_runs.clock = ManualClock()
    with advance_once_waited(flowing_runs, 1.0):
        yield flowing_runs
    flowing_runs.clear()


@pytest.fixture
def emu(lasting: PerplexityEmulator, quick_client_waits: None) -> Iterator[PerplexityEmulator]:
    """`lasting`, with the client's poll pauses cut (the moments that matter are the held answers)."""
    lasting.clear()
    yield lasting
    lasting.clear()  # also releases what a failed test left held


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler (a shell running the tests in the background ignores SIGINT)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def run_ids(emu: PerplexityEmulator) -> list[str]:
    """The runs the emulator started (its run store: the id the client alone was told)."""
    return list(emu._state.runs._runs)


def cancels(emu: PerplexityEmulator) -> list[str]:
    return [r.path for r in emu.requests if r.kind == "cancel"]


def status(emu: PerplexityEmulator, run_id: str) -> str:
    return str(HTTP.get(f"{emu.base_url}/v1/responses/{run_id}").json()["status"])


def assert_every_run_cancelled(emu: PerplexityEmulator, runs: int = 1) -> None:
    """One cancel per run the server started, naming it, and each run ended cancelled."""
    ids = run_ids(emu)
    assert len(ids) == runs
    assert sorted(cancels(emu)) == sorted(f"/v1/responses/{run_id}/cancel" for run_id in ids)
    assert [status(emu, run_id) for run_id in ids] == ["cancelled"] * runs


async def cancelled_soon(emu: PerplexityEmulator, runs: int = 1) -> None:
    """Wait until the server has seen `runs` cancels (an async caller's cancel goes out after it left)."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while len(cancels(emu)) < runs and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    assert_every_run_cancelled(emu, runs)


def cancelled_by_threads(emu: PerplexityEmulator, runs: int) -> None:
    """Wait until the server has seen `runs` cancels: a Ctrl-C that Python runs in the main thread while the
    executor joins its threads ends the join, and the threads' cancels go out as the batch's error leaves."""
    deadline = time.monotonic() + WAIT
    while len(cancels(emu)) < runs and time.monotonic() < deadline:
        time.sleep(0.01)
    assert_every_run_cancelled(emu, runs)


def press_ctrl_c_once_held(emu: PerplexityEmulator, count: int = 1) -> threading.Thread:
    """Press Ctrl-C (SIGINT to the main thread) once the emulator holds `count` answers, then let them go."""
    main = threading.main_thread().ident
    assert main is not None

    def press() -> None:
        assert emu.wait_holding(count, WAIT)
        signal.pthread_kill(main, signal.SIGINT)
        emu.release()

    presser = threading.Thread(target=press)
    presser.start()
    return presser


def call_sync(llm: Runnable[Any, Any], mode: str) -> None:
    if mode == "invoke":
        llm.invoke(QUESTION)
    else:
        for _ in llm.stream(QUESTION):
            pass


async def call_async(llm: Runnable[Any, Any], mode: str) -> None:
    if mode == "ainvoke":
        await llm.ainvoke(QUESTION)
    else:
        async for _ in llm.astream(QUESTION):
            pass


def leave_sync(emu: PerplexityEmulator, llm: Runnable[Any, Any], mode: str) -> None:
    """Ctrl-C during the call once the emulator holds an answer."""
    presser = press_ctrl_c_once_held(emu)
    try:
        with pytest.raises(KeyboardInterrupt):
            call_sync(llm, mode)
    finally:
        presser.join()


async def leave_async(emu: PerplexityEmulator, llm: Runnable[Any, Any], mode: str, count: int = 1) -> None:
    """Cancel the call's task once the emulator holds `count` answers, then let them go."""
    task = asyncio.ensure_future(call_async(llm, mode))
    assert await asyncio.to_thread(emu.wait_holding, count, WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    emu.release()


# --- the create in flight ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", SYNC)
def test_ctrl_c_while_the_create_is_answered_cancels_its_run(
    emu: PerplexityEmulator, ctrl_c: None, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Ctrl-C is held until the create's answer names the run, which is then cancelled, and raised; the wait
    is said (a caller pressing Ctrl-C sees why the program has not stopped yet, and how to stop it now)."""
    emu.inject(Fault("hold"))
    leave_sync(emu, make(emu, background=True), mode)
    assert_every_run_cancelled(emu)
    assert [r.getMessage() for r in caplog.records if r.name.startswith("langchain_perplexity_strict")] == [
        "Ctrl-C: waiting for the answer naming the Perplexity run, to cancel it (Ctrl-C again: leave now)"
    ]


@pytest.mark.parametrize("mode", ASYNC)
async def test_leaving_while_the_create_is_answered_cancels_its_run(emu: PerplexityEmulator, mode: str) -> None:
    """The task is cancelled at once; the create's answer is read on, and its run cancelled."""
    emu.inject(Fault("hold"))
    await leave_async(emu, make(emu, background=True), mode)
    await cancelled_soon(emu)


# --- between the create and the first event -------------------------------------------------------------


@pytest.mark.parametrize("mode", SYNC)
def test_ctrl_c_between_the_streams_head_and_its_first_event_cancels_its_run(
    emu: PerplexityEmulator, ctrl_c: None, mode: str
) -> None:
    """The stream's head is in, its first event (`response.created`, the run's id) held back."""
    emu.inject(Fault("hold_stream", after_events=0))
    leave_sync(emu, make(emu, background=True, **STREAMED[mode]), mode)
    assert_every_run_cancelled(emu)


@pytest.mark.parametrize("mode", ASYNC)
async def test_leaving_between_the_streams_head_and_its_first_event_cancels_its_run(
    emu: PerplexityEmulator, mode: str
) -> None:
    emu.inject(Fault("hold_stream", after_events=0))
    await leave_async(emu, make(emu, background=True, **STREAMED[mode]), mode)
    await cancelled_soon(emu)


# --- the first poll, a resume -----------------------------------------------------------------------------


def test_ctrl_c_during_the_first_poll_cancels_the_run(emu: PerplexityEmulator, ctrl_c: None) -> None:
    emu.inject(Fault("delay", seconds=0.0), Fault("hold"))  # the create answered at once, the first poll held
    leave_sync(emu, make(emu, background=True), "invoke")
    assert_every_run_cancelled(emu)


async def test_leaving_during_the_first_poll_cancels_the_run(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("delay", seconds=0.0), Fault("hold"))
    await leave_async(emu, make(emu, background=True), "ainvoke")
    await cancelled_soon(emu)


def test_ctrl_c_during_a_resume_cancels_the_run(emu: PerplexityEmulator, ctrl_c: None) -> None:
    emu.inject(Fault("reset", after_events=1), Fault("hold"))  # the stream breaks once the run is named, its
    # resume is held
    leave_sync(emu, make(emu, background=True), "stream")
    assert [r.kind for r in emu.requests][:2] == ["create", "resume"]
    assert_every_run_cancelled(emu)


async def test_leaving_during_a_resume_cancels_the_run(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("reset", after_events=1), Fault("hold"))
    await leave_async(emu, make(emu, background=True), "astream")
    assert [r.kind for r in emu.requests][:2] == ["create", "resume"]
    await cancelled_soon(emu)


# --- the generator closed ---------------------------------------------------------------------------------


def test_breaking_out_of_a_stream_cancels_the_run(flowing: PerplexityEmulator) -> None:
    for _ in make(flowing, background=True).stream(QUESTION):
        break
    assert_every_run_cancelled(flowing)


async def test_breaking_out_of_an_astream_cancels_the_run(flowing: PerplexityEmulator) -> None:
    stream = make(flowing, background=True).astream(QUESTION)
    async for _ in stream:
        break
    await stream.aclose()  # the cancel is sent before aclose returns
    assert_every_run_cancelled(flowing)


# --- batches ----------------------------------------------------------------------------------------------


async def test_cancelling_abatch_while_its_creates_are_answered_cancels_every_run(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("hold"), Fault("hold"))
    task = asyncio.ensure_future(make(emu, background=True).abatch(["Why is the sky blue?", "Why is grass green?"]))
    assert await asyncio.to_thread(emu.wait_holding, 2, WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    emu.release()
    await cancelled_soon(emu, runs=2)


@pytest.mark.parametrize("threads", ["batch", "n=2"])
def test_ctrl_c_in_a_sync_batch_cancels_every_run(emu: PerplexityEmulator, ctrl_c: None, threads: str) -> None:
    """Ctrl-C reaches the main thread alone; the worker threads (langchain-core's `batch`, or the model's own
    for `n` answers) learn the caller left, and cancel their runs, instead of reading them to their end."""
    emu.inject(Fault("hold"), Fault("hold"))
    presser = press_ctrl_c_once_held(emu, 2)
    try:
        with pytest.raises(KeyboardInterrupt):
            if threads == "batch":
                make(emu, background=True).batch(["Why is the sky blue?", "Why is grass green?"])
            else:
                make(emu, background=True, n=2).invoke(QUESTION)
    finally:
        presser.join()
    # Wait (bounded) for both cancels, as the async tests do: once in about six full runs, a clean clone's
    # run saw only one cancel when the main thread raised. Whether the second was late or never sent is not
    # known yet; if never sent, this still fails.
    deadline = time.monotonic() + WAIT
    while len(cancels(emu)) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert_every_run_cancelled(emu, runs=2)


@pytest.mark.parametrize("threads", ["batch", "n=2"])
def test_ctrl_c_in_a_sync_batch_whose_runs_are_polled_cancels_every_run(
    emu: PerplexityEmulator, ctrl_c: None, threads: str
) -> None:
    """Ctrl-C once every worker thread has its run's id and polls it (the moment a main thread slow to run its
    handler gives: the threads learn the caller left in a poll's pause, and cancel there)."""
    main = threading.main_thread().ident
    assert main is not None

    def press_once_polled() -> None:
        deadline = time.monotonic() + WAIT
        while len({r.path for r in emu.requests if r.kind == "retrieve"}) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        signal.pthread_kill(main, signal.SIGINT)

    presser = threading.Thread(target=press_once_polled)
    presser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            if threads == "batch":
                make(emu, background=True).batch(["Why is the sky blue?", "Why is grass green?"])
            else:
                make(emu, background=True, n=2).invoke(QUESTION)
    finally:
        presser.join()
    assert_every_run_cancelled(emu, runs=2)


# --- timeouts, fallbacks, asyncio.run's end ---------------------------------------------------------------


@pytest.mark.parametrize("mode", ASYNC)
@pytest.mark.parametrize("around", ["asyncio.timeout", "asyncio.wait_for"])
async def test_a_timeout_around_the_call_while_the_create_is_answered_cancels_its_run(
    emu: PerplexityEmulator, mode: str, around: str
) -> None:
    """`asyncio.timeout` is moved to now once the create is held; `wait_for` is given the call's task once the
    create is held (as `wait_for` wraps a coroutine in a task itself), with a bound that then fires at once."""
    emu.inject(Fault("hold"))
    llm = make(emu, background=True)
    if around == "asyncio.timeout":
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(None) as bound:
                task = asyncio.ensure_future(call_async(llm, mode))
                assert await asyncio.to_thread(emu.wait_holding, 1, WAIT)
                bound.reschedule(asyncio.get_running_loop().time())
                await task
    else:
        task = asyncio.ensure_future(call_async(llm, mode))
        assert await asyncio.to_thread(emu.wait_holding, 1, WAIT)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(task, 0.01)
        assert emu.holding == 1  # the create's answer was on its way when the timeout fired
    emu.release()
    await cancelled_soon(emu)


@pytest.mark.parametrize("mode", SYNC)
def test_ctrl_c_in_a_model_with_fallbacks_while_the_create_is_answered_cancels_its_run(
    emu: PerplexityEmulator, ctrl_c: None, mode: str
) -> None:
    """The first model is left; the fallback is not tried (Ctrl-C is no error to fall back from)."""
    emu.inject(Fault("hold"))
    leave_sync(emu, make(emu, background=True).with_fallbacks([make(emu)]), mode)
    assert [r.kind for r in emu.requests].count("create") == 1
    assert_every_run_cancelled(emu)


@pytest.mark.parametrize("mode", ASYNC)
async def test_leaving_a_model_with_fallbacks_while_the_create_is_answered_cancels_its_run(
    emu: PerplexityEmulator, mode: str
) -> None:
    emu.inject(Fault("hold"))
    await leave_async(emu, make(emu, background=True).with_fallbacks([make(emu)]), mode)
    await cancelled_soon(emu)
    assert [r.kind for r in emu.requests].count("create") == 1


@pytest.mark.parametrize("mode", ASYNC)
def test_asyncio_run_ending_while_the_create_is_answered_cancels_its_run(emu: PerplexityEmulator, mode: str) -> None:
    """The call's task is left running: `asyncio.run` cancels it as it ends, and the held create is let go
    only then (once that task is done), so the answer arrives after the caller was cancelled."""

    async def main() -> None:
        emu.inject(Fault("hold"))
        task = asyncio.ensure_future(call_async(make(emu, background=True), mode))
        task.add_done_callback(lambda _: emu.release())
        assert await asyncio.to_thread(emu.wait_holding, 1, WAIT)

    asyncio.run(main())
    assert_every_run_cancelled(emu)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_the_client_timeout_passing_during_a_poll_cancels_the_run(emu: PerplexityEmulator, mode: str) -> None:
    """The first poll is held past `timeout` (which bounds each request, and the whole wait)."""
    emu.inject(Fault("delay", seconds=0.0), Fault("hold"))
    llm = make(emu, background=True, timeout=1.0)
    with pytest.raises(PerplexityRunTimeoutError):
        if mode == "invoke":
            llm.invoke(QUESTION)
        else:
            await llm.ainvoke(QUESTION)
    emu.release()
    assert_every_run_cancelled(emu)


@pytest.mark.xfail(
    strict=True,
    reason="not fixed: the create's own read timeout is the client's timeout, so when it passes the connection "
    "is closed and the answer naming the run is never read",
)
def test_a_create_unanswered_within_the_client_timeout_is_cancelled(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("hold"))
    with pytest.raises(PerplexityRunUnknownError):
        make(emu, background=True, timeout=0.5).invoke(QUESTION)
    emu.release()
    assert_every_run_cancelled(emu)


# --- every way a call becomes a background one ------------------------------------------------------------


def _entry(emu: PerplexityEmulator, way: str) -> Runnable[Any, Any]:
    """A background call to the model, as `way` makes it one."""
    if way == "constructor":
        return make(emu, background=True)
    if way == "call argument":
        return make(emu).bind(background=True)  # what `invoke(..., background=True)` passes, as a bound kwarg
    if way == "model_copy":
        return make(emu).model_copy(update={"background": True})
    if way == "init_chat_model":
        return init_chat_model(
            "perplexity_strict:perplexity/sonar", api_key=KEY, base_url=emu.base_url, background=True
        )
    configurable = init_chat_model(
        "perplexity_strict:perplexity/sonar", api_key=KEY, base_url=emu.base_url, configurable_fields=("background",)
    )
    return configurable.with_config(configurable={"background": True})


WAYS = ["constructor", "call argument", "model_copy", "init_chat_model", "configurable_fields"]


def test_background_through_model_kwargs_is_refused_before_any_run_exists(emu: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match=r"model_kwargs\['background'\].*background="):
        make(emu, model_kwargs={"background": True})
    assert not emu.requests


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("mode", ASYNC)
async def test_leaving_while_the_create_is_answered_cancels_its_run_however_the_call_is_made(
    emu: PerplexityEmulator, mode: str, way: str
) -> None:
    emu.inject(Fault("hold"))
    await leave_async(emu, _entry(emu, way), mode)
    assert emu.requests[0].body["background"] is True
    await cancelled_soon(emu)


@pytest.mark.parametrize("way", WAYS)
def test_ctrl_c_while_the_create_is_answered_cancels_its_run_however_the_call_is_made(
    emu: PerplexityEmulator, ctrl_c: None, way: str
) -> None:
    emu.inject(Fault("hold"))
    leave_sync(emu, _entry(emu, way), "invoke")
    assert emu.requests[0].body["background"] is True
    assert_every_run_cancelled(emu)


# --- the emulator's hold, which the tests above lean on ---------------------------------------------------


def test_a_held_create_is_recorded_at_once_and_starts_its_run_only_when_released(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("hold"))
    body = {"model": "perplexity/sonar", "input": QUESTION, "background": True}
    answers: list[httpx.Response] = []
    poster = threading.Thread(target=lambda: answers.append(HTTP.post(f"{emu.base_url}/v1/responses", json=body)))
    poster.start()
    assert emu.wait_holding(1, WAIT)
    assert [r.kind for r in emu.requests] == ["create"] and run_ids(emu) == [] and answers == []
    emu.release()
    poster.join()
    assert emu.holding == 0
    assert answers[0].json()["status"] == "queued" and run_ids(emu) == [answers[0].json()["id"]]


# --- Ctrl-C in the hand-over: the run's id known, the code that cancels it on leaving not yet running -------


def _press_within(target: Any, name: str, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make `target.name` press Ctrl-C (once) as it starts: a moment chosen by the code, not by a clock.

    `signal.raise_signal` runs the Python handler before it returns, so the Ctrl-C lands exactly there."""
    original = getattr(target, name)
    pressed: list[int] = []

    def pressing(*args: Any, **kwargs: Any) -> Any:
        if not pressed:
            pressed.append(1)
            signal.raise_signal(signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, pressing)
    return pressed


@pytest.mark.parametrize("mode", SYNC)
def test_ctrl_c_as_the_created_run_is_handed_over_cancels_it(
    emu: PerplexityEmulator, ctrl_c: None, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C right after the create's answer named the run, before the poll loop (invoke) or the stream's
    reader (stream) is on its way: the guard has let Ctrl-C through again, and the run is still cancelled."""
    from langchain_perplexity_strict import chat_models
    from langchain_perplexity_strict._transport import _poll

    pressed = (
        _press_within(_poll.Poll, "__init__", monkeypatch)
        if mode == "invoke"
        else _press_within(chat_models.ChatPerplexityStrict, "_answer", monkeypatch)
    )
    with pytest.raises(KeyboardInterrupt):
        call_sync(make(emu, background=True), mode)
    assert pressed == [1]
    assert_every_run_cancelled(emu)


# --- Ctrl-C however it comes, in every sync batch ---------------------------------------------------------

RUN = 600.0
"""Seconds a run of `on_the_test_clock` takes, on a clock that moves only as the test (or a poll) moves it."""
INPUTS = ["Why is the sky blue?", "Why is grass green?", "Why is the sea salty?"]
DELIVERIES = {
    "SIGINT": lambda: signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT),
    "os.kill": lambda: os.kill(os.getpid(), signal.SIGINT),
    "interrupt_main": _thread.interrupt_main,
}
"""How Ctrl-C reaches the process: a signal to the main thread or to the process, or `_thread.interrupt_main()`
(IDEs, debuggers), which sends no signal: the main thread, blocked waiting for its batch, runs no handler."""
EFFORT = ConfigurableField(id="effort")
BATCHES: dict[str, Callable[[Any, dict[str, Any]], Any]] = {
    "batch": lambda llm, config: llm.batch(INPUTS, config),
    "batch(return_exceptions=True)": lambda llm, config: llm.batch(INPUTS, config, return_exceptions=True),
    "batch_as_completed": lambda llm, config: list(llm.batch_as_completed(INPUTS, config)),
    "batch_as_completed(return_exceptions=True)": lambda llm, config: list(
        llm.batch_as_completed(INPUTS, config, return_exceptions=True)
    ),
    "bind().batch_as_completed": lambda llm, config: list(llm.bind(effort="low").batch_as_completed(INPUTS, config)),
    "configurable_fields().batch": lambda llm, config: llm.configurable_fields(effort=EFFORT).batch(
        INPUTS, {**config, "configurable": {"effort": "low"}}
    ),
    "configurable_fields().batch_as_completed": lambda llm, config: list(
        llm.configurable_fields(effort=EFFORT).batch_as_completed(INPUTS, {**config, "configurable": {"effort": "low"}})
    ),
}
MODES = {
    "background": {"background": True},  # polled
    "background stream": {"background": True, "streaming": True},
    "plain stream": {"streaming": True},
}


@pytest.fixture(scope="module")
def long_runs() -> Iterator[PerplexityEmulator]:
    with PerplexityEmulator(api_key=KEY, run_duration=RUN) as emu:
        yield emu


@pytest.fixture
def on_the_test_clock(long_runs: PerplexityEmulator, quick_client_waits: None) -> Iterator[PerplexityEmulator]:
    """Runs of `RUN` seconds on a `ManualClock` (streams: moved by `ctrl_c_once_under_way`)."""
    long_runs.clear()
    long_runs.clock = ManualClock()
    yield long_runs
    long_runs.clear()


class ThreadsCallers(BaseCallbackHandler):
    """What each thread of a batch learns its caller's leaving from (`_guard.CALLER_LEFT`), as its run starts."""

    def __init__(self) -> None:
        self.left: list[threading.Event | None] = []

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.left.append(CALLER_LEFT.get())


@contextlib.contextmanager
def ctrl_c_once_under_way(
    emu: PerplexityEmulator, deliver: Callable[[], None], callers: ThreadsCallers | None = None
) -> Iterator[list[str]]:
    """Ctrl-C once the server has every create, and (`callers`: streams) every stream waits for its run's next
    event. Then, once every thread was told its caller left, the clock moves on, 1 s whenever a stream waits, up
    to half the runs' length: each thread leaves at its next event. Yields what went wrong in the thread (a
    thread not told: its stream would wait for ever; after `WAIT` seconds, the runs are ended, and the call)."""
    clock = emu.clock
    assert isinstance(clock, ManualClock)
    over, wrong = threading.Event(), []

    def press() -> None:
        deadline = time.monotonic() + WAIT
        try:
            while sum(r.kind == "create" for r in emu.requests) < len(INPUTS) and time.monotonic() < deadline:
                time.sleep(0.01)
            if callers is not None:
                assert clock.wait_waiting(len(INPUTS), WAIT)
            deliver()
            if callers is None:
                return  # polls: each moves the clock, and a thread told its caller left cancels in its pause
            assert len(callers.left) == len(INPUTS), callers.left
            assert all(left is not None and left.wait(WAIT) for left in callers.left), "a thread was not told"
            while not over.is_set() and time.monotonic() < deadline:
                if clock.now() < RUN / 2 and clock.wait_waiting(1, timeout=0.05):
                    clock.advance(1.0)
            assert over.is_set(), "a thread that was told its caller left read on"
        except AssertionError as error:
            wrong.append(str(error))
        finally:
            if callers is not None and not over.is_set():
                clock.advance(RUN)  # the runs end, and the call

    presser = threading.Thread(target=press)
    presser.start()
    try:
        yield wrong
    finally:
        over.set()
        presser.join()


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("batch", list(BATCHES))
@pytest.mark.parametrize("delivery", list(DELIVERIES))
def test_ctrl_c_however_it_comes_reaches_every_thread_of_a_sync_batch(
    on_the_test_clock: PerplexityEmulator, ctrl_c: None, delivery: str, batch: str, mode: str
) -> None:
    """Each thread leaves with its caller: a background run is cancelled (in a poll's pause, or at its stream's
    next event), a plain stream is closed at its next event; none is read to its end."""
    emu = on_the_test_clock
    callers = ThreadsCallers() if "stream" in mode else None
    if callers is None:  # polled: each request moves the clock 5 s (the runs would end after 120)
        emu.clock = ManualClock(per_request=5.0)
    config: dict[str, Any] = {"callbacks": [callers]} if callers else {}
    with pytest.raises(KeyboardInterrupt), ctrl_c_once_under_way(emu, DELIVERIES[delivery], callers) as wrong:
        BATCHES[batch](make(emu, **MODES[mode]), config)
    assert wrong == []
    if mode == "plain stream":
        assert cancels(emu) == []  # a plain stream is closed, never cancelled by the client
        assert len(run_ids(emu)) == len(INPUTS)
    else:
        cancelled_by_threads(emu, runs=len(INPUTS))


@pytest.mark.parametrize("delivery", list(DELIVERIES))
def test_ctrl_c_however_it_comes_reaches_every_thread_of_an_invokes_n_answers(
    on_the_test_clock: PerplexityEmulator, ctrl_c: None, delivery: str
) -> None:
    on_the_test_clock.clock = ManualClock(per_request=5.0)
    with pytest.raises(KeyboardInterrupt), ctrl_c_once_under_way(on_the_test_clock, DELIVERIES[delivery]) as wrong:
        make(on_the_test_clock, background=True, n=len(INPUTS)).invoke(QUESTION)
    assert wrong == []
    cancelled_by_threads(on_the_test_clock, runs=len(INPUTS))
