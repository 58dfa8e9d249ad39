"""The property of resumed streams: wherever the connection drops or stalls, the caller gets the same answer.

For any sequence of breaks (a reset, a clean end before the terminal event,
or a stall longer than `stream_chunk_timeout`), each after any number of
events, on the create and on the resumes that follow it: the text, tool calls,
citations, search results and usage equal those of the uninterrupted run,
each exactly once, and the run is posted once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessageChunk
from langchain_core.runnables import Runnable

from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import KEY, make
from tests.integration_tests.test_long_runs import essentials
from tests.integration_tests.tools import add, get_weather

QUESTIONS = {False: "Why is the sky blue?", True: 'Use get_weather for "Paris" and add 2 and 3'}
STALL = 0.05
"""`stream_chunk_timeout` here; a stall fault lasts several times longer. A slow machine may stall where
no fault is, which only adds resumes: the property must hold all the same. A slow response head is not a
stall (test_long_runs_creates), and the first event, which identifies the run, comes with the head (the
emulator writes them together), so a loaded machine cannot stall a run before it can be resumed."""

EVENTS = {False: 28, True: 11}
"""Events in each answer's stream (the emulator's default, live dialect): a break is drawn at any of them but the
last (after it, nothing is missing)."""


@st.composite
def breaks(draw: st.DrawFn, events: int) -> list[Fault]:
    """One to three breaks, on the create and the resumes that follow, each after 1 to events - 1 events."""
    kinds = st.sampled_from(["reset", "cut_stream", "stall"])
    faults = []
    for _ in range(draw(st.integers(1, 3))):
        kind, after = draw(kinds), draw(st.integers(1, events - 1))
        faults.append(Fault(kind, after_events=after, seconds=STALL * 4 if kind == "stall" else 0.0))
    return faults


@pytest.fixture(scope="module")
def emu() -> Iterator[PerplexityEmulator]:
    with PerplexityEmulator(api_key=KEY) as emulator:
        yield emulator


Key = tuple[bool, str]
"""An answer kind: whether the question calls tools, and the output version."""
KINDS: list[Key] = [(tools, version) for tools in QUESTIONS for version in ("v0", "v1")]


def runnable(emu: PerplexityEmulator, kind: Key, stall: float | None) -> Runnable[Any, Any]:
    tools, version = kind
    llm = make(emu, output_version=version, background=True, stream_chunk_timeout=stall)
    return llm.bind_tools([get_weather, add]) if tools else llm


@pytest.fixture(scope="module")
def baselines(emu: PerplexityEmulator) -> dict[Key, tuple[dict[str, Any], list[str]]]:
    """The uninterrupted answers, streamed, for each question and output version."""
    return {kind: collect(emu, runnable(emu, kind, None), kind[0], []) for kind in KINDS}


@pytest.fixture(scope="module")
def runnables(emu: PerplexityEmulator) -> dict[Key, Runnable[Any, Any]]:
    """The model each example streams with, one per answer kind for the module's 300 examples (built per
    example, a model's client and its first-call set-up were a third of the property's CPU). Its connection
    pool is all it keeps between examples: a run may start or resume on a connection an earlier example
    left open, as it would in an application."""
    return {kind: runnable(emu, kind, STALL * 2) for kind in KINDS}


def collect(
    emu: PerplexityEmulator,
    runnable: Runnable[Any, Any],
    tools: bool,
    faults: list[Fault],
    mode: str = "stream",
    loop: asyncio.Runner | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Stream one answer with `faults` injected: what the caller reads, and each chunk's text."""
    emu.clear()
    emu.inject(*faults)
    chunks: list[Any] = []
    if mode == "stream":
        chunks += runnable.stream(QUESTIONS[tools])
    else:

        async def gather() -> None:
            """Fills `chunks` and returns nothing: on Python 3.11 `Runner.run` looks its SIGINT handler up twice
            through `signal`'s enum, whose miss formats the handler, a partial holding the task and so its result;
            a list of chunks formats in some 10 ms (a fifth of this property's CPU), None in no time."""
            chunks.extend([c async for c in runnable.astream(QUESTIONS[tools])])

        assert loop is not None  # the module's one loop: a shared model's async client stays on it
        loop.run(gather())
    creates = [r.kind for r in emu.requests].count("create")
    # A reset can reach the client before it read the response head: the kernel then drops what was buffered,
    # nothing identified the run, and the client's ordinary retry posts it again (docs/long-runs.md, guarantee 1).
    assert creates == 1 or (creates == 2 and faults[0].kind == "reset")
    assert sum(1 for c in chunks if c.usage_metadata) == 1  # usage counted once
    merged: AIMessageChunk = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    return essentials(merged), [c.text for c in chunks]


# Each example streams a whole answer through real stalls (tenths of a second), so this property runs at most
# 300 examples, a profile's count when lower: the break points it draws number under 200 per answer kind.
@settings(max_examples=min(settings.default.max_examples, 300))
@given(data=st.data(), tools=st.booleans(), version=st.sampled_from(["v0", "v1"]),
       mode=st.sampled_from(["stream", "astream"]))  # fmt: skip
def test_any_break_gives_the_uninterrupted_answer_exactly_once(
    emu: PerplexityEmulator,
    baselines: dict[Key, tuple[dict[str, Any], list[str]]],
    runnables: dict[Key, Runnable[Any, Any]],
    runner: asyncio.Runner,
    data: st.DataObject,
    tools: bool,
    version: str,
    mode: str,
) -> None:
    faults = data.draw(breaks(EVENTS[tools]))
    expected, expected_texts = baselines[(tools, version)]
    answer, texts = collect(emu, runnables[(tools, version)], tools, faults, mode, runner)
    assert answer == expected
    assert "".join(texts) == "".join(expected_texts)  # the streamed text: none twice, none lost
    if faults[0].kind != "stall":  # a stall shorter than the client's own pause between two reads goes unseen
        assert "resume" in [r.kind for r in emu.requests]  # the create's stream broke, and was resumed
