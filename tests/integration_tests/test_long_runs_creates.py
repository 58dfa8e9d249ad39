"""Long runs, continued: a run's create is never sent twice once it may have started; settings taken as given;
what the stall timeout bounds, and which setting its error names; a break before the first event said in one
sentence; a failed cancel logged once, its task's error read.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Iterator
from contextlib import closing
from typing import Any
from urllib.parse import parse_qs

import openai
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from pydantic import ValidationError

from langchain_perplexity_strict._transport import _create, _runs
from langchain_perplexity_strict.errors import PerplexityRunUnknownError, PerplexityStreamError
from langchain_perplexity_strict.testing import Fault, ManualClock, PerplexityEmulator
from tests.integration_tests.clocks import advance_once_waited
from tests.integration_tests.factory import make
from tests.integration_tests.reads import recorded_reads, replay
from tests.integration_tests.test_long_runs import MODES, QUESTION, STREAMS, call, kinds

ANSWER = "the sources found agree on the main points [1], and [2] gives the details."
NOT_REPOSTED = "The run may have started, and be billed, but no response id came back to follow it by, so it was not"


@pytest.fixture(scope="module")
def timed() -> Iterator[PerplexityEmulator]:
    with PerplexityEmulator(api_key="test-key", run_duration=0.6, queue_time=0.1) as emu:
        yield emu


@pytest.fixture
def runs(timed: PerplexityEmulator, quick_client_waits: None) -> Iterator[PerplexityEmulator]:
    """0.7 s runs on a clock of this test's that the requests move, as test_long_runs.py's `timed`: a stream goes
    through its silences at once, a polled run is over at the third poll."""
    timed.clear()
    timed.clock = ManualClock(autojump=True, per_request=0.3)
    yield timed
    timed.clear()


def creates(emu: PerplexityEmulator) -> int:
    return kinds(emu).count("create")


# --- finding: a create that may have started a run is not re-posted --------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_create_that_timed_out_is_not_posted_again(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("hold"))  # read, and not answered before the test ends (`clear` lets it go)
    with pytest.raises(PerplexityRunUnknownError, match=r"failed after it was sent \(ReadTimeout") as caught:
        await call(make(runs, background=True, timeout=0.25), mode)
    assert await asyncio.to_thread(runs.wait_holding, 1)  # read and held (not read late, into the next test's log)
    assert NOT_REPOSTED in str(caught.value)
    assert "max_retries=2" in str(caught.value)
    assert kinds(runs) == ["create"]  # no second create, no polling, nothing to cancel


@pytest.mark.parametrize("mode", MODES)
async def test_a_reset_before_the_status_line_is_not_posted_again(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("drop"))
    with pytest.raises(PerplexityRunUnknownError, match=NOT_REPOSTED):
        await call(make(runs, background=True), mode)
    assert creates(runs) == 1


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_a_reset_after_the_headers_is_not_posted_again(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("reset"))  # the 200 status line and headers are sent, then half the body
    with pytest.raises(PerplexityRunUnknownError, match=NOT_REPOSTED):
        await call(make(runs, background=True), mode)
    assert creates(runs) == 1


@pytest.mark.parametrize("mode", MODES)
async def test_a_rate_limited_create_is_sent_again_as_the_server_started_no_run(
    runs: PerplexityEmulator, mode: str
) -> None:
    runs.inject(Fault("rate_limit", seconds=0.1))
    message, _ = await call(make(runs, background=True), mode)
    assert message.text.endswith(ANSWER)
    assert creates(runs) == 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", [500, 503])
async def test_a_server_error_on_create_may_have_started_the_run_and_is_not_posted_again(
    runs: PerplexityEmulator, mode: str, status: int
) -> None:
    runs.inject(Fault("server_error", status=status))
    with pytest.raises(PerplexityRunUnknownError, match=f"HTTP {status}"):
        await call(make(runs, background=True), mode)
    assert creates(runs) == 1


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_plain_agent_stream_is_a_run_the_package_would_resume_so_it_is_not_reposted_either(
    runs: PerplexityEmulator, mode: str
) -> None:
    runs.inject(Fault("server_error", status=503))
    with pytest.raises(PerplexityRunUnknownError, match="HTTP 503"):
        await call(make(runs), mode)
    assert creates(runs) == 1


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.usefixtures("quick_client_retries")
async def test_a_plain_invoke_keeps_the_client_retries(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("server_error", status=503), Fault("drop"))
    message, _ = await call(make(runs), mode)
    assert message.text.endswith(ANSWER)
    assert creates(runs) == 3


def test_a_refused_connection_is_tried_again_as_nothing_was_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The emulator is back once the client has decided to send again (not on a timer a loaded machine may let
    run past the client's last try)."""
    decide = _create.next_delay

    def then_back(error: openai.APIError, attempt: int, max_retries: int) -> float:
        delay = decide(error, attempt, max_retries)  # raises if the create may not be sent again
        emu.start()
        return delay

    with PerplexityEmulator(api_key="test-key") as emu:
        llm = make(emu, background=True)
        emu.stop()  # connections are refused until it is back, on the same port
        monkeypatch.setattr(_create, "next_delay", then_back)
        monkeypatch.setattr(_create, "INITIAL_RETRY_DELAY", 0.02)  # the openai client's 0.5 s: what is sent, not when
        assert llm.invoke(QUESTION).text.endswith(ANSWER)
        assert creates(emu) == 1


def test_a_refusal_past_max_retries_raises_the_refusal(runs: PerplexityEmulator) -> None:
    runs.inject(*[Fault("rate_limit", seconds=0.1)] * 2)
    with pytest.raises(openai.RateLimitError):
        make(runs, background=True, max_retries=1).invoke(QUESTION)
    assert creates(runs) == 2


# --- finding: the long-run settings are taken as given, as per call ---------------------------------


def test_background_is_sent_when_set_at_construction_or_per_call(emulator: PerplexityEmulator) -> None:
    assert make(emulator, background=True).request_body(QUESTION)["background"] is True
    assert make(emulator).request_body(QUESTION, background=True)["background"] is True
    assert "background" not in make(emulator).request_body(QUESTION)


def test_background_is_refused_where_it_cannot_work(emulator: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match=r"background=True is not available on api='chat_completions'"):
        make(emulator, "chat_completions", background=True)
    with pytest.raises(ValueError, match="store=False"):
        make(emulator, background=True, store=False)
    with pytest.raises(ValueError, match="store=False"):
        make(emulator, store=False).invoke(QUESTION, background=True)


@pytest.mark.parametrize(("field", "value"), [("stream_chunk_timeout", -1), ("max_resumes", -1)])
def test_long_run_settings_refuse_negative_values(emulator: PerplexityEmulator, field: str, value: Any) -> None:
    with pytest.raises(ValidationError, match=field):
        make(emulator, **{field: value})


BAD = [
    ("background", "yes", "True or False"),
    ("background", 1, "True or False"),
    ("background", "false", "True or False"),
    ("stream_chunk_timeout", "10", "a number of seconds >= 0"),
    ("stream_chunk_timeout", True, "a number of seconds >= 0"),
    ("stream_chunk_timeout", float("inf"), "a number of seconds >= 0"),
    ("stream_chunk_timeout", float("nan"), "a number of seconds >= 0"),
    ("stream_chunk_timeout", -1, "a number of seconds >= 0"),
    ("max_resumes", "3", "an integer >= 0"),
    ("max_resumes", True, "an integer >= 0"),
    ("max_resumes", 1.5, "an integer >= 0"),
    ("max_resumes", -1, "an integer >= 0"),
]


@pytest.mark.parametrize(("name", "value", "accepted"), BAD)
def test_a_long_run_setting_is_refused_at_construction_as_given(
    runs: PerplexityEmulator, name: str, value: Any, accepted: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        make(runs, **{name: value})
    assert f"{name}={value!r}" in str(caught.value)
    assert accepted in str(caught.value)


@pytest.mark.parametrize(("name", "value", "accepted"), BAD)
def test_a_long_run_setting_is_refused_per_call_with_the_same_check(
    runs: PerplexityEmulator, name: str, value: Any, accepted: str
) -> None:
    with pytest.raises(ValueError, match=f"expected {accepted}"):
        make(runs).invoke(QUESTION, **{name: value})
    assert runs.requests == []


@pytest.mark.parametrize(("name", "value"), [("stream_chunk_timeout", 0), ("stream_chunk_timeout", None),
                                             ("stream_chunk_timeout", 5), ("max_resumes", 0)])  # fmt: skip
def test_the_documented_values_are_accepted(runs: PerplexityEmulator, name: str, value: Any) -> None:
    assert getattr(make(runs, **{name: value}), name) == value


# The stall tests below use the session emulator, which has no clock: a stream's head comes with its first event
# and the rest follows at once, so the only silences are the faults' (a loaded machine's may add resumes).


def test_the_stall_timeout_and_resume_limit_apply_per_call(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("reset", after_events=5))
    with pytest.raises(PerplexityStreamError, match="max_resumes=0"):
        list(make(emu, background=True).stream(QUESTION, max_resumes=0))
    emu.clear()
    emu.inject(Fault("stall", seconds=2.0, after_events=1))
    chunks = list(make(emu, background=True, stream_chunk_timeout=None).stream(QUESTION, stream_chunk_timeout=0.3))
    assert "resume" in kinds(emu)
    assert "".join(c.text for c in chunks).endswith(ANSWER)


@pytest.mark.parametrize("mode", STREAMS)
async def test_the_stall_timeout_bounds_the_silences_between_events_not_the_wait_for_the_head(
    emu: PerplexityEmulator, mode: str
) -> None:
    """A slow response head (a busy server, a queued run) is waited for, on the create and on a resume:
    httpx has one read timeout, and the stall bound is applied to the body alone once the head arrived.
    Bounded, the create's head would fail the run as unknown; a resume's would be asked for again."""
    emu.inject(Fault("delay", seconds=0.4))  # the create's head, longer than the stall timeout
    message, _ = await call(make(emu, background=True, stream_chunk_timeout=0.3), mode)
    assert message.text.endswith(ANSWER)
    assert kinds(emu).count("create") == 1
    emu.clear()
    emu.inject(Fault("stall", seconds=2.0, after_events=1), Fault("delay", seconds=0.4))  # the resume's head
    message, _ = await call(make(emu, background=True, stream_chunk_timeout=0.3), mode)
    assert message.text.endswith(ANSWER)
    assert kinds(emu).count("create") == 1
    afters = [int(parse_qs(r.query)["starting_after"][0]) for r in emu.requests if r.kind == "resume"]
    # after the first event (numbered 0, as the live API numbers them); its slow head was waited for, not asked
    # for twice
    assert afters[0] == 0 and afters == sorted(set(afters))


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_stall_on_a_stream_without_sequence_numbers_raises_naming_the_setting(
    emu: PerplexityEmulator, mode: str
) -> None:
    emu.inject(Fault("stall", seconds=1.0, after_events=2))
    with pytest.raises(PerplexityStreamError, match=r"no bytes for 0\.2 seconds \(stream_chunk_timeout\)"):
        await call(make(emu, "chat_completions", stream_chunk_timeout=0.2), mode)


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_stall_cut_by_the_shorter_timeout_names_timeout(emu: PerplexityEmulator, mode: str) -> None:
    """`timeout` below `stream_chunk_timeout` is the read timeout that fires: the error names it, not the other.
    (`timeout` bounds the wait for the head too: a second, for a loaded machine.)"""
    emu.inject(Fault("stall", seconds=3.0, after_events=2))
    with pytest.raises(PerplexityStreamError, match=r"no bytes for 1\.0 seconds \(timeout\)"):
        await call(make(emu, "chat_completions", timeout=1.0, stream_chunk_timeout=120), mode)


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_run_queued_longer_than_the_stall_timeout_is_followed_to_its_answer(mode: str) -> None:
    """The queue's silence after `response.created` is a stall like any other: resumed, never a lost run."""
    with PerplexityEmulator(api_key="test-key", queue_time=0.6) as queued:  # twice the stall timeout
        message, _ = await call(make(queued, background=True, stream_chunk_timeout=0.3), mode)
        assert message.text.endswith(ANSWER)
        assert creates(queued) == 1


def test_leaving_a_chain_that_ends_with_the_model_cancels_and_one_with_a_step_after_it_reads_on(
    runs: PerplexityEmulator,
) -> None:
    """docs/long-runs.md, guarantee 4: langchain-core reads the rest of a model's stream for its trace when a
    chain with a step after the model is closed early, so that run is read to its end (this pins it). The first
    stream is held after its first events, so its run is still going when the chain is left."""
    llm = make(runs, background=True)
    for chain, expected in ((llm, ["create", "cancel"]), (llm | StrOutputParser(), ["create"])):
        runs.clear()
        if expected[-1] == "cancel":
            runs.inject(Fault("hold_stream", after_events=6, seconds=20))
        with closing(chain.stream(QUESTION)) as stream:
            next(stream)
        assert [kind for kind in kinds(runs) if kind != "retrieve"] == expected


# --- finding: a break before the first event, in one sentence ---------------------------------------

AFTER = (
    " before any event identified the run, so it cannot be resumed; the answer is incomplete. "
    "The run may have started on Perplexity, and be billed; it was not posted again."
)


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_cut_before_the_first_event_says_so_once(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("cut_stream", after_events=0))
    with pytest.raises(PerplexityRunUnknownError) as caught:
        await call(make(runs, background=True), mode)
    assert str(caught.value) == "the Perplexity stream ended" + AFTER
    assert creates(runs) == 1


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_stall_before_the_first_event_says_so_once(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("stall", seconds=1.5, after_events=0))
    with pytest.raises(PerplexityRunUnknownError) as caught:
        await call(make(runs, background=True, stream_chunk_timeout=0.3), mode)
    assert str(caught.value) == "Perplexity sent no bytes for 0.3 seconds (stream_chunk_timeout)" + AFTER
    assert creates(runs) == 1


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_reset_before_the_first_event_says_so_once(runs: PerplexityEmulator, mode: str) -> None:
    runs.inject(Fault("reset", after_events=0))
    with pytest.raises(PerplexityRunUnknownError) as caught:
        await call(make(runs, background=True), mode)
    cause = caught.value.__cause__.__cause__  # the HTTP library's error, under the broken-stream error
    assert str(caught.value) == f"the connection to Perplexity broke ({type(cause).__name__}: {cause})" + AFTER
    assert creates(runs) == 1


# --- finding: a cancel that fails is one log line, and its task's error is read -----------------------


async def test_a_slow_cancel_is_logged_once_and_leaves_no_unread_task_error(
    emu: PerplexityEmulator, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's stream arrives an event per read, so the task is cancelled before its end: over a socket, a
    loaded machine may read the first token and the terminal event together, and a finished run is not cancelled."""
    unhandled: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _, context: unhandled.append(context))
    started = asyncio.Event()

    class Started(BaseCallbackHandler):
        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            started.set()

    caplog.set_level(logging.WARNING, logger="langchain_perplexity_strict")
    # The cancel's bound (2 s) cut to 0.2 s: how long it waits is not what is checked.
    monkeypatch.setattr(_runs, "CANCEL_WAIT", 0.2)
    monkeypatch.setattr(_runs, "_CANCEL_OPTIONS", {**_runs._CANCEL_OPTIONS, "timeout": 0.2})
    llm = make(emu, background=True, streaming=True)
    replay(llm, recorded_reads(llm, QUESTION)["one event per read"])
    task = asyncio.create_task(llm.ainvoke(QUESTION, config={"callbacks": [Started()]}))
    await started.wait()
    emu.inject(Fault("hold"))  # the next request is the cancel: not answered before the test ends
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    while len(asyncio.all_tasks()) > 1:  # the cancel request, left running, gives up at its own timeout
        await asyncio.sleep(0.05)
    assert await asyncio.to_thread(emu.wait_holding, 1)  # the cancel was read and held, not read late
    gc.collect()  # a task whose error is unread reports it when collected ("Task exception was never retrieved")
    await asyncio.sleep(0)
    assert unhandled == []
    # type(), not isinstance(): isinstance asks each object's __class__, which wakes openai's lazy proxies (~1.5 s).
    assert [task for task in gc.get_objects() if issubclass(type(task), asyncio.Task) and task._log_traceback] == []
    assert [r.getMessage() for r in caplog.records] == [
        f"could not cancel Perplexity run {_cancelled_id(emu)}: APITimeoutError: Request timed out."
    ]


def _cancelled_id(emu: PerplexityEmulator) -> str:
    path = next(r.path for r in emu.requests if r.kind == "cancel")
    return path.removesuffix("/cancel").rsplit("/", 1)[-1]


@pytest.mark.parametrize("mode", STREAMS)
async def test_a_cancel_refused_because_the_run_had_ended_is_no_warning(
    emu: PerplexityEmulator, caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    """The caller left as its run ended on the server: the cancel is refused (400), and nothing was lost."""
    caplog.set_level(logging.INFO, logger="langchain_perplexity_strict")
    llm = make(emu, background=True)
    replay(llm, recorded_reads(llm, QUESTION)["one event per read"])  # a run already over on the server
    if mode == "stream":
        with closing(llm.stream(QUESTION)) as stream:
            next(stream)
    else:
        stream = llm.astream(QUESTION)
        await anext(stream)
        await stream.aclose()
    assert [r.kind for r in emu.requests][-1] == "cancel"
    [record] = caplog.records
    assert record.levelno == logging.INFO and "was over before its cancel arrived" in record.getMessage()


@pytest.mark.parametrize("chained", [False, True])
def test_closing_astream_as_asyncio_run_ends_cancels_the_run(chained: bool) -> None:
    """langchain-core leaves `_astream` to the loop's finalizer, whose task `asyncio.run` cancels as it ends.
    The model's own `astream` closes its stream before `aclose` returns; in a chain, where langchain-core's
    generators are finalized at shutdown, the cancel goes out the sync way once the loop's pool is closed."""
    with PerplexityEmulator(api_key="test-key", run_duration=2.0, clock=ManualClock()) as timed:
        model = make(timed, background=True)

        async def leave() -> list[str]:
            stream = (ChatPromptTemplate.from_template("{q}") | model).astream({"q": QUESTION}) if chained else (
                model.astream(QUESTION))  # fmt: skip
            await anext(stream)
            await stream.aclose()
            return kinds(timed)

        with advance_once_waited(timed, 1.0):  # its first text, and the run goes on no further
            seen_at_close = asyncio.run(leave())
        assert kinds(timed) == ["create", "cancel"]
        assert chained or seen_at_close == ["create", "cancel"]


async def test_a_task_started_while_an_astream_waits_keeps_its_own_stream(runs: PerplexityEmulator) -> None:
    """A task copies the context, and with it the open `astream`'s scope: its stream is not that scope's.
    The first stream is held after its first events, so its run has not ended for the client when it leaves
    (a 0.6 s run could end before a paused worker left, and no cancel would be due)."""
    runs.inject(Fault("hold_stream", after_events=6, seconds=20))
    llm = make(runs, background=True)
    first = llm.astream(QUESTION)
    await anext(first)  # suspended inside its scope
    streaming = make(runs, background=True, streaming=True)  # ainvoke through _astream, not astream
    other = asyncio.create_task(streaming.ainvoke(QUESTION))  # under the copied context, scope included
    await first.aclose()
    assert (await other).text.endswith(ANSWER)
    assert kinds(runs).count("cancel") == 1
