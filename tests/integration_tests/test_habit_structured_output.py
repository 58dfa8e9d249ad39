"""Issue 18, class 2: structured output in every form `ChatOpenAI` takes, on both surfaces, invoked and streamed.

The forms are those of langchain-openai's `with_structured_output` and
`_convert_to_openai_response_format`: a Pydantic class, a TypedDict, a JSON
Schema dict, an OpenAI function or tool dict, OpenAI's `{"name", "schema",
"strict", "description"}` spec and the whole `response_format` dict, under
each method (`json_schema`, `function_calling`, `json_mode`) and with
`include_raw`; `response_format=` as a call argument (a Pydantic class,
`{"type": "json_object"}`, a `json_schema` dict); LangChain's `create_agent`
with `ToolStrategy` and `ProviderStrategy`, with and without tools.
Each sends the schema (its fields and description) and parses the answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make
from tests.integration_tests.habits import MODES, SURFACES, run

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:with_structured_output\\(method='function_calling'\\):UserWarning"),
]


class Weather(BaseModel):
    """The weather in a city, as reported today."""

    city: str = Field(description="The city")
    celsius: float


class WeatherDict(TypedDict):
    """The weather in a city, as reported today."""

    city: str
    celsius: float


JSON_SCHEMA = {
    "title": "Weather",
    "description": "The weather in a city, as reported today.",
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
}
FUNCTION = {"name": "Weather", "description": JSON_SCHEMA["description"],
            "parameters": {k: JSON_SCHEMA[k] for k in ("type", "properties", "required")}}  # fmt: skip
OPENAI_SPEC = {"name": "Weather", "description": JSON_SCHEMA["description"], "strict": True,
               "schema": {**FUNCTION["parameters"], "additionalProperties": False}}  # fmt: skip

SCHEMAS: list[tuple[str, Any]] = [
    ("pydantic", Weather),
    ("typeddict", WeatherDict),
    ("json schema", JSON_SCHEMA),
    ("openai function", FUNCTION),
    ("openai tool", {"type": "function", "function": FUNCTION}),
    ("openai json_schema spec", OPENAI_SPEC),
    ("openai response_format", {"type": "json_schema", "json_schema": OPENAI_SPEC}),
]
METHODS = ("json_schema", "function_calling", "json_mode")
DESCRIPTION = "The weather in a city, as reported today."


@pytest.fixture(scope="module")
def models(emulator: PerplexityEmulator) -> dict[str, ChatPerplexityStrict]:
    """One model per surface for the module's 200 calls (a new one per call was a fifth of their CPU: each is
    built, with its HTTP clients, and serialized for LangChain's callbacks on its first call). The forms differ in
    what is bound to the model or passed to the call, never in the model: `with_structured_output`, `bind` and
    `create_agent` wrap it and leave it as it was, and nothing a call does carries over to the next."""
    return {api: make(emulator, api) for api in SURFACES}


def _sent_schema(body: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The JSON schema the body asks for (response format or forced function), and its description."""
    if body.get("response_format"):
        spec = body["response_format"]["json_schema"]
        return spec["schema"], spec.get("description")
    tool = next(t for t in body.get("tools") or [] if t.get("type") == "function")
    function = tool.get("function") or tool
    return function["parameters"], function.get("description")


def _parsed(answer: Any) -> Any:
    return answer["parsed"] if isinstance(answer, dict) and "raw" in answer else answer


@pytest.mark.parametrize("include_raw", [False, True])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("name", "schema"), SCHEMAS, ids=[s[0] for s in SCHEMAS])
def test_every_structured_output_form(
    emu: PerplexityEmulator,
    models: dict[str, ChatPerplexityStrict],
    name: str,
    schema: Any,
    method: str,
    api: str,
    mode: str,
    include_raw: bool,
) -> None:
    model = models[api]
    runnable = model.with_structured_output(schema, method=method, include_raw=include_raw)  # type: ignore[arg-type]
    outcome = run(runnable, emu, api, mode, [HumanMessage("Weather in Paris?")])
    assert outcome.error is None, outcome.error
    assert outcome.body is not None
    sent, description = _sent_schema(outcome.body)
    assert set(sent.get("properties") or {}) == {"city", "celsius"}, sent
    assert description == DESCRIPTION
    parsed = _parsed(outcome.answer)
    if schema is Weather:
        assert isinstance(parsed, Weather)
    else:
        assert isinstance(parsed, dict) and set(parsed) >= {"city", "celsius"}, parsed


def test_json_mode_without_a_schema_asks_for_any_object(emu: PerplexityEmulator) -> None:
    for api in SURFACES:
        outcome = run(make(emu, api).with_structured_output(method="json_mode"), emu, api, "invoke", "Weather?")
        assert outcome.error is None and outcome.body is not None
        assert outcome.body["response_format"]["json_schema"]["schema"]["type"] == "object"


CALL_FORMATS: list[tuple[str, Any]] = [
    ("pydantic class", Weather),
    ("json_object", {"type": "json_object"}),
    ("json_schema dict", {"type": "json_schema", "json_schema": OPENAI_SPEC}),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
@pytest.mark.parametrize(("name", "fmt"), CALL_FORMATS, ids=[c[0] for c in CALL_FORMATS])
def test_response_format_as_a_call_argument(
    emu: PerplexityEmulator, models: dict[str, ChatPerplexityStrict], name: str, fmt: Any, api: str, mode: str
) -> None:
    outcome = run(models[api].bind(response_format=fmt), emu, api, mode, "Weather in Paris?")
    assert outcome.error is None, outcome.error
    assert outcome.body is not None
    sent = outcome.body["response_format"]["json_schema"]["schema"]
    if fmt == {"type": "json_object"}:
        assert sent.get("type") == "object"
    else:
        assert set(sent["properties"]) == {"city", "celsius"}
    parsed = outcome.answer.additional_kwargs.get("parsed")  # ChatOpenAI parses into a class, nothing else
    if fmt is Weather:
        assert isinstance(parsed, Weather)
        assert parsed == Weather.model_validate_json(outcome.answer.text)
    else:
        assert parsed is None


@pytest.mark.parametrize("api", SURFACES)
@pytest.mark.parametrize("title", ["Weather report (v2)", "W" * 80, "météo"])
def test_schema_names_perplexity_refuses_are_rewritten(emu: PerplexityEmulator, api: str, title: str) -> None:
    schema = {**JSON_SCHEMA, "title": title}
    outcome = run(make(emu, api).with_structured_output(schema), emu, api, "invoke", "Weather?")
    assert outcome.error is None, outcome.error
    assert outcome.body is not None
    name = outcome.body["response_format"]["json_schema"]["name"]
    assert name.isascii() and name.isalnum() and 1 <= len(name) <= 64


@tool
def local_time(city: str) -> str:
    """The local time in a city."""
    return "12:00"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("with_tools", [False, True])
@pytest.mark.parametrize("strategy", ["tool", "provider"])
@pytest.mark.parametrize("api", SURFACES)
def test_create_agent_response_format(emu: PerplexityEmulator, api: str, strategy: str, with_tools: bool,
                                      mode: str) -> None:  # fmt: skip
    from langchain.agents import create_agent
    from langchain.agents.structured_output import ProviderStrategy, ToolStrategy

    if with_tools and api == "chat_completions":
        pytest.skip("the Sonar models have no function tools (refused by bind_tools, tested in the tools catalogue)")
    response_format = ToolStrategy(Weather) if strategy == "tool" else ProviderStrategy(Weather)
    agent = create_agent(make(emu, api), tools=[local_time] if with_tools else [], response_format=response_format)
    state = {"messages": [HumanMessage("Weather in Paris?")]}
    if strategy == "tool" and api == "chat_completions":  # the answer would have to be a tool call: none on Sonar
        with pytest.raises(ValueError, match=r"tools.*ProviderStrategy"):
            agent.invoke(state)
        assert not emu.requests
        return
    result = agent.invoke(state) if mode == "invoke" else list(agent.stream(state, stream_mode="values"))[-1]
    assert isinstance(result["structured_response"], Weather)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
def test_a_text_response_format_is_plain_text_the_default(emu: PerplexityEmulator, api: str, mode: str) -> None:
    """OpenAI's `{"type": "text"}` asks for what Perplexity answers anyway: nothing is sent for it."""
    outcome = run(make(emu, api).bind(response_format={"type": "text"}), emu, api, mode, "Weather in Paris?")
    assert outcome.error is None, outcome.error
    assert outcome.body is not None and "response_format" not in outcome.body
    assert outcome.answer.text


@pytest.mark.parametrize("mode", MODES)
def test_a_regex_response_format_goes_to_chat_completions_as_published(emu: PerplexityEmulator, mode: str) -> None:
    fmt = {"type": "regex", "regex": {"regex": r"[A-Z][a-z]+"}}
    outcome = run(make(emu, "chat_completions").bind(response_format=fmt), emu, "chat_completions", mode, "A city?")
    assert outcome.error is None, outcome.error
    assert outcome.body is not None and outcome.body["response_format"] == fmt


# Response formats refused before sending, each with what the message must name besides `response_format=`.
REFUSED_FORMATS: list[tuple[str, str, Any, str]] = [
    ("regex on the Agent API", "agent", {"type": "regex", "regex": {"regex": "a"}}, "api='chat_completions'"),
    ("a bare string", "agent", "text", "accepted:"),
    ("a bare string", "chat_completions", "json", "accepted:"),
    ("text with an extra key", "agent", {"type": "text", "strict": True}, "no other key"),
    ("regex without a pattern", "chat_completions", {"type": "regex", "regex": {}}, "'regex': '<pattern>'"),
    ("an unknown type", "agent", {"type": "grammar", "grammar": "x"}, "accepted:"),
    ("a number", "chat_completions", 3, "accepted:"),
]


@pytest.mark.parametrize("how", ["bind", "call"])
@pytest.mark.parametrize(
    ("name", "api", "fmt", "names"), REFUSED_FORMATS, ids=[f"{r[0]}-{r[1]}" for r in REFUSED_FORMATS]
)
def test_a_response_format_perplexity_refuses_is_refused_naming_it(
    emu: PerplexityEmulator, name: str, api: str, fmt: Any, names: str, how: str
) -> None:
    model = make(emu, api)
    runnable = model.bind(response_format=fmt) if how == "bind" else model
    emu.clear()
    with pytest.raises(ValueError, match="response_format=") as info:
        runnable.invoke("A city?") if how == "bind" else model.invoke("A city?", response_format=fmt)
    assert names in str(info.value)
    assert "Unsupported function" not in str(info.value)
    assert not emu.requests
