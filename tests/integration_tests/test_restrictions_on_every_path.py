"""A restriction set on the model is never dropped or bypassed, on any path (docs/built-in-tools.md).

The model-level search settings (`search_domain_filter`, `search_recency_filter`, the four date
filters, `search_context_size`, `user_location`, `search_type`, `search_max_tokens`,
`search_max_tokens_per_page`: every parameter that lands on the `web_search` tool, found here from
the bodies themselves) meet a tool set in these forms:

- a bound `web_search`, by `bind_tools`, `.bind(tools=...)`, a call's `tools=`, or
  `with_structured_output(..., tools=...)`, on a model with or without `web_search=False`: the model's
  settings fill the fields the tool leaves unset; a filter both give differently is refused naming
  both; the tool's own search options win (the documented precedence);
- the setting given per call, by `.bind(...)`, `configurable_fields`, `model_copy` or `init_chat_model`
  instead of the constructor: the same merge;
- a bound built-in set without `web_search` (`image_search`, `fetch_url`, `people_search`,
  `finance_search`, `sandbox`, `mcp`, `connector`), which replaces the default search: refused, naming
  the settings and the tools, unless `web_search` is bound beside them (which then carries the
  settings); a model that says it does not search (`web_search=False`) with search settings and no bound
  `web_search` is refused too, naming both;
- invoke, stream, batch and their async twins all send the same merged tool;
- `PerplexitySearchResults` built with a filter (domains, recency, dates, languages, `country`), called
  by a model that gives another (invoke, a `ToolCall`, ainvoke): the model's value comes back refused,
  naming both, and nothing is searched. (`PerplexitySearchRetriever`'s per-call values are the app's
  own, and win as documented.)

Each body is the one the emulator received, valid as the published `ResponsesRequestInput`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import pytest
from langchain.chat_models import init_chat_model
from langchain_core.runnables import ConfigurableField
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict, PerplexitySearchResults, web_search_tool
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import KEY
from tests.integration_tests.habits import refusal
from tests.integration_tests.test_contract import AGENT_VALUES


def _model(emu: PerplexityEmulator, **kw: Any) -> ChatPerplexityStrict:
    return ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, **kw)  # type: ignore[arg-type]


_SHARED: dict[tuple[str, str], ChatPerplexityStrict] = {}


def _shared(emu: PerplexityEmulator, **kw: Any) -> ChatPerplexityStrict:
    """`_model(emu, **kw)`, one per emulator and settings, for the tests that only bind to it, call it or copy it
    (each of which leaves it as it was; a refusal comes before anything changes): a new model per use was a
    fifth of their CPU (each is built, with its HTTP clients, and serialized for LangChain's callbacks on its
    first call). The tests of construction itself (the `ctor` and `init_chat_model` ways) build their own."""
    key = (emu.base_url, repr(sorted(kw.items())))
    if key not in _SHARED:
        _SHARED[key] = _model(emu, **kw)
    return _SHARED[key]


def _search_settings() -> dict[str, dict[str, Any]]:
    """Each parameter that lands on the default `web_search` tool, and what it puts there."""
    found = {}
    for name, value in AGENT_VALUES.items():
        if name in ("web_search", "effort", "preset", "use_previous_response_id"):
            continue  # the tool itself, an effort level (or preset) that searches on its own, and a client option
        offline = ChatPerplexityStrict(api_key=KEY, base_url="http://127.0.0.1:9", **{name: value})  # type: ignore[arg-type]
        fields = {k: v for k, v in offline.request_body("hi")["tools"][-1].items() if k != "type"}
        if fields:
            found[name] = fields
    return found


SEARCH = _search_settings()
FILTERS = [n for n, f in SEARCH.items() if "filters" in f]
OPTIONS = [n for n, f in SEARCH.items() if "filters" not in f]
# A second valid value of each, for a bound tool that gives the setting too.
OTHER = {
    "search_domain_filter": ["arxiv.org"],
    "search_recency_filter": "month",
    "search_after_date_filter": "02/01/2025",
    "search_before_date_filter": "11/30/2025",
    "last_updated_after_filter": "02/01/2025",
    "last_updated_before_filter": "11/01/2025",
    "search_context_size": "low",
    "search_type": "web",
    "user_location": {"country": "DE"},
    "search_max_tokens": 50,
    "search_max_tokens_per_page": 20,
}


def test_the_search_settings_are_found_from_the_bodies() -> None:
    """Every restriction the issue names is among them (a new one on the tool is found the same way)."""
    assert set(SEARCH) == set(OTHER)
    assert len(FILTERS) == 6 and {"search_context_size", "user_location", "search_type"} <= set(OPTIONS)


def _sent(emu: PerplexityEmulator, run: Callable[[], Any]) -> dict[str, Any]:
    emu.clear()
    run()
    creates = [r for r in emu.requests if r.kind == "create"]
    assert creates, "nothing was sent"
    published_schema.agent_request(creates[0].body)
    return creates[0].body


class Answer(BaseModel):
    """An answer."""

    text: str


def _bound(model: Any, tools: list[Any]) -> dict[str, Callable[[], Any]]:
    """Every way a tool set reaches a call of `model`."""
    return {
        "bind_tools": lambda: model.bind_tools(tools).invoke("hi"),
        "bind": lambda: model.bind(tools=tools).invoke("hi"),
        "call": lambda: model.invoke("hi", tools=tools),
        "with_structured_output": lambda: model.with_structured_output(Answer, include_raw=True, tools=tools).invoke(
            "hi"
        ),
    }


def _web_search(body: dict[str, Any]) -> dict[str, Any]:
    (tool,) = [t for t in body["tools"] if t["type"] == "web_search"]
    return tool


@pytest.mark.parametrize("web_search", [None, False], ids=["default", "web_search=False"])
@pytest.mark.parametrize("name", sorted(SEARCH))
def test_a_bound_web_search_takes_the_model_setting_on_every_path(
    emu: PerplexityEmulator, name: str, web_search: bool | None
) -> None:
    model = _model(emu, web_search=web_search, **{name: AGENT_VALUES[name]})
    own = {"search_context_size": "high"} if name != "search_context_size" else {"search_type": "fast"}
    for way, run in _bound(model, [{"type": "web_search", **own}]).items():
        tool = _web_search(_sent(emu, run))
        assert tool == {"type": "web_search", **own, **SEARCH[name]}, way  # the model's setting, and the tool's own


@pytest.mark.parametrize("name", sorted(SEARCH))
def test_the_setting_reaches_a_bound_web_search_whichever_way_the_setting_comes(
    emu: PerplexityEmulator, name: str
) -> None:
    value, tools = AGENT_VALUES[name], [web_search_tool()]
    field = ConfigurableField(id="setting")
    runs = {
        "ctor": lambda: _model(emu, **{name: value}).bind_tools(tools).invoke("hi"),
        "call": lambda: _shared(emu).bind_tools(tools).invoke("hi", **{name: value}),
        "bind": lambda: _shared(emu).bind(**{name: value}).bind_tools(tools).invoke("hi"),
        "model_copy": lambda: _shared(emu).model_copy(update={name: value}).bind_tools(tools).invoke("hi"),
        "configurable": lambda: (
            _shared(emu)
            .configurable_fields(**{name: field})
            .bind_tools(tools)
            .invoke("hi", config={"configurable": {"setting": value}})
        ),
        "init_chat_model": lambda: (
            init_chat_model("perplexity_strict:perplexity/sonar", api_key=KEY, base_url=emu.base_url, **{name: value})
            .bind_tools(tools)
            .invoke("hi")
        ),
    }
    tools_sent = {way: _web_search(_sent(emu, run)) for way, run in runs.items()}
    assert tools_sent["ctor"] == {"type": "web_search", **SEARCH[name]}
    assert all(t == tools_sent["ctor"] for t in tools_sent.values()), tools_sent


@pytest.mark.parametrize("name", FILTERS)
def test_a_filter_the_model_and_the_bound_tool_give_differently_is_refused_naming_both(
    emu: PerplexityEmulator, name: str
) -> None:
    model = _model(emu, **{name: AGENT_VALUES[name]})
    tool = {"type": "web_search", "filters": {name: OTHER[name]}}
    for way, run in _bound(model, [tool]).items():
        message = refusal(emu, run)
        assert f"filters.{name}" in message and repr(AGENT_VALUES[name]) in message, way
        assert repr(OTHER[name]) in message, way


@pytest.mark.parametrize("name", FILTERS)
def test_a_filter_given_per_call_and_on_the_bound_tool_differently_is_refused(
    emu: PerplexityEmulator, name: str
) -> None:
    bound = _shared(emu).bind_tools([{"type": "web_search", "filters": {name: OTHER[name]}}])
    for run in (
        lambda: bound.invoke("hi", **{name: AGENT_VALUES[name]}),
        lambda: bound.bind(**{name: AGENT_VALUES[name]}).invoke("hi"),
    ):
        assert repr(OTHER[name]) in refusal(emu, run)


@pytest.mark.parametrize("name", OPTIONS)
def test_the_bound_tools_own_search_option_wins_over_the_models(emu: PerplexityEmulator, name: str) -> None:
    """docs/built-in-tools.md: "its own options win" (they are not restrictions on what is searched)."""
    (key,) = SEARCH[name]
    model = _model(emu, **{name: AGENT_VALUES[name]})
    for way, run in _bound(model, [{"type": "web_search", key: OTHER[name]}]).items():
        assert _web_search(_sent(emu, run))[key] == OTHER[name], way


REPLACING = {
    "image_search": {"type": "image_search"},
    "fetch_url": {"type": "fetch_url"},
    "people_search": {"type": "people_search"},
    "finance_search": {"type": "finance_search"},
    "sandbox": {"type": "sandbox"},
    "mcp": {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example.com"},
    "connector": {"type": "connector", "id": "conn_drive", "server_label": "drive"},
}


@pytest.mark.parametrize("name", sorted(SEARCH))
@pytest.mark.parametrize("kind", sorted(REPLACING))
def test_a_built_in_tool_replacing_the_search_does_not_silently_drop_the_setting(
    emu: PerplexityEmulator, kind: str, name: str
) -> None:
    value = AGENT_VALUES[name]
    for way, run in _bound(_shared(emu, **{name: value}), [REPLACING[kind]]).items():
        message = refusal(emu, run)
        assert f"{name}={value!r}" in message and f"tools[0] ({kind})" in message, way
    per_call = refusal(emu, lambda: _shared(emu).bind_tools([REPLACING[kind]]).invoke("hi", **{name: value}))
    assert f"{name}={value!r}" in per_call


@pytest.mark.parametrize("kind", sorted(REPLACING))
def test_the_setting_goes_to_web_search_bound_beside_the_replacing_tool(emu: PerplexityEmulator, kind: str) -> None:
    model = _model(emu, search_domain_filter=["nature.com"], search_recency_filter="week")
    for way, run in _bound(model, [REPLACING[kind], web_search_tool()]).items():
        body = _sent(emu, run)
        assert body["tools"][0] == REPLACING[kind], way
        assert _web_search(body)["filters"] == {"search_domain_filter": ["nature.com"], "search_recency_filter": "week"}


@pytest.mark.parametrize("kind", sorted(REPLACING))
def test_a_model_that_does_not_search_sends_the_replacing_tool_alone(emu: PerplexityEmulator, kind: str) -> None:
    """`web_search=False`: no search; the replacing tool goes alone. Search settings with no bound web_search
    to carry them would be dropped: refused, naming the switch and the setting (test_switching.py)."""
    for way, run in _bound(_model(emu, web_search=False), [REPLACING[kind]]).items():
        assert _sent(emu, run)["tools"] == [REPLACING[kind]], way
    model = _model(emu, web_search=False, search_domain_filter=["nature.com"])
    for way, run in _bound(model, [REPLACING[kind]]).items():
        message = refusal(emu, run)
        assert "web_search=False" in message and "search_domain_filter=['nature.com']" in message, way


def test_the_issues_example_searches_only_nature_com_from_the_last_week(emu: PerplexityEmulator) -> None:
    model = _model(emu, web_search=False, search_domain_filter=["nature.com"], search_recency_filter="week")
    bound = model.bind_tools([{"type": "web_search", "search_context_size": "high"}])
    expected = {
        "type": "web_search",
        "search_context_size": "high",
        "filters": {"search_domain_filter": ["nature.com"], "search_recency_filter": "week"},
    }

    async def both_async() -> None:
        await bound.ainvoke("hi")
        assert _web_search(emu.requests[0].body) == expected
        emu.clear()
        async for _ in bound.astream("hi"):
            pass

    runs = {
        "invoke": lambda: bound.invoke("hi"),
        "stream": lambda: list(bound.stream("hi")),
        "batch": lambda: bound.batch(["hi"]),
        "async": lambda: asyncio.run(both_async()),
    }
    for way, run in runs.items():
        assert _web_search(_sent(emu, run)) == expected, way


# --- the search tool: a filter the developer set is not the model's to lift ---------------------------

TOOL_FILTERS = {
    "search_domain_filter": (["nature.com"], ["example.com"]),
    "search_recency_filter": ("week", "year"),
    "search_after_date_filter": ("01/01/2024", "01/01/2020"),
    "search_before_date_filter": ("12/31/2025", "12/31/2030"),
    "search_language_filter": (["en"], ["fr"]),
    "country": ("US", "GB"),
}


@pytest.mark.parametrize("name", sorted(TOOL_FILTERS))
def test_the_search_tools_filter_is_kept_when_the_model_gives_another(emu: PerplexityEmulator, name: str) -> None:
    """`PerplexitySearchResults(search_domain_filter=[...])` in an agent: the model's arguments cannot widen it."""
    fixed, other = TOOL_FILTERS[name]
    tool = PerplexitySearchResults(api_key=KEY, base_url=emu.base_url, **{name: fixed})  # type: ignore[arg-type]
    emu.clear()
    call = {"type": "tool_call", "id": "c1", "name": tool.name, "args": {"query": "q", name: other}}
    said = f"the tool is built with {fixed!r} and the call gives {other!r}"
    assert said in tool.invoke(call).content  # a model's call: told, so it can call again
    runs = {  # an app's own call raises (not a string that reads as the results)
        "invoke": lambda: tool.invoke({"query": "q", name: other}),
        "ainvoke": lambda: asyncio.run(tool.ainvoke({"query": "q", name: other})),
    }
    for run in runs.values():
        with pytest.raises(ValueError, match=re.escape(said)):
            run()
    assert emu.requests == []  # nothing searched past the restriction
    tool.invoke({"query": "q", name: fixed})  # repeating it is fine
    assert emu.requests[0].body[name] == fixed
    published_schema.validate("ApiSearchRequestInput", emu.requests[0].body)


def test_a_bound_or_configured_filter_stays_through_with_structured_output(emu: PerplexityEmulator) -> None:
    """langchain-core hands `with_structured_output` (and `bind_tools`) to the bare model; the setting stays."""
    model, field = _model(emu), ConfigurableField(id="domains")
    runs = {
        "bind": lambda: model.bind(search_domain_filter=["nature.com"]).with_structured_output(Answer).invoke("hi"),
        "configurable": lambda: (
            model.configurable_fields(search_domain_filter=field)
            .with_structured_output(Answer, method="function_calling")
            .invoke("hi", config={"configurable": {"domains": ["nature.com"]}})
        ),
    }
    for way, run in runs.items():
        assert _web_search(_sent(emu, run))["filters"] == {"search_domain_filter": ["nature.com"]}, way
