"""The one entry point the chat model calls: normalize, compact to a token budget, normalize what is left."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage

from langchain_perplexity_strict.normalize._approvals import check_approval_history
from langchain_perplexity_strict.normalize._compaction import TokenCounter, compact_normalized, compaction_summary
from langchain_perplexity_strict.normalize._normalizer import NormalizationResult, normalize_messages
from langchain_perplexity_strict.normalize._rule_types import Rule
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
    return Prepared(result, compaction_summary(result, len(messages), budget))
