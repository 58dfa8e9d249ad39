"""Per-call overhead against plain ChatOpenAI, interleaved, on an already-valid history.

Plain ChatOpenAI is slower than this model here: on every call the openai SDK
runs its typed-parameter transform over the whole request (``responses.create``
/ ``chat.completions.create``), while this model posts the body it built. The
reference line against the raw client shows this model's own cost.

Both models talk to the same emulator process over loopback with the same
openai client settings. Plain ChatOpenAI builds the same Agent API tools
(``web_search``) so the server does the same work for both.

On the Agent API plain ChatOpenAI sends earlier answers as ``output_text``
parts, which Perplexity's published input schema does not have, so the
emulator refuses any history with an assistant turn from it; there the
comparison runs on what it can send (a system and a user message). Chat
completions keep the 51-message history.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import LanguageModelInput
from langchain_core.runnables import Runnable
from langchain_openai import ChatOpenAI

from benchmarks.common import emulator_process, verdict
from benchmarks.histories import valid_history
from langchain_perplexity_strict import ChatPerplexityStrict

ROUNDS = 60


def ttft(model: Runnable[LanguageModelInput, Any], history: Any) -> float:
    start = time.perf_counter()
    stream = iter(model.stream(history))
    while True:
        chunk = next(stream)
        if chunk.text:
            elapsed = time.perf_counter() - start
            break
    for _ in stream:  # drain, so the connection is reused
        pass
    return elapsed


def interleaved(a: Callable[[], float], b: Callable[[], float], rounds: int) -> tuple[float, float]:
    first, second = [], []
    for i in range(rounds):
        pair = (a, b) if i % 2 == 0 else (b, a)
        results = [fn() for fn in pair]
        x, y = results if i % 2 == 0 else results[::-1]
        first.append(x)
        second.append(y)
    return statistics.median(first), statistics.median(second)


def timed(fn: Callable[[], Any]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start

    return run


def measure_surface(api: str, model_name: str, base_url: str, history: Any) -> dict[str, float]:
    """Ours vs plain ChatOpenAI (and the raw-client floor) on one surface."""
    results: dict[str, float] = {}
    ours = ChatPerplexityStrict(model=model_name, api=api, api_key="k", base_url=base_url)  # type: ignore[arg-type]
    plain_model = ChatOpenAI(
        model=model_name,
        api_key="k",  # type: ignore[arg-type]
        base_url=base_url + ("/v1" if api == "agent" else ""),
        use_responses_api=api == "agent",
    )
    plain: Runnable[LanguageModelInput, Any] = (
        plain_model.bind_tools([{"type": "web_search"}]) if api == "agent" else plain_model
    )
    for model in (ours, plain):  # warm-up: clients, connections
        model.invoke(history)
        ttft(model, history)
    ours_invoke, plain_invoke = interleaved(
        timed(lambda: ours.invoke(history)), timed(lambda: plain.invoke(history)), ROUNDS
    )
    ours_ttft, plain_ttft = interleaved(lambda: ttft(ours, history), lambda: ttft(plain, history), ROUNDS)
    # The floor: the same openai client posting a body built in advance (no conversion at all).
    body = ours.request_body(history)
    client, path = ours.transport.chat_openai.root_client, ours.surface.path
    floor, _ = interleaved(timed(lambda: client.post(path, body=body, cast_to=object)), timed(lambda: None), ROUNDS)
    results[f"{api}_invoke_over_raw_client"] = ours_invoke / floor
    print(f"{api:>16} for reference: the raw client posting a prebuilt body takes {floor * 1e3:.2f} ms; "
          f"ours is {ours_invoke / floor:.2f}x that (normalizing, building and mapping included)")  # fmt: skip
    for label, mine, theirs in (("invoke median", ours_invoke, plain_invoke), ("stream TTFT", ours_ttft, plain_ttft)):
        ratio = mine / theirs
        results[f"{api}_{label.split()[0]}_ratio"] = ratio
        print(f"{api:>16} {label}: ours {mine * 1e3:.2f} ms, plain ChatOpenAI {theirs * 1e3:.2f} ms, "
              f"ratio {ratio:.2f} (goal <= 1.05, {verdict(ratio, 1.05)})")  # fmt: skip
    return results


def run() -> dict[str, Any]:
    results: dict[str, Any] = {}
    with emulator_process() as base_url:
        for api, model_name, size in (("agent", "perplexity/sonar", 2), ("chat_completions", "sonar", 51)):
            print(f"{api:>16}: a {size}-message history")
            results.update(measure_surface(api, model_name, base_url, valid_history(size)))
    return results


if __name__ == "__main__":
    run()
