"""LangChain chat model for Perplexity that sends only conversations Perplexity accepts."""

from langchain_perplexity_strict._version import __version__
from langchain_perplexity_strict.normalizer import NormalizationResult, normalize_messages
from langchain_perplexity_strict.rules import (
    DEFAULT_RULES,
    Change,
    DemoteLateSystemMessages,
    DropTrailingAssistantMessages,
    Entry,
    MergeAdjacentTurns,
    Rule,
    StartWithUserTurn,
)

__all__ = [
    "DEFAULT_RULES",
    "Change",
    "DemoteLateSystemMessages",
    "DropTrailingAssistantMessages",
    "Entry",
    "MergeAdjacentTurns",
    "NormalizationResult",
    "Rule",
    "StartWithUserTurn",
    "__version__",
    "normalize_messages",
]
