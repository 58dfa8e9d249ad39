"""A pytest plugin that reports the CPU seconds each test file costs (`-p tests.cpu_profile`).

On a shared machine wall time says little; a test process's CPU time (user + system of every thread,
the in-process emulator's included) says what a file costs. Each test's set-up, call and tear-down are
charged to its file; with pytest-xdist every worker writes its share and the controller sums them.

    .venv/bin/python -m pytest -p tests.cpu_profile -n 2 tests/unit_tests tests/integration_tests
    CPU_PROFILE_OUT=cpu.tsv ...   # also write "seconds<TAB>file" rows, and "seconds<TAB>test" rows

The wall seconds beside them include what the tests waited for (on an idle machine, wall minus CPU is
time spent on clocks: the emulator's run durations, stalls, timeouts). Module-scoped fixtures are charged
to the first test that needs them, which is their file. Collection and start-up (imports) are reported
apart. Subprocesses (the CLI tests) are not counted here.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_per_file: dict[str, float] = defaultdict(float)
_per_test: dict[str, float] = defaultdict(float)
_wall_per_file: dict[str, float] = defaultdict(float)
_start = time.process_time()
_collection_done: list[float] = []
_KEY = "cpu_profile"


def pytest_collection_finish(session: pytest.Session) -> None:
    _collection_done.append(time.process_time())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    before, wall = time.process_time(), time.perf_counter()
    yield
    spent = time.process_time() - before
    _per_file[item.nodeid.split("::")[0]] += spent
    _per_test[item.nodeid] += spent
    _wall_per_file[item.nodeid.split("::")[0]] += time.perf_counter() - wall


def _own_figures() -> dict[str, Any]:
    startup = (_collection_done[0] if _collection_done else time.process_time()) - _start
    return {
        "files": dict(_per_file),
        "walls": dict(_wall_per_file),
        "tests": dict(_per_test),
        "startup": startup,
        "total": time.process_time(),
    }


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[_KEY] = json.dumps(_own_figures())


_workers: list[dict[str, Any]] = []


def pytest_testnodedown(node: object, error: object) -> None:
    output = getattr(node, "workeroutput", {})
    if _KEY in output:
        _workers.append(json.loads(output[_KEY]))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    figures = _workers or [_own_figures()]
    files: dict[str, float] = defaultdict(float)
    walls: dict[str, float] = defaultdict(float)
    tests: dict[str, float] = defaultdict(float)
    for worker in figures:
        for name, seconds in worker["files"].items():
            files[name] += seconds
        for name, seconds in worker["walls"].items():
            walls[name] += seconds
        for name, seconds in worker["tests"].items():
            tests[name] += seconds
    write = terminalreporter.write_line
    write("")
    write("CPU seconds per file (process time of the test processes), and wall seconds (on a busy machine, more):")
    for name, seconds in sorted(files.items(), key=lambda kv: -kv[1])[:40]:
        write(f"{seconds:8.2f}  {walls[name]:8.2f}  {name}")
    startup = sum(float(w["startup"]) for w in figures)
    total = sum(float(w["total"]) for w in figures)
    summary = f"start-up and collection {startup:.2f}; processes {total:.2f}"
    write(f"{sum(files.values()):8.2f}  {sum(walls.values()):8.2f}  all tests; {summary}")
    out = os.environ.get("CPU_PROFILE_OUT")
    if out:
        rows = [f"{s:.3f}\t{n}" for n, s in sorted(files.items(), key=lambda kv: -kv[1])]
        rows += [f"{s:.3f}\t{n}" for n, s in sorted(tests.items(), key=lambda kv: -kv[1])]
        Path(out).write_text("\n".join(rows) + "\n")
