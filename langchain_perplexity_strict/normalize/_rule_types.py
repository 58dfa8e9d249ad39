"""The records the normalizer's rules exchange (`Entry`, `Change`, the `Rule` protocol), and their shared words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from langchain_core.messages import BaseMessage

from langchain_perplexity_strict._once import warn
from langchain_perplexity_strict.normalize._roles import Role


class Entry(NamedTuple):
    """One message on its way through the rules; `sources` are its input positions."""

    message: BaseMessage
    role: Role
    sources: tuple[int, ...]


@dataclass(frozen=True)
class Change:
    """What one rule did to some input messages, and why."""

    rule: str
    sources: tuple[int, ...]
    reason: str

    def __str__(self) -> str:
        return f"{self.rule}: {_positions(self.sources) or '(inserted)'}: {self.reason}"


def _positions(sources: tuple[int, ...]) -> str:
    """Positions as `#1, #2`, with runs of three or more as `#1-#82`."""
    runs: list[list[int]] = []
    for i in sources:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(f"#{run[0]}-#{run[-1]}" if len(run) > 2 else ", ".join(f"#{i}" for i in run) for run in runs)


class Rule(Protocol):
    """A named rewrite of the conversation."""

    @property
    def name(self) -> str:
        """The rule's name in the report."""
        ...

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        """Return the rewritten entries and what changed."""
        ...


def listed(names: list[str]) -> str:
    """Names once each, quoted, in order."""
    return ", ".join(repr(n) for n in dict.fromkeys(names))


def newest_turn_lost(kinds: list[str], why: str, *, nothing_left: bool, send: str) -> None:
    """Warn that the newest user turn lost blocks of `kinds`; raise, saying what to `send`, if nothing is left."""
    if nothing_left:
        msg = (
            f"messages: content block(s) {listed(kinds)} left out of the newest user message ({why}), and nothing "
            f"is left to answer. {send}"
        )
        raise ValueError(msg)
    warn(f"The newest user message lost content block(s) {listed(kinds)}: {why}; the rest of the message is sent.")
