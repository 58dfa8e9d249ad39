"""The <think> splitter: Sonar reasoning models' reasoning apart from their answer, across any piece boundaries."""

from __future__ import annotations

from langchain_perplexity_strict._response._think import ThinkSplitter


def split_think(text: str) -> tuple[str, str]:
    """The whole-text form of :class:`ThinkSplitter`: ``(reasoning, answer)``."""
    splitter = ThinkSplitter()
    reasoning, answer = splitter.feed(text)
    more_reasoning, more_answer = splitter.flush()
    return reasoning + more_reasoning, answer + more_answer


def test_think_splitter_across_piece_boundaries() -> None:
    text = "<think>weigh it</think>\n\nThe answer."
    for size in range(1, len(text) + 1):
        splitter = ThinkSplitter()
        reasoning = answer = ""
        for i in range(0, len(text), size):
            r, a = splitter.feed(text[i : i + size])
            reasoning, answer = reasoning + r, answer + a
        r, a = splitter.flush()
        assert (reasoning + r, answer + a) == ("weigh it", "The answer."), size
    assert split_think("no thinking") == ("", "no thinking")
    assert split_think("<think>unfinished") == ("unfinished", "")
