"""`perplexity-strict emulator --background` reports only what is true: where it serves, and which process."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time

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
        second = background(capsys, "--port", str(port))
        assert second.returncode == 0, second.stderr
        assert exports(second) == exports(first)
        assert f"# Perplexity emulator already running, reused at http://127.0.0.1:{port} (process {pid})" in (
            second.stdout
        )
    finally:
        stop(pid, port)
