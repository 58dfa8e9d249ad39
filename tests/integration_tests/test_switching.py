"""What a langchain-perplexity 1.4.2 app meets when it switches by docs/migration.md (a stranger's findings).

- `web_search_options={"image_search_relevance_enhanced": True}` (1.4.2's `WebSearchOptions` key): sent as
  Perplexity's published `web_search_options.image_results_enhanced_relevance` on chat completions; refused on
  the Agent API with an error that names the key as written, then the published name;
- a switch that turns search off (`disable_search=True`, `web_search=False`, `tool_choice="none"`) with search
  settings that nothing would carry: refused before sending on the Agent API, naming both, whichever path each
  came by; chat completions take both (`ApiChatCompletionsRequestInput` has both fields), so both are sent;
- `PerplexitySearchResults` given an argument it lacks (`max_result`): a direct call raises `ValueError` with
  "Did you mean 'max_results'?"; a model's tool call gets the same words back as the tool's answer;
- the rows of `migration_rows_switching.py`: structured output's methods and options, `streaming=True`,
  `model_kwargs`, tools on chat completions, and what each Sonar model name becomes on the Agent API.

Every body is the one the emulator received (it refuses one the published models refuse).
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import ConfigurableField
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict, PerplexitySearchResults, web_search_tool
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY, make
from tests.integration_tests.habits import refusal

Q = "What changed in Python 3.13?"
APIS = ("agent", "chat_completions")


def _sent(emu: PerplexityEmulator) -> dict[str, Any]:
    """The body of the one request `emu` received since it was cleared."""
    bodies = [r.body for r in emu.requests if r.kind in ("create", "chat")] or [r.body for r in emu.requests]
    assert bodies, "nothing was sent"
    return bodies[-1]


def _paths(emu: PerplexityEmulator, api: str, **given: Any) -> dict[str, Callable[[], Any]]:
    """Every way a setting reaches a call: constructor, call, `.bind`, `model_copy`, `configurable_fields`,
    and a call through `bind_tools` (a function tool on the Agent API; chat completions have none)."""
    names = sorted(given)
    configurable = make(emu, api).configurable_fields(
        **{name: ConfigurableField(id=name) for name in names if name in ChatPerplexityStrict.model_fields}
    )
    runs: dict[str, Callable[[], Any]] = {
        "constructor": lambda: make(emu, api, **given).invoke(Q),
        "call": lambda: make(emu, api).invoke(Q, **given),
        "bind": lambda: make(emu, api).bind(**given).invoke(Q),
        "model_copy": lambda: make(emu, api).model_copy(update=given).invoke(Q),
        "ainvoke": lambda: asyncio.run(make(emu, api, **given).ainvoke(Q)),
        "stream": lambda: list(make(emu, api, **given).stream(Q)),
    }
    if all(name in ChatPerplexityStrict.model_fields for name in names):
        runs["configurable_fields"] = lambda: configurable.invoke(Q, config={"configurable": given})
    if api == "agent":
        runs["bind_tools"] = lambda: make(emu, api).bind_tools([add]).invoke(Q, **given)
    return runs


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


# -- 1. web_search_options={"image_search_relevance_enhanced": True} ----------------------------------------

OLD_KEY = {"image_search_relevance_enhanced": True}


def test_image_search_relevance_enhanced_is_sent_by_its_published_name_on_chat_completions(
    emu: PerplexityEmulator,
) -> None:
    """1.4.2's key is `WebSearchOptionsInput.image_results_enhanced_relevance` (perplexity.generated.api)."""
    for way, run in _paths(emu, "chat_completions", web_search_options=OLD_KEY).items():
        emu.clear()
        run()
        assert _sent(emu)["web_search_options"] == {"image_results_enhanced_relevance": True}, way


def test_image_search_relevance_enhanced_is_refused_on_the_agent_api_naming_the_key_as_written(
    emu: PerplexityEmulator,
) -> None:
    for way, run in _paths(emu, "agent", web_search_options=OLD_KEY).items():
        message = refusal(emu, run)
        assert "web_search_options['image_search_relevance_enhanced'] (" in message, (way, message)
        assert "web_search_options.image_results_enhanced_relevance" in message, way  # the published name
        assert "image_search" in message and "api='chat_completions'" in message, way  # what to do instead


def test_every_web_search_options_key_is_named_as_written_when_refused(emu: PerplexityEmulator) -> None:
    """The class: any key of a converted dict that the API refuses is named as the user wrote it."""
    message = refusal(emu, lambda: make(emu).invoke(Q, web_search_options={"search_type": "pro"}))
    assert "web_search_options['search_type'] (" in message and "'pro'" in message
    message = refusal(emu, lambda: make(emu).bind(reasoning={"effort": "max"}).invoke(Q))
    assert "reasoning['effort'] (" in message and "reasoning_effort" in message


# -- 2. a switch that turns search off, with search settings ------------------------------------------------

SEARCH_SETTINGS: dict[str, dict[str, Any]] = {
    "search_domain_filter": {"search_domain_filter": ["a.com"]},
    "search_recency_filter": {"search_recency_filter": "week"},
    "search_after_date_filter": {"search_after_date_filter": "1/1/2025"},
    "search_context_size": {"search_context_size": "high"},
    "user_location": {"user_location": {"country": "FR"}},
    "web_search_options": {"web_search_options": {"search_context_size": "high"}},
    "search_max_tokens": {"search_max_tokens": 2000},
}
OFF = {"disable_search=True": {"disable_search": True}, "web_search=False": {"web_search": False}}


@pytest.mark.parametrize("switch", sorted(OFF))
@pytest.mark.parametrize("setting", sorted(SEARCH_SETTINGS))
def test_search_off_with_search_settings_is_refused_on_the_agent_api(
    emu: PerplexityEmulator, switch: str, setting: str
) -> None:
    given = {**OFF[switch], **SEARCH_SETTINGS[setting]}
    shown = setting if setting != "web_search_options" else "search_context_size"
    for way, run in _paths(emu, "agent", **given).items():
        message = refusal(emu, run)
        assert switch in message and f"{shown}=" in message, (way, message)
    # the switch and the settings given on different paths
    split = {
        "switch on the model, settings per call": lambda: make(emu, **OFF[switch]).invoke(
            Q, **SEARCH_SETTINGS[setting]
        ),
        "settings on the model, switch by bind": lambda: (
            make(emu, **SEARCH_SETTINGS[setting]).bind(**OFF[switch]).invoke(Q)
        ),
    }
    split["extra_body (ChatOpenAI's habit)"] = lambda: make(emu).invoke(
        Q, extra_body={**OFF[switch], **SEARCH_SETTINGS[setting]}
    )
    for way, run in split.items():
        message = refusal(emu, run)
        assert switch in message and f"{shown}=" in message, (way, message)


def test_tool_choice_none_with_search_settings_is_refused(emu: PerplexityEmulator) -> None:
    """`tool_choice="none"` lets the model call no tool, the web_search that carries the settings included."""
    model = make(emu, search_domain_filter=["a.com"]).bind_tools([add], tool_choice="none")
    message = refusal(emu, lambda: model.invoke(Q))
    assert "tool_choice='none'" in message and "search_domain_filter=['a.com']" in message


def test_search_off_without_settings_and_a_bound_web_search_still_work(emu: PerplexityEmulator) -> None:
    for switch in OFF.values():
        make(emu, **switch).invoke(Q)
        assert "tools" not in _sent(emu)
        emu.clear()
    # web_search=False only leaves the default tool out: a bound web_search carries the settings
    make(emu, web_search=False, search_domain_filter=["a.com"]).bind_tools([web_search_tool()]).invoke(Q)
    assert _sent(emu)["tools"] == [{"type": "web_search", "filters": {"search_domain_filter": ["a.com"]}}]


def test_chat_completions_send_disable_search_with_the_settings(emu: PerplexityEmulator) -> None:
    """`ApiChatCompletionsRequestInput` takes `disable_search` beside the search fields: both are sent."""
    make(emu, "chat_completions", disable_search=True, search_domain_filter=["a.com"]).invoke(Q)
    sent = _sent(emu)
    assert sent["disable_search"] is True and sent["search_domain_filter"] == ["a.com"]


# -- 3. PerplexitySearchResults' unknown argument -------------------------------------------------------------


@pytest.fixture(scope="module")
def search_tool(emulator: PerplexityEmulator) -> PerplexitySearchResults:
    return PerplexitySearchResults(api_key=KEY, base_url=emulator.base_url)  # type: ignore[arg-type]


def test_a_direct_call_with_an_unknown_argument_raises_with_the_hint(
    emu: PerplexityEmulator, search_tool: PerplexitySearchResults
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for way, run in {
            "invoke": lambda: search_tool.invoke({"query": "q", "max_result": 2}),
            "ainvoke": lambda: asyncio.run(search_tool.ainvoke({"query": "q", "max_result": 2})),
            "batch": lambda: search_tool.batch([{"query": "q", "max_result": 2}]),
        }.items():
            message = refusal(emu, run)
            assert "max_result" in message and "Did you mean 'max_results'?" in message, way
        # a bad value and a bad combination raise too, in the check's words
        assert "max_results=50" in refusal(emu, lambda: search_tool.invoke({"query": "q", "max_results": 50}))
        dates = {"query": "q", "search_after_date_filter": "1/1/2025", "search_before_date_filter": "1/1/2024"}
        assert "search_after_date_filter" in refusal(emu, lambda: search_tool.invoke(dates))


def test_a_tool_call_with_an_unknown_argument_tells_the_model_the_hint(
    emu: PerplexityEmulator, search_tool: PerplexitySearchResults
) -> None:
    call = {"name": search_tool.name, "args": {"query": "q", "max_result": 2}, "id": "call_1", "type": "tool_call"}
    answer = search_tool.invoke(call)
    assert isinstance(answer, ToolMessage) and answer.status == "error"
    assert "max_result" in answer.content and "Did you mean 'max_results'?" in answer.content
    assert emu.requests == []


# -- 4. the rows: structured output, streaming, model_kwargs, tools on chat completions, Sonar names -----------


class Person(BaseModel):
    """A person."""

    name: str
    age: int


def test_function_calling_on_the_agent_api_sends_a_forced_function_tool(emu: PerplexityEmulator) -> None:
    """1.4.2 sent a json_schema response format for every method; here function_calling is a tool call."""
    result = make(emu).with_structured_output(Person, method="function_calling").invoke(Q)
    sent = _sent(emu)
    assert isinstance(result, Person)
    assert "response_format" not in sent
    assert sent["tool_choice"] == {"name": "Person"}
    assert sent["tools"][0]["type"] == "function" and sent["tools"][0]["name"] == "Person"


@pytest.mark.parametrize("api", APIS)
def test_structured_output_methods_and_options(emu: PerplexityEmulator, api: str) -> None:
    """The default (json_schema), json_schema, json_mode, include_raw, strict, and a dict schema."""
    for method in ({}, {"method": "json_schema"}):
        emu.clear()
        assert isinstance(make(emu, api).with_structured_output(Person, **method).invoke(Q), Person)
        fmt = _sent(emu)["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Person"
    emu.clear()
    assert isinstance(make(emu, api).with_structured_output(method="json_mode").invoke(Q), dict)
    assert _sent(emu)["response_format"]["json_schema"]["schema"] == {"type": "object", "additionalProperties": True}
    raw = make(emu, api).with_structured_output(Person, include_raw=True).invoke(Q)
    assert set(raw) == {"raw", "parsed", "parsing_error"} and isinstance(raw["raw"], AIMessage)
    assert isinstance(raw["parsed"], Person) and raw["parsing_error"] is None
    emu.clear()
    make(emu, api).with_structured_output(Person, strict=False).invoke(Q)
    assert _sent(emu)["response_format"]["json_schema"]["strict"] is False
    schema = {"title": "City", "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    emu.clear()
    parsed = make(emu, api).with_structured_output(schema).invoke(Q)
    assert isinstance(parsed, dict) and isinstance(parsed["name"], str)
    assert _sent(emu)["response_format"]["json_schema"]["name"] == "City"


@pytest.mark.parametrize("api", APIS)
def test_streaming_true_streams_under_invoke(emu: PerplexityEmulator, api: str) -> None:
    message = make(emu, api, streaming=True).invoke(Q)
    assert _sent(emu)["stream"] is True
    assert isinstance(message, AIMessage) and message.content


@pytest.mark.parametrize(
    ("api", "field", "value"), [("agent", "step_budget_reminder", True), ("chat_completions", "num_search_results", 3)]
)
def test_model_kwargs_pass_a_published_field_and_refuse_a_parameters(
    emu: PerplexityEmulator, api: str, field: str, value: Any
) -> None:
    make(emu, api, model_kwargs={field: value}).invoke(Q)
    assert _sent(emu)[field] == value
    with pytest.raises(ValueError, match=r"model_kwargs\['top_p'\].*pass top_p=\.\.\. instead"):
        make(emu, api, model_kwargs={"top_p": 0.5})


def test_tools_on_chat_completions_are_refused_naming_the_agent_api(emu: PerplexityEmulator) -> None:
    model = make(emu, "chat_completions")
    runs = {
        "bind_tools": lambda: model.bind_tools([add]).invoke(Q),
        "create_agent": lambda: create_agent(model, [add]).invoke({"messages": [("user", Q)]}),
    }
    for way, run in runs.items():
        assert "api='agent'" in refusal(emu, run), way


SONAR_ON_AGENT = {
    "sonar": {"model": "perplexity/sonar"},
    "sonar-pro": {"effort": "low"},
    "sonar-reasoning-pro": {"effort": "low"},
    "sonar-deep-research": {"effort": "medium"},
}
"""Perplexity's migration table (docs.perplexity.ai/docs/agent-api/migrate-from-sonar; sonar-pro's
behavioural match), as `_model_names.SONAR_TO_AGENT` holds it."""


@pytest.mark.parametrize("name", sorted(SONAR_ON_AGENT))
def test_each_sonar_name_maps_on_the_agent_api(emu: PerplexityEmulator, name: str) -> None:
    with pytest.warns(UserWarning, match=f"model '{name}' is a Sonar chat-completions name"):
        make(emu, model=name).invoke(Q)
    sent = _sent(emu)
    assert {k: sent[k] for k in ("model", "effort") if k in sent} == SONAR_ON_AGENT[name]
    assert sent["tools"] == [{"type": "web_search"}] if name == "sonar" else True
