"""The emulator speaks the live Agent API's dialect by default, rule by rule, and the bare schema on request.

Each rule is what vercel/ai's `packages/perplexity/src/__fixtures__/agent-web-search.json`
and `.chunks.txt` (a live capture, 2026-09-25, `fast` preset) show beyond the
published models; docs/perplexity-rules.md ("The live dialect") lists them.
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests import published_schema

KEY = "test-key"
SEARCH = {"preset": "fast", "input": "Find the official Rust website?", "max_output_tokens": 1024}


@pytest.fixture(scope="module")
def live() -> Iterator[PerplexityEmulator]:
    with PerplexityEmulator(api_key=KEY) as emu:  # the default
        yield emu


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    with httpx.Client(headers={"Authorization": f"Bearer {KEY}"}, timeout=30) as client:
        yield client


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def _stream(http: httpx.Client, emu: PerplexityEmulator, body: dict[str, Any]) -> list[dict[str, Any]]:
    return _events(http.post(f"{emu.base_url}/v1/responses", json={**body, "stream": True}).text)


def test_the_stream_is_numbered_from_0_with_gaps_where_the_capture_has_them(
    http: httpx.Client, live: PerplexityEmulator
) -> None:
    events = _stream(http, live, SEARCH)
    numbers = [e["sequence_number"] for e in events]
    assert numbers[:3] == [0, 1, 3] and numbers == sorted(set(numbers))
    done = next(i for i, e in enumerate(events) if e["type"] == "response.output_text.done")
    assert numbers[done] == numbers[done - 1] + 2  # the number before output_text.done never arrives
    assert [n for n in range(numbers[-1]) if n not in numbers] == [2, numbers[done] - 1]


def test_the_search_is_announced_as_a_search_web_call_that_its_results_replace(
    http: httpx.Client, live: PerplexityEmulator
) -> None:
    events = _stream(http, live, SEARCH)
    announced = events[2]
    assert announced["type"] == "response.output_item.added"
    call = announced["item"]
    assert {k: call[k] for k in ("type", "name", "status")} == {
        "type": "function_call",
        "name": "search_web",
        "status": "completed",
    }
    assert json.loads(call["arguments"]) == {"queries": ["Find the official Rust website?"]}
    assert call["call_id"].startswith("call_") and call["id"].startswith("fc_")
    at = announced["output_index"]
    on_the_index = [(e["type"], e["item"]["type"]) for e in events if e.get("output_index") == at and "item" in e]
    assert on_the_index == [
        ("response.output_item.added", "function_call"),
        ("response.output_item.done", "search_results"),
    ]
    queries, results = (e for e in events if e["type"].startswith("response.reasoning.search_"))
    assert queries["call_id"] == results["call_id"] == call["call_id"]
    assert queries["thought"] == "Searching the web..." and results["thought"] == "Found 3 results"
    assert not any(e["type"] in ("response.reasoning.started", "response.reasoning.stopped") for e in events)
    final = events[-1]["response"]
    assert [o["type"] for o in final["output"]] == ["search_results", "message"]  # no function_call


def test_the_message_is_added_without_content_and_cites_by_result_id(
    http: httpx.Client, live: PerplexityEmulator
) -> None:
    events = _stream(http, live, SEARCH)
    added = next(e for e in events if e["type"] == "response.output_item.added" and e["item"]["type"] == "message")
    assert added["item"]["content"] is None
    final = events[-1]["response"]
    part = final["output"][1]["content"][0]
    ids = {r["id"] for r in final["output"][0]["results"]}
    markers = {int(n) for n in re.findall(r"\[(\d+)\]", part["text"])}
    assert part["annotations"] == [] and markers and markers <= ids


def test_usage_and_envelope_are_the_captures(http: httpx.Client, live: PerplexityEmulator) -> None:
    events = _stream(http, live, SEARCH)
    early, final = events[0]["response"], events[-1]["response"]
    assert early["model"] == "fast" and final["model"] == "perplexity/sonar"
    assert early["service_tier"] == "default" and final["service_tier"] == "fast"
    for response in (early, final):
        assert response["text"] == {"format": {"type": "text"}}
        assert response["truncation"] == "" and response["top_logprobs"] == 0
        assert "safety_identifier" in response and response["max_output_tokens"] == 1024
    usage = final["usage"]
    assert set(usage["tool_calls_details"]) == {"search_web"}
    assert usage["cost"]["tool_calls_cost_details"] == {
        "search_web": usage["tool_calls_details"]["search_web"]["cost_usd"]
    }
    assert usage["input_tokens_details"]["cached_tokens"] == usage["input_tokens_details"]["cache_read_input_tokens"]
    assert usage["output_tokens_details"] == {"reasoning_tokens": 0}
    whole = http.post(f"{live.base_url}/v1/responses", json=SEARCH).json()
    assert whole["id"].startswith("resp_") and len(whole["id"]) == len("resp_") + 36  # resp_<uuid>
    assert {k: whole[k] for k in ("model", "service_tier", "status")} == {
        "model": "perplexity/sonar",
        "service_tier": "fast",
        "status": "completed",
    }


def test_a_stream_resumes_after_any_number_the_live_dialect_sent(http: httpx.Client, live: PerplexityEmulator) -> None:
    events = _stream(http, live, SEARCH)
    rid = events[0]["response"]["id"]
    numbers = [e["sequence_number"] for e in events]
    url = f"{live.base_url}/v1/responses/{rid}"
    assert [e["sequence_number"] for e in _events(http.get(url, params={"stream": "true"}).text)] == numbers
    for after in (0, 1, 2, numbers[-2]):
        again = [
            e["sequence_number"]
            for e in _events(http.get(url, params={"stream": "true", "starting_after": after}).text)
        ]
        assert again == [n for n in numbers if n > after]
    past = http.get(url, params={"stream": "true", "starting_after": numbers[-1] + 1})
    assert past.status_code == 400 and past.json()["error"]["param"] == "starting_after"


def test_a_cancelled_live_run_ends_on_the_next_number() -> None:
    with (
        PerplexityEmulator(api_key=KEY, run_duration=30.0) as emu,
        httpx.Client(headers={"Authorization": f"Bearer {KEY}"}, timeout=30) as http,
    ):
        emu.inject(Fault("hold_stream", after_events=2))
        with http.stream(
            "POST", f"{emu.base_url}/v1/responses", json={**SEARCH, "stream": True, "background": True}
        ) as r:
            lines = r.iter_lines()
            first = json.loads(next(line for line in lines if line.startswith("data: "))[6:])
            # Held after its second event before it is cancelled and let go: released before the emulator
            # got there, the stream would be held with nothing left to let it go (a loaded machine's race).
            assert emu.wait_holding(1)
            http.post(f"{emu.base_url}/v1/responses/{first['response']['id']}/cancel")
            emu.release()
            rest = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
    numbers = [first["sequence_number"], *(e["sequence_number"] for e in rest)]
    assert rest[-1]["response"]["status"] == "cancelled"
    assert numbers == sorted(set(numbers)) and numbers[0] == 0


def test_the_schema_dialect_stays_the_published_schema(http: httpx.Client) -> None:
    with PerplexityEmulator(api_key=KEY, dialect="schema") as emu:
        events = _stream(http, emu, SEARCH)
        whole = http.post(f"{emu.base_url}/v1/responses", json=SEARCH).json()
    for event in events:
        published_schema.agent_event(event)
    published_schema.agent_response(whole)
    assert [e["sequence_number"] for e in events] == list(range(1, len(events) + 1))
    assert "search_web" not in json.dumps(events)


def test_an_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="dialect: 'sonar' is not accepted; expected one of live, schema"):
        PerplexityEmulator(dialect="sonar")  # type: ignore[arg-type]


def test_the_command_line_passes_the_dialect_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], http: httpx.Client
) -> None:
    from langchain_perplexity_strict import cli, testing

    made: list[dict[str, Any]] = []

    class Recorder:
        def __init__(self, **settings: Any) -> None:
            made.append(settings)

        def start(self) -> None:
            raise OSError(98, "in use")

    with monkeypatch.context() as patched:
        patched.setattr(testing, "PerplexityEmulator", Recorder)
        assert cli.main(["emulator", "--port", "0", "--dialect", "schema"]) == 2
        assert cli.main(["emulator", "--port", "0"]) == 2
    assert [m["dialect"] for m in made] == ["schema", "live"]
    capsys.readouterr()
    # The background command starts a process of its own with the dialect asked for.
    assert cli.main(["emulator", "--port", "0", "--background", "--env", "--dialect", "schema"]) == 0
    exports = dict(re.findall(r"^export (\w+)=(\S+)$", capsys.readouterr().out, re.MULTILINE))
    try:
        body = {**SEARCH, "stream": True}
        headers = {"Authorization": f"Bearer {exports['PPLX_API_KEY']}"}
        text = http.post(f"{exports['PPLX_BASE_URL']}/v1/responses", json=body, headers=headers).text
        assert _events(text)[0]["sequence_number"] == 1  # the schema's numbering, not the live one's 0
    finally:
        os.kill(int(exports["PERPLEXITY_EMULATOR_PID"]), signal.SIGTERM)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["emulator", "--dialect", "sonar"])
    assert exit_.value.code == 2 and "invalid choice: 'sonar'" in capsys.readouterr().err
