"""What a bound tool set leaves open: one tool per type, foreign tools, `tool_choice` (docs/perplexity-rules.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_perplexity_strict._request._builtin_tools import TOOL_SHAPES, check_search_filters

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


def check_tool_set(tools: Sequence[Mapping[str, Any]], path: str = "tools") -> None:
    """Raise `ValueError` when a built-in type is bound twice, or two MCP servers or connectors share a label."""
    seen: dict[Any, int] = {}
    for i, tool in enumerate(tools):
        kind = tool.get("type")
        if kind not in BUILTIN_TYPES:
            continue
        labelled = kind in ("mcp", "connector")
        key = ("server_label", tool.get("server_label")) if labelled else kind
        if key in seen:
            first = f"{path}[{seen[key]}]"
            if labelled:
                why = f"server_label {tool.get('server_label')!r} is already used by {first}; labels are unique"
            else:
                why = f"{kind!r} is already bound as {first}; each built-in tool is bound once"
            raise ValueError(f"{path}[{i}]: {why} (merge their options into one)")
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
