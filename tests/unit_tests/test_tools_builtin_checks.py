"""Built-in tools after a stranger's tries: every form they found sent unchecked or refused only by the server."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain_core.callbacks.manager import handle_event
from langchain_core.messages import AIMessage, HumanMessage

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityCostCallbackHandler,
    fetch_url_tool,
    get_perplexity_cost_callback,
    image_search_tool,
    mcp_tool,
    web_search_tool,
)
from langchain_perplexity_strict._request._builtin_tools import TOOL_SHAPES
from langchain_perplexity_strict._request._tools import BUILTIN_TYPES, OPENAI_TOOLS
from langchain_perplexity_strict.errors import PerplexityBudgetExceededError

MODEL = ChatPerplexityStrict(api_key="k")  # type: ignore[arg-type]
MCP = {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example.com"}

# Every non-function tool type OpenAI's Responses API takes (openai's `ToolParam`, which
# `ChatOpenAI.bind_tools` passes through as built-in: langchain-openai's `_is_builtin_tool`,
# `WellKnownTools`), and one no provider has.
OPENAI_BUILTINS = [
    "web_search_preview", "web_search_preview_2025_03_11", "web_search_2025_08_26", "code_interpreter",
    "file_search", "image_generation", "computer_use_preview", "computer", "local_shell", "shell", "custom",
    "namespace", "tool_search", "apply_patch", "programmatic_tool_calling", "browser",
]  # fmt: skip


def test_the_built_in_types_are_the_shapes() -> None:
    assert set(BUILTIN_TYPES) == set(TOOL_SHAPES)


@pytest.mark.parametrize("kind", OPENAI_BUILTINS)
def test_another_providers_built_in_tool_is_named_with_what_to_use(kind: str) -> None:
    with pytest.raises(ValueError, match=rf"tools\[0\]\.type: '{kind}' is not a tool Perplexity offers") as error:
        MODEL.bind_tools([{"type": kind}])
    assert "web_search, fetch_url" in str(error.value)
    if kind.startswith("web_search"):
        assert "use {'type': 'web_search'}" in str(error.value)
    if kind == "code_interpreter":
        assert "use {'type': 'sandbox'}" in str(error.value)
    with pytest.raises(ValueError, match=f"'{kind}' is not a tool Perplexity offers"):
        MODEL.request_body("q", tools=[{"type": kind}])  # per call, too
    assert set(OPENAI_TOOLS) <= set(OPENAI_BUILTINS)


BAD_VALUES = [
    ({"type": "fetch_url", "max_urls": 0}, r"tools\[0\]\.max_urls: 0 is not accepted; expected an integer from 1"),
    ({"type": "fetch_url", "max_urls": -3}, r"max_urls: -3 .*from 1 to 100"),
    ({"type": "fetch_url", "max_urls": 10**9}, r"max_urls: 1000000000 .*from 1 to 100"),
    ({"type": "image_search", "max_results": 0}, r"max_results: 0 .*from 1 to 20"),
    ({"type": "image_search", "max_results": -1}, r"max_results: -1 .*from 1 to 20"),
    ({"type": "image_search", "max_results": 10**6}, r"max_results: 1000000 .*from 1 to 20"),
    ({"type": "web_search", "max_tokens": -1}, r"tools\[0\]\.max_tokens: -1 .*from 1 to 1000000"),
    ({"type": "web_search", "max_tokens_per_page": 0}, r"max_tokens_per_page: 0 .*from 1 to 1000000"),
    ({"type": "web_search", "user_location": {"latitude": 999}}, r"user_location\.latitude: 999 .*from -90 to 90"),
    ({"type": "web_search", "user_location": {"longitude": -181.5}}, r"longitude: -181.5 .*from -180 to 180"),
    ({**MCP, "server_url": "not a url"}, r"server_url: 'not a url' is not accepted; expected an https:// URL"),
    ({**MCP, "server_url": "ftp://x.com"}, r"server_url: 'ftp://x.com'"),
    ({**MCP, "server_label": ""}, r"server_label: '' is not accepted; expected 1 to 64 letters"),
    ({**MCP, "server_label": "has space"}, r"server_label: 'has space'"),
    ({"type": "connector", "id": "c", "server_label": "x" * 65}, r"server_label: 'x{65}'"),
    ({**MCP, "require_approval": {"never": {"read_only": "yes"}}},
     r"tools\[0\]\.require_approval\.never\.read_only: 'yes' is not accepted; expected true or false"),
    ({**MCP, "require_approval": {"always": {"tool_names": "search"}}}, r"always\.tool_names: 'search'"),
    ({**MCP, "require_approval": "sometimes"}, r"require_approval: 'sometimes' is not accepted"),
    ({"type": "web_search", "filters": {"search_domain_filter": [f"d{i}.com" for i in range(21)]}},
     r"tools\[0\]\.filters\.search_domain_filter=\['d0.com'.*'d20.com'\] is not accepted .*expected at most 20"),
    ({"type": "web_search", "filters": {"search_domain_filter": ["https://a.com"]}},
     r"filters\.search_domain_filter=\['https://a.com'\] is not accepted"),
    ({"type": "web_search", "filters": {"search_after_date_filter": "2024-01-01"}},
     r"tools\[0\]\.filters\.search_after_date_filter='2024-01-01' is not accepted .*expected a date"),
    ({"type": "web_search", "filters": {"last_updated_before_filter": "13/01/2024"}}, r"last_updated_before_filter"),
    ({"type": "web_search", "filters": {"search_recency_filter": "week", "search_before_date_filter": "01/01/2025"}},
     r"filters\.search_recency_filter='week' cannot be combined with search_before_date_filter"),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "error"), BAD_VALUES)
def test_a_value_out_of_range_is_refused_with_its_path(tool: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        MODEL.bind_tools([tool])
    with pytest.raises(ValueError, match=error.replace(r"tools\[0\]", "tools\\[0\\]")):
        MODEL.request_body("q", tools=[tool])


def test_the_constructors_check_the_same_ranges() -> None:
    for build, error in [
        (lambda: fetch_url_tool(max_urls=0), r"fetch_url\.max_urls: 0"),
        (lambda: image_search_tool(max_results=10**6), r"image_search\.max_results: 1000000"),
        (lambda: web_search_tool(max_tokens=-1), r"web_search\.max_tokens: -1"),
        (lambda: web_search_tool(user_location={"latitude": 999}), r"web_search\.user_location\.latitude: 999"),
        (lambda: mcp_tool("docs", "ftp://x.com"), r"mcp\.server_url: 'ftp://x.com'"),
        (lambda: mcp_tool("", "https://x.com"), r"mcp\.server_label: ''"),
    ]:
        with pytest.raises(ValueError, match=error):
            build()
    good = [fetch_url_tool(max_urls=1), fetch_url_tool(max_urls=100), image_search_tool(max_results=20),
            web_search_tool(max_tokens=1_000_000, user_location={"latitude": -90, "longitude": 180.0}),
            web_search_tool(filters={"search_domain_filter": [f"d{i}.com" for i in range(20)]})]  # fmt: skip
    for tool in good:  # the bounds themselves are accepted
        MODEL.bind_tools([tool])


@pytest.mark.parametrize(
    ("tools", "error"),
    [
        ([{"type": "fetch_url"}, {"type": "fetch_url"}], r"\[1\]: 'fetch_url' is already bound as tools\[0\]"),
        ([{"type": "web_search"}] * 2, r"tools\[1\]: 'web_search' is already bound"),
        ([MCP, {**MCP, "server_url": "https://other.example.com"}], r"\[1\]: server_label 'docs' is already used by"),
        ([MCP, {"type": "connector", "id": "c1", "server_label": "docs"}], r"server_label 'docs' is already used"),
    ],
)  # fmt: skip
def test_a_duplicate_is_refused(tools: list[dict[str, Any]], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        MODEL.bind_tools(tools)
    with pytest.raises(ValueError, match=error):
        MODEL.request_body("q", tools=tools)


def test_tool_choice_names_bound_functions_and_built_ins() -> None:
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    with pytest.raises(ValueError, match=r"'web_search' is a built-in tool; tool_choice can force only a function "
                       r"tool; bound functions: none; bound built-in tools: fetch_url"):  # fmt: skip
        MODEL.bind_tools([fetch_url_tool()], tool_choice="web_search")
    with pytest.raises(ValueError, match=r"tool_choice=\{'type': 'web_search'\}: 'web_search' is a built-in tool"):
        MODEL.bind_tools([fetch_url_tool()], tool_choice={"type": "web_search"})
    with pytest.raises(ValueError, match=r"'nope' names no bound function tool; bound functions: lookup; bound "
                       r"built-in tools: fetch_url"):  # fmt: skip
        MODEL.bind_tools([lookup, fetch_url_tool()], tool_choice="nope")
    with pytest.raises(ValueError, match=r"'other' names no bound function"):
        MODEL.bind_tools([lookup], tool_choice={"type": "function", "function": {"name": "other"}})
    MODEL.bind_tools([lookup, fetch_url_tool()], tool_choice="lookup")
    for choice in ("auto", "none", "required", "any", True, {"type": "function", "function": {"name": "lookup"}}):
        MODEL.bind_tools([lookup], tool_choice=choice)
    with pytest.raises(ValueError, match=r"'web_search' is a built-in tool"):  # per call, too
        MODEL.request_body("q", tools=[fetch_url_tool()], tool_choice={"type": "web_search"})
    flat = {"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}}
    assert MODEL.request_body("q", tools=[flat], tool_choice={"name": "lookup"})["tool_choice"] == {"name": "lookup"}
    with pytest.raises(ValueError, match=r"'other' names no bound function tool; bound functions: lookup"):
        MODEL.request_body("q", tools=[flat], tool_choice={"name": "other"})


def test_strict_is_sent_on_function_tools_as_published() -> None:
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    bound = MODEL.bind_tools([lookup], strict=True)
    body = MODEL.request_body("q", **bound.kwargs)  # type: ignore[attr-defined]
    [function] = [t for t in body["tools"] if t["type"] == "function"]
    assert function["strict"] is True  # FunctionToolInput.strict


def test_model_filters_and_a_bound_search_tool() -> None:
    model = ChatPerplexityStrict(api_key="k", search_domain_filter=["nature.com"])  # type: ignore[arg-type]
    # A bound built-in set would reach the web without the model's filter: refused.
    with pytest.raises(ValueError, match=r"search_domain_filter=\['nature.com'\] .* tools\[0\] \(fetch_url\) would"):
        model.request_body("q", tools=[fetch_url_tool()])
    quiet = model.model_copy(update={"web_search": False})  # says it does not search, yet keeps a filter: refused
    with pytest.raises(ValueError, match=r"web_search=False turns web search off, so search_domain_filter="):
        quiet.request_body("q", tools=[fetch_url_tool()])
    bare = ChatPerplexityStrict(api_key="k", web_search=False)  # type: ignore[arg-type]
    assert bare.request_body("q", tools=[fetch_url_tool()])["tools"] == [{"type": "fetch_url"}]
    same = model.request_body("q", tools=[web_search_tool(filters={"search_domain_filter": ["nature.com"]})])
    assert same["tools"] == [{"type": "web_search", "filters": {"search_domain_filter": ["nature.com"]}}]
    with pytest.raises(ValueError, match=r"tools\[0\]\.filters\.search_domain_filter: the model's search settings "
                       r"give \['nature.com'\] and the bound web_search tool gives \['arxiv.org'\]"):  # fmt: skip
        model.request_body("q", tools=[web_search_tool(filters={"search_domain_filter": ["arxiv.org"]})])
    recency = ChatPerplexityStrict(api_key="k", search_recency_filter="week")  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match="search_recency_filter='week' cannot be combined with search_after_date_filter"
    ):
        recency.request_body("q", tools=[web_search_tool(filters={"search_after_date_filter": "01/01/2025"})])


REQUEST = {"type": "mcp_approval_request", "id": "mcpr_1", "name": "search", "arguments": "{}", "server_label": "docs"}


def _answer(*ids: str) -> AIMessage:
    return AIMessage("", additional_kwargs={"mcp_approval_request": [{**REQUEST, "id": i} for i in ids]})


def _approve(*ids: str) -> HumanMessage:
    return HumanMessage([{"type": "mcp_approval_response", "approval_request_id": i, "approve": True} for i in ids])


@pytest.mark.parametrize(
    ("history", "error"),
    [
        ([HumanMessage("q"), _approve("mcpr_1")], "no mcp_approval_request before it"),
        ([_approve("mcpr_1")], "no mcp_approval_request before it"),
        ([HumanMessage("q"), _answer("mcpr_1"), _approve("mcpr_doesnotexist")],
         r"approval_request_id='mcpr_doesnotexist'\) names no pending mcp_approval_request; pending: mcpr_1"),
        ([HumanMessage("q"), _answer("mcpr_1"), _approve("mcpr_1"), AIMessage("done"), _approve("mcpr_1")],
         "was answered already"),
    ],
)  # fmt: skip
def test_an_approval_that_answers_no_pending_request_is_refused(history: list[Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        MODEL.request_body(history)


def test_the_budgets_refusal_is_raised_and_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.DEBUG),
        get_perplexity_cost_callback(budget_usd=0),
        pytest.raises(PerplexityBudgetExceededError),
    ):
        MODEL.invoke("q")
    assert not [r for r in caplog.records if "PerplexityCostCallbackHandler" in r.getMessage()]


async def test_the_budgets_refusal_is_raised_and_not_logged_async(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.DEBUG),
        get_perplexity_cost_callback(budget_usd=0),
        pytest.raises(PerplexityBudgetExceededError),
    ):
        await MODEL.ainvoke("q")
    assert not [r for r in caplog.records if "PerplexityCostCallbackHandler" in r.getMessage()]


def test_another_error_of_the_cost_handler_is_still_logged(caplog: pytest.LogCaptureFixture) -> None:
    """The filter drops only the budget's refusal: langchain-core still logs any other error of the handler."""

    class Broken(PerplexityCostCallbackHandler):
        def on_llm_start(self, *args: Any, **kwargs: Any) -> None:
            raise RuntimeError("boom")

    with caplog.at_level(logging.WARNING), pytest.raises(RuntimeError):
        handle_event([Broken()], "on_llm_start", None, {}, ["q"])
    assert [r for r in caplog.records if "boom" in r.getMessage()]
