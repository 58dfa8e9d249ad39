"""Stage 1 of a call: turn any LangChain conversation into one Perplexity accepts.

Pure functions from messages to messages, with a report; the chat model calls `_normalizer.prepare`.
"""

from __future__ import annotations

from importlib import import_module

from langchain_perplexity_strict._once import warn_deprecated_name
from langchain_perplexity_strict.normalize._compaction import compact_messages
from langchain_perplexity_strict.normalize._normalizer import (
    DEFAULT_RULES,
    CanonicalMessages,
    DemoteLateSystemMessages,
    DropTrailingAssistantMessages,
    MergeAdjacentTurns,
    RepairToolProtocol,
    StartWithUserTurn,
    normalize_messages,
)
from langchain_perplexity_strict.normalize._roles import Change, Entry, Rule

__all__ = [
    "DEFAULT_RULES",
    "CanonicalMessages",
    "Change",
    "DemoteLateSystemMessages",
    "DropTrailingAssistantMessages",
    "Entry",
    "MergeAdjacentTurns",
    "RepairToolProtocol",
    "Rule",
    "StartWithUserTurn",
    "compact_messages",
    "normalize_messages",
]

_INTERNAL = "it is internal and has no public replacement"
# Names that left `__all__` -> (their module, what to use instead).
_DEPRECATED: dict[str, tuple[str, str]] = {
    "NormalizationResult": ("_normalizer", "use what normalize_messages(...) returns (no import needed)"),
    "CompactionResult": ("_compaction", "use what compact_messages(...) returns (no import needed)"),
    **dict.fromkeys(["AGENT_CONTENT", "NOT_SENT", "Prepared", "prepare"], ("_normalizer", _INTERNAL)),
    **dict.fromkeys(["TokenCounter", "compaction_warning", "count_tokens"], ("_compaction", _INTERNAL)),
    **dict.fromkeys(
        ["approval_requests", "approval_responses", "canonical_blocks", "canonical_text", "data_url", "text_of"],
        ("_content", _INTERNAL),
    ),
    "is_developer": ("_roles", _INTERNAL),
}


def __getattr__(name: str) -> object:
    """A name that left `__all__`, with a `DeprecationWarning` (PEP 562)."""
    if name not in _DEPRECATED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, instead = _DEPRECATED[name]
    warn_deprecated_name(f"{__name__}.{name} is deprecated and goes in the next release: {instead}.")
    return getattr(import_module(f"{__name__}.{module}"), name)
