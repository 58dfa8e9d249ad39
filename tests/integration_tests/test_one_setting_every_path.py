"""One setting, every path: the same check and the same conversion whichever way a value comes.

A LangChain app sets a value on a chat model in one of these ways, and each must send the same body
(or raise the same error) for the same value:

- ``ctor``: ``ChatPerplexityStrict(name=value)``
- ``call``: ``model.invoke(q, name=value)``
- ``bind``: ``model.bind(name=value).invoke(q)``
- ``configurable``: ``model.configurable_fields(name=ConfigurableField(...))`` with the value in the config
- ``model_copy``: ``model.model_copy(update={name: value})`` (pydantic's own skips validation)
- ``init_chat_model``: ``init_chat_model("perplexity_strict:...", name=value)`` (``registration``)

The settings are every row of the parameter table (``PARAMETERS``, on each surface), then ``stop``,
``tools``, ``tool_choice`` and ``response_format``, which also come by ``bind_tools`` and
``with_structured_output``. Each body is the one the emulator received, and it is a valid published
request (``ResponsesRequestInput`` / ``ApiChatCompletionsRequestInput`` in ``perplexity.generated.api``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langchain.chat_models import init_chat_model
from langchain_core.runnables import ConfigurableField
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import KEY
from tests.integration_tests.habits import refusal
from tests.integration_tests.test_contract import AGENT_VALUES, CHAT_VALUES

MODELS = {"agent": "perplexity/sonar", "chat_completions": "sonar"}
Way = Callable[[PerplexityEmulator, str, str, Any], Any]


def _model(emu: PerplexityEmulator, api: str, **kw: Any) -> ChatPerplexityStrict:
    return ChatPerplexityStrict(model=MODELS[api], api=api, api_key=KEY, base_url=emu.base_url, **kw)  # type: ignore[arg-type]


_PLAIN: dict[tuple[str, str], ChatPerplexityStrict] = {}


def _plain(emu: PerplexityEmulator, api: str) -> ChatPerplexityStrict:
    """The model without the setting that the call, bind, configurable and model_copy ways start from: one per
    emulator and surface (a new one per way was a fifth of this module's CPU: each is built, with its HTTP
    clients, and serialized for LangChain's callbacks on its first call). Each way leaves it as it was (`bind`,
    `configurable_fields` and `model_copy` make their own; a call's setting is the call's), and a refused value is
    refused before anything changes."""
    key = (emu.base_url, api)
    if key not in _PLAIN:
        _PLAIN[key] = _model(emu, api)
    return _PLAIN[key]


def _configured(emu: PerplexityEmulator, api: str, name: str, value: Any) -> Any:
    field = ConfigurableField(id=f"the_{name}")
    return (
        _plain(emu, api)
        .configurable_fields(**{name: field})
        .invoke("hi", config={"configurable": {f"the_{name}": value}})
    )


def _initialised(emu: PerplexityEmulator, api: str, name: str, value: Any) -> Any:
    model = init_chat_model(
        f"perplexity_strict:{MODELS[api]}", api=api, api_key=KEY, base_url=emu.base_url, **{name: value}
    )
    return model.invoke("hi")


WAYS: dict[str, Way] = {
    "ctor": lambda emu, api, name, value: _model(emu, api, **{name: value}).invoke("hi"),
    "call": lambda emu, api, name, value: _plain(emu, api).invoke("hi", **{name: value}),
    "bind": lambda emu, api, name, value: _plain(emu, api).bind(**{name: value}).invoke("hi"),
    "configurable": _configured,
    "model_copy": lambda emu, api, name, value: _plain(emu, api).model_copy(update={name: value}).invoke("hi"),
    "init_chat_model": _initialised,
}
AS_MODEL_SETTINGS = ("ctor", "configurable", "model_copy", "init_chat_model")  # a setting of the model itself


def _sent(emu: PerplexityEmulator, run: Callable[[], Any]) -> dict[str, Any]:
    """The first request body `run` sends (checked against the published schema)."""
    emu.clear()
    run()
    creates = [r for r in emu.requests if r.kind in ("create", "chat")]
    assert creates, "nothing was sent"
    body = creates[0].body
    (published_schema.chat_request if creates[0].kind == "chat" else published_schema.agent_request)(body)
    return body


def _cases(values: dict[str, Any], api: str) -> list[Any]:
    return [pytest.param(api, name, value, id=f"{api}-{name}") for name, value in values.items()]


# test_contract holds a valid value for every parameter of the table on each surface, and checks it does.
# It leaves out of CHAT_VALUES those that cannot go together with one there; alone, they are tried here.
CHAT_ALONE = {
    "frequency_penalty": 1.2,
    "search_before_date_filter": "12/31/2025",
    "last_updated_after_filter": "01/01/2025",
    "last_updated_before_filter": "12/01/2025",
}
GOOD = _cases(AGENT_VALUES, "agent") + _cases({**CHAT_VALUES, **CHAT_ALONE}, "chat_completions")


@pytest.mark.parametrize(("api", "name", "value"), GOOD)
def test_a_setting_sends_the_same_body_whichever_way_it_comes(
    emu: PerplexityEmulator, api: str, name: str, value: Any
) -> None:
    bodies = {way: _sent(emu, lambda run=run: run(emu, api, name, value)) for way, run in WAYS.items()}
    assert all(body == bodies["ctor"] for body in bodies.values()), bodies


class Wrong:
    """A value no parameter accepts, with a stable repr so every path's message can be compared."""

    def __repr__(self) -> str:
        return "<wrong>"


# Values pydantic would coerce at construction ("0.5" -> 0.5, 5.0 -> 5, "yes" -> True, a tuple -> a list),
# and values a bound web_search tool refuses (its ranges), beside `Wrong()` for every parameter.
BAD = [
    ("agent", "temperature", "0.5"),
    ("agent", "max_tokens", "100"),
    ("agent", "max_steps", 5.0),
    ("agent", "store", "yes"),
    ("agent", "background", 1),
    ("agent", "search_domain_filter", ("nature.com",)),
    ("agent", "user_location", {"latitude": 500}),
    ("agent", "user_location", {"city": 5}),
    ("agent", "search_max_tokens", 10**9),
    ("agent", "search_max_tokens_per_page", 0),
    ("agent", "top_k", 5),  # a chat-completions parameter on the Agent API
    ("chat_completions", "top_k", 1.5),
    ("chat_completions", "temperature", 2),
    ("agent", "stop", [""]),
    ("agent", "n", "2"),
    *[("agent", name, Wrong()) for name in AGENT_VALUES],
]


@pytest.mark.parametrize(("api", "name", "value"), BAD, ids=[f"{a}-{n}-{v!r}" for a, n, v in BAD])
def test_a_bad_setting_is_refused_alike_whichever_way_it_comes(
    emu: PerplexityEmulator, api: str, name: str, value: Any
) -> None:
    expected = refusal(emu, lambda: WAYS["call"](emu, api, name, value))
    assert name in expected and repr(value) in expected  # names the field and the value as given
    for way, run in WAYS.items():
        assert expected in refusal(emu, lambda run=run: run(emu, api, name, value)), way


def test_a_preset_picks_its_model_on_every_path(emu: PerplexityEmulator) -> None:
    """A configured or copied preset keeps the model unset, as the constructor does (no `model` sent)."""
    base = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url)  # type: ignore[arg-type]
    field = ConfigurableField(id="preset")
    runs = {
        "ctor": lambda: ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, preset="low").invoke("hi"),  # type: ignore[arg-type]
        "call": lambda: base.invoke("hi", preset="low"),
        "bind": lambda: base.bind(preset="low").invoke("hi"),
        "configurable": lambda: base.configurable_fields(preset=field).invoke(
            "hi", config={"configurable": {"preset": "low"}}
        ),
        "model_copy": lambda: base.model_copy(update={"preset": "low"}).invoke("hi"),
    }
    for way, run in runs.items():
        body = _sent(emu, run)
        assert body.get("preset") == "low" and "model" not in body, (way, body)


def test_model_copy_refuses_a_name_that_is_not_a_field(emu: PerplexityEmulator) -> None:
    """pydantic's `model_copy(update=...)` would set any attribute; the constructor's check names it."""
    message = refusal(emu, lambda: _model(emu, "agent").model_copy(update={"temprature": 0.5}))
    assert "temprature" in message and "temperature" in message


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"temperature": 9}, "temperature"),
        ({"max_tokens": 5}, "max_tokens"),
        ({"reasoning_effort": "low"}, "reasoning_effort"),
        ({"skills": []}, "skills"),
        ({"tools": []}, "bind_tools()"),
        ({"tool_choice": "auto"}, "bind_tools(tool_choice"),
    ],
)
def test_model_kwargs_cannot_carry_a_setting_past_its_check(emu: PerplexityEmulator, extra: dict, named: str) -> None:
    """`model_kwargs` are sent unchecked, so a setting there would skip its check and override the checked one."""
    for run in (
        lambda: _model(emu, "agent", model_kwargs=extra),
        lambda: _model(emu, "agent").model_copy(update={"model_kwargs": extra}),
    ):
        message = refusal(emu, run)
        assert f"model_kwargs[{next(iter(extra))!r}]" in message and named in message


def test_model_kwargs_still_carry_a_field_no_parameter_sets(emu: PerplexityEmulator) -> None:
    """A published field no parameter sets goes out as given; one the surface's published request lacks is refused
    before sending (the Agent API would answer 400 `unknown field`; chat completions would ignore it)."""
    assert _model(emu, "agent", model_kwargs={"step_budget_reminder": True}).request_body("hi")["step_budget_reminder"]
    assert _model(emu, "chat_completions", model_kwargs={"safe_search": True}).request_body("hi")["safe_search"]
    for api, field in (("agent", "custom"), ("agent", "safe_search"), ("chat_completions", "step_budget_reminder")):
        for run in (
            lambda api=api, field=field: _model(emu, api, model_kwargs={field: 1}),
            lambda api=api, field=field: _model(emu, api).invoke("hi", extra_body={field: 1}),
            lambda api=api, field=field: _model(emu, api).model_copy(update={"model_kwargs": {field: 1}}),
        ):
            message = refusal(emu, run)
            assert f"model_kwargs[{field!r}] is not a field of Perplexity's published request" in message
            assert ("step_budget_reminder" if api == "agent" else "safe_search") in message


# --- tools, tool_choice, response_format, stop -------------------------------------------------------


class Add(BaseModel):
    """Add two numbers."""

    a: int
    b: int


def add_fn(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def add_tool(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


ADD_DICT = {
    "type": "function",
    "function": {
        "name": "Add",
        "description": "Add two numbers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
}
FLAT_DICT = {"type": "function", **ADD_DICT["function"]}
TOOL_FORMS = {
    "pydantic": Add,
    "function": add_fn,
    "BaseTool": add_tool,
    "openai dict": ADD_DICT,
    "flat dict": FLAT_DICT,
}


def _tool_ways(emu: PerplexityEmulator, tools: list[Any], **choice: Any) -> dict[str, Callable[[], Any]]:
    model = _model(emu, "agent")
    return {
        "bind_tools": lambda: model.bind_tools(tools, **choice).invoke("hi"),
        "call": lambda: model.invoke("hi", tools=tools, **choice),
        "bind": lambda: model.bind(tools=tools, **choice).invoke("hi"),
    }


@pytest.mark.parametrize("form", sorted(TOOL_FORMS))
def test_a_tool_in_any_form_is_sent_alike_whichever_way_it_comes(emu: PerplexityEmulator, form: str) -> None:
    bodies = {way: _sent(emu, run)["tools"] for way, run in _tool_ways(emu, [TOOL_FORMS[form]]).items()}
    assert all(tools == bodies["bind_tools"] for tools in bodies.values()), bodies
    assert bodies["bind_tools"][0]["type"] == "function" and bodies["bind_tools"][0]["name"] in (
        "Add",
        "add_fn",
        "add_tool",
    )


# Every tool_choice form ChatOpenAI.bind_tools takes, and what the Agent API receives (`ToolChoiceInput`).
CHOICES = [
    ("Add", {"name": "Add"}),
    ({"type": "function", "function": {"name": "Add"}}, {"name": "Add"}),
    ({"type": "function", "name": "Add"}, {"name": "Add"}),
    ({"type": "tool", "name": "Add"}, {"name": "Add"}),
    ("any", "required"),
    ({"type": "any"}, "required"),
    (True, "required"),
    ("required", "required"),
    ("auto", "auto"),
    ("none", "none"),
    (False, None),
]


@pytest.mark.parametrize(("choice", "sent"), CHOICES, ids=[repr(c) for c, _ in CHOICES])
def test_a_tool_choice_is_converted_alike_whichever_way_it_comes(
    emu: PerplexityEmulator, choice: Any, sent: Any
) -> None:
    for way, run in _tool_ways(emu, [Add], tool_choice=choice).items():
        assert _sent(emu, run).get("tool_choice") == sent, way


@pytest.mark.parametrize(
    ("choice", "fragment"),
    [
        ("Sub", "'Sub' names no bound function tool"),
        ("web_search", "'web_search' is a built-in tool"),
        ({"type": "function"}, "tool_choice={'type': 'function'}"),
    ],
)
def test_a_bad_tool_choice_is_refused_alike_whichever_way_it_comes(
    emu: PerplexityEmulator, choice: Any, fragment: str
) -> None:
    for way, run in _tool_ways(emu, [Add], tool_choice=choice).items():
        assert fragment in refusal(emu, run), way


def test_a_forced_structured_output_tool_is_the_tool_choice_bind_tools_sends(emu: PerplexityEmulator) -> None:
    forced = _sent(
        emu, lambda: _model(emu, "agent").with_structured_output(Add, method="function_calling").invoke("hi")
    )
    called = _sent(emu, lambda: _model(emu, "agent").invoke("hi", tools=[Add], tool_choice="Add"))
    assert forced["tool_choice"] == called["tool_choice"] == {"name": "Add"}
    assert forced["tools"] == called["tools"]


def test_tools_on_the_sonar_surface_are_refused_whichever_way_they_come(emu: PerplexityEmulator) -> None:
    model = _model(emu, "chat_completions")
    runs = {
        "bind_tools": lambda: model.bind_tools([{"type": "image_search"}]).invoke("hi"),
        "call": lambda: model.invoke("hi", tools=[{"type": "image_search"}]),
        "bind": lambda: model.bind(tools=[Add]).invoke("hi"),
        "call tool_choice": lambda: model.invoke("hi", tool_choice="required"),  # it would be dropped unsent
    }
    for way, run in runs.items():
        assert "Sonar chat-completions models have no function tools" in refusal(emu, run), way


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
def test_a_response_format_is_sent_alike_whichever_way_it_comes(emu: PerplexityEmulator, api: str) -> None:
    model = _model(emu, api)
    runs = {
        "with_structured_output": lambda: model.with_structured_output(Add).invoke("hi"),
        "call": lambda: model.invoke("hi", response_format=Add),
        "bind": lambda: model.bind(response_format=Add).invoke("hi"),
    }
    formats = {way: _sent(emu, run)["response_format"] for way, run in runs.items()}
    assert all(f == formats["call"] for f in formats.values()), formats
    assert formats["call"]["type"] == "json_schema" and formats["call"]["json_schema"]["name"] == "Add"


@pytest.mark.parametrize("stop", ["Hello", ["Hello"]])
def test_stop_is_applied_alike_whichever_way_it_comes(emu: PerplexityEmulator, stop: Any) -> None:
    """`stop` is done on the client (neither surface takes it): never sent, and the answer cut the same."""
    answers = {}
    for way, run in WAYS.items():
        emu.clear()
        answers[way] = run(emu, "agent", "stop", stop).content
        assert "stop" not in emu.requests[0].body, way
    assert len(set(answers.values())) == 1, answers
