"""Stage 1 of a call: turn any LangChain conversation into one Perplexity accepts.

Pure functions from messages to messages, with a report: the rules (`_rules`,
one Perplexity refusal each), the canonical content they produce
(`_content`), tool-protocol repair, roles, and compaction to a token budget.
Nothing here knows of requests, HTTP or responses.

`prepare` is the one entry point the chat model calls; `normalize_messages`
and `compact_messages` are the two halves, public for direct use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage

from langchain_perplexity_strict.normalize._agent_content import AGENT_CONTENT, NOT_SENT, ContentLimits
from langchain_perplexity_strict.normalize._approvals import (
    approval_requests,
    approval_responses,
    check_approval_history,
)
from langchain_perplexity_strict.normalize._compaction import (
    CompactionResult,
    TokenCounter,
    compact_messages,
    compact_normalized,
    compaction_summary,
    compaction_warning,
    count_tokens,
)
from langchain_perplexity_strict.normalize._content import canonical_blocks, canonical_text, data_url, text_of
from langchain_perplexity_strict.normalize._normalizer import NormalizationResult, normalize_messages
from langchain_perplexity_strict.normalize._roles import is_developer
from langchain_perplexity_strict.normalize._rules import (
    DEFAULT_RULES,
    CanonicalMessages,
    Change,
    DemoteLateSystemMessages,
    DropTrailingAssistantMessages,
    Entry,
    MergeAdjacentTurns,
    RepairToolProtocol,
    Rule,
    StartWithUserTurn,
)

__all__ = [
    "AGENT_CONTENT",
    "DEFAULT_RULES",
    "NOT_SENT",
    "CanonicalMessages",
    "Change",
    "CompactionResult",
    "ContentLimits",
    "DemoteLateSystemMessages",
    "DropTrailingAssistantMessages",
    "Entry",
    "MergeAdjacentTurns",
    "NormalizationResult",
    "Prepared",
    "RepairToolProtocol",
    "Rule",
    "StartWithUserTurn",
    "TokenCounter",
    "approval_requests",
    "approval_responses",
    "canonical_blocks",
    "canonical_text",
    "compact_messages",
    "compaction_warning",
    "count_tokens",
    "data_url",
    "is_developer",
    "normalize_messages",
    "prepare",
    "text_of",
]


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
