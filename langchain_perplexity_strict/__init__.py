"""LangChain chat model for Perplexity that sends only conversations Perplexity accepts.

Each public name is imported when it is first used (PEP 562, as langchain-core's own packages do):
`import langchain_perplexity_strict` loads none of the client, and `from langchain_perplexity_strict import
ChatPerplexityStrict` loads the chat model's modules only, not the search, embeddings, batches or decisions
ones. The `perplexity-strict emulator` command, which imports the package too, needs none of them.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING

from langchain_perplexity_strict._version import __version__
from langchain_perplexity_strict.registration import register_when_imported

if TYPE_CHECKING:
    from langchain_perplexity_strict._cost import PerplexityCostCallbackHandler, get_perplexity_cost_callback
    from langchain_perplexity_strict._decisions import PerplexityDecision, PerplexityDecisionResult
    from langchain_perplexity_strict._embeddings import (
        EmbeddingsResult,
        PerplexityContextualizedEmbeddings,
        PerplexityEmbeddings,
    )
    from langchain_perplexity_strict._model_list import PerplexityModelInfo, alist_models, list_models
    from langchain_perplexity_strict._request._builtin_tools import (
        ApprovalFilter,
        ApprovalFilters,
        BuiltinTool,
        ConnectorTool,
        FetchUrlTool,
        FinanceSearchTool,
        ImageSearchFilters,
        ImageSearchTool,
        McpTool,
        PeopleSearchTool,
        SandboxTool,
        UserLocation,
        WebSearchFilters,
        WebSearchTool,
        builtin_skill,
        check_builtin_tool,
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
    from langchain_perplexity_strict._request._skills import BuiltinSkill, CustomSkill, InlineSkill, Skill, check_skill
    from langchain_perplexity_strict._search import PerplexitySearchResults, PerplexitySearchRetriever
    from langchain_perplexity_strict._transport._response_files import PerplexityResponseFile
    from langchain_perplexity_strict.chat_models import ChatPerplexityStrict
    from langchain_perplexity_strict.errors import (
        PerplexityBatchError,
        PerplexityBatchTimeoutError,
        PerplexityBudgetExceededError,
        PerplexityIncompleteError,
        PerplexityResponseError,
        PerplexityResumeError,
        PerplexityRunTimeoutError,
        PerplexityRunUnknownError,
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

# Where each name lives (the module, under this package), imported on first use.
_LAZY: dict[str, str] = {
    "PerplexityCostCallbackHandler": "_cost",
    "get_perplexity_cost_callback": "_cost",
    "PerplexityDecision": "_decisions",
    "PerplexityDecisionResult": "_decisions",
    "EmbeddingsResult": "_embeddings",
    "PerplexityContextualizedEmbeddings": "_embeddings",
    "PerplexityEmbeddings": "_embeddings",
    "PerplexityModelInfo": "_model_list",
    "alist_models": "_model_list",
    "list_models": "_model_list",
    "ApprovalFilter": "_request._builtin_tools",
    "ApprovalFilters": "_request._builtin_tools",
    "BuiltinTool": "_request._builtin_tools",
    "ConnectorTool": "_request._builtin_tools",
    "FetchUrlTool": "_request._builtin_tools",
    "FinanceSearchTool": "_request._builtin_tools",
    "ImageSearchFilters": "_request._builtin_tools",
    "ImageSearchTool": "_request._builtin_tools",
    "McpTool": "_request._builtin_tools",
    "PeopleSearchTool": "_request._builtin_tools",
    "SandboxTool": "_request._builtin_tools",
    "UserLocation": "_request._builtin_tools",
    "WebSearchFilters": "_request._builtin_tools",
    "WebSearchTool": "_request._builtin_tools",
    "builtin_skill": "_request._builtin_tools",
    "check_builtin_tool": "_request._builtin_tools",
    "connector_tool": "_request._builtin_tools",
    "custom_skill": "_request._builtin_tools",
    "fetch_url_tool": "_request._builtin_tools",
    "finance_search_tool": "_request._builtin_tools",
    "image_search_tool": "_request._builtin_tools",
    "inline_skill": "_request._builtin_tools",
    "mcp_tool": "_request._builtin_tools",
    "people_search_tool": "_request._builtin_tools",
    "sandbox_tool": "_request._builtin_tools",
    "web_search_tool": "_request._builtin_tools",
    "BuiltinSkill": "_request._skills",
    "CustomSkill": "_request._skills",
    "InlineSkill": "_request._skills",
    "Skill": "_request._skills",
    "check_skill": "_request._skills",
    "PerplexitySearchResults": "_search",
    "PerplexitySearchRetriever": "_search",
    "PerplexityResponseFile": "_transport._response_files",
    "ChatPerplexityStrict": "chat_models",
    "PerplexityBatchError": "errors",
    "PerplexityBatchTimeoutError": "errors",
    "PerplexityBudgetExceededError": "errors",
    "PerplexityIncompleteError": "errors",
    "PerplexityResponseError": "errors",
    "PerplexityResumeError": "errors",
    "PerplexityRunTimeoutError": "errors",
    "PerplexityRunUnknownError": "errors",
    "PerplexityStreamError": "errors",
    "DEFAULT_RULES": "normalize",
    "CanonicalMessages": "normalize",
    "Change": "normalize",
    "CompactionResult": "normalize",
    "DemoteLateSystemMessages": "normalize",
    "DropTrailingAssistantMessages": "normalize",
    "Entry": "normalize",
    "MergeAdjacentTurns": "normalize",
    "NormalizationResult": "normalize",
    "RepairToolProtocol": "normalize",
    "Rule": "normalize",
    "StartWithUserTurn": "normalize",
    "compact_messages": "normalize",
    "normalize_messages": "normalize",
}


_PARSERS = (
    "Perplexity's inline <think> reasoning is already split off the answer (additional_kwargs['reasoning_content'], "
    "or reasoning blocks with output_version='v1'): use with_structured_output, or langchain-core's "
    "JsonOutputParser / PydanticOutputParser on the answer"
)
_MEDIA = (
    "for images pass return_images=True (api='chat_completions') or "
    "bind_tools([image_search_tool(), web_search_tool()]) (api='agent'); "
    "videos have no published request field"
)
_MOVED: dict[str, str] = {
    "ChatPerplexity": "use ChatPerplexityStrict (from langchain_perplexity_strict import ChatPerplexityStrict); "
    "docs/migration.md lists the arguments that carry over and those that change",
    "WebSearchOptions": "pass its keys as ChatPerplexityStrict arguments (search_context_size=..., "
    "user_location=..., search_type=...), or web_search_options={...}, which is converted",
    "MediaResponse": _MEDIA,
    "MediaResponseOverrides": _MEDIA,
    "ReasoningJsonOutputParser": _PARSERS,
    "ReasoningStructuredOutputParser": _PARSERS,
    "strip_think_tags": _PARSERS,
}
"""langchain-perplexity's public names (its `__all__`, 1.4.2) that this package has not: what to use instead.
Its `PerplexityEmbeddings`, `PerplexitySearchRetriever`, `PerplexitySearchResults` and `UserLocation` are here."""


def __getattr__(name: str) -> object:
    """A public name, or a submodule (`langchain_perplexity_strict.chat_models`), imported on first use; a name of
    langchain-perplexity's that this package has not raises an ImportError saying what to use (a switched import)."""
    if name in _MOVED:
        msg = f"{name} is langchain-perplexity's; langchain_perplexity_strict has no {name}: {_MOVED[name]}."
        raise ImportError(msg, name=__name__)
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(import_module(f"{__name__}.{module}"), name)
    elif not name.startswith("__") and find_spec(f"{__name__}.{name}") is not None:
        value = import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


# After `import langchain_perplexity_strict`, init_chat_model("perplexity_strict:...") works, and
# AIMessage.content_blocks of a v0 answer gives the blocks of a v1 answer: each registered in LangChain once
# the LangChain module it goes into is imported (registration.py), so this import does not import LangChain.
register_when_imported()
