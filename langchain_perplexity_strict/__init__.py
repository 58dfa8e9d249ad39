"""LangChain chat model for Perplexity that sends only conversations Perplexity accepts."""

from langchain_perplexity_strict._version import __version__
from langchain_perplexity_strict.chat_models import ChatPerplexityStrict
from langchain_perplexity_strict.compaction import CompactionResult, compact_messages
from langchain_perplexity_strict.errors import (
    PerplexityIncompleteError,
    PerplexityResponseError,
    PerplexityResumeError,
    PerplexityRunTimeoutError,
    PerplexityStreamError,
)
from langchain_perplexity_strict.normalizer import (
    NormalizationResult,
    normalize_messages,
)
from langchain_perplexity_strict.registration import register_provider
from langchain_perplexity_strict.rules import (
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
    "DEFAULT_RULES",
    "CanonicalMessages",
    "Change",
    "ChatPerplexityStrict",
    "CompactionResult",
    "DemoteLateSystemMessages",
    "DropTrailingAssistantMessages",
    "Entry",
    "MergeAdjacentTurns",
    "NormalizationResult",
    "PerplexityIncompleteError",
    "PerplexityResponseError",
    "PerplexityResumeError",
    "PerplexityRunTimeoutError",
    "PerplexityStreamError",
    "RepairToolProtocol",
    "Rule",
    "StartWithUserTurn",
    "__version__",
    "compact_messages",
    "normalize_messages",
]

# After `import langchain_perplexity_strict`, init_chat_model("perplexity_strict:...") works.
register_provider()
