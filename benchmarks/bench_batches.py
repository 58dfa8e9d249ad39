"""Batches: 10,000 inputs through `submit_batch` / `results` against `model.batch` over the same inputs.

Both run against the emulator in its own process (so its CPU is not the client's), with the same model
and settings. For each the client counts what it sent and received (requests, and the bytes of request
and response heads and bodies, by HTTP event hooks on the model's own client) and the process's CPU time (all
threads: `model.batch` runs its requests in a thread pool), and the wall time. The ratios are batch over
`batch()`, measured in the same run. The batch's CPU is split into building the lines (normalizing and
building each body, exactly as invoke does) and the rest (upload, create, download, reading the answers).

`python -m benchmarks.bench_batches [COUNT]` (10,000 by default).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks.common import emulator_process
from langchain_perplexity_strict import ChatPerplexityStrict

COUNT = 10_000


class Counter:
    """Requests and body bytes through one httpx client (its event hooks), both ways."""

    def __init__(self, model: ChatPerplexityStrict) -> None:
        self.requests = 0
        self.sent = 0
        self.received = 0
        http = model.transport.chat_openai.root_client._client
        http.event_hooks = {"request": [self._request], "response": [self._response]}

    def _request(self, request: Any) -> None:
        self.requests += 1
        self.sent += _head(request.headers) + int(request.headers.get("content-length") or 0)

    def _response(self, response: Any) -> None:
        response.read()
        self.received += _head(response.headers) + len(response.content)

    def reset(self) -> None:
        self.requests = self.sent = self.received = 0


def _head(headers: Any) -> int:
    """The bytes of a message's header lines (`name: value` and CRLF), as the wire carries them."""
    return sum(len(name) + len(value) + 4 for name, value in headers.raw)


def measure(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """`fn()`, its process CPU seconds and its wall seconds."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def run(count: int = COUNT) -> dict[str, float]:
    inputs = [f"Classify the sentiment of review {n}: {'great' if n % 3 else 'broke in a day'}" for n in range(count)]
    with emulator_process() as base_url:
        model = ChatPerplexityStrict(api_key="k", base_url=base_url, web_search=False)
        counter = Counter(model)
        model.invoke("warm up")  # connections and imports, outside both measurements
        counter.reset()

        lines, build_cpu, _ = measure(lambda: model._batch_request(inputs, None, {}, None)[0])
        del lines
        answers, batch_cpu, batch_wall = measure(lambda: model.submit_batch(inputs).results())
        batch_counts = (counter.requests, counter.sent, counter.received)
        assert len(answers) == count and all(not isinstance(a, Exception) for a in answers)
        counter.reset()

        baseline, loop_cpu, loop_wall = measure(lambda: model.batch(inputs))
        loop_counts = (counter.requests, counter.sent, counter.received)
        assert [a.content for a in baseline] == [a.content for a in answers]  # the same answers

    rows = [
        ("requests sent", batch_counts[0], loop_counts[0]),
        ("bytes sent", batch_counts[1], loop_counts[1]),
        ("bytes received", batch_counts[2], loop_counts[2]),
        ("client CPU ms per input", 1000 * batch_cpu / count, 1000 * loop_cpu / count),
        ("wall s (the emulator answers at once)", batch_wall, loop_wall),
    ]
    print(f"{count:,} inputs: submit_batch + results vs model.batch (same model, same answers)")
    for name, ours, theirs in rows:
        print(f"  {name:<38} batch {ours:>14,.3f}   batch() {theirs:>14,.3f}   ratio {ours / theirs:.4f}")
    print(
        f"  of the batch's CPU, building the {count:,} lines as invoke builds them: {1000 * build_cpu / count:.3f} ms"
        f" per input ({build_cpu / batch_cpu:.0%})"
    )
    return {
        "requests_ratio": batch_counts[0] / loop_counts[0],
        "bytes_sent_ratio": batch_counts[1] / loop_counts[1],
        "bytes_received_ratio": batch_counts[2] / loop_counts[2],
        "cpu_per_input_ratio": batch_cpu / loop_cpu,
    }


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else COUNT)
