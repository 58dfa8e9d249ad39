"""Compact a history of about 1 million tokens to a 128k budget in one pass."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately

from benchmarks.common import verdict
from langchain_perplexity_strict.normalize import compact_messages


def history(tokens: int = 1_000_000) -> list[BaseMessage]:
    line = "a line of text in a long conversation, about ten tokens\n"
    body = line * 40  # about 500 tokens by the approximate counter
    messages: list[BaseMessage] = [SystemMessage("You are a patient assistant.")]
    i = 0
    while count_tokens_approximately(messages[-2:]) * len(messages) / 2 < tokens:
        messages.append(HumanMessage(f"Message {i}\n{body}") if i % 2 == 0 else AIMessage(f"Reply {i}\n{body}"))
        i += 1
    messages.append(HumanMessage("And now the newest question?"))
    return messages


def run() -> dict[str, Any]:
    messages = history()
    total = count_tokens_approximately(messages)
    calls = 0

    def counter(batch: list[BaseMessage]) -> int:
        nonlocal calls
        calls += 1
        return count_tokens_approximately(batch)

    start = time.perf_counter()
    result = compact_messages(messages, 128_000, token_counter=counter)
    elapsed = time.perf_counter() - start
    per_message = calls / len(messages)
    kept = count_tokens_approximately(result.messages)
    print(f"compaction: {len(messages):,} messages, about {total:,} tokens, to a 128,000 budget in {elapsed:.2f} s; "
          f"{kept:,} tokens kept in {len(result.messages):,} messages; {calls:,} counter calls, "
          f"{per_message:.2f} per message (goal <= 2, {verdict(per_message, 2)})")  # fmt: skip
    return {"compaction_seconds": elapsed, "compaction_counter_calls_per_message": per_message, "tokens_in": total,
            "tokens_kept": kept}  # fmt: skip


if __name__ == "__main__":
    run()
