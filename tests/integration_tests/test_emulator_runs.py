"""The emulator's long runs: background mode, retrieval, resumable streams, cancellation, and stream faults."""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from langchain_perplexity_strict.testing import Fault, ManualClock, PerplexityEmulator
from tests import loopback, published_schema

KEY = "test-key"
HEADERS = {"Authorization": f"Bearer {KEY}"}
HTTP = loopback.CLIENT
"""The tests' one loopback client (`tests/loopback.py`: one SSL context, closed at the process's exit)."""


RESEARCH = {
    "model": "perplexity/sonar",
    "input": "why is the sky blue? see https://example.com/sky",
    "tools": [{"type": "web_search"}, {"type": "fetch_url"}, {"type": "people_search"}],
}


@pytest.fixture(scope="module")
def emulator() -> Iterator[PerplexityEmulator]:
    """This module holds the emulator's answers to the published models (extras forbidden): its bare-schema
    dialect. The live dialect's rules are checked in tests/integration_tests/test_emulator_dialect.py."""
    with PerplexityEmulator(api_key=KEY, dialect="schema") as emu:
        yield emu


@pytest.fixture
def slow() -> Iterator[PerplexityEmulator]:
    """Runs that take long enough for a test to catch them queued or running."""
    with PerplexityEmulator(api_key=KEY, run_duration=30.0, queue_time=10.0, dialect="schema") as emu:
        yield emu


def read_events(emu: PerplexityEmulator, method: str, path: str, **kwargs: Any) -> tuple[list[dict[str, Any]], bool]:
    """The events a stream delivers, and whether it broke (a reset) rather than ended."""
    out: list[dict[str, Any]] = []
    try:
        with HTTP.stream(method, emu.base_url + path, headers=HEADERS, **kwargs) as response:
            assert response.status_code == 200, response.read()
            for line in response.iter_lines():
                if line.startswith("data: "):
                    out.append(json.loads(line[6:]))
    except (httpx.ReadError, httpx.RemoteProtocolError):
        return out, True
    for event in out:
        published_schema.agent_event(event)
    return out, False


def create_stream(emu: PerplexityEmulator, body: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    return read_events(emu, "POST", "/v1/responses", json={**body, "stream": True})


def resume(emu: PerplexityEmulator, response_id: str, after: int) -> tuple[list[dict[str, Any]], bool]:
    return read_events(emu, "GET", f"/v1/responses/{response_id}", params={"stream": "true", "starting_after": after})


def get(emu: PerplexityEmulator, path: str, **params: Any) -> httpx.Response:
    return HTTP.get(emu.base_url + path, headers=HEADERS, params=params)


def post(emu: PerplexityEmulator, path: str, body: Any = None) -> httpx.Response:
    return HTTP.post(emu.base_url + path, headers=HEADERS, json=body)


def test_background_returns_at_once_and_finishes_as_a_plain_answer(emu: PerplexityEmulator) -> None:
    accepted = post(emu, "/v1/responses", {**RESEARCH, "background": True}).json()
    published_schema.agent_response(accepted)
    assert accepted["status"] == "queued" and accepted["background"] is True and accepted["output"] == []
    done = get(emu, f"/v1/responses/{accepted['id']}").json()
    published_schema.agent_response(done)
    plain = post(emu, "/v1/responses", RESEARCH).json()
    assert done["status"] == "completed" and done["id"] == accepted["id"]
    assert [o["type"] for o in done["output"]] == [o["type"] for o in plain["output"]]
    assert done["usage"] == plain["usage"]


def test_a_run_is_queued_then_cancelled(slow: PerplexityEmulator) -> None:
    accepted = post(slow, "/v1/responses", {**RESEARCH, "background": True}).json()
    path = f"/v1/responses/{accepted['id']}"
    assert get(slow, path).json()["status"] == "queued"
    cancelled = post(slow, path + "/cancel")
    assert cancelled.status_code == 200
    published_schema.validate("ResponsesCancelResponseOutput", cancelled.json())
    assert cancelled.json() == {"response_id": accepted["id"], "status": "cancelling"}
    snapshot = get(slow, path).json()
    published_schema.agent_response(snapshot)
    assert snapshot["status"] == "cancelled"
    replay, broke = resume(slow, accepted["id"], 0)
    assert not broke and replay[-1]["type"] == "response.completed"
    assert replay[-1]["response"]["status"] == "cancelled"
    assert post(slow, path + "/cancel").json()["status"] == "cancelling"  # idempotent
    assert Counter(r.kind for r in slow.requests) == {"create": 1, "retrieve": 2, "resume": 1, "cancel": 2}


def test_cancel_ends_an_open_stream(slow: PerplexityEmulator) -> None:
    accepted = post(slow, "/v1/responses", {**RESEARCH, "background": True}).json()
    seen: list[list[dict[str, Any]]] = []
    reader = threading.Thread(target=lambda: seen.append(resume(slow, accepted["id"], 0)[0]))
    reader.start()
    while not any(r.kind == "resume" for r in slow.requests):
        threading.Event().wait(0.01)
    post(slow, f"/v1/responses/{accepted['id']}/cancel")
    reader.join(timeout=20)
    assert not reader.is_alive()
    assert seen[0][-1]["response"]["status"] == "cancelled"


def test_a_finished_response_cannot_be_cancelled(emu: PerplexityEmulator) -> None:
    done = post(emu, "/v1/responses", RESEARCH).json()
    refused = post(emu, f"/v1/responses/{done['id']}/cancel")
    assert refused.status_code == 400 and "already completed" in refused.json()["error"]["message"]


def test_a_stream_replays_from_any_sequence_number(emu: PerplexityEmulator) -> None:
    whole, broke = create_stream(emu, RESEARCH)
    assert not broke and [e["sequence_number"] for e in whole] == list(range(1, len(whole) + 1))
    response_id = whole[0]["response"]["id"]
    for after in range(len(whole) + 1):
        assert resume(emu, response_id, after) == (whole[after:], False)


@pytest.mark.parametrize(
    ("params", "status", "param"),
    [
        ({"stream": "true", "starting_after": "x"}, 400, "starting_after"),
        ({"stream": "true", "starting_after": "-1"}, 400, "starting_after"),
        ({"stream": "true", "starting_after": "999"}, 400, "starting_after"),
        ({"stream": "maybe"}, 400, "stream"),
        ({"format": "long"}, 400, "format"),
    ],
)
def test_retrieve_parameters_are_checked(
    emu: PerplexityEmulator, params: dict[str, str], status: int, param: str
) -> None:
    done = post(emu, "/v1/responses", RESEARCH).json()
    refused = get(emu, f"/v1/responses/{done['id']}", **params)
    assert refused.status_code == status and refused.json()["error"]["param"] == param


def test_unknown_ids_and_missing_keys(emu: PerplexityEmulator) -> None:
    for response in (get(emu, "/v1/responses/resp_nope"), get(emu, "/v1/responses/resp_nope", stream="true",
                     starting_after=0), post(emu, "/v1/responses/resp_nope/cancel")):  # fmt: skip
        assert response.status_code == 404
        assert response.json()["error"] == {"message": "no response with id 'resp_nope'", "type": "not_found",
                                            "code": 404}  # fmt: skip
    assert HTTP.get(emu.base_url + "/v1/responses/resp_nope").status_code == 401


def test_unstored_and_plain_streams(emu: PerplexityEmulator) -> None:
    unstored = post(emu, "/v1/responses", {**RESEARCH, "store": False}).json()
    assert get(emu, f"/v1/responses/{unstored['id']}").status_code == 404
    refused = post(emu, "/v1/responses", {**RESEARCH, "store": False, "background": True})
    assert refused.status_code == 400 and refused.json()["error"]["param"] == "store"
    with PerplexityEmulator(api_key=KEY, resumable_streams=False, dialect="schema") as strict:
        whole, _ = create_stream(strict, RESEARCH)
        response_id = whole[0]["response"]["id"]
        assert get(strict, f"/v1/responses/{response_id}").json()["status"] == "completed"
        again = get(strict, f"/v1/responses/{response_id}", stream="true", starting_after=3)
        assert again.status_code == 400 and again.json()["error"]["param"] == "stream"
        background, _ = create_stream(strict, {**RESEARCH, "background": True})
        assert resume(strict, background[0]["response"]["id"], 3)[0] == background[3:]


@pytest.mark.parametrize(("kind", "breaks"), [("reset", True), ("cut_stream", False)])
def test_a_broken_stream_resumes_where_it_stopped(emu: PerplexityEmulator, kind: str, breaks: bool) -> None:
    whole, _ = create_stream(emu, RESEARCH)
    emu.inject(Fault(kind, after_events=4))  # type: ignore[arg-type]
    first, broke = create_stream(emu, RESEARCH)
    assert broke is breaks and len(first) == 4
    rest, _ = resume(emu, first[0]["response"]["id"], first[-1]["sequence_number"])
    joined = first + rest
    assert [e["type"] for e in joined] == [e["type"] for e in whole]
    assert [e["sequence_number"] for e in joined] == list(range(1, len(whole) + 1))


def test_a_stall_sends_nothing_then_the_rest(emu: PerplexityEmulator) -> None:
    whole, _ = create_stream(emu, RESEARCH)
    emu.inject(Fault("stall", seconds=0.3, after_events=2))
    stalled, broke = create_stream(emu, RESEARCH)
    assert not broke and [e["type"] for e in stalled] == [e["type"] for e in whole]


def test_an_idle_dropping_proxy_cuts_a_long_run_and_resuming_completes_it(emu: PerplexityEmulator) -> None:
    whole, _ = create_stream(emu, RESEARCH)  # the same run on no clock: what the resumed one must add up to
    # A 2 s run on a clock that jumps to each moment a stream waits for: its silences, and the drops they cause,
    # come in the schedule's order, in no time, whatever the machine's speed.
    clock = ManualClock(autojump=True)
    with PerplexityEmulator(api_key=KEY, run_duration=2.0, dialect="schema", clock=clock) as timed:
        timed.set_fault_rates({Fault("idle_drop", seconds=0.05): 1.0})
        got, _ = create_stream(timed, RESEARCH)
        response_id = got[0]["response"]["id"]
        drops = 0
        while got[-1]["type"] != "response.completed":
            drops += 1
            more, _ = resume(timed, response_id, got[-1]["sequence_number"])
            got += more
        assert drops >= 3  # the run's silences longer than 0.05 s (of its 2 s), some several times longer
        assert clock.now() >= 2.0  # the whole run's time went by on its clock
        assert [e["sequence_number"] for e in got] == list(range(1, len(whole) + 1))
        assert [e["type"] for e in got] == [e["type"] for e in whole]
        kinds = Counter(r.kind for r in timed.requests)
        assert kinds == {"create": 1, "resume": drops}


def test_a_background_stream_starts_queued(emu: PerplexityEmulator) -> None:
    streamed, _ = create_stream(emu, {**RESEARCH, "background": True})
    assert [e["response"]["status"] for e in streamed[:2]] == ["queued", "in_progress"]
    assert streamed[-1]["response"]["background"] is True


def test_a_queued_run_says_so_at_once(slow: PerplexityEmulator) -> None:
    """`response.created` (status `queued`) goes out when the run is accepted, before the queue's wait:
    a client learns the run's id, to resume or cancel it, however long the queue."""
    body = json.dumps({**RESEARCH, "background": True, "stream": True})
    with HTTP.stream("POST", slow.base_url + "/v1/responses", headers=HEADERS, content=body, timeout=3.0) as response:
        first = next(line for line in response.iter_lines() if line.startswith("data:"))
    created = json.loads(first.removeprefix("data:"))
    assert (created["type"], created["response"]["status"]) == ("response.created", "queued")
    assert post(slow, f"/v1/responses/{created['response']['id']}/cancel").status_code == 200


SONAR = {"model": "sonar", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize(("path", "body"), [("/v1/responses", RESEARCH), ("/chat/completions", SONAR)])
def test_a_streams_head_comes_in_one_write_with_its_first_event(emu: PerplexityEmulator, path: str, body: Any) -> None:
    """No wait between a head and an event the server had ready: a client bounding the silences after the head
    (`stream_chunk_timeout`) then never sees one the server did not mean. The stall keeps the rest out of the read."""
    emu.inject(Fault("stall", seconds=5.0, after_events=1))
    payload = json.dumps({**body, "stream": True}).encode()
    with socket.create_connection(("127.0.0.1", emu.port), timeout=10) as connection:
        connection.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n".encode()
                           + f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
                           + payload)  # fmt: skip
        head, _, rest = connection.recv(1 << 16).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head
    assert rest.startswith(b"data: {") and rest.endswith(b"\n\n") and rest.count(b"\n\n") == 1


# --- the clock a test moves (`ManualClock`) ------------------------------------------------------------


def _status(emu: PerplexityEmulator, response_id: str) -> tuple[str, int]:
    """A run's status, and how many output items it has finished, as a poll sees them."""
    run = get(emu, f"/v1/responses/{response_id}").json()
    published_schema.agent_response(run)
    return run["status"], len(run["output"])


def test_a_manual_clock_moves_a_run_only_when_told() -> None:
    """Queued, under way with part of its output, over: as the test moves the clock, never on its own."""
    clock = ManualClock()
    with PerplexityEmulator(api_key=KEY, run_duration=1.0, queue_time=0.5, dialect="schema", clock=clock) as emu:
        assert emu.clock is clock
        response_id = post(emu, "/v1/responses", {**RESEARCH, "background": True}).json()["id"]
        assert _status(emu, response_id) == ("queued", 0)
        clock.advance(0.49)
        assert _status(emu, response_id) == ("queued", 0)
        clock.advance(0.81)  # 0.8 s into the run's schedule: its research items done, no message yet
        status, finished = _status(emu, response_id)
        assert status == "in_progress" and 0 < finished < len(post(emu, "/v1/responses", RESEARCH).json()["output"])
        clock.advance(0.5)
        assert _status(emu, response_id)[0] == "completed"
        with pytest.raises(ValueError, match="seconds"):
            clock.advance(-1.0)


def test_a_stream_waits_on_a_manual_clock_until_it_moves(emu: PerplexityEmulator) -> None:
    """A stream sends what is due and waits on the clock (`waiting`) until a move lets out the rest."""
    whole, _ = create_stream(emu, {**RESEARCH, "background": True})  # the same run on no clock
    clock = ManualClock()
    with PerplexityEmulator(api_key=KEY, run_duration=1.0, dialect="schema", clock=clock) as timed:
        assert clock.waiting == 0
        seen: list[tuple[list[dict[str, Any]], bool]] = []
        reader = threading.Thread(target=lambda: seen.append(create_stream(timed, {**RESEARCH, "background": True})))
        reader.start()
        assert clock.wait_waiting(1, timeout=30)
        clock.advance(2.0)
        reader.join(timeout=30)
        assert not reader.is_alive() and clock.waiting == 0
        got, broke = seen[0]
        assert not broke and [e["type"] for e in got] == [e["type"] for e in whole]


def test_a_manual_clock_can_move_with_each_request() -> None:
    """`per_request`: a polled run moves on poll by poll, so what each poll finds follows from the requests sent."""
    clock = ManualClock(per_request=0.4)
    with PerplexityEmulator(api_key=KEY, run_duration=1.0, dialect="schema", clock=clock) as emu:
        response_id = post(emu, "/v1/responses", {**RESEARCH, "background": True}).json()["id"]
        assert [_status(emu, response_id)[0] for _ in range(3)] == ["in_progress", "in_progress", "completed"]
        assert clock.now() == pytest.approx(1.6)  # four requests


def test_runs_keep_the_clock_they_started_on() -> None:
    """Setting `emu.clock` gives the runs started from then on the new clock; one under way keeps its own."""
    first = ManualClock()
    with PerplexityEmulator(api_key=KEY, run_duration=1.0, dialect="schema", clock=first) as emu:
        earlier = post(emu, "/v1/responses", {**RESEARCH, "background": True}).json()["id"]
        emu.clock = ManualClock()
        later = post(emu, "/v1/responses", {**RESEARCH, "background": True}).json()["id"]
        first.advance(5.0)
        assert _status(emu, earlier)[0] == "completed" and _status(emu, later)[0] == "in_progress"
        emu.clock = None  # the machine's clock again
        assert post(emu, "/v1/responses", {**RESEARCH, "background": True}).status_code == 200
