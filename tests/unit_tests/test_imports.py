"""The public API, pinned: a change to it is a decision, not an accident."""

from __future__ import annotations

import langchain_perplexity_strict
import langchain_perplexity_strict.testing

EXPECTED_ALL = [
    "ApprovalFilter",
    "ApprovalFilters",
    "BuiltinSkill",
    "BuiltinTool",
    "CanonicalMessages",
    "Change",
    "ChatPerplexityStrict",
    "CompactionResult",
    "ConnectorTool",
    "CustomSkill",
    "DEFAULT_RULES",
    "DemoteLateSystemMessages",
    "DropTrailingAssistantMessages",
    "EmbeddingsResult",
    "Entry",
    "FetchUrlTool",
    "FinanceSearchTool",
    "ImageSearchFilters",
    "ImageSearchTool",
    "InlineSkill",
    "McpTool",
    "MergeAdjacentTurns",
    "NormalizationResult",
    "PeopleSearchTool",
    "PerplexityBatchError",
    "PerplexityBatchTimeoutError",
    "PerplexityBudgetExceededError",
    "PerplexityContextualizedEmbeddings",
    "PerplexityCostCallbackHandler",
    "PerplexityDecision",
    "PerplexityDecisionResult",
    "PerplexityEmbeddings",
    "PerplexityIncompleteError",
    "PerplexityModelInfo",
    "PerplexityResponseError",
    "PerplexityResponseFile",
    "PerplexityResumeError",
    "PerplexityRunTimeoutError",
    "PerplexityRunUnknownError",
    "PerplexitySearchResults",
    "PerplexitySearchRetriever",
    "PerplexityStreamError",
    "RepairToolProtocol",
    "Rule",
    "SandboxTool",
    "Skill",
    "StartWithUserTurn",
    "UserLocation",
    "WebSearchFilters",
    "WebSearchTool",
    "__version__",
    "alist_models",
    "builtin_skill",
    "check_builtin_tool",
    "check_skill",
    "compact_messages",
    "connector_tool",
    "custom_skill",
    "fetch_url_tool",
    "finance_search_tool",
    "get_perplexity_cost_callback",
    "image_search_tool",
    "inline_skill",
    "list_models",
    "mcp_tool",
    "normalize_messages",
    "people_search_tool",
    "sandbox_tool",
    "web_search_tool",
]


def test_all_is_pinned() -> None:
    assert sorted(langchain_perplexity_strict.__all__) == sorted(EXPECTED_ALL)
    for name in EXPECTED_ALL:
        assert hasattr(langchain_perplexity_strict, name), name


def test_testing_api_is_pinned() -> None:
    expected = ["ConversationRules", "Fault", "PerplexityEmulator", "RecordedRequest"]
    assert sorted(langchain_perplexity_strict.testing.__all__) == expected
