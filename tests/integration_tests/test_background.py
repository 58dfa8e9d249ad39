"""`perplexity-strict emulator --background` reports only what is true: where it serves, and which process."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from langchain_perplexity_strict.cli import main


def background(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """`perplexity-strict emulator --background --env ARGS`, run by `main` in this process.

    The emulator it starts is still a process of its own, which outlives this call as it outlives
    the command; only the command's own start-up (importing the client, seconds of CPU) is saved.
    """
    capsys.readouterr()
    status = main(["emulator", "--background", "--env", *args])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, out, err)


def exports(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    return dict(re.findall(r"^export (\w+)=(\S+)$", result.stdout, re.MULTILINE))


def serves(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def stop(pid: int, port: int) -> None:
    """Stop the emulator by the PID it printed, and check that PID was what served the port."""
    os.kill(pid, signal.SIGTERM)
    for _ in range(200):
        if not serves(port):
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} was stopped, yet port {port} still serves")


def test_a_busy_port_fails_with_one_line_and_no_exports(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = background(capsys, "--port", str(port))
    assert result.returncode == 2 and result.stdout == ""  # `eval` of nothing changes nothing
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"perplexity-strict emulator: cannot listen on 127.0.0.1:{port}: another program")


def test_running_twice_reuses_the_emulator_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    first = background(capsys, "--port", str(port))
    assert first.returncode == 0, first.stderr
    pid = int(exports(first)["PERPLEXITY_EMULATOR_PID"])
    try:
        assert f"# Perplexity emulator started at http://127.0.0.1:{port} (process {pid})" in first.stdout
        with pytest.MonkeyPatch.context() as shell:  # the same shell runs the step again: it is pointed already
            for name, value in exports(first).items():
                shell.setenv(name, value)
            second = background(capsys, "--port", str(port))
        assert second.returncode == 0, second.stderr
        assert exports(second) == exports(first)
        assert f"# Perplexity emulator already running, reused at http://127.0.0.1:{port} (process {pid})" in (
            second.stdout
        )
    finally:
        stop(pid, port)


def test_env_saves_the_shells_own_settings_by_reference_and_stop_env_gives_them_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's offline step, then its undo: the user's own key comes back, the emulator's URL goes.

    The saved key is named, never printed: `eval` expands `"$PPLX_API_KEY"` in the user's shell.
    """
    monkeypatch.setenv("PPLX_API_KEY", "pplx-canary-of-the-user")
    monkeypatch.delenv("PPLX_BASE_URL", raising=False)
    monkeypatch.delenv("PERPLEXITY_EMULATOR_PID", raising=False)
    started = background(capsys, "--port", "0")
    assert started.returncode == 0, started.stderr
    assert "pplx-canary-of-the-user" not in started.stdout
    assert 'export PERPLEXITY_EMULATOR_SAVED_PPLX_API_KEY="$PPLX_API_KEY"' in started.stdout.splitlines()
    assert "PERPLEXITY_EMULATOR_SAVED_PPLX_BASE_URL" not in started.stdout  # it was not set: nothing to save
    values = exports(started)
    port = int(values["PPLX_BASE_URL"].rsplit(":", 1)[1])
    assert 'eval "$(perplexity-strict emulator --stop --env)"' in started.stdout
    # What `eval` leaves in the shell:
    for name in ("PPLX_BASE_URL", "PERPLEXITY_EMULATOR_PID"):
        monkeypatch.setenv(name, values[name])
    monkeypatch.setenv("PERPLEXITY_EMULATOR_SAVED_PPLX_API_KEY", "pplx-canary-of-the-user")
    monkeypatch.setenv("PPLX_API_KEY", "emulator-key")
    try:
        again = background(capsys, "--port", str(port))  # the step run twice: the saved key is not overwritten
        assert "PERPLEXITY_EMULATOR_SAVED" not in again.stdout
        capsys.readouterr()
        assert main(["emulator", "--stop", "--env"]) == 0
        out = capsys.readouterr().out
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(values["PERPLEXITY_EMULATOR_PID"]), signal.SIGTERM)
    assert not serves(port)
    assert out.splitlines()[1:] == [
        "unset PPLX_BASE_URL",
        'export PPLX_API_KEY="$PERPLEXITY_EMULATOR_SAVED_PPLX_API_KEY"; unset PERPLEXITY_EMULATOR_SAVED_PPLX_API_KEY',
        "unset PERPLEXITY_EMULATOR_PID PERPLEXITY_EMULATOR_REUSED",
    ]
    assert "pplx-canary-of-the-user" not in out


def test_stop_env_in_a_real_shell_restores_what_was_there(tmp_path: Path) -> None:
    """The two README lines run by bash, as a user types them: afterwards the shell is as it was."""
    cli = tmp_path / "perplexity-strict"
    cli.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m langchain_perplexity_strict "$@"\n')
    cli.chmod(0o755)
    script = """
        export PPLX_API_KEY=pplx-mine; unset PPLX_BASE_URL PERPLEXITY_EMULATOR_PID
        eval "$(perplexity-strict emulator --background --env --port 0)"
        echo "during $PPLX_API_KEY ${PPLX_BASE_URL:+set}"
        eval "$(perplexity-strict emulator --stop --env)"
        echo "after ${PPLX_API_KEY-unset} ${PPLX_BASE_URL-unset} ${PERPLEXITY_EMULATOR_PID-unset}"
    """
    env = {"PATH": f"{tmp_path}:{os.environ['PATH']}", "PYTHONPATH": str(Path(__file__).parents[2])}
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["during emulator-key set", "after pplx-mine unset unset"]


def test_stop_with_no_emulator_says_so_and_still_undoes_the_exports(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("PPLX_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("PERPLEXITY_EMULATOR_PID", "1")
    monkeypatch.delenv("PERPLEXITY_EMULATOR_SAVED_PPLX_API_KEY", raising=False)
    monkeypatch.delenv("PERPLEXITY_EMULATOR_SAVED_PPLX_BASE_URL", raising=False)
    assert main(["emulator", "--stop", "--env"]) == 0
    out, err = capsys.readouterr()
    assert err == f"# no Perplexity emulator serves http://127.0.0.1:{port}\n"
    assert out.splitlines() == [
        "unset PPLX_BASE_URL",
        "unset PPLX_API_KEY",
        "unset PERPLEXITY_EMULATOR_PID PERPLEXITY_EMULATOR_REUSED",
    ]


def test_stop_env_in_a_shell_never_pointed_at_an_emulator_leaves_its_variables(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shell with its own key and gateway, never pointed at an emulator (or already restored): nothing is unset,
    however often the undo runs."""
    monkeypatch.delenv("PERPLEXITY_EMULATOR_PID", raising=False)
    monkeypatch.setenv("PPLX_API_KEY", "pplx-mine")
    monkeypatch.setenv("PPLX_BASE_URL", "https://my-gateway.example.com")
    for _ in range(2):
        assert main(["emulator", "--stop", "--env", "--port", "0"]) == 0
        out = capsys.readouterr().out
        assert not [line for line in out.splitlines() if not line.startswith("#")], out


def test_a_shell_that_reused_anothers_emulator_leaves_it_running_when_it_stops(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two shells, one emulator: the second shell's undo gives it back its variables and leaves the first's
    emulator serving; the first shell's stop then stops it."""
    for name in ("PERPLEXITY_EMULATOR_PID", "PERPLEXITY_EMULATOR_REUSED", "PPLX_BASE_URL", "PPLX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    first = exports(background(capsys, "--port", str(port)))
    assert "PERPLEXITY_EMULATOR_REUSED" not in first
    try:
        second = exports(background(capsys, "--port", str(port)))
        assert second["PERPLEXITY_EMULATOR_REUSED"] == "1"
        with monkeypatch.context() as shell_b:
            for name, value in second.items():
                shell_b.setenv(name, value)
            assert main(["emulator", "--stop", "--env"]) == 0
            out = capsys.readouterr().out
        assert "left running: another shell started it" in out and serves(port)
        assert "unset PERPLEXITY_EMULATOR_PID PERPLEXITY_EMULATOR_REUSED" in out.splitlines()
        with monkeypatch.context() as shell_a:
            for name, value in first.items():
                shell_a.setenv(name, value)
            assert main(["emulator", "--stop", "--env"]) == 0
        assert not serves(port)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(first["PERPLEXITY_EMULATOR_PID"]), signal.SIGTERM)
