"""Client-side stop sequences for streamed text: the Agent API has no `stop` parameter."""

from __future__ import annotations

import re
from collections.abc import Sequence


class StopFilter:
    """Filter text pieces against stop sequences; the first to complete wins, however the text is chunked.

    Single characters step a memoized automaton whose state is the held text.
    """

    __slots__ = (
        "_busy",
        "_first",
        "_first_re",
        "_longest",
        "_plain",
        "_prefixes",
        "_steps",
        "_stops",
        "held",
        "matched",
        "remainder",
        "stopped",
    )

    _MAX_MEMO = 65_536  # bounds the memo: the alphabet is open

    def __init__(self, stops: Sequence[str]) -> None:
        # Longest first: it wins a tie.
        self._stops = tuple(sorted(dict.fromkeys(s for s in stops if s), key=len, reverse=True))
        self._longest = max((len(s) for s in self._stops), default=0)
        self._prefixes = frozenset(s[:k] for s in self._stops for k in range(1, len(s)))
        self._first = frozenset(s[0] for s in self._stops)
        self._first_re = re.compile("[" + re.escape("".join(sorted(self._first))) + "]") if self._first else None
        self._steps: dict[tuple[str, str], tuple[str, str, bool]] = {}
        self._plain: set[str] = set()  # characters that start no stop
        self._busy = False  # held or stopped
        self.held = ""  # it may start a stop
        self.stopped = False
        self.matched = ""
        self.remainder = ""  # after the stop, in its piece

    def feed(self, text: str) -> str:
        """The text that can no longer be part of a stop."""
        if not self._busy and text in self._plain:
            return text
        out = self._advance(text)
        self._busy = bool(self.held) or self.stopped
        return out

    def flush(self) -> str:
        """At the stream's end: the held text, which was no stop."""
        out, self.held = self.held, ""
        self._busy = self.stopped
        return out

    def _advance(self, text: str) -> str:
        if self.stopped:
            return ""
        if len(text) == 1:
            return self._advance_char(text)
        if not self.held and (self._first_re is None or self._first_re.search(text) is None):
            return text
        text = self.held + text
        hits = [(i + len(s), i, s) for s in self._stops if (i := text.find(s)) >= 0]
        if hits:
            end, start, stop = min(hits)
            self._stop_at(stop, text[end:])
            return text[:start]
        self.held = self._held_suffix(text)
        return text[: len(text) - len(self.held)]

    def _advance_char(self, char: str) -> str:
        if not self.held and char not in self._first:
            if len(self._plain) < self._MAX_MEMO:
                self._plain.add(char)
            return char
        state, emitted, is_stop = self._steps.get((self.held, char)) or self._step(char)
        if is_stop:
            self._stop_at(state, "")
        else:
            self.held = state
        return emitted

    def _step(self, char: str) -> tuple[str, str, bool]:
        """(held text or stop, emitted, stopped)."""
        text = self.held + char
        stop = next((s for s in self._stops if text.endswith(s)), None)
        state = stop or self._held_suffix(text)
        result = (state, text[: len(text) - len(state)], stop is not None)
        if len(self._steps) >= self._MAX_MEMO:
            self._steps.clear()
        self._steps[(self.held, char)] = result
        return result

    def _held_suffix(self, text: str) -> str:
        """The longest end of `text` that may start a stop."""
        for start in range(max(0, len(text) - self._longest + 1), len(text)):
            if text[start] in self._first and text[start:] in self._prefixes:
                return text[start:]
        return ""

    def _stop_at(self, stop: str, remainder: str) -> None:
        self.stopped, self.matched, self.remainder, self.held = True, stop, remainder, ""
