"""The stop filter on a 1 MB answer streamed 1 character at a time, four stop sequences.

The baseline is the same loop calling a pass-through function per chunk: a
stop filter is necessarily one call per chunk, so that is what it is compared
with.
"""

from __future__ import annotations

import random
from typing import Any

from benchmarks.common import paired_best, verdict
from langchain_perplexity_strict._response._stop import StopFilter

STOPS = ["\n\nHuman:", "<|end|>", "###", "Observation:"]


def realistic_answer(size: int = 1_000_000) -> str:
    """Markdown-like prose: headers, paragraphs, lists, and now and then a near-miss of a stop."""
    rng = random.Random(7)
    words = [
        "the",
        "of",
        "and",
        "a",
        "to",
        "in",
        "is",
        "that",
        "for",
        "on",
        "with",
        "as",
        "by",
        "this",
        "are",
        "from",
        "at",
        "or",
        "an",
        "be",
        "which",
        "it",
    ]
    words += [
        "Perplexity",
        "answer",
        "source",
        "citation",
        "model",
        "search",
        "result",
        "question",
        "data",
        "city",
        "population",
    ]
    parts, total = [], 0
    while total < size:
        roll = rng.random()
        if roll < 0.02:
            piece = "\n\n## " + " ".join(rng.choices(words, k=4)) + "\n\n"
        elif roll < 0.05:
            piece = "\n- " + " ".join(rng.choices(words, k=8))
        elif roll < 0.051:
            piece = rng.choice(["Observed:", "<|endoftext", "\n\nHumans"])
        else:
            piece = " ".join(rng.choices(words, k=12)) + ". "
        parts.append(piece)
        total += len(piece)
    return "".join(parts)[:size]


def adversarial_answer(size: int = 1_000_000) -> str:
    """Text where most characters start a near-miss of a stop (prefixes that never complete)."""
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "#", "##", "<|en", "Observ", "\n\nHum", "delta", "\n"]
    parts, total = [], 0
    while total < size:
        word = rng.choice(words)
        parts.append(word + " ")
        total += len(word) + 1
    return "".join(parts)[:size]


def passthrough(piece: str) -> str:
    return piece


def measure(text: str) -> tuple[float, float, int]:
    """Paired best of nine: (filter seconds, pass-through seconds, most characters held)."""
    chunks = list(text)

    def filtered() -> None:
        stop_filter = StopFilter(STOPS)
        feed = stop_filter.feed
        sink = [feed(c) for c in chunks]
        assert "".join(sink) + stop_filter.flush() == text, "the filter changed text that holds no stop"

    def plain() -> None:
        [passthrough(c) for c in chunks]

    plain_best, filter_best = paired_best(plain, filtered, repeat=9)
    stop_filter, held_max = StopFilter(STOPS), 0
    for c in chunks:
        stop_filter.feed(c)
        held_max = max(held_max, len(stop_filter.held))
    return filter_best, plain_best, held_max


def run() -> dict[str, Any]:
    limit = max(len(s) for s in STOPS) - 1
    results: dict[str, Any] = {"stop_filter_held_limit": limit}
    for label, text in (("realistic", realistic_answer()), ("adversarial", adversarial_answer())):
        seconds, plain, held = measure(text)
        ratio = seconds / plain
        goal = f"goal <= 2, {verdict(ratio, 2)}" if label == "realistic" else "no goal: near-misses everywhere"
        print(f"stop filter, 1 MB {label} answer in 1-character chunks, 4 stops: {seconds * 1e3:.0f} ms; "
              f"pass-through loop {plain * 1e3:.0f} ms; ratio {ratio:.2f} ({goal}); most held back {held} "
              f"characters (limit {limit}, {verdict(held, limit)})")  # fmt: skip
        results[f"stop_filter_{label}_ratio"] = ratio
        results[f"stop_filter_{label}_max_held"] = held
    return results


if __name__ == "__main__":
    run()
