"""Client-side stop sequences for streamed text (seed 004's ``StopFilter``).

The Agent API has no ``stop`` parameter, and stopping on the client works the
same on both surfaces. A ``StopFilter`` buffers only what could still be the
start of a stop sequence, never returns the stop text itself, and reports
when a stop has matched so the caller can end the stream and close the
connection.
"""

from __future__ import annotations

import re
from collections.abc import Sequence


class StopFilter:
    """Filter text pieces against case-sensitive stop sequences.

    ``feed`` returns the text that can no longer be part of a stop. Once a
    stop matches, ``stopped`` is true and every later ``feed`` returns "".
    What it holds back never exceeds the longest stop minus one character.
    """

    __slots__ = (
        "_buffer", "_first", "_longest", "_prefixes", "_stops",
        "matched", "remainder", "stopped",
    )  # fmt: skip

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = tuple(s for s in dict.fromkeys(stops) if s)
        self._longest = max((len(s) for s in self._stops), default=0)
        self._prefixes = frozenset(s[:k] for s in self._stops for k in range(1, len(s)))
        first = "".join(sorted({s[0] for s in self._stops}))
        self._first = re.compile(f"[{re.escape(first)}]") if first else None
        self._buffer = ""
        self.stopped = False
        self.matched = ""
        self.remainder = ""  # what followed the stop in the piece that matched

    def feed(self, text: str) -> str:
        """Add ``text``; return what is safe to emit."""
        if self.stopped or self._first is None:
            return "" if self.stopped else text
        if not self._buffer:
            # Fast path: nothing held and no stop can start in this piece.
            found = self._first.search(text)
            if found is None:
                return text
            head, tail = text[: found.start()], text[found.start() :]
        else:
            head, tail = "", self._buffer + text
        hits = [(i, s) for s in self._stops if (i := tail.find(s)) >= 0]
        if hits:
            end, stop = min(hits)
            self.stopped = True
            self.matched = stop
            self.remainder = tail[end + len(stop) :]
            self._buffer = ""
            return head + tail[:end]
        hold = self._held_suffix(tail)
        self._buffer = tail[len(tail) - hold :] if hold else ""
        return head + (tail[: len(tail) - hold] if hold else tail)

    def flush(self) -> str:
        """At the end of the stream: the held text, which turned out not to be a stop."""
        held, self._buffer = self._buffer, ""
        return held

    @property
    def held(self) -> str:
        """The text currently held back (it may still start a stop)."""
        return self._buffer

    def _held_suffix(self, text: str) -> int:
        for k in range(min(len(text), self._longest - 1), 0, -1):
            if text[-k:] in self._prefixes:
                return k
        return 0


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    """The whole-text form: ``text`` up to the earliest stop, and whether one matched."""
    stop_filter = StopFilter(stops)
    kept = stop_filter.feed(text)
    return (kept, True) if stop_filter.stopped else (kept + stop_filter.flush(), False)


class ThinkSplitter:
    """Separate ``<think>…</think>`` reasoning from the answer, piece by piece.

    Sonar reasoning models put their reasoning inline at the start of the
    content, even when a JSON schema was requested (perplexity-api.md §5); it
    belongs in reasoning content, never in the answer text.
    """

    __slots__ = ("_close", "_start", "_state")

    OPEN = "<think>"

    def __init__(self) -> None:
        self._state = "start"  # start -> (thinking ->) answer
        self._start = ""
        self._close = StopFilter(["</think>"])

    def feed(self, text: str) -> tuple[str, str]:
        """Return ``(reasoning, answer)`` text that is safe to emit."""
        if self._state == "start":
            self._start += text
            candidate = self._start.lstrip()
            if len(candidate) < len(self.OPEN) and self.OPEN.startswith(candidate):
                return "", ""
            if not candidate.startswith(self.OPEN):
                self._state = "answer"
                return "", self._start
            self._state = "thinking"
            text = candidate[len(self.OPEN) :]
        if self._state == "thinking":
            reasoning = self._close.feed(text)
            if not self._close.stopped:
                return reasoning, ""
            self._state = "after"
            return reasoning, self._after(self._close.remainder)
        if self._state == "after":
            return "", self._after(text)
        return "", text

    def _after(self, text: str) -> str:
        # The answer starts after the newline(s) that follow </think>.
        stripped = text.lstrip("\n")
        if stripped:
            self._state = "answer"
        return stripped

    def flush(self) -> tuple[str, str]:
        """At the end: whatever is still held."""
        if self._state == "start":
            return "", self._start
        if self._state == "thinking":
            return self._close.flush(), ""
        return "", ""


def split_think(text: str) -> tuple[str, str]:
    """The whole-text form of :class:`ThinkSplitter`: ``(reasoning, answer)``."""
    splitter = ThinkSplitter()
    reasoning, answer = splitter.feed(text)
    more_reasoning, more_answer = splitter.flush()
    return reasoning + more_reasoning, answer + more_answer
