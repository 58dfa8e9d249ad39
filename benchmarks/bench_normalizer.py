"""Normalization and request building, against langchain-openai, and their growth.

Goals: normalizing 20,000 messages costs at most half of langchain-openai's own
conversion of them; normalization grows about linearly (100k/10k <= 11); and
building a whole request costs, per message, at most 1.5x as much at 20,000
messages as at 2,000 (median of paired runs; issue 12 restated this, because a
10x longer history falls out of the CPU caches, which is not algorithmic growth).
"""

from __future__ import annotations

import statistics
from typing import Any

from langchain_openai import ChatOpenAI
from langchain_openai.chat_models.base import _construct_responses_api_input

from benchmarks.common import best_time, paired_ratios, verdict
from benchmarks.histories import agent_history
from langchain_perplexity_strict import ChatPerplexityStrict, normalize_messages


def run() -> dict[str, Any]:
    print("(times are the best CPU times of several runs: see benchmarks/common.py)")
    results: dict[str, Any] = {}
    h20k = agent_history(20_000)
    chat_openai = ChatOpenAI(model="sonar", api_key="k", base_url="http://127.0.0.1:9")  # type: ignore[arg-type]

    normalize_20k = best_time(lambda: normalize_messages(h20k))
    convert_20k = best_time(lambda: chat_openai._get_request_payload(h20k))
    ratio = normalize_20k / convert_20k
    results["normalizer_vs_langchain_openai_conversion_20k"] = ratio
    print(f"normalize 20,000 messages: {normalize_20k * 1e3:.1f} ms; langchain-openai chat-completions payload "
          f"of the same: {convert_20k * 1e3:.1f} ms; ratio {ratio:.2f} "
          f"(goal <= 0.5, {verdict(ratio, 0.5)})")  # fmt: skip

    h10k, h100k = agent_history(10_000), agent_history(100_000)
    growth = statistics.median(paired_ratios(lambda: normalize_messages(h10k), lambda: normalize_messages(h100k)))
    results["normalizer_growth_100k_over_10k"] = growth
    print(f"normalize 100,000 over 10,000 messages: ratio {growth:.2f} (median of 9 paired runs; "
          f"goal <= 11, {verdict(growth, 11)})")  # fmt: skip

    # Agent API body, compaction off so both sizes build the whole history.
    model = ChatPerplexityStrict(api_key="k", max_input_tokens=0)  # type: ignore[arg-type]
    h2k = agent_history(2_000)
    per_message = (
        statistics.median(paired_ratios(lambda: model.request_body(h2k), lambda: model.request_body(h20k))) / 10
    )
    results["agent_body_per_message_cost_20k_over_2k"] = per_message
    print(f"normalize + Agent API body: per-message cost at 20,000 over 2,000 messages {per_message:.2f} "
          f"(median of 9 paired runs; goal <= 1.5, {verdict(per_message, 1.5)})")  # fmt: skip

    chat_model = ChatPerplexityStrict(
        api="chat_completions",
        model="sonar",
        api_key="k",  # type: ignore[arg-type]
        max_input_tokens=0,
    )
    cc = (
        statistics.median(paired_ratios(lambda: chat_model.request_body(h2k), lambda: chat_model.request_body(h20k)))
        / 10
    )
    results["chat_completions_body_per_message_cost_20k_over_2k"] = cc
    print(f"normalize + chat-completions body: per-message cost at 20,000 over 2,000 messages {cc:.2f} "
          f"(median of 9 paired runs; goal <= 1.5, {verdict(cc, 1.5)})")  # fmt: skip

    base_2k = best_time(lambda: _construct_responses_api_input(h2k), repeat=3)
    base_20k = best_time(lambda: _construct_responses_api_input(h20k), repeat=1)
    results["langchain_openai_responses_input_growth_20k_over_2k"] = base_20k / base_2k
    print(f"for reference, langchain-openai's _construct_responses_api_input, 2,000: {base_2k * 1e3:.1f} ms; "
          f"20,000: {base_20k * 1e3:.1f} ms; ratio {base_20k / base_2k:.1f} (quadratic)")  # fmt: skip
    return results


if __name__ == "__main__":
    run()
