"""LangChain chat model for Perplexity that sends only conversations Perplexity accepts.

Each public name is imported on first use (PEP 562), so the import stays light."""

from __future__ import annotations

import re
import sys
from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING

from langchain_perplexity_strict._once import warn_deprecated_name
from langchain_perplexity_strict._switched import MOVED, SwitchedModules
from langchain_perplexity_strict._version import __version__
from langchain_perplexity_strict.registration import register_when_imported

if TYPE_CHECKING:
    from langchain_perplexity_strict._cost import PerplexityCostCallbackHandler, get_perplexity_cost_callback
    from langchain_perplexity_strict._embeddings import (
        EmbeddingsResult,
        PerplexityContextualizedEmbeddings,
        PerplexityEmbeddings,
    )
    from langchain_perplexity_strict._platform import (
        PerplexityDecision,
        PerplexityDecisionResult,
        PerplexityModelInfo,
        alist_models,
        list_models,
    )
    from langchain_perplexity_strict._request._builtin_tools import (
        builtin_skill,
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
    from langchain_perplexity_strict._search import PerplexitySearchResults, PerplexitySearchRetriever
    from langchain_perplexity_strict._transport._response_files import PerplexityResponseFile
    from langchain_perplexity_strict.chat_models import ChatPerplexityStrict
    from langchain_perplexity_strict.errors import PerplexityBatchError, PerplexityBatchTimeoutError
    from langchain_perplexity_strict.normalize import normalize_messages

__all__ = [
    "ChatPerplexityStrict",
    "EmbeddingsResult",
    "PerplexityBatchError",
    "PerplexityBatchTimeoutError",
    "PerplexityContextualizedEmbeddings",
    "PerplexityCostCallbackHandler",
    "PerplexityDecision",
    "PerplexityDecisionResult",
    "PerplexityEmbeddings",
    "PerplexityModelInfo",
    "PerplexityResponseFile",
    "PerplexitySearchResults",
    "PerplexitySearchRetriever",
    "__version__",
    "alist_models",
    "builtin_skill",
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

# The module (under this package) of each name.
_LAZY: dict[str, str] = {
    name: module
    for module, names in {
        "_cost": "PerplexityCostCallbackHandler get_perplexity_cost_callback",
        "_platform": "PerplexityDecision PerplexityDecisionResult PerplexityModelInfo alist_models list_models",
        "_embeddings": "EmbeddingsResult PerplexityContextualizedEmbeddings PerplexityEmbeddings",
        "_request._builtin_tools": "builtin_skill connector_tool custom_skill fetch_url_tool finance_search_tool "
        "image_search_tool inline_skill mcp_tool people_search_tool sandbox_tool web_search_tool",
        "_search": "PerplexitySearchResults PerplexitySearchRetriever",
        "_transport._response_files": "PerplexityResponseFile",
        "chat_models": "ChatPerplexityStrict",
        "errors": "PerplexityBatchError PerplexityBatchTimeoutError",
        "normalize": "normalize_messages",
    }.items()
    for name in names.split()
}


def _moved(module: str, names: str) -> dict[str, tuple[str, str]]:
    """Each of `names` -> (`module`, its import from that public module)."""
    return {name: (module, f"from {__name__}.{module} import {name}") for name in names.split()}


def _typed(module: str, names: str, call: str = "(...)", instead: str = "") -> dict[str, tuple[str, str]]:
    """Built-in tools' or skills' TypedDicts -> (their private module, `instead` or the factory each is named after)."""
    dict_too = " or a plain dict (a type checker infers the factory's type)"
    snake = {name: re.sub("(?<!^)([A-Z])", r"_\1", name).lower() for name in names.split()}
    return {name: (f"_request.{module}", (instead or factory + call) + dict_too) for name, factory in snake.items()}


# Names that left `__all__` -> (their module, what to use instead): each warns until the next release.
_DEPRECATED: dict[str, tuple[str, str]] = {
    **_moved(
        "errors",
        "PerplexityBudgetExceededError PerplexityIncompleteError PerplexityResponseError PerplexityResumeError "
        "PerplexityRunTimeoutError PerplexityRunUnknownError PerplexityStreamError",
    ),
    **_moved(
        "normalize",
        "DEFAULT_RULES CanonicalMessages Change DemoteLateSystemMessages DropTrailingAssistantMessages Entry "
        "MergeAdjacentTurns RepairToolProtocol Rule StartWithUserTurn compact_messages",
    ),
    "NormalizationResult": ("normalize._normalizer", "what normalize_messages(...) returns (no import needed)"),
    "CompactionResult": ("normalize._compaction", "what compact_messages(...) returns (no import needed)"),
    **_typed("_builtin_tools", "WebSearchTool FetchUrlTool ImageSearchTool McpTool ConnectorTool"),
    **_typed("_builtin_tools", "PeopleSearchTool FinanceSearchTool SandboxTool", "()"),
    **_typed("_skills", "BuiltinSkill InlineSkill CustomSkill"),
    **_typed("_builtin_tools", "BuiltinTool", instead="a factory such as web_search_tool(...)"),
    **_typed("_builtin_tools", "WebSearchFilters", instead="web_search_tool(filters={...})"),
    **_typed("_builtin_tools", "UserLocation", instead="web_search_tool(user_location={...})"),
    **_typed("_builtin_tools", "ImageSearchFilters", instead="image_search_tool(filters={...})"),
    **_typed("_builtin_tools", "ApprovalFilter ApprovalFilters", instead="mcp_tool(..., require_approval={...})"),
    **_typed("_skills", "Skill", instead="builtin_skill(...), inline_skill(...) or custom_skill(...)"),
    "check_builtin_tool": ("_request._builtin_tools", "ChatPerplexityStrict.bind_tools(...), which checks each tool"),
    "check_skill": ("_request._skills", "ChatPerplexityStrict(skills=...), which checks each skill"),
}


sys.meta_path.append(SwitchedModules)  # asked last, once every other finder failed


def __getattr__(name: str) -> object:
    """Public names and submodules load on first use; deprecated names warn; langchain-perplexity's fail to import."""
    if name in MOVED:
        msg = f"{name} is langchain-perplexity's; langchain_perplexity_strict has no {name}: {MOVED[name]}."
        raise ImportError(msg, name=__name__)
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(import_module(f"{__name__}.{module}"), name)
    elif name in _DEPRECATED:  # not cached: each import warns
        module, instead = _DEPRECATED[name]
        warn_deprecated_name(f"{__name__}.{name} is deprecated and goes in the next release; use {instead}.")
        return getattr(import_module(f"{__name__}.{module}"), name)
    elif not name.startswith("__") and find_spec(f"{__name__}.{name}") is not None:
        value = import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


# init_chat_model("perplexity_strict:...") and a v0 answer's content_blocks work once LangChain is imported.
register_when_imported()
