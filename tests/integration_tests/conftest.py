"""Integration tests talk to the package's own emulator on loopback."""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
from collections.abc import Iterator

import pytest

from langchain_perplexity_strict.cli import main
from langchain_perplexity_strict.testing import PerplexityEmulator


@pytest.fixture(scope="session")
def emulator() -> Iterator[PerplexityEmulator]:
    """One emulator for the session; tests clear its log and faults as they need."""
    with PerplexityEmulator(api_key="test-key") as emu:
        yield emu


@pytest.fixture
def emu(emulator: PerplexityEmulator) -> Iterator[PerplexityEmulator]:
    """The session emulator with an empty request log and no pending faults."""
    emulator.clear()
    emulator.set_fault_rates({})
    emulator.sonar_retired = False
    yield emulator
    emulator.clear()


@pytest.fixture(scope="session")
def exports() -> Iterator[dict[str, str]]:
    """What the README's one offline step, `eval "$(perplexity-strict emulator --background --env)"`, exports.

    One background emulator (a process of its own, as the step starts it) for the session's README and
    docs examples, stopped at the end. The command itself runs by `main` in this process: a new process
    would only add the seconds it takes to import the client.
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["emulator", "--port", "0", "--background", "--env"])
    assert status == 0, err.getvalue()
    values = dict(re.findall(r"^export (\w+)=(\S+)$", out.getvalue(), re.MULTILINE))
    try:
        yield values
    finally:
        os.kill(int(values["PERPLEXITY_EMULATOR_PID"]), signal.SIGTERM)


@pytest.fixture
def quick_client_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The openai client's back-off between retries (0.5 s, then doubled) cut to 0.02 s, and the package's copy
    of it for a run's create (`_create`), for tests that check what is retried, not how long it waits. A
    server's Retry-After is still honoured as sent."""
    import openai._base_client

    from langchain_perplexity_strict._transport import _create

    monkeypatch.setattr(openai._base_client, "INITIAL_RETRY_DELAY", 0.02)
    monkeypatch.setattr(_create, "INITIAL_RETRY_DELAY", 0.02)


@pytest.fixture
def quick_client_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client's own pauses before polling a background run or a batch again (0.2 s, growing 1.5 times) and
    before a resume that follows an idle one (0.25 s, doubling) cut to 0.01 s, for tests on an emulator clock the
    test moves (`ManualClock`): they check what is polled or resumed, and in which order, not how long the client
    waits in between (a run's poll and resume pauses are pinned in tests/unit_tests/test_poll_and_resume_pauses.py)."""
    from langchain_perplexity_strict._batches import _job
    from langchain_perplexity_strict._transport import _poll, _resume

    monkeypatch.setattr(_poll, "FIRST_POLL", 0.01)
    monkeypatch.setattr(_resume, "RESUME_BACKOFF", 0.01)
    monkeypatch.setattr(_job, "FIRST_POLL", 0.01)
