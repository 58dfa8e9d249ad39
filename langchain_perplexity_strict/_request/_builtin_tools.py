"""Perplexity's built-in tools and skills: their published shapes, small constructors, and the check before sending.

Each TypedDict `X` is `perplexity.generated.api`'s `XInput` (a contract test holds them equal); the check adds
what the shapes leave open: server labels and URLs, and the search filters.
"""

# No `from __future__ import annotations`: TypedDict needs evaluated `NotRequired`.
import re
from collections.abc import Mapping
from typing import Any, Literal, get_args
from urllib.parse import urlparse

from pydantic import with_config
from typing_extensions import NotRequired, TypedDict

from langchain_perplexity_strict._redact import shown
from langchain_perplexity_strict._request._filters import MaxImages, MaxUrls, Recency, SearchTokens, UserLocation
from langchain_perplexity_strict._request._parameter_table import check_parameters
from langchain_perplexity_strict._request._shape_check import PUBLISHED, check_shape, check_tagged
from langchain_perplexity_strict._request._skills import BuiltinSkill, CustomSkill, InlineSkill, OfficeSkill

SERVER_LABEL = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # the SDK's docstring of `McpToolInput.server_label`

ContextSize = Literal["low", "medium", "high"]
"""`WebSearchToolInput.search_context_size`."""


@with_config(PUBLISHED)
class WebSearchFilters(TypedDict, total=False):
    """Domains (`-` prefix denies, at most 20), recency, dates as MM/DD/YYYY."""

    search_domain_filter: list[str]
    search_recency_filter: Recency
    search_after_date_filter: str
    search_before_date_filter: str
    last_updated_after_filter: str
    last_updated_before_filter: str


@with_config(PUBLISHED)
class WebSearchTool(TypedDict):
    type: Literal["web_search"]
    filters: NotRequired[WebSearchFilters]
    max_tokens: NotRequired[SearchTokens]
    max_tokens_per_page: NotRequired[SearchTokens]
    search_context_size: NotRequired[ContextSize]
    search_type: NotRequired[Literal["web", "fast"]]
    user_location: NotRequired[UserLocation]


@with_config(PUBLISHED)
class FetchUrlTool(TypedDict):
    type: Literal["fetch_url"]
    max_urls: NotRequired[MaxUrls]


@with_config(PUBLISHED)
class ImageSearchFilters(TypedDict, total=False):
    domain_filter: list[str]
    format_filter: list[Literal["bmp", "gif", "jpeg", "png", "webp", "svg"]]
    safe_search: bool


@with_config(PUBLISHED)
class ImageSearchTool(TypedDict):
    type: Literal["image_search"]
    filters: NotRequired[ImageSearchFilters]
    max_results: NotRequired[MaxImages]


@with_config(PUBLISHED)
class PeopleSearchTool(TypedDict):
    type: Literal["people_search"]


@with_config(PUBLISHED)
class FinanceSearchTool(TypedDict):
    type: Literal["finance_search"]


@with_config(PUBLISHED)
class SandboxTool(TypedDict):
    type: Literal["sandbox"]


@with_config(PUBLISHED)
class ApprovalFilter(TypedDict, total=False):
    """MCP tools matched by name or by their read-only annotation."""

    read_only: bool
    tool_names: list[str]


@with_config(PUBLISHED)
class ApprovalFilters(TypedDict, total=False):
    """Which MCP tools always, and which never, wait for the app's approval."""

    always: ApprovalFilter
    never: ApprovalFilter


RequireApproval = Literal["always", "never"] | ApprovalFilters


@with_config(PUBLISHED)
class McpTool(TypedDict):
    """`authorization` is a secret that travels in the request body."""

    type: Literal["mcp"]
    server_label: str
    server_url: str
    allowed_tools: NotRequired[list[str]]
    authorization: NotRequired[str]
    defer_loading: NotRequired[bool]
    headers: NotRequired[dict[str, str]]
    require_approval: NotRequired[RequireApproval]


@with_config(PUBLISHED)
class ConnectorTool(TypedDict):
    type: Literal["connector"]
    id: str
    server_label: str
    allowed_tools: NotRequired[list[str]]
    require_approval: NotRequired[RequireApproval]
    server_description: NotRequired[str]


BuiltinTool = (
    WebSearchTool
    | FetchUrlTool
    | ImageSearchTool
    | PeopleSearchTool
    | FinanceSearchTool
    | SandboxTool
    | McpTool
    | ConnectorTool
)
"""Any built-in tool, as `bind_tools` takes it."""

TOOL_SHAPES: dict[str, Any] = {get_args(shape.__annotations__["type"])[0]: shape for shape in get_args(BuiltinTool)}
"""Built-in tool type → its published shape (`ToolInput`)."""


def check_builtin_tool(tool: Mapping[str, Any], path: str = "tools") -> None:
    """Raise `ValueError` naming the field unless `tool` is a built-in tool in its published shape."""
    check_tagged(tool, TOOL_SHAPES, path, "a built-in tool")
    check_values(tool, path)


def check_values(tool: Mapping[str, Any], path: str) -> None:
    """Raise `ValueError` naming the field when a shaped tool's server or search filters are refused."""
    kind = tool.get("type")
    if kind in ("mcp", "connector") and not SERVER_LABEL.match(tool["server_label"]):
        label = shown(tool["server_label"])
        raise ValueError(f"{path}.server_label: {label} is not accepted; expected 1 to 64 letters, digits, '_' or '-'")
    url = urlparse(tool["server_url"]) if kind == "mcp" else None
    if url is not None and (url.scheme != "https" or not url.netloc):
        url_shown = shown(tool["server_url"])
        raise ValueError(f"{path}.server_url: {url_shown} is not accepted; expected an https:// URL of the MCP server")
    if kind == "web_search" and isinstance(tool.get("filters"), Mapping):
        check_search_filters(tool["filters"], f"{path}.filters")


def check_search_filters(filters: Mapping[str, Any], path: str, note: str = "") -> None:
    """A `web_search` tool's `filters` under the model-level filters' own check (`check_parameters`)."""
    try:
        check_parameters(dict(filters), "agent")
    except ValueError as error:
        raise ValueError(f"{path}.{error}{note}") from None


def _built(shape: Any, fields: dict[str, Any]) -> Any:
    """A tool or skill of `shape` with a constructor's arguments (None means absent), checked."""
    kind = get_args(shape.__annotations__["type"])[0]
    value = {"type": kind, **{k: v for k, v in fields.items() if v is not None}}
    check_shape(value, shape, kind)
    check_values(value, kind)
    return value


def web_search_tool(
    *,
    filters: WebSearchFilters | None = None,
    max_tokens: int | None = None,
    max_tokens_per_page: int | None = None,
    search_context_size: ContextSize | None = None,
    search_type: Literal["web", "fast"] | None = None,
    user_location: UserLocation | None = None,
) -> WebSearchTool:
    """Perplexity's web search, with its options; bound, it replaces the default search tool."""
    return _built(WebSearchTool, locals())


def fetch_url_tool(*, max_urls: int | None = None) -> FetchUrlTool:
    """Fetch the pages at URLs (their text comes back as `fetch_url_results`)."""
    return _built(FetchUrlTool, locals())


def image_search_tool(*, filters: ImageSearchFilters | None = None, max_results: int | None = None) -> ImageSearchTool:
    """Image search (`image_search_results`: image URL, page, size)."""
    return _built(ImageSearchTool, locals())


def people_search_tool() -> PeopleSearchTool:
    """People search."""
    return _built(PeopleSearchTool, {})


def finance_search_tool() -> FinanceSearchTool:
    """Financial data search."""
    return _built(FinanceSearchTool, {})


def sandbox_tool() -> SandboxTool:
    """The code sandbox: runs code, reads and writes files, shares them."""
    return _built(SandboxTool, {})


def mcp_tool(
    server_label: str,
    server_url: str,
    *,
    allowed_tools: list[str] | None = None,
    authorization: str | None = None,
    defer_loading: bool | None = None,
    headers: dict[str, str] | None = None,
    require_approval: RequireApproval | None = None,
) -> McpTool:
    """A remote MCP server; calls that need approval come back as `mcp_approval_request` blocks."""
    return _built(McpTool, locals())


def connector_tool(
    id: str,
    server_label: str,
    *,
    allowed_tools: list[str] | None = None,
    require_approval: RequireApproval | None = None,
    server_description: str | None = None,
) -> ConnectorTool:
    """A connector of the Perplexity account (an MCP server Perplexity hosts), by id."""
    return _built(ConnectorTool, locals())


def builtin_skill(name: OfficeSkill) -> BuiltinSkill:
    """One of Perplexity's office skills; a skill turns the sandbox on."""
    return _built(BuiltinSkill, locals())


def inline_skill(name: str, description: str, instructions: str) -> InlineSkill:
    """A skill written in the request."""
    return _built(InlineSkill, locals())


def custom_skill(id: str, version: str | None = None) -> CustomSkill:
    """A skill uploaded to the account, by id (the latest version unless `version` is given)."""
    return _built(CustomSkill, locals())
