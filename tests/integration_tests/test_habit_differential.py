"""Issue 18: a differential test against `ChatOpenAI` for every structured-output and tool form it accepts.

`ChatOpenAI` builds its payload offline (`_get_request_payload`, the hook
every call path of langchain-openai goes through; a Pydantic response format
is turned into its JSON schema by the openai SDK's own
`type_to_response_format_param`, as the SDK does before sending). For each
form `ChatOpenAI` accepts, this package's body (`request_body`, nothing
sent) carries the same schema or tool, in Perplexity's shape: the same name,
description, strictness and JSON schema (titles aside: they name, they do not
constrain). Where `ChatOpenAI` itself sends no schema (OpenAI's spec under
`function_calling`), this package sends the spec's.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_core.runnables import RunnableBinding, RunnableSequence
from langchain_openai import ChatOpenAI
from openai.lib._parsing._completions import type_to_response_format_param

from langchain_perplexity_strict import ChatPerplexityStrict
from tests.integration_tests.test_habit_structured_output import METHODS, SCHEMAS
from tests.integration_tests.test_habit_tools import CHOICES, FUNCTION_FORMS, GetWeather

MESSAGES = [("human", "Weather in Paris?")]


def _openai() -> ChatOpenAI:
    return ChatOpenAI(model="gpt-5.1", api_key="k")  # type: ignore[arg-type]


def _ours(api: str = "agent") -> ChatPerplexityStrict:
    return ChatPerplexityStrict(api=api, api_key="k", model="perplexity/sonar" if api == "agent" else "sonar")  # type: ignore[arg-type]


def _kwargs(runnable: Any) -> dict[str, Any]:
    binding = runnable.first if isinstance(runnable, RunnableSequence) else runnable
    assert isinstance(binding, RunnableBinding)
    return dict(binding.kwargs)


def _untitled(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _untitled(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    if isinstance(schema, list):
        return [_untitled(v) for v in schema]
    return schema


def _openai_schema(payload: dict[str, Any]) -> dict[str, Any]:
    """(name, description, strict, schema) of what ChatOpenAI asks for: a response format or a forced tool."""
    fmt = payload.get("response_format")
    if isinstance(fmt, type):
        fmt = type_to_response_format_param(fmt)
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        spec = fmt["json_schema"]
        return {"name": spec["name"], "description": spec.get("description"), "strict": spec.get("strict"),
                "schema": _untitled(spec.get("schema"))}  # fmt: skip
    function = payload["tools"][0]["function"]
    return {"name": function["name"], "description": function.get("description"), "strict": function.get("strict"),
            "schema": _untitled(function.get("parameters"))}  # fmt: skip


def _our_schema(body: dict[str, Any]) -> dict[str, Any]:
    fmt = body.get("response_format")
    if fmt:
        spec = fmt["json_schema"]
        return {"name": spec["name"], "description": spec.get("description"), "strict": spec.get("strict"),
                "schema": _untitled(spec.get("schema"))}  # fmt: skip
    tool = next(t for t in body["tools"] if t["type"] == "function")
    return {"name": tool["name"], "description": tool.get("description"), "strict": tool.get("strict"),
            "schema": _untitled(tool.get("parameters"))}  # fmt: skip


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
@pytest.mark.parametrize("method", [m for m in METHODS if m != "json_mode"])
@pytest.mark.parametrize(("name", "schema"), SCHEMAS, ids=[s[0] for s in SCHEMAS])
def test_structured_output_sends_what_chatopenai_sends(name: str, schema: Any, method: str, api: str) -> None:
    try:
        reference = _openai().with_structured_output(schema, method=method)  # type: ignore[arg-type]
    except Exception:
        pytest.skip(f"ChatOpenAI does not accept {name} with method={method!r}")
    expected = _openai_schema(_openai()._get_request_payload(MESSAGES, **_kwargs(reference)))
    if expected["schema"] is None:  # ChatOpenAI loses OpenAI's own spec under function_calling: the spec's schema
        expected["schema"] = _untitled(schema["schema"])
    if expected["description"] is None:  # the OpenAI SDK leaves a Pydantic docstring inside the schema only
        expected["description"] = expected["schema"].get("description")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # function_calling on chat completions: a json_schema response, warned
        ours = _ours(api).with_structured_output(schema, method=method)  # type: ignore[arg-type]
        body = _ours(api).request_body(MESSAGES, **_kwargs(ours))
    sent = _our_schema(body)
    assert sent["schema"] == expected["schema"]
    assert sent["description"] == expected["description"]
    assert sent["name"] == expected["name"]
    assert (sent["strict"] or False) == (expected["strict"] or False)


@pytest.mark.parametrize(("name", "form"), FUNCTION_FORMS, ids=[f[0] for f in FUNCTION_FORMS])
def test_bound_tools_send_what_chatopenai_sends(name: str, form: Any) -> None:
    try:
        reference = _openai().bind_tools([form])
    except Exception:
        pytest.skip(f"ChatOpenAI does not accept {name}")
    (expected,) = _openai()._get_request_payload(MESSAGES, **_kwargs(reference))["tools"]
    body = _ours().request_body(MESSAGES, **_kwargs(_ours().bind_tools([form])))
    (sent,) = [t for t in body["tools"] if t["type"] == "function"]
    function = expected.get("function") or expected  # ChatOpenAI passes a flat (Responses) function as it is
    assert {k: v for k, v in sent.items() if k != "type"} == {
        k: v for k, v in function.items() if v is not None and k != "type"
    }


def _perplexity_choice(choice: Any) -> Any:
    """ChatOpenAI's `tool_choice` value in Perplexity's shape: a string as it is, a named function as `{"name"}`,
    and the dicts ChatOpenAI passes through unread (Anthropic's `{"type": "any" | "auto"}`) as what they mean."""
    if isinstance(choice, dict):
        name = (choice.get("function") or choice).get("name")
        return {"name": name} if name else {"any": "required"}.get(choice.get("type"), choice.get("type"))
    return choice


@pytest.mark.parametrize(("name", "choice", "sent"), CHOICES, ids=[c[0] for c in CHOICES])
def test_tool_choice_sends_what_chatopenai_sends(name: str, choice: Any, sent: Any) -> None:
    try:
        reference = _openai().bind_tools([GetWeather], tool_choice=choice)
    except Exception:
        pytest.skip(f"ChatOpenAI does not accept tool_choice={choice!r}")
    payload = _openai()._get_request_payload(MESSAGES, **_kwargs(reference))
    body = _ours().request_body(MESSAGES, **_kwargs(_ours().bind_tools([GetWeather], tool_choice=choice)))
    assert body.get("tool_choice") == _perplexity_choice(payload.get("tool_choice"))
