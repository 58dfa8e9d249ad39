"""Issue 18, class 3: tools and tool choice in every form `ChatOpenAI.bind_tools` takes, on both surfaces.

Tool forms are those `langchain_core.utils.function_calling.convert_to_openai_tool`
accepts (as `ChatOpenAI.bind_tools` uses it) plus the Agent API's flat function
and Perplexity's built-in tools (`ToolInput` in the published models); the
`tool_choice` forms are those `ChatOpenAI.bind_tools` accepts. Each either goes
out in the published shape or is refused before sending with an error naming
`tools` / `tool_choice`. A built-in tool the app binds replaces the default
search tool; a tool call without an id gets a stable one.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool, tool
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make
from tests.integration_tests.habits import MODES, SURFACES, check_body, run


class GetWeather(BaseModel):
    """Get the weather in a city."""

    city: str = Field(description="The city")


class GetWeatherDict(TypedDict):
    """Get the weather in a city."""

    city: str


def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return "sunny"


PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
FUNCTION = {"name": "GetWeather", "description": "Get the weather in a city.", "parameters": PARAMETERS}

FUNCTION_FORMS: list[tuple[str, Any]] = [
    ("pydantic", GetWeather),
    ("typeddict", GetWeatherDict),
    ("python function", get_weather),
    ("@tool", tool(get_weather)),
    ("StructuredTool", StructuredTool.from_function(get_weather, name="GetWeather")),
    ("openai tool dict", {"type": "function", "function": FUNCTION}),
    ("openai function dict", FUNCTION),
    ("json schema dict", {"title": "GetWeather", "description": "Get the weather in a city.", **PARAMETERS}),
    ("agent api flat function", {"type": "function", **FUNCTION}),
    ("anthropic tool dict", {"name": "GetWeather", "description": "Get the weather in a city.",
                             "input_schema": PARAMETERS}),
]  # fmt: skip

FILTERS = {"search_domain_filter": ["nature.com"], "search_recency_filter": "month"}
BUILTIN_FORMS: list[tuple[str, dict[str, Any]]] = [
    ("web_search", {"type": "web_search"}),
    ("web_search with filters", {"type": "web_search", "filters": FILTERS, "search_context_size": "high"}),
    ("fetch_url", {"type": "fetch_url"}),
    ("image_search", {"type": "image_search", "max_results": 3}),
    ("people_search", {"type": "people_search"}),
    ("finance_search", {"type": "finance_search"}),
]
FOREIGN_BUILTINS = [{"type": "file_search", "vector_store_ids": ["vs_1"]}, {"type": "code_interpreter"},
                    {"type": "web_search_preview"}]  # fmt: skip


def _function_tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in body.get("tools") or [] if t.get("type") == "function"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
@pytest.mark.parametrize(("name", "form"), FUNCTION_FORMS, ids=[f[0] for f in FUNCTION_FORMS])
def test_every_function_tool_form(emu: PerplexityEmulator, name: str, form: Any, api: str, mode: str) -> None:
    model = make(emu, api)
    try:
        bound = model.bind_tools([form])
    except ValueError as error:
        assert api == "chat_completions" and "tools" in str(error)
        return
    outcome = run(bound, emu, api, mode, "Weather in Paris?")
    assert outcome.error is None, outcome.error
    assert outcome.body is not None
    (function,) = _function_tools(outcome.body)
    assert function["name"] in ("GetWeather", "GetWeatherDict", "get_weather")
    assert function["description"] == "Get the weather in a city."
    assert set(function["parameters"]["properties"]) == {"city"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("name", "form"), BUILTIN_FORMS, ids=[f[0] for f in BUILTIN_FORMS])
def test_a_bound_builtin_tool_is_sent_as_given_beside_the_default_search(
    emu: PerplexityEmulator, name: str, form: dict[str, Any], mode: str
) -> None:
    model = make(emu, "agent", search_max_tokens=500) if form["type"] == "web_search" else make(emu)
    outcome = run(model.bind_tools([form]), emu, "agent", mode, "Find it")
    assert outcome.error is None, outcome.error
    assert outcome.body is not None
    tools = outcome.body["tools"]
    searches = sum(t["type"] == "web_search" for t in tools)
    assert searches <= 1, "two search tools: the app's filter can be bypassed"
    assert searches == 1, "a bound built-in tool never silently removes the bare model's default search"
    (sent,) = [t for t in tools if t["type"] == form["type"]]
    assert {k: v for k, v in sent.items() if k != "filters"}.items() >= {
        k: v for k, v in form.items() if k != "filters"
    }.items()
    assert (sent.get("filters") or {}).items() >= (form.get("filters") or {}).items()


@pytest.mark.parametrize("form", FOREIGN_BUILTINS, ids=[f["type"] for f in FOREIGN_BUILTINS])
def test_openai_builtin_tools_perplexity_lacks_are_refused_naming_tools(
    emu: PerplexityEmulator, form: dict[str, Any]
) -> None:
    model = make(emu)
    with pytest.raises(ValueError, match="tools"):
        model.bind_tools([form]).invoke("Find it")
    assert not emu.requests


CHOICES: list[tuple[str, Any, Any]] = [
    # (name, tool_choice, what the Agent API body carries: a value, or None for "left out")
    ("False", False, None),
    ("None", None, None),
    ("none", "none", "none"),
    ("auto", "auto", "auto"),
    ("any", "any", "required"),
    ("required", "required", "required"),
    ("True", True, "required"),  # as ChatOpenAI sends it: with one tool bound, that tool
    ("a tool name", "GetWeather", {"name": "GetWeather"}),
    ("openai chat dict", {"type": "function", "function": {"name": "GetWeather"}}, {"name": "GetWeather"}),
    ("responses dict", {"type": "function", "name": "GetWeather"}, {"name": "GetWeather"}),
    ("anthropic dict", {"type": "tool", "name": "GetWeather"}, {"name": "GetWeather"}),
    ("anthropic any", {"type": "any"}, "required"),
    ("anthropic auto", {"type": "auto"}, "auto"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("name", "choice", "sent"), CHOICES, ids=[c[0] for c in CHOICES])
def test_every_tool_choice_form(emu: PerplexityEmulator, name: str, choice: Any, sent: Any, mode: str) -> None:
    outcome = run(make(emu).bind_tools([GetWeather], tool_choice=choice), emu, "agent", mode, "Weather in Paris?")
    assert outcome.error is None, outcome.error
    assert outcome.body is not None
    assert outcome.body.get("tool_choice") == sent


def test_a_tool_choice_naming_no_bound_tool_is_refused_naming_it(emu: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match="tool_choice"):
        make(emu).bind_tools([GetWeather], tool_choice="Other")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
def test_a_tool_call_without_an_id_gets_a_stable_one(emu: PerplexityEmulator, api: str, mode: str) -> None:
    history = [
        HumanMessage("Weather in Paris?"),
        AIMessage("", tool_calls=[{"name": "GetWeather", "args": {"city": "Paris"}, "id": None}]),
        HumanMessage("Never mind: what about Rome?"),
    ]
    model = make(emu, api)
    first = run(model, emu, api, mode, history)
    again = run(model, emu, api, mode, history)
    assert first.error is None, first.error
    assert first.body == again.body and first.body is not None
    check_body(api, first.body)
    if api == "agent":
        calls = [i for i in first.body["input"] if i.get("type") == "function_call"]
        outputs = [i for i in first.body["input"] if i.get("type") == "function_call_output"]
        assert calls and all(c["call_id"] for c in calls)
        assert all(o["call_id"] == calls[0]["call_id"] for o in outputs)
        last = first.body["input"][-1]
        assert last.get("role") == "user" and "Rome" in str(last["content"])
    else:
        (assistant,) = [m for m in first.body["messages"] if m.get("tool_calls")] or [None]
        assert assistant is None or all(c["id"] for c in assistant["tool_calls"])
        assert first.body["messages"][-1]["role"] == "user"


def test_a_tool_call_without_an_id_answered_by_a_tool_message(emu: PerplexityEmulator) -> None:
    history = [
        HumanMessage("Weather in Paris?"),
        AIMessage("", tool_calls=[{"name": "GetWeather", "args": {"city": "Paris"}, "id": None}]),
        ToolMessage("sunny", tool_call_id=""),
    ]
    outcome = run(make(emu), emu, "agent", "invoke", history)
    assert outcome.error is None, outcome.error
    assert outcome.body is not None
    items = outcome.body["input"]
    call = next(i for i in items if i.get("type") == "function_call")
    output = next(i for i in items if i.get("type") == "function_call_output")
    assert call["call_id"] and output["call_id"] == call["call_id"] and output["output"] == "sunny"
