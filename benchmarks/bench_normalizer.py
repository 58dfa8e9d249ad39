"""Issue 2 and issue 6 §2: normalization and request building, against langchain-openai, and their growth."""

from __future__ import annotations

from typing import Any

from langchain_openai import ChatOpenAI
from langchain_openai.chat_models.base import _construct_responses_api_input

from benchmarks.common import best_time, paired_best, verdict
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
    t10k, t100k = paired_best(lambda: normalize_messages(h10k), lambda: normalize_messages(h100k))
    growth = t100k / t10k
    results["normalizer_growth_100k_over_10k"] = growth
    print(f"normalize 10,000: {t10k * 1e3:.1f} ms; 100,000: {t100k * 1e3:.1f} ms; ratio {growth:.2f} "
          f"(goal <= 11, {verdict(growth, 11)})")  # fmt: skip

    # Agent API body, compaction off so both sizes build the whole history.
    model = ChatPerplexityStrict(api_key="k", max_input_tokens=0)  # type: ignore[arg-type]
    h2k = agent_history(2_000)
    body_2k, body_20k = paired_best(lambda: model.request_body(h2k), lambda: model.request_body(h20k))
    body_growth = body_20k / body_2k
    results["agent_body_growth_20k_over_2k"] = body_growth
    print(f"normalize + Agent API body, 2,000: {body_2k * 1e3:.1f} ms; 20,000: {body_20k * 1e3:.1f} ms; "
          f"ratio {body_growth:.2f} (goal <= 12, {verdict(body_growth, 12)})")  # fmt: skip

    chat_model = ChatPerplexityStrict(
        api="chat_completions",
        model="sonar",
        api_key="k",  # type: ignore[arg-type]
        max_input_tokens=0,
    )
    cc_2k, cc_20k = paired_best(lambda: chat_model.request_body(h2k), lambda: chat_model.request_body(h20k))
    results["chat_completions_body_growth_20k_over_2k"] = cc_20k / cc_2k
    print(f"normalize + chat-completions body, 2,000: {cc_2k * 1e3:.1f} ms; 20,000: {cc_20k * 1e3:.1f} ms; "
          f"ratio {cc_20k / cc_2k:.2f} (goal <= 12, {verdict(cc_20k / cc_2k, 12)})")  # fmt: skip

    base_2k = best_time(lambda: _construct_responses_api_input(h2k), repeat=3)
    base_20k = best_time(lambda: _construct_responses_api_input(h20k), repeat=1)
    results["langchain_openai_responses_input_growth_20k_over_2k"] = base_20k / base_2k
    print(f"for reference, langchain-openai's _construct_responses_api_input, 2,000: {base_2k * 1e3:.1f} ms; "
          f"20,000: {base_20k * 1e3:.1f} ms; ratio {base_20k / base_2k:.1f} (quadratic)")  # fmt: skip
    return results


if __name__ == "__main__":
    run()
