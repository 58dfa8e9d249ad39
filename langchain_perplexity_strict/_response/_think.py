"""Sonar reasoning models' inline `<think>` reasoning, split from the answer as it streams."""

from __future__ import annotations

from langchain_perplexity_strict._response._stop import StopFilter


class ThinkSplitter:
    """Separate `<think>…</think>` reasoning from the answer, piece by piece; it leads the content even with a
    JSON schema (docs/perplexity-rules.md)."""

    __slots__ = ("_close", "_start", "_state")

    OPEN = "<think>"

    def __init__(self) -> None:
        self._state = "start"  # start -> (thinking -> after ->) answer
        self._start = ""
        self._close: StopFilter | None = None

    def feed(self, text: str) -> tuple[str, str]:
        """`(reasoning, answer)` text safe to emit."""
        reasoning = ""
        if self._state == "start":
            self._start += text
            candidate = self._start.lstrip()
            if len(candidate) < len(self.OPEN) and self.OPEN.startswith(candidate):
                return "", ""
            if not candidate.startswith(self.OPEN):
                self._state = "answer"
                return "", self._start
            self._state = "thinking"
            self._close = StopFilter(["</think>"])
            text = candidate[len(self.OPEN) :]
        if self._close is not None and self._state == "thinking":
            reasoning = self._close.feed(text)
            if not self._close.stopped:
                return reasoning, ""
            self._state = "after"
            text = self._close.remainder
        if self._state == "after":
            text = text.lstrip("\n")  # newlines after </think> are dropped
            if text:
                self._state = "answer"
        return reasoning, text

    def flush(self) -> tuple[str, str]:
        if self._state == "start":
            return "", self._start
        if self._close is not None and self._state == "thinking":
            return self._close.flush(), ""
        return "", ""
