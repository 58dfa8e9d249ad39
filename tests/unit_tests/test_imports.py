"""The public API, pinned: a change to it is a decision, not an accident."""

from __future__ import annotations

import langchain_perplexity_strict
import langchain_perplexity_strict.testing

EXPECTED_ALL = [
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


def test_all_is_pinned() -> None:
    assert sorted(langchain_perplexity_strict.__all__) == sorted(EXPECTED_ALL)
    for name in EXPECTED_ALL:
        assert hasattr(langchain_perplexity_strict, name), name


def test_testing_api_is_pinned() -> None:
    expected = ["ConversationRules", "Fault", "PerplexityEmulator", "RecordedRequest"]
    assert sorted(langchain_perplexity_strict.testing.__all__) == expected
