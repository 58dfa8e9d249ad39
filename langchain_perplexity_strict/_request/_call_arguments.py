"""A call's keyword arguments: tools, tool choice and response format, the parameters, and what is not sent.

`invoke(..., temperature=0.2)`, `bind(...)` and `bind_tools(...)` all arrive here; a
parameter is then checked by `_parameters.check_parameters`, as a constructor's is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_perplexity_strict._request._parameter import Api
from langchain_perplexity_strict._request._parameters import PARAMETERS

# Keyword arguments a call may carry besides the parameters: they shape the request.
CALL_KWARGS = ("tools", "tool_choice", "response_format")
# Passed by LangChain itself (structured-output tracing) or by callers used to ChatOpenAI
# (parallel_tool_calls, which the published Agent API lacks: True or None is what it does anyway): not sent.
IGNORED_KWARGS = ("ls_structured_output_format", "parallel_tool_calls")


def check_parallel_tool_calls(value: Any) -> None:
    """`parallel_tool_calls=False` cannot be honoured (Perplexity's model may call several tools in one turn):
    refused, at `bind_tools` and per call, rather than ignored; True and None are what Perplexity does."""
    if value is not None and value is not True:
        msg = (
            f"parallel_tool_calls={value!r}: the published Agent API has no parallel_tool_calls, and its model "
            "may call several tools in one turn; remove it (True or None are accepted) and handle every tool call."
        )
        raise ValueError(msg)


def call_arguments(kwargs: Mapping[str, Any], api: Api) -> tuple[dict[str, Any], dict[str, Any]]:
    """A call's keyword arguments as (tools, tool choice and response format; parameters).

    Raises `ValueError` for an argument that is neither, naming it and listing what a call takes.
    """
    check_parallel_tool_calls(kwargs.get("parallel_tool_calls"))
    params = {k: v for k, v in kwargs.items() if k not in IGNORED_KWARGS}
    call = {k: params.pop(k) for k in CALL_KWARGS if k in params}
    unknown = sorted(k for k in params if k not in PARAMETERS)
    if unknown:
        msg = (
            f"{unknown[0]}={params[unknown[0]]!r} is not a parameter of ChatPerplexityStrict "
            f"(api={api!r}); call-time parameters are: {', '.join(sorted(PARAMETERS))}, {', '.join(CALL_KWARGS)}."
        )
        raise ValueError(msg)
    return call, params
