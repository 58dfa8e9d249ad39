"""Run the suite while the machine is busy and its test workers are paused at random: `make test-under-load`.

A test that passes only on an idle machine depends on its speed; this harness makes that show. While the
command runs (by default `make test`):

- a CPU hog keeps every core busy (`--hogs` busy processes, one per core by default);
- a pauser stops a random pytest-xdist worker (SIGSTOP) for 0.05 to 0.8 s, every 0.05 to 0.5 s, then lets it
  go on (SIGCONT), as a loaded machine's scheduler may.

It repeats the command `--runs` times (stopping at the first failure) and prints, per run, the exit status,
the wall time and how many pauses it made. Its exit status is the first failing run's, else 0.

    .venv/bin/python tests/under_load.py --runs 5
    .venv/bin/python tests/under_load.py --runs 1 -- .venv/bin/python -m pytest -q -n 4 tests/unit_tests/test_sse.py

Only processes it started are stopped, continued or killed (the hogs, and the workers below its own command).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

PAUSE = (0.05, 0.8)
"""Seconds a worker stays stopped."""
EVERY = (0.05, 0.5)
"""Seconds between two pauses."""
WORKER_MARK = b"exec(eval("
"""What an execnet-spawned pytest-xdist worker's command line holds (`python -c "import sys;exec(eval(...))"`)."""


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    return children


def workers(root: int) -> list[int]:
    """The pytest-xdist workers among `root`'s descendants."""
    children, found, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        for child in children.get(pid, []):
            todo.append(child)
            try:
                if WORKER_MARK in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.append(child)
            except OSError:
                continue
    return found


HOG = "while True: pass"
"""A hog's program: one core kept busy until it is killed."""


def pause_workers(root: int, done: threading.Event, rng: random.Random, counts: list[int]) -> None:
    """Until `done`: every EVERY seconds, stop a random worker under `root` for PAUSE seconds."""
    while not done.wait(rng.uniform(*EVERY)):
        found = workers(root)
        if not found:
            continue
        pid = rng.choice(found)
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            continue
        try:
            time.sleep(rng.uniform(*PAUSE))
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        counts[0] += 1


def run_once(command: list[str], hogs: int, rng: random.Random) -> tuple[int, float, int]:
    """Run `command` under load; its exit status, wall seconds and the pauses made."""
    hog_procs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(hogs)]
    counts = [0]
    done = threading.Event()
    started = time.monotonic()
    try:
        proc = subprocess.Popen(command)
        pauser = threading.Thread(target=pause_workers, args=(proc.pid, done, rng, counts), daemon=True)
        pauser.start()
        status = proc.wait()
        done.set()
        pauser.join()
    finally:
        done.set()
        for p in hog_procs:
            p.kill()
            p.wait()
    return status, time.monotonic() - started, counts[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs in a row (stops at the first failure)")
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1, help="busy processes (default: one per core)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the pause schedule (default: random)")
    parser.add_argument("command", nargs="*", default=["make", "test"], help="what to run (default: make test)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    plan = f"a random worker paused {PAUSE[0]}-{PAUSE[1]} s every {EVERY[0]}-{EVERY[1]} s"
    print(f"under load: {args.hogs} CPU hog(s), {plan}; seed {seed}; {' '.join(args.command)}", flush=True)
    for run in range(1, args.runs + 1):
        status, wall, pauses = run_once(args.command, args.hogs, rng)
        print(f"under load: run {run}/{args.runs}: exit {status}, {wall:.1f} s, {pauses} pauses", flush=True)
        if status != 0:
            return status
    print(f"under load: {args.runs} run(s) in a row passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
