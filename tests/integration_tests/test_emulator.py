"""The emulator: each rule and field check answers as Perplexity does; valid shapes pass."""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from typing import Any

import httpx
import openai
import pytest

from langchain_perplexity_strict.testing import Fault, PerplexityEmulator

KEY = "test-key"


def post(emu: PerplexityEmulator, path: str, body: Any, key: str | None = KEY) -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(emu.base_url + path, data=data, method="POST")
    request.add_header("Content-Type", "application/json")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:  # an error answer is a response too: closed, not left to the garbage collector
            return error.code, json.loads(error.read())


def agent(**fields: Any) -> dict[str, Any]:
    return {
        "model": "perplexity/sonar",
        "input": [{"role": "user", "content": "hi"}],
        **fields,
    }


def chat(**fields: Any) -> dict[str, Any]:
    return {"model": "sonar", "messages": [{"role": "user", "content": "hi"}], **fields}


def assert_error(
    result: tuple[int, dict[str, Any]],
    status: int,
    type_: str,
    param: str | None = None,
) -> None:
    code, body = result
    assert code == status, body
    assert body["error"]["type"] == type_, body
    assert body["error"]["code"] == status
    if param is not None:
        assert body["error"]["param"] == param, body


def test_auth_is_required(emu: PerplexityEmulator) -> None:
    assert_error(post(emu, "/v1/responses", agent(), key=None), 401, "forbidden")
    assert_error(post(emu, "/v1/responses", agent(), key="wrong"), 401, "forbidden")


def test_body_must_be_json(emu: PerplexityEmulator) -> None:
    assert_error(post(emu, "/v1/responses", b"{nope"), 400, "invalid_request")


def test_body_over_32_mib_is_413(emu: PerplexityEmulator) -> None:
    body = agent(instructions="x" * (32 * 1024 * 1024 + 10))
    assert_error(post(emu, "/v1/responses", body), 413, "payload_too_large")


def test_models_list_needs_no_auth(emu: PerplexityEmulator) -> None:
    with urllib.request.urlopen(emu.base_url + "/v1/models", timeout=5) as response:
        ids = [m["id"] for m in json.loads(response.read())["data"]]
    assert "perplexity/sonar" in ids


@pytest.mark.parametrize("path", ["/v1/responses", "/v1/agent"])
def test_valid_agent_request_passes(emu: PerplexityEmulator, path: str) -> None:
    status, body = post(emu, path, agent(tools=[{"type": "web_search"}]))
    assert status == 200
    assert [o["type"] for o in body["output"]] == ["search_results", "message"]
    assert body["usage"]["cost"]["total_cost"] > 0
    part = body["output"][1]["content"][0]
    assert part["annotations"] == [] and "[1]" in part["text"]  # the live API cites with [n] markers only
    with PerplexityEmulator(api_key=KEY, dialect="schema") as schema:
        part = post(schema, path, agent(tools=[{"type": "web_search"}]))[1]["output"][1]["content"][0]
    assert part["annotations"][0]["type"] == "url_citation"  # the published schema's form


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"bogus": 1}, "bogus"),
        ({"text": {"format": {"type": "text"}}}, "text"),  # OpenAI's text.format: no `text` in the schema
        ({"reasoning": {"effort": "low", "summary": "auto"}}, "reasoning.summary"),
        (
            {"tools": [{"type": "web_search", "filters": {"nope": 1}}]},
            "tools[0].filters.nope",
        ),
        ({"input": [{"role": "user", "content": "hi", "id": "x"}]}, "input[0].id"),
        *[
            ({name: 1}, name)
            for name in [
                "stop",
                "n",
                "top_k",
                "presence_penalty",
                "frequency_penalty",
                "logit_bias",
                "disable_search",
                "search_mode",
                "web_search_options",
            ]
        ],
    ],
)
def test_agent_unknown_and_removed_fields(emu: PerplexityEmulator, fields: dict[str, Any], param: str) -> None:
    assert_error(post(emu, "/v1/responses", agent(**fields)), 400, "invalid_request", param)


@pytest.mark.parametrize(
    ("fields", "type_", "param"),
    [
        ({"model": "sonar"}, "invalid_model", "model"),
        ({"model": "openai/gpt-9"}, "invalid_model", "model"),
        ({"model": "anthropic/claude-sonnet-4-5"}, "invalid_parameter", "max_output_tokens"),
        ({"temperature": 2.5}, "invalid_parameter", "temperature"),
        ({"top_p": 1.5}, "invalid_parameter", "top_p"),
        ({"max_steps": 101}, "invalid_parameter", "max_steps"),
        ({"models": ["perplexity/sonar"] * 6}, "invalid_parameter", "models"),
        ({"reasoning": {"effort": "max"}}, "invalid_request", "reasoning.effort"),  # no "max" in the schema
        ({"response_format": {"type": "regex"}}, "invalid_request", "response_format.type"),
        ({"tools": [{"type": "function", "name": "web_search"}]}, "invalid_parameter", "tools[0].name"),
        ({"tools": [{"type": "web_search", "filters": {"search_domain_filter": ["https://a.com"]}}]},
         "invalid_parameter", "tools[0].filters.search_domain_filter"),
        ({"tools": [{"type": "web_search", "filters": {"search_domain_filter": ["a.com"] * 21}}]},
         "invalid_parameter", "tools[0].filters.search_domain_filter"),
        ({"tools": [{"type": "web_search", "filters": {"search_recency_filter": "day",
                                                        "search_after_date_filter": "01/01/2025"}}]},
         "invalid_parameter", "tools[0].filters.search_recency_filter"),
        ({"tools": [{"type": "web_search", "filters": {"search_after_date_filter": "2025-01-01"}}]},
         "invalid_parameter", "tools[0].filters.search_after_date_filter"),
        ({"tools": [{"type": "web_search", "max_results": 5}]}, "invalid_request", "tools[0].max_results"),
    ],
)  # fmt: skip
def test_agent_field_checks(emu: PerplexityEmulator, fields: dict[str, Any], type_: str, param: str) -> None:
    assert_error(post(emu, "/v1/responses", agent(**fields)), 400, type_, param)


def test_agent_valid_shapes(emu: PerplexityEmulator) -> None:
    shapes = [
        {"preset": "fast", "input": "hi"},
        agent(model="anthropic/claude-sonnet-4-5", max_output_tokens=64),
        agent(models=["perplexity/sonar", "openai/gpt-5.1"]),
        agent(reasoning={"effort": "low"}, temperature=0.2, top_p=0.9, max_steps=3),
        agent(tools=[{"type": "web_search", "filters": {"search_domain_filter": ["-reddit.com", "nature.com"],
                                                          "search_after_date_filter": "01/31/2025"},
                      "max_tokens": 500, "search_type": "fast", "user_location": {"city": "Paris"}}]),
        agent(preset="wide-research"),  # presets are an open set
        agent(tools=[{"type": "fetch_url", "max_urls": 2}, {"type": "image_search", "max_results": 3}]),
        agent(input=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
                     {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}",
                      "thought_signature": "sig"},
                     {"type": "function_call_output", "call_id": "c1", "name": "f",
                      "output": [{"type": "input_text", "text": "ok"},
                                 {"type": "input_image", "image_url": "data:image/png;base64,AA=="}]}]),
        agent(response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}),
        agent(
            tools=[{"type": "function", "name": "add", "parameters": {"type": "object"}}],
            tool_choice={"name": "add"},
        ),
    ]  # fmt: skip
    for shape in shapes:
        body = {k: v for k, v in shape.items() if not (k == "model" and "preset" in shape)}
        status, answer = post(emu, "/v1/responses", body)
        assert status == 200, (shape, answer)


def conversation(*roles: str) -> list[dict[str, Any]]:
    return [{"role": r, "content": f"{r} {i}"} for i, r in enumerate(roles)]


@pytest.mark.parametrize(
    ("roles", "fragment"),
    [
        (("user", "user"), "alternate"),
        (("user", "assistant", "assistant", "user"), "alternate"),
        (("user", "assistant"), "last message"),
        (("user", "assistant", "system", "user"), "system role"),
        (("assistant", "user"), "first turn"),
        (("system",), "user message"),
    ],
)
def test_conversation_rules_on_both_surfaces(emu: PerplexityEmulator, roles: tuple[str, ...], fragment: str) -> None:
    messages = conversation(*roles)
    assert fragment in post(emu, "/chat/completions", chat(messages=messages))[1]["error"]["message"]
    assert_error(post(emu, "/chat/completions", chat(messages=messages)), 400, "invalid_message")
    assert_error(post(emu, "/v1/responses", agent(input=messages)), 400, "invalid_request")


def test_tool_protocol_on_agent_items(emu: PerplexityEmulator) -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    result = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    ok = [{"role": "user", "content": "go"}, call, result]
    assert post(emu, "/v1/responses", agent(input=ok))[0] == 200
    with_text = [
        {"role": "user", "content": "go2"},
        {"role": "assistant", "content": "calling"},
        call,
        result,
    ]
    assert post(emu, "/v1/responses", agent(input=with_text))[0] == 200
    unanswered = [
        {"role": "user", "content": "go3"},
        call,
        {"role": "user", "content": "next"},
    ]
    assert_error(post(emu, "/v1/responses", agent(input=unanswered)), 400, "invalid_request")
    orphan = [{"role": "user", "content": "go4"}, {**result, "call_id": "zz"}]
    assert_error(post(emu, "/v1/responses", agent(input=orphan)), 400, "invalid_request")
    then_user = [*ok, {"role": "user", "content": "thanks"}]
    assert post(emu, "/v1/responses", agent(input=then_user))[0] == 200


def test_a_message_cannot_change_role_between_turns(emu: PerplexityEmulator) -> None:
    first = [{"role": "user", "content": "Instructions: be brief"}]
    assert post(emu, "/chat/completions", chat(messages=first))[0] == 200
    second = [
        {"role": "system", "content": "Instructions: be brief"},
        {"role": "user", "content": "q"},
    ]
    code, body = post(emu, "/chat/completions", chat(messages=second))
    assert code == 400
    assert "earlier in this conversation" in body["error"]["message"]


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"model": "perplexity/sonar"}, "model"),
        ({"temperature": 2}, "temperature"),
        ({"top_p": 1.01}, "top_p"),
        ({"top_k": 2049}, "top_k"),
        ({"top_k": 1.5}, "top_k"),
        ({"presence_penalty": 2.5}, "presence_penalty"),
        ({"frequency_penalty": 0}, "frequency_penalty"),
        ({"presence_penalty": 0.5, "frequency_penalty": 1.1}, "frequency_penalty"),
        ({"logit_bias": {"1": 1}}, "logit_bias"),
        ({"tools": [{"type": "function", "function": {"name": "f"}}]}, "tools"),
    ],
)
def test_chat_completions_parameter_checks(emu: PerplexityEmulator, fields: dict[str, Any], param: str) -> None:
    code, body = post(emu, "/chat/completions", chat(**fields))
    assert code == 400
    assert body["error"]["param"] == param


def test_chat_completions_valid_shapes(emu: PerplexityEmulator) -> None:
    for fields in [{"temperature": 0}, {"temperature": 1.99, "top_k": 0}, {"top_p": 1, "top_k": 2048},
                   {"presence_penalty": -2}, {"frequency_penalty": 0.5}, {"model": "sonar-deep-research"},
                   # null is "not set" in the published schema (langchain-perplexity sends max_tokens: null)
                   {"max_tokens": None, "temperature": None, "top_k": None, "presence_penalty": None,
                    "frequency_penalty": 0.5}]:  # fmt: skip
        assert post(emu, "/v1/chat/completions", chat(**fields))[0] == 200, fields


def test_retired_switch(emu: PerplexityEmulator) -> None:
    emu.sonar_retired = True
    assert_error(post(emu, "/chat/completions", chat()), 403, "chat_completions_not_available")


def test_reasoning_models_think_inline(emu: PerplexityEmulator) -> None:
    _, body = post(emu, "/chat/completions", chat(model="sonar-reasoning-pro"))
    assert body["choices"][0]["message"]["content"].startswith("<think>")
    assert body["citations"] and body["search_results"]


def test_function_calls_follow_the_documented_policy(emu: PerplexityEmulator) -> None:
    tools = [
        {"type": "function", "name": "add", "parameters": {"type": "object", "properties": {
            "a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}},
        {"type": "function", "name": "greet", "parameters": {"type": "object", "properties": {
            "who": {"type": "string"}}}},
    ]  # fmt: skip
    _, named = post(emu, "/v1/responses", agent(input="please add 3 and 4", tools=tools))
    calls = [o for o in named["output"] if o["type"] == "function_call"]
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [("add", {"a": 3, "b": 4})]
    _, forced = post(
        emu,
        "/v1/responses",
        agent(input='say "Ada"', tools=tools, tool_choice={"name": "greet"}),
    )
    assert json.loads(forced["output"][0]["arguments"]) == {"who": "Ada"}
    _, none = post(emu, "/v1/responses", agent(input="add 1 2", tools=tools, tool_choice="none"))
    assert [o["type"] for o in none["output"]] == ["message"]


def test_json_schema_answer_is_an_instance(emu: PerplexityEmulator) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "n": {"type": "integer"}},
              "required": ["city", "n"]}  # fmt: skip
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    _, body = post(emu, "/v1/responses", agent(input='"Paris" has 2 things', response_format=fmt))
    assert json.loads(body["output"][0]["content"][0]["text"]) == {
        "city": "Paris",
        "n": 2,
    }


def test_requests_are_recorded(emu: PerplexityEmulator) -> None:
    post(emu, "/v1/responses", agent())
    assert emu.requests[-1].path == "/v1/responses"
    assert emu.requests[-1].body["model"] == "perplexity/sonar"


# --- the official openai client, both surfaces, streaming and not ------------------


def test_openai_client_agent_api(emu: PerplexityEmulator) -> None:
    client = openai.OpenAI(api_key=KEY, base_url=emu.base_url + "/v1")
    response = client.responses.create(model="perplexity/sonar", input="What is new?", tools=[{"type": "web_search"}])
    assert response.output_text.startswith("On new: the sources found agree")
    events = list(client.responses.create(model="perplexity/sonar", input="hi", stream=True,
                                          reasoning={"effort": "low"}))  # fmt: skip
    numbers = [e.sequence_number for e in events]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    terminals = [e for e in events if e.type in ("response.completed", "response.failed",
                                                  "response.incomplete", "response.cancelled")]  # fmt: skip
    assert len(terminals) == 1 and events[-1] is terminals[0]
    assert any(e.type.startswith("response.reasoning.") for e in events)


def test_openai_client_chat_completions(emu: PerplexityEmulator) -> None:
    client = openai.OpenAI(api_key=KEY, base_url=emu.base_url)
    completion = client.chat.completions.create(model="sonar", messages=[{"role": "user", "content": "hi"}])
    assert completion.model_extra["citations"]
    chunks = list(
        client.chat.completions.create(model="sonar", messages=[{"role": "user", "content": "hi"}], stream=True)
    )
    assert all(c.model_extra["citations"] == chunks[0].model_extra["citations"] for c in chunks)
    usages = [c.usage.completion_tokens for c in chunks]
    assert usages == sorted(usages)  # cumulative
    assert "search_results" in chunks[-1].model_extra
    assert all("search_results" not in c.model_extra for c in chunks[:-1])
    assert chunks[-1].object == "chat.completion.done"


def test_stream_ends_with_done_on_chat_completions(emu: PerplexityEmulator) -> None:
    request = urllib.request.Request(emu.base_url + "/chat/completions", method="POST",
                                     data=json.dumps(chat(stream=True)).encode(),
                                     headers={"Authorization": f"Bearer {KEY}"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=5) as response:
        text = response.read().decode()
    assert text.rstrip().endswith("data: [DONE]")
    agent_request = urllib.request.Request(emu.base_url + "/v1/responses", method="POST",
                                           data=json.dumps(agent(stream=True)).encode(),
                                           headers={"Authorization": f"Bearer {KEY}"})  # fmt: skip
    with urllib.request.urlopen(agent_request, timeout=5) as response:
        assert "[DONE]" not in response.read().decode()


# --- faults ------------------------------------------------------------------------------


def test_rate_limit_fault(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("rate_limit", seconds=2))
    request = urllib.request.Request(emu.base_url + "/v1/responses", method="POST",
                                     data=json.dumps(agent()).encode(),
                                     headers={"Authorization": f"Bearer {KEY}"})  # fmt: skip
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=5)
    assert info.value.code == 429
    assert info.value.headers["Retry-After"] == "2"
    assert info.value.headers["X-RateLimit-Remaining"] == "0"


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_error_faults(emu: PerplexityEmulator, status: int) -> None:
    emu.inject(Fault("server_error", status=status))
    assert post(emu, "/v1/responses", agent())[0] == status


def test_failed_and_incomplete_are_http_200(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("failed"), Fault("incomplete"))
    failed = post(emu, "/v1/responses", agent())
    assert failed[0] == 200 and failed[1]["status"] == "failed" and failed[1]["error"]
    incomplete = post(emu, "/v1/responses", agent())
    # ResponsesResponseOutput has no "incomplete" status: a cut answer is a failure naming the limit.
    assert incomplete[1]["status"] == "failed" and incomplete[1]["error"]["code"] == "max_output_tokens"


def test_stream_faults_are_observable(emu: PerplexityEmulator, request: pytest.FixtureRequest) -> None:
    client = openai.OpenAI(api_key=KEY, base_url=emu.base_url + "/v1", max_retries=0)
    request.addfinalizer(client.close)  # its connections, cut and reset by the faults, closed with it
    emu.inject(Fault("cut_stream", after_events=3))
    events = list(client.responses.create(model="perplexity/sonar", input="hi", stream=True))
    assert len(events) == 3 and not events[-1].type.startswith("response.completed")
    emu.inject(Fault("reset", after_events=2))
    # openai 2.45 (the floor) lets httpx's read error through; newer versions wrap it. Either way the reset shows.
    with pytest.raises((openai.APIError, ConnectionError, OSError, httpx.TransportError)) as info:
        list(client.responses.create(model="perplexity/sonar", input="hi", stream=True))
    assert info.type is not AssertionError
    emu.inject(Fault("malformed_json"))
    with pytest.raises(Exception):
        list(client.responses.create(model="perplexity/sonar", input="hi", stream=True))


def test_delay_and_malformed_json_non_stream(emu: PerplexityEmulator, request: pytest.FixtureRequest) -> None:
    client = openai.OpenAI(api_key=KEY, base_url=emu.base_url + "/v1", max_retries=0, timeout=0.5)
    request.addfinalizer(client.close)
    emu.inject(Fault("delay", seconds=1.5))
    with pytest.raises(openai.APITimeoutError):
        client.responses.create(model="perplexity/sonar", input="hi")
    emu.inject(Fault("malformed_json"))
    with pytest.raises(Exception):
        client.responses.create(model="perplexity/sonar", input="hi")


def test_fault_rates_are_seeded() -> None:
    with PerplexityEmulator(seed=7) as emu:
        emu.set_fault_rates({Fault("server_error", status=503): 0.5})
        codes = [
            post(
                emu,
                "/v1/responses",
                agent(input=[{"role": "user", "content": f"q{i}"}]),
            )[0]
            for i in range(20)
        ]
    assert set(codes) == {200, 503}


def test_200_concurrent_streams() -> None:
    """Bounded: 200 threads, one stream each, on loopback (one client: its pool opens a connection per stream)."""
    with PerplexityEmulator(api_key=KEY) as emu:
        errors: list[BaseException] = []
        done: list[int] = []
        client = openai.OpenAI(api_key=KEY, base_url=emu.base_url + "/v1", max_retries=0, timeout=30)

        def one(i: int) -> None:
            try:
                events = list(client.responses.create(model="perplexity/sonar", input=f"q {i}", stream=True))
                assert events[-1].type == "response.completed"
                done.append(i)
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(200)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not errors, errors[:3]
        assert len(done) == 200


def test_port_is_released_on_stop() -> None:
    emu = PerplexityEmulator().start()
    port = emu.port
    emu.stop()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
