"""LangChain chat model for Perplexity that sends only conversations Perplexity accepts."""

from langchain_perplexity_strict._contextualized import PerplexityContextualizedEmbeddings
from langchain_perplexity_strict._cost import PerplexityCostCallbackHandler, get_perplexity_cost_callback
from langchain_perplexity_strict._embedding_requests import EmbeddingsResult
from langchain_perplexity_strict._embeddings import PerplexityEmbeddings
from langchain_perplexity_strict._request._builtin_tools import (
    ApprovalFilter,
    ApprovalFilters,
    BuiltinSkill,
    BuiltinTool,
    ConnectorTool,
    CustomSkill,
    FetchUrlTool,
    FinanceSearchTool,
    ImageSearchFilters,
    ImageSearchTool,
    InlineSkill,
    McpTool,
    PeopleSearchTool,
    SandboxTool,
    Skill,
    UserLocation,
    WebSearchFilters,
    WebSearchTool,
    builtin_skill,
    check_builtin_tool,
    check_skill,
    connector_tool,
    custom_skill,
    fetch_url_tool,
    finance_search_tool,
    image_search_tool,
    inline_skill,
    mcp_tool,
    people_search_tool,
    sandbox_tool,
    web_search_tool,
)
from langchain_perplexity_strict._response._blocks import register_block_translator
from langchain_perplexity_strict._retrievers import PerplexitySearchRetriever
from langchain_perplexity_strict._search_tool import PerplexitySearchResults
from langchain_perplexity_strict._version import __version__
from langchain_perplexity_strict.chat_models import ChatPerplexityStrict
from langchain_perplexity_strict.errors import (
    PerplexityBudgetExceededError,
    PerplexityIncompleteError,
    PerplexityResponseError,
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
    "PerplexityBudgetExceededError",
    "PerplexityContextualizedEmbeddings",
    "PerplexityCostCallbackHandler",
    "PerplexityEmbeddings",
    "PerplexityIncompleteError",
    "PerplexityResponseError",
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
    "mcp_tool",
    "normalize_messages",
    "people_search_tool",
    "sandbox_tool",
    "web_search_tool",
]

# After `import langchain_perplexity_strict`, init_chat_model("perplexity_strict:...") works.
register_provider()
# ... and AIMessage.content_blocks of a v0 answer gives the blocks of a v1 answer.
register_block_translator()
