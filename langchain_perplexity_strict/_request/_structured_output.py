"""`with_structured_output` for Perplexity: one `json_schema` response format, parsed as LangChain does.

Perplexity's structured outputs take `response_format: {"type": "json_schema",
"json_schema": {"name", "schema"}}` on both surfaces (never OpenAI's
`text.format`, which the Agent API refuses); the name is 1 to 64
alphanumeric characters (docs.perplexity.ai, "Structured Outputs").
"""

from __future__ import annotations

import re
import warnings
from operator import itemgetter
from typing import Any, cast

from langchain_core.output_parsers import (
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    PydanticOutputParser,
    PydanticToolsParser,
)
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from langchain_core.utils.function_calling import convert_to_json_schema, convert_to_openai_tool
from langchain_core.utils.pydantic import is_basemodel_subclass

from langchain_perplexity_strict._request._tools import openai_tool

ANY_OBJECT = {"type": "object", "additionalProperties": True}


def schema_name(schema: dict[str, Any]) -> str:
    """A response-format name Perplexity takes: the schema's title, alphanumeric, 1 to 64 characters."""
    name = re.sub(r"[^A-Za-z0-9]", "", str(schema.get("title") or ""))[:64]
    return name or "response"


def response_format(schema: Any, strict: bool | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The `json_schema` response format for `schema` (None: any JSON object), and the JSON schema."""
    json_schema = convert_to_json_schema(schema) if schema is not None else dict(ANY_OBJECT)
    body_schema = {k: v for k, v in json_schema.items() if k not in ("title", "description")}
    spec: dict[str, Any] = {"name": schema_name(json_schema), "schema": body_schema}
    if strict is not None:
        spec["strict"] = strict
    return {"type": "json_schema", "json_schema": spec}, json_schema


def output_parser(schema: Any, method: str) -> Runnable:
    """The parser LangChain's own integrations use for `method` and `schema`."""
    is_pydantic = isinstance(schema, type) and is_basemodel_subclass(schema)
    if method == "function_calling":
        name = convert_to_openai_tool(schema)["function"]["name"]
        if is_pydantic:
            return PydanticToolsParser(tools=[cast(Any, schema)], first_tool_only=True)
        return JsonOutputKeyToolsParser(key_name=name, first_tool_only=True)
    if is_pydantic:
        return PydanticOutputParser(pydantic_object=cast(Any, schema))
    return JsonOutputParser()


def with_raw(llm: Runnable, parser: Runnable, include_raw: bool) -> Runnable:
    """`llm | parser`, or LangChain's `{"raw", "parsed", "parsing_error"}` form."""
    if not include_raw:
        return llm | parser
    parser_assign = RunnablePassthrough.assign(parsed=itemgetter("raw") | parser, parsing_error=lambda _: None)
    parser_none = RunnablePassthrough.assign(parsed=lambda _: None)
    return RunnableMap(raw=llm) | parser_assign.with_fallbacks([parser_none], exception_key="parsing_error")


def structured_runnable(model: Any, schema: Any, method: str, *, include_raw: bool, strict: bool | None) -> Runnable:
    """`model.with_structured_output(schema, method=...)`: a response format or a forced tool, and its parser."""
    function_tools = model.supports_function_tools
    if method not in ("json_schema", "function_calling", "json_mode"):
        msg = f"method={method!r} is not supported; use 'json_schema' (default), 'function_calling' or 'json_mode'."
        raise ValueError(msg)
    if schema is None and method != "json_mode":
        msg = f"with_structured_output(method={method!r}) needs a schema; only json_mode works without one."
        raise ValueError(msg)
    if method == "function_calling" and not function_tools:
        warnings.warn(
            "with_structured_output(method='function_calling'): the Sonar chat-completions "
            "models have no function tools, so the schema is sent as a json_schema "
            "response_format instead (the parsed result is the same).",
            UserWarning,
            stacklevel=3,
        )
        method = "json_schema"
    llm: Runnable
    if method == "function_calling":
        tool = openai_tool(schema, strict=strict)
        llm = model.bind_tools([tool], tool_choice=tool["function"]["name"], strict=strict).bind(
            ls_structured_output_format={"kwargs": {"method": method, "strict": strict}, "schema": tool},
        )
    else:
        fmt, json_schema = response_format(schema, strict)
        llm = model.bind(
            response_format=fmt,
            ls_structured_output_format={"kwargs": {"method": method, "strict": strict}, "schema": json_schema},
        )
    return with_raw(llm, output_parser(schema, method), include_raw)
