"""`perplexity-strict emulator --background` reports only what is true: where it serves, and which process."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parents[2]


def background(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "langchain_perplexity_strict", "emulator", "--background", "--env", *args],
        capture_output=True, text=True, timeout=120, check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


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


def test_a_busy_port_fails_with_one_line_and_no_exports() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = background("--port", str(port))
    assert result.returncode == 2 and result.stdout == ""  # `eval` of nothing changes nothing
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"perplexity-strict emulator: cannot listen on 127.0.0.1:{port}: another program")


def test_running_twice_reuses_the_emulator_and_says_so() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    first = background("--port", str(port))
    assert first.returncode == 0, first.stderr
    pid = int(exports(first)["PERPLEXITY_EMULATOR_PID"])
    try:
        assert f"# Perplexity emulator started at http://127.0.0.1:{port} (process {pid})" in first.stdout
        second = background("--port", str(port))
        assert second.returncode == 0, second.stderr
        assert exports(second) == exports(first)
        assert f"# Perplexity emulator already running, reused at http://127.0.0.1:{port} (process {pid})" in (
            second.stdout
        )
    finally:
        stop(pid, port)
