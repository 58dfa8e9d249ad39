"""Timing helpers and an emulator in its own process (so it does not share our GIL)."""

from __future__ import annotations

import contextlib
import gc
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any


def best_time(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Best CPU time of ``fn`` over ``repeat`` runs (after one warm-up), garbage collection paused.

    For deterministic single-threaded CPU work the minimum is the estimate of
    its own cost: noise on a shared machine only ever adds time (the advice of
    ``timeit``). The clock is the process's CPU time, not the wall: time spent
    descheduled while other processes or virtual machines run is not this
    work's cost (with two busy neighbours on this 2-core machine, the wall
    clock doubled the stop filter's figure; CPU time moved it by a tenth).
    """
    fn()
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
        finally:
            gc.enable()
    return min(times)


def paired_best(small: Callable[[], Any], large: Callable[[], Any], repeat: int = 9) -> tuple[float, float]:
    """Best times of two workloads timed alternately, so a burst of load on the machine hits both."""
    small_best = large_best = float("inf")
    small()
    large()
    for _ in range(repeat):
        small_best = min(small_best, best_time(small, repeat=1))
        large_best = min(large_best, best_time(large, repeat=1))
    return small_best, large_best


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def emulator_process(*extra: str) -> Iterator[str]:
    """``python -m langchain_perplexity_strict emulator`` on a free port; yields its base URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "langchain_perplexity_strict", "emulator", "--port", str(port), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            time.sleep(0.05)
        else:
            msg = "the emulator did not start"
            raise RuntimeError(msg)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def verdict(value: float, goal: float, *, lower_is_better: bool = True) -> str:
    ok = value <= goal if lower_is_better else value >= goal
    return "meets goal" if ok else "MISSES goal"


def paired_ratios(small: Callable[[], Any], large: Callable[[], Any], runs: int = 9) -> list[float]:
    """Per run, large/small of two workloads timed back to back (CPU time, collection paused), sorted.

    The median of these is the growth figure: a burst of load hits both halves of a pair.
    """
    small()
    large()
    return sorted(best_time(large, repeat=1) / best_time(small, repeat=1) for _ in range(runs))
