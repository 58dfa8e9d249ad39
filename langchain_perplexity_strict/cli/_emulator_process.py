"""`perplexity-strict emulator --background`: start the emulator as its own process, and say so truthfully.

An emulator already on the port is reused, so running the README's `eval` step twice leaves one.
"""

from __future__ import annotations

import errno
import os
import re
import selectors
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from email.message import Message
from typing import NamedTuple

from langchain_perplexity_strict import cli
from langchain_perplexity_strict.testing.handler import EMULATOR_HEADER

PID_HEADER = EMULATOR_HEADER + "-pid"
READY = re.compile(r"Perplexity emulator on (http://\S+)")
START_TIMEOUT = 30.0


class Running(NamedTuple):
    """An emulator serving at `base_url` in process `pid`; `reused` when it was already running."""

    base_url: str
    pid: int
    reused: bool


_LISTEN_ERRORS = {
    errno.EADDRINUSE: "another program uses that port; pick another with --port, or --port 0 for a free one",
    errno.EADDRNOTAVAIL: "{host} is not an address of this machine",
    errno.EACCES: "permission denied (ports below 1024 need privileges); pick another with --port",
}


def listen_error(host: str, port: int, error: OSError) -> str:
    """Why the emulator cannot listen on host:port."""
    if isinstance(error, socket.gaierror):
        why = f"unknown host {host!r} (use an address of this machine, such as 127.0.0.1)"
    else:
        why = _LISTEN_ERRORS.get(error.errno or 0, "").format(host=host) or error.strerror or str(error)
    return f"cannot listen on {host}:{port}: {why}"


def emulator_headers(base_url: str) -> Message | None:
    """The emulator's headers on `GET /v1/models` at `base_url`, asked directly (not through a proxy), or None."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with direct.open(base_url.rstrip("/").removesuffix("/v1") + "/v1/models", timeout=3) as response:
            headers = response.headers
    except urllib.error.HTTPError as error:
        headers = error.headers
    except (OSError, ValueError):
        return None
    return headers if headers.get(EMULATOR_HEADER) is not None else None


def running_emulator_at(base_url: str) -> Running | None:
    """The emulator serving `base_url`, with the process its headers name."""
    headers = emulator_headers(base_url)
    pid = headers.get(PID_HEADER) if headers is not None else None
    return Running(base_url, int(pid), reused=True) if pid and pid.isdigit() else None


def start(command: list[str]) -> Running:
    """Run `command` detached; return once it serves, or raise its last error line."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if selector.select(timeout=0.1):
                found = READY.search(process.stdout.readline())
                if found:  # closing our ends leaves the child running
                    process.stdout.close()
                    process.stderr.close()
                    return Running(found.group(1), process.pid, reused=False)
            if process.poll() is not None:
                lines = process.stderr.read().strip().splitlines()
                last = lines[-1] if lines else f"the emulator exited with status {process.returncode}"
                raise cli.CommandError(last.removeprefix("perplexity-strict emulator: "), status=2)
    process.kill()
    raise cli.CommandError(f"the emulator did not start within {START_TIMEOUT:.0f} s", status=2)


# What `--env` points at the emulator, and what `--stop --env` gives back.
EXPORTED = ("PPLX_BASE_URL", "PPLX_API_KEY")
SAVED_PREFIX = "PERPLEXITY_EMULATOR_SAVED_"


def report(running: Running, *, env: bool) -> list[str]:
    """Where it is and how to stop it; with `env`, exports for `eval` that save the shell's own by name, not value."""
    how = "already running, reused" if running.reused else "started"
    where = f"Perplexity emulator {how} at {running.base_url} (process {running.pid})"
    if not env:
        return [f"{where}; stop it with: kill {running.pid}"]
    pointed = "PERPLEXITY_EMULATOR_PID" in os.environ
    saves = [] if pointed else [f'export {SAVED_PREFIX}{name}="${name}"' for name in EXPORTED if name in os.environ]
    reused = ["export PERPLEXITY_EMULATOR_REUSED=1"] if running.reused and not pointed else []
    return [
        *saves,
        f"export PPLX_BASE_URL={running.base_url}",
        "export PPLX_API_KEY=emulator-key",
        f"export PERPLEXITY_EMULATOR_PID={running.pid}",
        *reused,
        f'# {where}; stop it and restore your settings with: eval "$(perplexity-strict emulator --stop --env)"',
    ]


def restore() -> list[str]:
    """Shell lines that undo `--env`, in a shell it pointed at an emulator."""
    if "PERPLEXITY_EMULATOR_PID" not in os.environ:
        return ["# this shell was not pointed at an emulator by --background --env: its variables are left as they are"]
    lines = []
    for name in EXPORTED:
        saved = SAVED_PREFIX + name
        lines.append(f'export {name}="${saved}"; unset {saved}' if saved in os.environ else f"unset {name}")
    return [*lines, "unset PERPLEXITY_EMULATOR_PID PERPLEXITY_EMULATOR_REUSED"]


def stop(running: Running) -> None:
    """Stop the emulator and wait until its address no longer serves."""
    try:
        os.kill(running.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if running_emulator_at(running.base_url) is None:
            return
        time.sleep(0.05)
    raise cli.CommandError(f"process {running.pid} did not stop within 10 s")
