"""Tools in every form LangChain accepts, as each surface's body takes them.

Function tools go through langchain-core's `convert_to_openai_tool`, as
`ChatOpenAI.bind_tools` does, so pydantic models, TypedDicts, functions,
`BaseTool` instances, JSON-schema dicts and OpenAI-shaped dicts all work;
the Agent API then takes the function flat (`FunctionToolInput`: `type`,
`name`, `description`, `parameters`, `strict`), not nested under
`function`. Perplexity's built-in tools (`web_search`, `fetch_url`, ...)
pass through as the caller wrote them.
"""

from __future__ import annotations

from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_perplexity_strict._request._model_names import RESERVED_FUNCTION_NAMES

# ToolInput in perplexity.generated.api: the built-in tool types besides "function".
BUILTIN_TOOLS = frozenset(
    {"web_search", "image_search", "fetch_url", "people_search", "finance_search", "sandbox", "mcp", "connector"}
)
_FUNCTION_FIELDS = ("type", "name", "description", "parameters", "strict")


def openai_tool(tool: Any, *, strict: bool | None = None) -> dict[str, Any]:
    """Any LangChain tool form as `{"type": "function", "function": {...}}`, or a built-in tool as given.

    Raises `ValueError` for a function named like a built-in tool (Perplexity refuses those names).
    """
    if isinstance(tool, dict) and tool.get("type") in BUILTIN_TOOLS:
        return dict(tool)
    if isinstance(tool, dict) and tool.get("type") == "function" and "name" in tool and "function" not in tool:
        tool = {"type": "function", "function": {k: v for k, v in tool.items() if k != "type"}}  # Agent API shape
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
    """A bound tool in the Agent API's shape (a flat function, or the built-in tool itself)."""
    if tool.get("type") in BUILTIN_TOOLS:
        return tool
    function = tool.get("function") or tool
    flat = {"type": "function", **{k: function[k] for k in _FUNCTION_FIELDS[1:] if function.get(k) is not None}}
    return flat


def agent_tool_choice(choice: Any) -> Any:
    """`tool_choice` as the Agent API takes it: none, auto, required, or `{"name": fn}`.

    `ToolChoiceInput` is a string or an object; the object form Perplexity's Agent API
    guide shows for forcing a function is `{"name": fn}`.
    """
    if isinstance(choice, dict):
        name = choice.get("name") or (choice.get("function") or {}).get("name")
        if name:
            return {"name": name}
    return choice


def function_names(tools: list[dict[str, Any]]) -> list[str]:
    """The names of the function tools among `tools` (converted with `openai_tool`)."""
    return [t["function"]["name"] for t in tools if "function" in t]


def tool_choice_for(choice: dict | str | bool, names: list[str]) -> Any:
    """LangChain's `tool_choice` forms (a name, `True`, `"any"`) as a request value."""
    if choice is True:
        if len(names) != 1:
            msg = f"tool_choice=True needs exactly one tool, got {len(names)}: pass a tool name."
            raise ValueError(msg)
        return {"type": "function", "function": {"name": names[0]}}
    if choice == "any":
        return "required"
    if isinstance(choice, str) and choice not in ("auto", "none", "required"):
        if choice not in names:
            msg = f"tool_choice={choice!r} names no bound tool; bound tools: {', '.join(names) or 'none'}."
            raise ValueError(msg)
        return {"type": "function", "function": {"name": choice}}
    return choice
