"""Tools in every form LangChain accepts, converted as `ChatOpenAI.bind_tools` converts them.

The Agent API takes function tools flat (`FunctionToolInput`); built-in tools pass through once checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_perplexity_strict._redact import shown
from langchain_perplexity_strict._request._builtin_checks import (
    BUILTIN_TYPES,
    check_tool_set,
    foreign_tool_problem,
    merged_search,
    tool_choice_for,
)
from langchain_perplexity_strict._request._builtin_tools import check_builtin_tool
from langchain_perplexity_strict._request._model_names import RESERVED_FUNCTION_NAMES
from langchain_perplexity_strict._request._parameter_row import WS
from langchain_perplexity_strict._request._parameter_table import PARAMETERS

_FUNCTION_FIELDS = ("name", "description", "parameters", "strict")
NO_SONAR_TOOLS = (
    "tools: the Sonar chat-completions models have no function tools; use api='agent' (the default). "
    "For structured output, with_structured_output() or create_agent(response_format=ProviderStrategy(...)) "
    "send a response format instead."
)
NO_PROFILE_TOOLS = (
    "tools: this model's profile says tool_calling=False (the profile given, or the model's own), so it sends "
    "no function tools; pass a profile with tool_calling=True, or use a model that calls tools."
)


def tools_refusal(surface_has_functions: bool, profile: Mapping[str, Any]) -> str | None:
    """Why a model sends no function tools (its surface has none, or its profile says so); None if it does."""
    if not surface_has_functions:
        return NO_SONAR_TOOLS
    return None if profile.get("tool_calling") else NO_PROFILE_TOOLS


def openai_tool(tool: Any, *, strict: bool | None = None, path: str = "tools") -> dict[str, Any]:
    """Any LangChain tool form in the chat shape, or a built-in tool as given, once checked."""
    if isinstance(tool, dict) and tool.get("type") in BUILTIN_TYPES:
        check_builtin_tool(tool, path)
        return dict(tool)
    if problem := foreign_tool_problem(tool, path):
        raise ValueError(problem)
    if isinstance(tool, dict) and tool.get("type") == "function" and "name" in tool and "function" not in tool:
        tool = {"type": "function", "function": {k: v for k, v in tool.items() if k != "type"}}
    converted = convert_to_openai_tool(tool, strict=strict)
    name = converted["function"]["name"]
    if name in RESERVED_FUNCTION_NAMES:
        msg = (
            f"tools: function name {name!r} is reserved by Perplexity for a built-in tool "
            f"(reserved: {', '.join(sorted(RESERVED_FUNCTION_NAMES))}); rename the tool."
        )
        raise ValueError(msg)
    return converted


def agent_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A bound tool in the Agent API's shape: a function flat (`FunctionToolInput`)."""
    if tool.get("type") in BUILTIN_TYPES:
        return tool
    function = tool["function"]
    return {"type": "function", **{k: function[k] for k in _FUNCTION_FIELDS if function.get(k) is not None}}


def bound_tools(
    tools: Any, tool_choice: Any, *, strict: bool | None = None, refusal: str | None = None
) -> tuple[list[dict[str, Any]] | None, Any]:
    """Tools and `tool_choice` as a request takes them (idempotent); `refusal` comes from `tools_refusal`."""
    if tools is not None and not isinstance(tools, (list, tuple)):
        msg = (
            f"tools={shown(tools, limit=200)} is not accepted; "
            "expected a list of tools (LangChain tools or built-in tool dicts)."
        )
        raise ValueError(msg)
    formatted = None
    if tools is not None:
        formatted = [openai_tool(t, strict=strict, path=f"tools[{i}]") for i, t in enumerate(tools)]
    if refusal and (formatted or tool_choice not in (None, False)):
        raise ValueError(refusal)
    check_tool_set(formatted or [])
    return formatted, tool_choice_for(tool_choice, formatted or [])


def with_search_tool(
    tools: list[dict[str, Any]], options: dict[str, Any], *, off: str, bare: bool
) -> list[dict[str, Any]]:
    """`tools` with the model's search `options` in a bound `web_search`, or in one added.

    `off` names the switch that turns search off; `bare`: no preset. Options nothing would carry are refused.
    """
    for i, tool in enumerate(tools):
        if tool.get("type") == "web_search":
            return [*tools[:i], merged_search(tool, options, f"tools[{i}]"), *tools[i + 1 :]]
    if off and options:
        msg = (
            f"{off} turns web search off, so {_given(options)} (search settings of the model or the call) "
            f"would be dropped: nothing would carry them. Remove the search settings, or drop {off} to search "
            "with them" + (" (or bind web_search_tool(), which takes them)." if off == "web_search=False" else ".")
        )
        raise ValueError(msg)
    if off:
        return tools
    if options and (
        builtins := [f"tools[{i}] ({t['type']})" for i, t in enumerate(tools) if t.get("type") in BUILTIN_TYPES]
    ):
        msg = (
            f"{_given(options)} (search settings of the model or the call) configure the web_search tool "
            f"only; the bound built-in tools {', '.join(builtins)} would reach the web without them. Bind "
            "web_search too (web_search_tool(), which takes the model's search settings), or remove the search "
            "settings and pass web_search=False to the model to say it does not search."
        )
        raise ValueError(msg)
    # A bare model keeps its search beside bound built-ins, or it would not search at all.
    return [*tools, {"type": "web_search", **options}] if options or bare else tools


_SETTINGS = {p.agent.removeprefix(WS): name for name, p in PARAMETERS.items() if p.agent and p.agent.startswith(WS)}
"""A `web_search` field -> the setting that gives it."""


def _given(options: dict[str, Any], prefix: str = "") -> str:
    """The search options as the settings that gave them (`search_type='fast', ...`)."""
    return ", ".join(
        _given(value, "filters.")
        if key == "filters" and isinstance(value, dict)
        else f"{_SETTINGS[prefix + key]}={value!r}"
        for key, value in options.items()
    )
