"""Tools in every form LangChain accepts, converted as `ChatOpenAI.bind_tools` converts them, and checked.

The Agent API takes function tools flat (`FunctionToolInput`). What the built-in tools' shapes leave open is
checked here: one tool per type, foreign tools, `tool_choice` (docs/perplexity-rules.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_perplexity_strict._redact import shown
from langchain_perplexity_strict._request._builtin_tools import TOOL_SHAPES, check_builtin_tool, check_search_filters
from langchain_perplexity_strict._request._model_names import RESERVED_FUNCTION_NAMES
from langchain_perplexity_strict._request._parameter_row import WS
from langchain_perplexity_strict._request._parameter_table import PARAMETERS

BUILTIN_TYPES = tuple(TOOL_SHAPES)
"""Perplexity's built-in tool types (`ToolInput`, besides `function`)."""

OPENAI_TOOLS: dict[str, str] = {
    "web_search_preview": "use {'type': 'web_search'} (web_search_tool())",
    "web_search_preview_2025_03_11": "use {'type': 'web_search'} (web_search_tool())",
    "web_search_2025_08_26": "use {'type': 'web_search'} (web_search_tool())",
    "code_interpreter": "use {'type': 'sandbox'} (sandbox_tool()), Perplexity's code sandbox",
    "custom": "use a function tool",
}
"""OpenAI's built-in tool types with a Perplexity counterpart."""

_FUNCTION_FORMS = ("function", "object")  # a function dict, or a JSON schema
_CHOICE_WORDS = {"any": "required", "auto": "auto", "none": "none", "required": "required"}


def foreign_tool_problem(tool: Any, path: str) -> str | None:
    """Why `tool`, with another provider's `type`, is not a Perplexity tool (else langchain-core's KeyError)."""
    if not isinstance(tool, Mapping) or not isinstance(tool.get("type"), str):
        return None
    kind = tool["type"]
    if kind in _FUNCTION_FORMS or kind in BUILTIN_TYPES:
        return None
    instead = f"; {OPENAI_TOOLS[kind]}" if kind in OPENAI_TOOLS else ""
    return (
        f"{path}.type: {kind!r} is not a tool Perplexity offers{instead}. "
        f"Perplexity's built-in tools: {', '.join(BUILTIN_TYPES)}; functions go as LangChain tools or function dicts."
    )


def check_tool_set(tools: Sequence[Mapping[str, Any]]) -> None:
    """Raise `ValueError` when a built-in type is bound twice, or two MCP servers or connectors share a label."""
    seen: dict[Any, int] = {}
    for i, tool in enumerate(tools):
        kind = tool.get("type")
        if kind not in BUILTIN_TYPES:
            continue
        labelled = kind in ("mcp", "connector")
        key = ("server_label", tool.get("server_label")) if labelled else kind
        if key in seen:
            first = f"tools[{seen[key]}]"
            if labelled:
                why = f"server_label {tool.get('server_label')!r} is already used by {first}; labels are unique"
            else:
                why = f"{kind!r} is already bound as {first}; each built-in tool is bound once"
            raise ValueError(f"tools[{i}]: {why} (merge their options into one)")
        seen[key] = i


def tool_choice_for(choice: Any, tools: Sequence[Mapping[str, Any]]) -> Any:
    """Every `tool_choice` form `ChatOpenAI.bind_tools` takes, as a request value (None: left out)."""
    if choice is False or choice is None:
        return None
    if choice is True:
        return "required"
    if isinstance(choice, str) and choice in _CHOICE_WORDS:
        return _CHOICE_WORDS[choice]
    name = choice
    if isinstance(choice, Mapping):
        name = choice.get("name") or (choice.get("function") or {}).get("name")
        if name is None and choice.get("type") in _CHOICE_WORDS:
            return _CHOICE_WORDS[choice["type"]]  # Anthropic's dict forms
    # Nested (as bound) or flat (Agent API).
    functions = [str((t.get("function") or t).get("name")) for t in tools if t.get("type") == "function"]
    builtins = [str(t.get("type")) for t in tools if t.get("type") in BUILTIN_TYPES]
    if isinstance(name, str) and name in functions:
        return {"type": "function", "function": {"name": name}}
    bound = f"bound functions: {', '.join(functions) or 'none'}; bound built-in tools: {', '.join(builtins) or 'none'}"
    target = choice.get("type") if isinstance(choice, Mapping) and name is None else name
    if target in BUILTIN_TYPES:
        reason = f"{target!r} is a built-in tool; tool_choice can force only a function tool"
        hint = " (to make the model use a tool, pass tool_choice='required')"
    else:
        reason = f"{target!r} names no bound function tool"
        hint = "; pass 'auto', 'none', 'required' or a bound function's name"
    raise ValueError(f"tool_choice={choice!r}: {reason}; {bound}{hint}.")


def merged_search(tool: Mapping[str, Any], options: Mapping[str, Any], path: str) -> dict[str, Any]:
    """A bound `web_search` with the model's search options filling its unset fields; a conflict is refused."""
    merged = {**options, **tool}
    model_filters, own = options.get("filters"), tool.get("filters")
    if isinstance(model_filters, Mapping) and isinstance(own, Mapping):
        for key, value in model_filters.items():
            if key in own and own[key] != value:
                raise ValueError(
                    f"{path}.filters.{key}: the model's search settings give {value!r} and the bound web_search "
                    f"tool gives {own[key]!r}; set it in one place (the tool's options, or the model's), not both."
                )
        merged["filters"] = {**model_filters, **own}
    if isinstance(merged.get("filters"), Mapping):
        note = " (the bound web_search tool's filters with the model's search settings)"
        check_search_filters(merged["filters"], f"{path}.filters", note)
    return merged


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
