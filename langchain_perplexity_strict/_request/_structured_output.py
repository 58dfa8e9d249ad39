"""`with_structured_output` for Perplexity: one `json_schema` response format (`ResponseFormatInput`).

Schemas go through langchain-openai's and the openai SDK's converters, and parsers are LangChain's.
"""

from __future__ import annotations

import re
from operator import itemgetter
from typing import Any, Literal, cast, get_args

import pydantic
from langchain_core.output_parsers import (
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    PydanticOutputParser,
    PydanticToolsParser,
)
from langchain_core.runnables import (
    Runnable,
    RunnableConfig,
    RunnableParallel,
    RunnablePassthrough,
    RunnableSequence,
)
from langchain_core.utils.function_calling import convert_to_json_schema, convert_to_openai_tool
from langchain_core.utils.pydantic import is_basemodel_subclass
from langchain_openai.chat_models.base import _convert_to_openai_response_format
from openai.lib._parsing._completions import type_to_response_format_param

from langchain_perplexity_strict._once import warn
from langchain_perplexity_strict._redact import shown
from langchain_perplexity_strict._request._model_arguments import KeptBinding
from langchain_perplexity_strict._request._tools import openai_tool

Method = Literal["json_schema", "function_calling", "json_mode"]
"""`with_structured_output`'s methods, as `ChatOpenAI` names them."""
METHODS: tuple[str, ...] = get_args(Method)

ANY_OBJECT = {"type": "object", "additionalProperties": True}


def schema_name(name: Any) -> str:
    """A response-format name Perplexity takes: alphanumeric, 1 to 64 characters."""
    cleaned = re.sub(r"[^A-Za-z0-9]", "", str(name or ""))[:64]
    return cleaned or "response"


def json_schema_spec(schema: Any, strict: bool | None = None) -> dict[str, Any]:
    """`{"name", "schema", "description"?, "strict"?}` for any schema form `ChatOpenAI` takes (None: any object)."""
    if schema is None or (isinstance(schema, dict) and schema.get("type") == "json_object"):
        return {"name": "response", "schema": dict(ANY_OBJECT)}
    if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
        spec = dict(cast(dict, type_to_response_format_param(schema))["json_schema"])
    elif isinstance(schema, dict) and schema.get("type") == "json_schema" and "json_schema" in schema:
        spec = dict(schema["json_schema"])
    elif pydantic_class(schema) or (
        isinstance(schema, dict) and schema.get("type") == "function" and "function" in schema
    ):
        spec = _spec_of(convert_to_openai_tool(schema, strict=strict)["function"])  # pydantic.v1, a function
    else:
        spec = dict(cast(dict, _convert_to_openai_response_format(schema, strict=strict))["json_schema"])
    body = spec.get("schema")
    if not isinstance(body, dict) or not body:
        msg = f"schema={schema!r}: no JSON schema found in it; pass a Pydantic class, a TypedDict or a JSON schema."
        raise ValueError(msg)
    if not spec.get("description") and isinstance(body.get("description"), str):
        spec["description"] = body["description"]
    if strict is not None:
        spec["strict"] = strict
    return {k: v for k, v in spec.items() if v is not None}


def _spec_of(function: dict[str, Any]) -> dict[str, Any]:
    spec = {"name": function["name"], "schema": function.get("parameters") or {}}
    return spec | {key: function[key] for key in ("description", "strict") if function.get(key) is not None}


def pydantic_class(schema: Any) -> type | None:
    """`schema` when it is a Pydantic class, else None."""
    return schema if isinstance(schema, type) and is_basemodel_subclass(schema) else None


def response_format(schema: Any, strict: bool | None = None) -> dict[str, Any] | None:
    """The response format to send for a call's `response_format` (None: plain text)."""
    if isinstance(schema, dict) and schema.get("type") in ("text", "regex"):
        return _plain_format(schema)
    return json_schema_format(schema, strict)


def json_schema_format(schema: Any, strict: bool | None = None) -> dict[str, Any]:
    """The `json_schema` response format for `schema`, named as Perplexity takes it."""
    try:
        spec = json_schema_spec(schema, strict)
    except ValueError as error:
        msg = (
            f"response_format={shown(schema, limit=200)} is not a response format Perplexity takes; accepted: a "
            "Pydantic class, a TypedDict, a JSON schema, {'type': 'json_schema', 'json_schema': {...}}, "
            "{'type': 'json_object'}, {'type': 'text'} (plain text, the default), or on api='chat_completions' "
            "{'type': 'regex', 'regex': {'regex': ...}}."
        )
        raise ValueError(msg) from error
    spec["name"] = schema_name(spec.get("name"))
    return {"type": "json_schema", "json_schema": spec}


def agent_response_format(fmt: dict[str, Any]) -> dict[str, Any]:
    """A response format as the Agent API takes it (`ResponseFormatInput`)."""
    if fmt.get("type") == "regex":
        msg = (
            f"response_format={shown(fmt, limit=200)}: the Agent API takes only JSON schema response formats "
            "(ResponseFormatInput); a regex format works on api='chat_completions', or pass a JSON schema."
        )
        raise ValueError(msg)
    return fmt


def _plain_format(schema: dict[str, Any]) -> dict[str, Any] | None:
    """`{"type": "text"}` (None) or a checked `regex` format."""
    if schema["type"] == "text" and set(schema) == {"type"}:
        return None
    regex = schema.get("regex")
    if schema["type"] == "regex" and set(schema) == {"type", "regex"} and isinstance(regex, dict):
        known = {"regex", "name", "description", "strict"}
        if isinstance(regex.get("regex"), str) and set(regex) <= known:
            return {"type": "regex", "regex": dict(regex)}
    msg = (
        f"response_format={shown(schema, limit=200)} is not a {schema['type']!r} response format Perplexity takes: "
        "{'type': 'text'} has no other key, and a regex is {'type': 'regex', 'regex': {'regex': '<pattern>'}} "
        "(name, description and strict are optional)."
    )
    raise ValueError(msg)


def as_function_tool(schema: Any, strict: bool | None) -> dict[str, Any]:
    """`schema` as an OpenAI function tool, including OpenAI's `{"name", "schema"}` spec forms."""
    if not (isinstance(schema, dict) and ("schema" in schema or schema.get("type") == "json_schema")):
        return openai_tool(schema, strict=strict)
    spec = json_schema_spec(schema, strict)
    function = {"name": spec["name"], "parameters": spec["schema"]}
    function.update({k: spec[k] for k in ("description", "strict") if k in spec})
    return {"type": "function", "function": function}


def output_parser(schema: Any, method: str, name: str) -> Runnable:
    """The parser LangChain's own integrations use for `method` and `schema`."""
    is_pydantic = pydantic_class(schema) is not None
    if method == "function_calling":
        if is_pydantic:
            return PydanticToolsParser(tools=[cast(Any, schema)], first_tool_only=True)
        return JsonOutputKeyToolsParser(key_name=name, first_tool_only=True)
    if is_pydantic:
        return PydanticOutputParser(pydantic_object=cast(Any, schema))
    return JsonOutputParser()


def with_raw(llm: Runnable, parser: Runnable, include_raw: bool) -> Runnable:
    """`llm | parser`, or LangChain's `{"raw", "parsed", "parsing_error"}` form."""
    if not include_raw:
        return StructuredOutput(first=llm, last=parser)
    parser_assign = RunnablePassthrough.assign(parsed=itemgetter("raw") | parser, parsing_error=lambda _: None)
    parser_none = RunnablePassthrough.assign(parsed=lambda _: None)
    parse = parser_assign.with_fallbacks([parser_none], exception_key="parsing_error")
    return StructuredOutput(first=RunnableParallel(raw=llm), last=parse)


class StructuredOutput(RunnableSequence):
    """What `with_structured_output` returns: langchain-core's sequence, with batches parsed as `invoke` is."""

    @classmethod
    def lc_id(cls) -> list[str]:
        return [*cls.get_lc_namespace(), "RunnableSequence"]

    @property
    def _llm(self) -> Any:
        first = self.first
        return first.steps__["raw"] if isinstance(first, RunnableParallel) else first

    def _parsed(self, message: Any) -> Any:
        try:
            return self.last.invoke({"raw": message} if isinstance(self.first, RunnableParallel) else message)
        except Exception as error:  # the input's outcome
            return error

    def with_config(self, config: RunnableConfig | None = None, **kwargs: Any) -> Runnable:
        """langchain-core's binding of the config, which batches take too."""
        return KeptBinding(bound=self, kwargs={}, config=cast(RunnableConfig, {**(config or {}), **kwargs}))

    def submit_batch(self, inputs: list[Any], config: Any = None, **kwargs: Any) -> Any:
        return self._llm.submit_batch(inputs, config, **kwargs).then(self._parsed)

    async def asubmit_batch(self, inputs: list[Any], config: Any = None, **kwargs: Any) -> Any:
        return (await self._llm.asubmit_batch(inputs, config, **kwargs)).then(self._parsed)

    def get_batch(self, batch_id: str, config: Any = None, **kwargs: Any) -> Any:
        return self._llm.get_batch(batch_id, config, **kwargs).then(self._parsed)

    async def aget_batch(self, batch_id: str, config: Any = None, **kwargs: Any) -> Any:
        return (await self._llm.aget_batch(batch_id, config, **kwargs)).then(self._parsed)


def structured_runnable(
    model: Any, schema: Any, method: str, *, include_raw: bool, strict: bool | None, tools: list[Any] | None = None
) -> Runnable:
    """`model.with_structured_output(schema, method=...)`: a response format or a forced tool, and its parser."""
    if method not in METHODS:
        msg = f"method={method!r} is not supported; use 'json_schema' (default), 'function_calling' or 'json_mode'."
        raise ValueError(msg)
    if schema is None and method != "json_mode":
        msg = f"with_structured_output(method={method!r}) needs a schema; only json_mode works without one."
        raise ValueError(msg)
    if method == "function_calling" and model.supports_function_tools:  # the schema as a tool the model must call
        tool = as_function_tool(schema, strict)
        name, parse, traced = tool["function"]["name"], method, tool
        llm = model.bind_tools([*(tools or []), tool], tool_choice=name, strict=strict)
    else:
        sent = schema
        if method == "function_calling":
            warn(
                "with_structured_output(method='function_calling'): the Sonar chat-completions "
                "models have no function tools, so the schema is sent as a json_schema "
                "response_format instead (the parsed result is the same)."
            )
            sent = {"type": "json_schema", "json_schema": _spec_of(as_function_tool(schema, strict)["function"])}
        fmt = json_schema_format(sent, strict)
        name, parse, traced = fmt["json_schema"]["name"], "json_schema", _traced_schema(schema, fmt)
        llm = (model.bind_tools(tools, strict=strict) if tools else model).bind(response_format=fmt)
    llm = llm.bind(ls_structured_output_format={"kwargs": {"method": method, "strict": strict}, "schema": traced})
    return with_raw(llm, output_parser(schema, parse, name), include_raw)


def _traced_schema(schema: Any, fmt: dict[str, Any]) -> dict[str, Any]:
    """The schema LangChain's tracing records (else the schema sent)."""
    try:
        return convert_to_json_schema(schema)
    except (ValueError, TypeError):
        return fmt["json_schema"]["schema"]
