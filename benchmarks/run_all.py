"""``make bench``: run every benchmark, print its ratios, and write benchmarks/RESULTS.md."""

from __future__ import annotations

import contextlib
import io
import os
import platform
import sys
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import (
    bench_batches,
    bench_compaction,
    bench_concurrency,
    bench_continuation,
    bench_embeddings,
    bench_long_runs,
    bench_normalizer,
    bench_overhead,
    bench_stop_filter,
)

SECTIONS = [
    ("Normalization and request building", bench_normalizer),
    ("Per-call overhead against plain ChatOpenAI", bench_overhead),
    ("Concurrency", bench_concurrency),
    ("Stop filter", bench_stop_filter),
    ("Compaction", bench_compaction),
    ("Continuations (use_previous_response_id)", bench_continuation),
    ("Long runs through an idle-dropping proxy", bench_long_runs),
    ("Embeddings: decoding and end to end", bench_embeddings),
    ("Batches: submit_batch against model.batch", bench_batches),
]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    packages = ", ".join(f"{p} {version(p)}" for p in ("langchain-core", "langchain-openai", "openai", "httpx"))
    return (
        f"{platform.system()} {platform.release()}, {os.cpu_count()} CPUs ({cpu}), "
        f"Python {platform.python_version()}; {packages}"
    )


def main() -> int:
    lines = [
        "# Benchmark results",
        "",
        "Written by `make bench` (`benchmarks/run_all.py`). Every ratio is measured in the same run against",
        "its baseline, because absolute times on shared machines are noise. The scripts say what each",
        "baseline is and why.",
        "",
        f"- When: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- Machine: {machine()}",
        "",
    ]
    for title, module in SECTIONS:
        print(f"== {title}", flush=True)
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            module.run()
        output = buffer.getvalue()
        print(output, end="", flush=True)
        lines += [f"## {title}", "", "```", output.rstrip(), "```", ""]
    Path(__file__).with_name("RESULTS.md").write_text("\n".join(lines), encoding="utf-8")
    print("written: benchmarks/RESULTS.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
