"""The one entry point the chat model calls: normalize, compact to a token budget, normalize what is left."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from langchain_perplexity_strict.normalize._approvals import check_approval_history
from langchain_perplexity_strict.normalize._compaction import RULE_NAME, TokenCounter, compact_messages
from langchain_perplexity_strict.normalize._normalizer import NormalizationResult, normalize_messages
from langchain_perplexity_strict.normalize._rule_types import Change, Rule
from langchain_perplexity_strict.normalize._rules import DEFAULT_RULES


@dataclass(frozen=True)
class Prepared:
    """A conversation ready to send, with its report and compaction summary."""

    result: NormalizationResult
    compaction: dict[str, Any] | None = None
    """`response_metadata["compaction"]`, when anything was dropped."""
    kept_whole: bool = False
    """Whether compaction was skipped by `keep_whole`."""

    @property
    def messages(self) -> list[BaseMessage]:
        """The messages to send."""
        return self.result.messages


def prepare(
    messages: list[BaseMessage],
    *,
    rules: Sequence[Rule] = DEFAULT_RULES,
    budget: int | None = None,
    counter: TokenCounter | None = None,
    keep_whole: Callable[[NormalizationResult], bool] | None = None,
) -> Prepared:
    """Normalize the whole history, then compact it to `budget` tokens, then normalize what is left.

    Normalizing first fixes roles before a cut can change them. A true `keep_whole(normalized)` skips
    compaction (a continuation sends only its tail).
    """
    check_approval_history(messages)
    whole = normalize_messages(messages, rules=rules)
    if keep_whole is not None and keep_whole(whole):
        return Prepared(whole, kept_whole=True)
    result = compact_normalized(whole, rules, budget, counter)
    return Prepared(result, None if result is whole else compaction_summary(result, len(messages), budget))


def compact_normalized(
    normalized: NormalizationResult, rules: Sequence[Any], budget: int | None, counter: TokenCounter | None
) -> NormalizationResult:
    """Compact a normalized history to `budget` tokens, and normalize what is left.

    Text alone under the default counter is counted in one call: the count is a sum over messages.
    """
    messages = normalized.messages
    if not budget or (
        counter is None
        and all(type(m.content) is str for m in messages)
        and count_tokens_approximately(messages) <= budget
    ):
        return normalized
    compacted = compact_messages(messages, budget, token_counter=counter)
    if not compacted.changes:
        return normalized
    origin = normalized.sources

    def caller(positions: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(s for p in positions for s in origin[p])

    again = normalize_messages(compacted.messages, rules=rules)
    kept = compacted.kept
    changes = [
        *normalized.changes,
        *(Change(c.rule, caller(c.sources), c.reason) for c in compacted.changes),
        *(Change(c.rule, caller(tuple(kept[i] for i in c.sources)), c.reason) for c in again.changes),
    ]
    sources = [caller(tuple(kept[i] for i in s)) for s in again.sources]
    return NormalizationResult(again.messages, changes, sources)


def compaction_summary(result: NormalizationResult, given: int, budget: int | None) -> dict[str, Any] | None:
    """What compaction did, for `response_metadata["compaction"]`; None when it dropped nothing."""
    cuts = [c for c in result.changes if c.rule == RULE_NAME]
    if not cuts:
        return None
    return {
        "max_input_tokens": budget,
        "messages_in": given,
        "messages_sent": len(result.messages),
        "dropped": sorted({s for c in cuts for s in c.sources}),
        "changes": [str(c) for c in cuts],
    }
