"""Perplexity's published schema is the contract (``perplexity.generated.api``, unknown fields forbidden).

- every body the package builds, over histories, parameters, tool forms, tool
  choices and structured-output methods, is a valid ``ResponsesRequestInput``
  or ``ApiChatCompletionsRequestInput``;
- every response and stream event the emulator sends, on every path and
  fault, is a valid ``ResponsesResponseOutput`` / ``ResponseStreamEventOutput``,
  and together they cover the whole published event vocabulary;
- the emulator's own request checker agrees with the published models on a
  corpus of valid and invalid requests;
- Perplexity's own client works against the emulator.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TypedDict, get_args

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from langchain_core.messages import BaseMessage
from langchain_core.tools import tool
from perplexity.generated import api
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict._request._parameter_table import PARAMETERS
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from langchain_perplexity_strict.testing.agent_schema import schema_verdict
from tests import published_schema
from tests.integration_tests.factory import make as model
from tests.unit_tests.app_histories import app_histories

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:The newest user message lost content block:UserWarning"),
]

KEY = "test-key"


# --- bodies ------------------------------------------------------------------------------------

# A valid value for every parameter on each surface (the table's own entries, so a new one is covered).
AGENT_VALUES: dict[str, Any] = {
    "temperature": 0.5, "top_p": 0.9, "max_tokens": 100, "n": 1, "stop": ["END"], "reasoning_effort": "low",
    "language_preference": "fr", "search_domain_filter": ["nature.com", "arxiv.org"],
    "search_recency_filter": "week", "search_context_size": "high", "search_type": "fast",
    "user_location": {"city": "Paris", "country": "FR", "region": "IDF", "latitude": 48.8, "longitude": 2.3},
    "search_max_tokens": 1000, "search_max_tokens_per_page": 200, "web_search": True, "preset": "low",
    "effort": "medium", "models": ["perplexity/sonar", "openai/gpt-5.1"], "max_steps": 5, "instructions": "Be brief.",
    "store": True, "background": True, "prompt_cache_key": "k1", "service_tier": "flex",
    "use_previous_response_id": True, "stream_chunk_timeout": 30, "max_resumes": 2,
    "stream_usage": False, "disable_search": False,
    "search_after_date_filter": "01/31/2025", "search_before_date_filter": "12/31/2025",
    "last_updated_after_filter": "01/01/2025", "last_updated_before_filter": "12/01/2025",
    "skills": [{"type": "builtin", "name": "office"}, {"type": "inline", "name": "n", "description": "d",
                "instructions": "i"}, {"type": "custom", "id": "sk_1", "version": "2"}],
}  # fmt: skip
CHAT_VALUES: dict[str, Any] = {
    "temperature": 0.5, "top_p": 0.9, "max_tokens": 100, "reasoning_effort": "low", "language_preference": "fr",
    "search_domain_filter": ["nature.com"], "search_recency_filter": "week", "search_context_size": "low",
    "search_type": "pro", "user_location": {"country": "FR"}, "top_k": 5, "presence_penalty": 0.5,
    "search_mode": "academic", "return_images": True, "return_related_questions": True, "disable_search": False,
    "search_after_date_filter": "01/31/2025", "enable_search_classifier": True,
    "image_results_enhanced_relevance": True,
}  # fmt: skip
DATES = ("search_after_date_filter", "search_before_date_filter",
         "last_updated_after_filter", "last_updated_before_filter")  # fmt: skip


def test_every_parameter_has_a_contract_value() -> None:
    on_agent = {n for n, p in PARAMETERS.items() if p.agent is not None}
    on_chat = {n for n, p in PARAMETERS.items() if p.chat not in (None, "client")}
    assert on_agent <= set(AGENT_VALUES)
    assert on_chat - {"frequency_penalty", *DATES} <= set(CHAT_VALUES)


@pytest.mark.parametrize("name", sorted(AGENT_VALUES))
def test_each_agent_parameter_builds_a_published_body(emulator: PerplexityEmulator, name: str) -> None:
    extra = {"search_recency_filter": None} if name in DATES else {}
    llm = model(emulator, **{name: AGENT_VALUES[name]}, **extra)
    published_schema.agent_request(llm.request_body("hi"))


def test_all_agent_parameters_together(emulator: PerplexityEmulator) -> None:
    values = {k: v for k, v in AGENT_VALUES.items() if k not in DATES}
    published_schema.agent_request(model(emulator, model="anthropic/claude-sonnet-4-5", **values).request_body("hi"))


@pytest.mark.parametrize("name", sorted(CHAT_VALUES))
def test_each_chat_parameter_builds_a_published_body(emulator: PerplexityEmulator, name: str) -> None:
    llm = model(emulator, api="chat_completions", model="sonar", **{name: CHAT_VALUES[name]})
    published_schema.chat_request(llm.request_body("hi"))


class Weather(BaseModel):
    """Weather in a city."""

    city: str


class WeatherDict(TypedDict):
    """Weather in a city."""

    city: str


def weather_fn(city: str) -> str:
    """Weather in a city."""
    return city


@tool
def weather_tool(city: str) -> str:
    """Weather in a city."""
    return city


JSON_SCHEMA = {
    "title": "weather",
    "description": "Weather.",
    "type": "object",
    "properties": {"city": {"type": "string"}},
}
TOOL_FORMS: list[Any] = [
    Weather, WeatherDict, weather_fn, weather_tool, JSON_SCHEMA,
    {"type": "function", "function": {"name": "weather", "description": "w", "parameters": JSON_SCHEMA}},
    {"type": "function", "name": "weather", "description": "w", "parameters": JSON_SCHEMA},  # Agent API shape
    {"type": "fetch_url", "max_urls": 2}, {"type": "image_search", "max_results": 3}, {"type": "people_search"},
    {"type": "finance_search"}, {"type": "sandbox"},
    {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example", "require_approval": "never"},
]  # fmt: skip
TOOL_CHOICES = [None, "auto", "none", "required", "any", "Weather"]


@pytest.mark.parametrize("form", TOOL_FORMS, ids=lambda f: getattr(f, "__name__", None) or str(f)[:30])
@pytest.mark.parametrize("choice", TOOL_CHOICES)
def test_every_tool_form_and_choice_builds_a_published_body(
    emulator: PerplexityEmulator, form: Any, choice: Any
) -> None:
    bound = model(emulator).bind_tools([Weather, form], tool_choice=choice)
    body = model(emulator).request_body("weather in Paris?", **bound.kwargs)  # type: ignore[attr-defined]
    published_schema.agent_request(body)


@pytest.mark.parametrize("method", ["json_schema", "json_mode", "function_calling"])
@pytest.mark.parametrize("api_", ["agent", "chat_completions"])
def test_structured_output_bodies_are_published(emulator: PerplexityEmulator, method: str, api_: str) -> None:
    llm = model(emulator, api=api_, model="perplexity/sonar" if api_ == "agent" else "sonar")
    emulator.clear()
    with pytest.warns(UserWarning) if (method, api_) == ("function_calling", "chat_completions") else _nothing():
        llm.with_structured_output(Weather, method=method).invoke("weather in 'Paris'")  # type: ignore[arg-type]
    body = emulator.requests[-1].body
    (published_schema.agent_request if api_ == "agent" else published_schema.chat_request)(body)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.fixture(scope="module")
def history_models(emulator: PerplexityEmulator) -> list[tuple[ChatPerplexityStrict, Any]]:
    """Each surface's model, built once for every drawn history, with the published model that judges its body."""
    return [
        (model(emulator, api="agent", model="perplexity/sonar", max_input_tokens=0), published_schema.agent_request),
        (model(emulator, api="chat_completions", model="sonar", max_input_tokens=0), published_schema.chat_request),
    ]


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=app_histories())
def test_bodies_over_application_histories_are_published(
    history_models: list[tuple[ChatPerplexityStrict, Any]], history: list[BaseMessage]
) -> None:
    for llm, validate in history_models:
        try:
            body = llm.request_body(history)
        except ValueError as error:  # nothing to send, or a newest turn with nothing Perplexity takes (issue 18)
            assert "nothing but system messages" in str(error) or "left out of the newest user message" in str(error)
            continue
        validate(body)


# --- what the emulator sends ---------------------------------------------------------------------

MCP_TOOL = {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example"}
BUILT_IN: dict[str, dict[str, Any]] = {
    "web_search": {"type": "web_search"}, "fetch_url": {"type": "fetch_url", "max_urls": 2},
    "image_search": {"type": "image_search"}, "people_search": {"type": "people_search"},
    "finance_search": {"type": "finance_search"}, "sandbox": {"type": "sandbox"},
    "mcp": {**MCP_TOOL, "require_approval": "never", "allowed_tools": ["search"], "headers": {"X-Team": "a"}},
    "mcp_deferred": {**MCP_TOOL, "server_label": "lazy", "require_approval": "never", "defer_loading": True},
    "connector": {"type": "connector", "id": "conn_1", "server_label": "drive", "server_description": "Drive",
                  "require_approval": {"never": {"read_only": True}, "always": {"tool_names": ["write"]}}},
}  # fmt: skip
SKILLS = [{"type": "builtin", "name": "office/pdf"}, {"type": "custom", "id": "sk_1", "version": "2"},
          {"type": "inline", "name": "tone", "description": "Tone.", "instructions": "Be warm."}]  # fmt: skip
APPROVAL_REQUEST = {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "docs", "name": "write",
                    "arguments": '{"query": "write it"}'}  # fmt: skip
REQUESTS: dict[str, dict[str, Any]] = {
    "plain": {"model": "perplexity/sonar", "input": "hello"},
    "search": {"model": "perplexity/sonar", "input": "why is the sky blue", "tools": [{"type": "web_search"}]},
    "reasoning": {"model": "openai/gpt-5.1", "input": "think", "reasoning": {"effort": "high"},
                  "tools": [{"type": "web_search"}]},
    "fetch_and_images": {"model": "perplexity/sonar", "input": "read https://example.com/a and show cats",
                         "tools": [{"type": "fetch_url"}, {"type": "image_search"}]},
    "function_call": {"model": "google/gemini-2.5-pro", "input": "call add with 2 and 3",
                      "tools": [{"type": "function", "name": "add", "parameters": {
                          "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}]},
    "json": {"preset": "fast", "input": "a city", "response_format": {"type": "json_schema", "json_schema": {
        "name": "city", "schema": {"type": "object", "properties": {"name": {"type": "string"}}}}}},
    "skills": {"model": "perplexity/sonar", "input": "make a doc", "skills": [{"type": "builtin", "name": "office"}]},
    "options": {"model": "perplexity/sonar", "input": "hi", "store": False, "prompt_cache_key": "k",
                "service_tier": "flex", "preset": "low"},
    **{f"tool_{kind}": {"model": "perplexity/sonar", "input": "news at https://example.com/a?", "tools": [tool]}
       for kind, tool in BUILT_IN.items()},
    "all_tools": {"model": "openai/gpt-5.1", "input": "news at https://example.com/a?", "reasoning": {"effort": "low"},
                  "tools": list(BUILT_IN.values()), "skills": SKILLS},
    "approval": {"model": "perplexity/sonar", "input": "write it", "tools": [MCP_TOOL]},
    "approved": {"model": "perplexity/sonar", "tools": [MCP_TOOL], "input": [
        {"role": "user", "content": "write it"}, APPROVAL_REQUEST,
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}]},
    "denied": {"model": "perplexity/sonar", "tools": [MCP_TOOL], "input": [
        {"role": "user", "content": "write it"}, APPROVAL_REQUEST,
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": False, "reason": "no"}]},
    "background": {"model": "perplexity/sonar", "input": "long research", "background": True,
                   "tools": [{"type": "web_search"}]},
}  # fmt: skip
FAULTS = [None, Fault("failed"), Fault("incomplete")]


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """One client for every request here: an httpx client costs tens of milliseconds to build (its TLS context)."""
    with httpx.Client(headers={"Authorization": f"Bearer {KEY}"}) as client:
        yield client


def _post(http: httpx.Client, emu: PerplexityEmulator, body: dict[str, Any]) -> httpx.Response:
    return http.post(f"{emu.base_url}/v1/responses", json=body)


def _events(response: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


@pytest.fixture(scope="module")
def schema_emulator() -> Iterator[PerplexityEmulator]:
    """The emulator in its bare-schema dialect: what these tests hold to the published models, extras forbidden
    (the live dialect adds what the live API sends beyond them: docs/perplexity-rules.md, "The live dialect")."""
    with PerplexityEmulator(api_key=KEY, dialect="schema") as emu:
        yield emu


def test_emulator_responses_and_events_are_published(http: httpx.Client, schema_emulator: PerplexityEmulator) -> None:
    emu = schema_emulator
    seen: set[str] = set()
    checked = 0
    for name, request in REQUESTS.items():
        published_schema.agent_request(request)
        for fault in FAULTS:
            if fault:
                emu.inject(fault)
            whole = _post(http, emu, request)
            assert whole.status_code == 200, (name, whole.text)
            published_schema.agent_response(whole.json())
            if fault:
                emu.inject(fault)
            streamed = _post(http, emu, {**request, "stream": True})
            for event in _events(streamed):
                published_schema.agent_event(event)
                seen.add(event["type"])
                checked += 1
    documented = set(get_args(api.EventTypeOutput))
    assert seen == documented, f"not produced: {documented - seen}; not published: {seen - documented}"
    assert checked > 100


def _published_item_types() -> set[str]:
    members = get_args(api.OutputItemOutput)
    models = [getattr(api, m.__forward_arg__) if hasattr(m, "__forward_arg__") else m for m in members]
    return {get_args(model.model_fields["type"].annotation)[0] for model in models}


def test_the_emulator_produces_every_published_output_item_and_status(http: httpx.Client) -> None:
    items: set[str] = set()
    statuses: set[str] = set()
    with PerplexityEmulator(
        api_key=KEY, unknown_output_items=True, run_duration=30.0, queue_time=10.0, dialect="schema"
    ) as emu:
        for request in REQUESTS.values():
            whole = _post(http, emu, request)
            assert whole.status_code == 200, whole.text
            published_schema.agent_response(whole.json())
            items |= {o["type"] for o in whole.json()["output"]}
            statuses.add(whole.json()["status"])
        emu.inject(Fault("failed"))
        statuses.add(_post(http, emu, REQUESTS["plain"]).json()["status"])
        running = _post(http, emu, {**REQUESTS["plain"], "background": True}).json()
        path = f"{emu.base_url}/v1/responses/{running['id']}"
        statuses.add(http.get(path).json()["status"])
        http.post(path + "/cancel")
        cancelled = http.get(path).json()
        published_schema.agent_response(cancelled)
        statuses.add(cancelled["status"])
    assert items == _published_item_types(), _published_item_types() ^ items
    # in_progress is what a running, unqueued run reports (tests/integration_tests/test_emulator_runs.py)
    assert statuses == set(get_args(api.StatusOutput)) - {"in_progress"}


def test_openai_only_events_are_off_by_default_and_opt_in(http: httpx.Client) -> None:
    with PerplexityEmulator(api_key=KEY, openai_events=True) as emu:
        events = _events(_post(http, emu, {**REQUESTS["reasoning"], "stream": True}))
        extra = {e["type"] for e in events} - set(get_args(api.EventTypeOutput))
        assert extra == {"response.content_part.added", "response.reasoning.delta"}
        streamed = model(emu, model="openai/gpt-5.1", reasoning_effort="high")
        chunks = list(streamed.stream("think"))
        assert "".join(c.text for c in chunks) == streamed.invoke("think").text  # unknown events are ignored


def test_the_emulators_checker_agrees_with_the_published_models() -> None:
    valid_bodies = [*REQUESTS.values(), {"input": [{"role": "user", "content": [{"type": "input_file",
                    "file_url": "https://a/b.pdf"}]}], "model": "perplexity/sonar"}]  # fmt: skip
    mutations: list[dict[str, Any]] = [
        {"text": {"format": {"type": "text"}}}, {"max_results": 3}, {"parallel_tool_calls": True},
        {"metadata": {"a": "b"}}, {"truncation": "auto"}, {"stream_options": {"include_usage": True}},
        {"reasoning": {"effort": "max"}}, {"reasoning": {"effort": "low", "summary": "auto"}},
        {"tools": [{"type": "web_search", "max_results": 5}]}, {"tools": [{"type": "function"}]},
        {"tools": [{"type": "web_search", "user_location": {"city": "x", "type": "approximate"}}]},
        {"tool_choice": "sometimes"}, {"service_tier": "turbo"}, {"response_format": {"type": "json_object"}},
        {"response_format": {"type": "json_schema", "json_schema": {"schema": {}}}},
        {"input": [{"role": "assistant", "content": [{"type": "output_text", "text": "x"}]}]},
        {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "u", "detail": "high"}]}]},
        {"input": [{"role": "tool", "content": "x"}]}, {"input": [{"type": "function_call", "call_id": "c"}]},
        {"input": [{"type": "function_call_output", "call_id": "c", "output": [{"type": "input_file"}]}]},
        {"input": 5}, {"model": 5}, {"temperature": "hot"}, {"store": "yes"}, {"max_steps": 2.5},
        {"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}", "thought_signature": "s"},
                   {"type": "function_call_output", "call_id": "c", "name": "f", "output": "ok"}]},
        {"effort": "medium"}, {"step_budget_reminder": True}, {"background": False},
        {"tools": [{"type": "image_search", "filters": {"format_filter": ["png"], "safe_search": True}}]},
        *({"tools": [tool]} for tool in BUILT_IN.values()), {"tools": list(BUILT_IN.values()), "skills": SKILLS},
        *({"skills": [skill]} for skill in SKILLS), {"background": True},
        {"skills": [{"type": "builtin", "name": "excel"}]}, {"skills": [{"type": "inline", "name": "x"}]},
        {"skills": [{"type": "custom"}]}, {"skills": [{"name": "office"}]},
        {"skills": [{"type": "managed", "id": "s"}]},
        {"skills": [{"type": "custom", "id": "s", "extra": 1}]}, {"tools": [{"type": "sandbox", "timeout": 30}]},
        {"tools": [{"type": "people_search", "max_results": 3}]}, {"tools": [{"type": "finance_search", "x": 1}]},
        {"tools": [{"type": "fetch_url", "max_urls": "2"}]}, {"tools": [{"type": "mcp", "server_label": "d"}]},
        {"tools": [{**MCP_TOOL, "headers": {"X-N": 1}}]}, {"tools": [{**MCP_TOOL, "require_approval": "sometimes"}]},
        {"tools": [{**MCP_TOOL, "require_approval": {"always": {"read_only": "yes"}}}]},
        {"tools": [{**MCP_TOOL, "require_approval": {"maybe": {}}}]}, {"tools": [{**MCP_TOOL, "defer_loading": 1}]},
        {"tools": [{"type": "connector", "server_label": "d"}]}, {"tools": [{"type": "connector", "id": "c"}]},
        {"tools": [{"type": "code_interpreter"}]}, {"tools": [{"type": "web_search_preview"}]},
        {"input": [{"role": "user", "content": "x"}, APPROVAL_REQUEST,
                   {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}]},
        {"input": [{"type": "mcp_approval_response", "approval_request_id": "a", "approve": "yes"}]},
        {"input": [{"type": "mcp_approval_response", "approve": True}]},
        {"input": [{**APPROVAL_REQUEST, "connector_id": "c", "thought_signature": "s"}]},
        {"input": [{**APPROVAL_REQUEST, "status": "completed"}]},
        {"input": [{"type": "mcp_call", "id": "m", "server_label": "d", "name": "n", "arguments": "{}",
                    "output": "o", "approval_request_id": "a", "connector_id": "c"}]},
        {"input": [{"type": "mcp_list_tools"}]}, {"input": [{"type": "mcp_list_tools", "tools": [{"name": "t"}]}]},
        {"input": [{"type": "mcp_list_tools", "tools": [{"name": "t", "input_schema": {},
                                                           "annotations": {"read_only": True}}]}]},
        {"input": [{"type": "mcp_list_tools", "tools": [{"name": "t", "input_schema": {},
                                                           "annotations": {"destructive": True}}]}]},
        {"input": [{"type": "tool_search_output", "id": "t"}]}, {"input": [{"type": "skill_loaded", "name": "x"}]},
    ]  # fmt: skip
    corpus = valid_bodies + [{**REQUESTS["plain"], **m} for m in mutations]
    agree = 0
    for body in corpus:
        ours = schema_verdict(body).valid
        theirs = published_schema.verdict("ResponsesRequestInput", body)
        assert ours == theirs, (body, schema_verdict(body).error)
        agree += 1
    print(f"emulator and published schema agree on {agree}/{len(corpus)} requests")
    assert agree == len(corpus) >= 90


SDK_SCRIPT = """
import sys
import perplexity


def field(value, name):  # on Python 3.10 the SDK leaves union members as dicts
    return value[name] if isinstance(value, dict) else getattr(value, name)


client = perplexity.Perplexity(api_key="test-key", base_url=sys.argv[1])
response = client.responses.create(
    model="perplexity/sonar", input="why is the sky blue", tools=[{"type": "web_search"}]
)
assert response.status == "completed", response
assert [field(item, "type") for item in response.output] == ["search_results", "message"], response
kinds = [event.type for event in client.responses.create(model="perplexity/sonar", input="hi", stream=True)]
assert kinds[0] == "response.created" and kinds[-1] == "response.completed", kinds
completion = client.chat.completions.create(model="sonar", messages=[{"role": "user", "content": "hi"}])
assert field(field(completion.choices[0], "message"), "content"), completion
queued = client.responses.create(model="perplexity/sonar", input="long research", background=True)
assert queued.status == "queued" and queued.background, queued
assert client.responses.retrieve(queued.id).status == "completed"
resumed = [event.sequence_number for event in client.responses.retrieve(queued.id, stream=True, starting_after=1)]
assert resumed[0] > 1 and resumed == sorted(resumed), resumed  # the live dialect's numbers have gaps
slow = perplexity.Perplexity(api_key="test-key", base_url=sys.argv[2])
running = slow.responses.create(model="perplexity/sonar", input="long research", background=True)
cancelled = slow.responses.cancel(running.id)
assert cancelled.status == "cancelling" and cancelled.response_id == running.id, cancelled
assert slow.responses.retrieve(running.id).status == "cancelled"
print("ok")
"""


def test_perplexitys_own_client_works_against_the_emulator(emu: PerplexityEmulator) -> None:
    """In its own process: the strict copies of the SDK's models above must not be what its client parses with."""
    import subprocess
    import sys

    with PerplexityEmulator(api_key=KEY, run_duration=60.0) as slow:
        result = subprocess.run(
            [sys.executable, "-c", SDK_SCRIPT, emu.base_url, slow.base_url], capture_output=True, text=True, timeout=120
        )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
