"""LangChain chat model for Perplexity that sends only conversations Perplexity accepts."""

from langchain_perplexity_strict._contextualized import PerplexityContextualizedEmbeddings
from langchain_perplexity_strict._embedding_requests import EmbeddingsResult
from langchain_perplexity_strict._embeddings import PerplexityEmbeddings
from langchain_perplexity_strict._retrievers import PerplexitySearchRetriever
from langchain_perplexity_strict._search_tool import PerplexitySearchResults
from langchain_perplexity_strict._version import __version__
from langchain_perplexity_strict.chat_models import ChatPerplexityStrict
from langchain_perplexity_strict.errors import (
    PerplexityIncompleteError,
    PerplexityResponseError,
    PerplexityResumeError,
    PerplexityRunTimeoutError,
    PerplexityStreamError,
)
from langchain_perplexity_strict.normalize import (
    DEFAULT_RULES,
    CanonicalMessages,
    Change,
    CompactionResult,
    DemoteLateSystemMessages,
    DropTrailingAssistantMessages,
    Entry,
    MergeAdjacentTurns,
    NormalizationResult,
    RepairToolProtocol,
    Rule,
    StartWithUserTurn,
    compact_messages,
    normalize_messages,
)
from langchain_perplexity_strict.registration import register_provider

__all__ = [
    "DEFAULT_RULES",
    "CanonicalMessages",
    "Change",
    "ChatPerplexityStrict",
    "CompactionResult",
    "DemoteLateSystemMessages",
    "DropTrailingAssistantMessages",
    "EmbeddingsResult",
    "Entry",
    "MergeAdjacentTurns",
    "NormalizationResult",
    "PerplexityContextualizedEmbeddings",
    "PerplexityEmbeddings",
    "PerplexityIncompleteError",
    "PerplexityResponseError",
    "PerplexityResumeError",
    "PerplexityRunTimeoutError",
    "PerplexitySearchResults",
    "PerplexitySearchRetriever",
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
