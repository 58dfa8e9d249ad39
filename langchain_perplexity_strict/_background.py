"""`perplexity-strict emulator --background`: start the emulator as its own process, and say so truthfully.

The parent waits until the child has bound its port and printed its address, then
reports that address and the child's PID (the process serving). A child that cannot
listen exits with one line, which the parent repeats and exits non-zero. When a
Perplexity emulator already serves the requested port, it is reused, not doubled:
running the README's `eval` step twice leaves one emulator and the same exports.
"""

from __future__ import annotations

import errno
import re
import selectors
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass

from langchain_perplexity_strict._endpoint import EMULATOR_HEADER

PID_HEADER = EMULATOR_HEADER + "-pid"  # sent with GET /v1/models: the serving process
READY = re.compile(r"Perplexity emulator on (http://\S+)")
START_TIMEOUT = 30.0


class StartError(Exception):
    """The emulator did not start; the message is one line for the user."""


@dataclass(frozen=True)
class Running:
    """An emulator serving at `base_url` in process `pid`; `reused` when it was already running."""

    base_url: str
    pid: int
    reused: bool


def listen_error(host: str, port: int, error: OSError) -> str:
    """Why the emulator cannot listen on host:port, in words that name the real cause."""
    where = f"cannot listen on {host}:{port}"
    if isinstance(error, socket.gaierror):
        return f"{where}: unknown host {host!r} (use an address of this machine, such as 127.0.0.1)"
    if error.errno == errno.EADDRINUSE:
        return f"{where}: another program uses that port; pick another with --port, or --port 0 for a free one"
    if error.errno == errno.EADDRNOTAVAIL:
        return f"{where}: {host} is not an address of this machine"
    if error.errno == errno.EACCES:
        return f"{where}: permission denied (ports below 1024 need privileges); pick another with --port"
    return f"{where}: {error.strerror or error}"


def check_can_listen(host: str, port: int) -> None:
    """Raise `StartError` now if host:port cannot be bound, rather than after starting a child to find out.

    Binds as the emulator does (address reuse on) and lets go at once; the child
    still reports its own failure should another program take the port meanwhile.
    """
    try:
        with socket.socket(socket.AF_INET) as probe:  # the emulator listens on IPv4, as its server does
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        raise StartError(listen_error(host, port, error)) from error


def running_emulator(host: str, port: int) -> Running | None:
    """The emulator already serving host:port, if one does (it says so in its headers)."""
    if port == 0:
        return None
    base_url = f"http://{host}:{port}"
    try:
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # a local port: never via a proxy
        with direct.open(base_url + "/v1/models", timeout=2) as response:
            pid = response.headers.get(PID_HEADER)
    except (OSError, ValueError):
        return None
    return Running(base_url, int(pid), reused=True) if pid and pid.isdigit() else None


def start(command: list[str]) -> Running:
    """Run `command` (the foreground emulator) detached; return once it serves, or raise `StartError`."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None  # both are pipes
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if selector.select(timeout=0.1):
                found = READY.search(process.stdout.readline())
                if found:
                    # The child prints nothing more; closing our ends leaves it running on its own.
                    process.stdout.close()
                    process.stderr.close()
                    return Running(found.group(1), process.pid, reused=False)
            if process.poll() is not None:
                lines = process.stderr.read().strip().splitlines()
                last = lines[-1] if lines else f"the emulator exited with status {process.returncode}"
                raise StartError(last.removeprefix("perplexity-strict emulator: "))
    process.kill()
    raise StartError(f"the emulator did not start within {START_TIMEOUT:.0f} s")


def report(running: Running, *, env: bool) -> list[str]:
    """Where the emulator is and how to stop it: lines to print; shell exports for `eval` with `env`."""
    how = "already running, reused" if running.reused else "started"
    where = f"Perplexity emulator {how} at {running.base_url} (process {running.pid}); stop it with: kill {running.pid}"
    if not env:
        return [where]
    return [
        f"export PPLX_BASE_URL={running.base_url}",
        "export PPLX_API_KEY=emulator-key",
        f"export PERPLEXITY_EMULATOR_PID={running.pid}",
        f"# {where}",
    ]
