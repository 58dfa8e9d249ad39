"""Client-side stop sequences for streamed text.

The Agent API has no ``stop`` parameter, and stopping on the client works the
same on both surfaces. A ``StopFilter`` buffers only what could still be the
start of a stop sequence, never returns the stop text itself, and reports
when a stop has matched so the caller can end the stream and close the
connection.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence


class StopFilter:
    """Filter text pieces against case-sensitive stop sequences.

    ``feed(text)`` returns the text that can no longer be part of a stop. Once
    a stop matches, ``stopped`` is true and every later ``feed`` returns "".
    The stop that matches is the first to complete, as when a server stops
    token by token (the longer one when two complete together), so the result
    never depends on how the stream was cut into pieces. What it holds back
    never exceeds the longest stop minus one character.

    One-character pieces (the common streaming case) step a small automaton:
    the held text is the state, and each (state, character) step is computed
    once and remembered. ``feed`` is a closure over that state, because it
    runs once per streamed piece and closure variables are the cheapest state
    Python reads.
    """

    __slots__ = ("_state", "feed", "flush")

    _MAX_MEMO = 65_536  # bound on remembered steps and characters (a stream's alphabet is open)

    feed: Callable[[str], str]
    flush: Callable[[], str]
    """At the end of the stream: return the held text, which turned out not to be a stop."""

    def __init__(self, stops: Sequence[str]) -> None:
        # Longest first, so a longer stop wins when two complete at the same character.
        ordered = tuple(sorted(dict.fromkeys(s for s in stops if s), key=len, reverse=True))
        if not ordered:  # no stops (most calls): pass everything through, build nothing
            self.feed = _same
            self.flush = _nothing
            self._state = _never_stopped
            return
        longest = max((len(s) for s in ordered), default=0)
        prefixes = frozenset(s[:k] for s in ordered for k in range(1, len(s)))
        first = frozenset(s[0] for s in ordered)
        first_re = re.compile("[" + re.escape("".join(sorted(first))) + "]") if first else None
        steps: dict[tuple[str, str], tuple[str, str, bool]] = {}
        plain_chars: set[str] = set()  # single characters seen that start no stop
        held, stopped, matched, remainder = "", False, "", ""
        busy = False  # held or stopped: the fast path reads one flag, not two

        def held_suffix(text: str) -> str:
            for start in range(max(0, len(text) - longest + 1), len(text)):
                if text[start] in first and text[start:] in prefixes:
                    return text[start:]
            return ""

        def step(char: str) -> tuple[str, str, bool]:
            text = held + char
            stop = next((s for s in ordered if text.endswith(s)), None)
            state = stop or held_suffix(text)
            result = (state, text[: len(text) - len(state)], stop is not None)
            if len(steps) >= self._MAX_MEMO:
                steps.clear()
            steps[(held, char)] = result
            return result

        def slow(text: str) -> str:
            out = advance(text)
            nonlocal busy
            busy = bool(held) or stopped
            return out

        def advance(text: str) -> str:
            nonlocal held, stopped, matched, remainder
            if stopped:
                return ""
            if len(text) == 1:
                if not held and text not in first:
                    if len(plain_chars) < self._MAX_MEMO:
                        plain_chars.add(text)
                    return text
                state, emitted, is_stop = steps.get((held, text)) or step(text)
                if is_stop:
                    stopped, matched, remainder, held = True, state, "", ""
                else:
                    held = state
                return emitted
            if not held and (first_re is None or first_re.search(text) is None):
                return text
            text = held + text
            hits = [(i + len(s), i, s) for s in ordered if (i := text.find(s)) >= 0]
            if hits:
                end, start, stop = min(hits)
                stopped, matched, remainder, held = True, stop, text[end:], ""
                return text[:start]
            held = held_suffix(text)
            return text[: len(text) - len(held)]

        def feed(text: str) -> str:
            if not busy and text in plain_chars:
                return text  # fast path: nothing held, and a character that starts no stop
            return slow(text)

        def flush() -> str:
            nonlocal held, busy
            out, held = held, ""
            busy = stopped
            return out

        self.feed = feed
        self.flush = flush
        self._state = lambda: (held, stopped, matched, remainder)

    @property
    def held(self) -> str:
        """The text currently held back (it may still start a stop)."""
        return str(self._state()[0])

    @property
    def stopped(self) -> bool:
        """Whether a stop sequence has matched."""
        return bool(self._state()[1])

    @property
    def matched(self) -> str:
        """The stop sequence that matched ("" before one does)."""
        return str(self._state()[2])

    @property
    def remainder(self) -> str:
        """What followed the stop in the piece that matched it."""
        return str(self._state()[3])


def _same(text: str) -> str:
    return text


def _nothing() -> str:
    return ""


def _never_stopped() -> tuple[str, bool, str, str]:
    return ("", False, "", "")


class ThinkSplitter:
    """Separate ``<think>…</think>`` reasoning from the answer, piece by piece.

    Sonar reasoning models put their reasoning inline at the start of the
    content, even when a JSON schema was requested (docs/perplexity-rules.md); it
    belongs in reasoning content, never in the answer text.
    """

    __slots__ = ("_close", "_start", "_state")

    OPEN = "<think>"

    def __init__(self) -> None:
        self._state = "start"  # start -> (thinking ->) answer
        self._start = ""
        self._close: StopFilter | None = None  # built only when reasoning starts

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
            self._close = StopFilter(["</think>"])
            text = candidate[len(self.OPEN) :]
        if self._close is not None and self._state == "thinking":
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
        if self._close is not None and self._state == "thinking":
            return self._close.flush(), ""
        return "", ""
