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
    """A conversation ready to send: the normalized messages with their report, and what compaction did."""

    result: NormalizationResult
    compaction: dict[str, Any] | None = None
    """What compaction kept and dropped (`response_metadata["compaction"]`), when it dropped anything."""
    kept_whole: bool = False
    """Whether `keep_whole` asked for the whole conversation (compaction was not run)."""

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

    Normalizing first decides each message's role from everything before it, as on
    every other turn, so a cut never turns a late system message (sent as user)
    back into a leading system message. The rules run again after the cut (it can
    leave, say, an assistant turn first). Positions in the report are the caller's.

    An `mcp_approval_response` that answers no pending request is refused first
    (`check_approval_history`). `keep_whole(normalized)`, when given and true, sends the normalized history
    uncompacted (a continuation carries only its tail, which it has checked fits).
    """
    check_approval_history(messages)
    whole = normalize_messages(messages, rules=rules)
    if keep_whole is not None and keep_whole(whole):
        return Prepared(whole, kept_whole=True)
    result = compact_normalized(whole, rules, budget, counter)  # normalized once, whether it compacts or not
    return Prepared(result, compaction_summary(result, len(messages), budget))
