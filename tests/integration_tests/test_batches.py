"""`submit_batch` / `get_batch` against the emulator's Batch API: each requirement, sync and async.

Lines are built as `invoke` builds its body; answers carry what `invoke`'s carry; the documented limits
split a job; the create is retried with one `Idempotency-Key`; a failed line is an error in its place;
every published status has an outcome; a job is found again by its id, in another process too; bound
tools and structured output apply; settings a batch cannot carry are refused before anything is sent.
"""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from perplexity.generated import api
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict._batches import _lines
from langchain_perplexity_strict.errors import PerplexityBatchError, PerplexityBatchTimeoutError
from langchain_perplexity_strict.testing import Fault, ManualClock, PerplexityEmulator
from langchain_perplexity_strict.testing.batches import BatchFault, batch_status, inject_batch_faults
from tests import loopback, published_schema
from tests.integration_tests.factory import KEY

PUBLISHED_STATUSES = typing.get_args(api.BatchOutput.model_fields["status"].annotation)
PENDING = ("validating", "in_progress", "finalizing", "cancelling")
INPUTS: list[Any] = [
    "What is new in Python 3.13?",
    [SystemMessage("Be brief."), HumanMessage("Here are my notes"), HumanMessage("Which sources support them?")],
    [("human", "first"), ("ai", "an answer"), ("human", "and the second?"), ("system", "Answer in one line.")],
]


class City(BaseModel):
    name: str
    population: int


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


@pytest.fixture(scope="module")
def slow_emulator() -> Iterator[PerplexityEmulator]:
    """An emulator whose batches take an hour on its clock, which each request moves 0.3 s: a test sees them
    pending, and cancels them (`cancelling` lasts half a second: two requests)."""
    with PerplexityEmulator(api_key=KEY, run_duration=3600.0, clock=ManualClock(per_request=0.3)) as emu:
        yield emu


def model_for(emu: PerplexityEmulator, **settings: Any) -> ChatPerplexityStrict:
    return ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, **settings)


def uploaded_lines(emu: PerplexityEmulator, batch_id: str) -> list[dict[str, Any]]:
    """The lines of the input file a batch runs, as the emulator stored them."""
    headers = {"Authorization": f"Bearer {KEY}"}
    batch = loopback.get(f"{emu.base_url}/v1/batches/{batch_id}", headers=headers).json()
    content = loopback.get(f"{emu.base_url}/v1/files/{batch['input_file_id']}/content", headers=headers).content
    return [json.loads(line) for line in content.splitlines()]


def created(emu: PerplexityEmulator) -> list[Any]:
    return [r for r in emu.requests if r.method == "POST" and r.path == "/v1/batches"]


def listed(emu: PerplexityEmulator) -> list[str]:
    """The ids of the batches the emulator holds for the key, newest first (`GET /v1/batches`)."""
    answer = loopback.get(f"{emu.base_url}/v1/batches", headers={"Authorization": f"Bearer {KEY}"}).json()
    return [b["id"] for b in answer["data"]]


def without_ids(message: Any) -> Any:
    """A message as compared across calls: the emulator's ids (response, message, item) differ per run."""
    data = message.model_dump()
    data.pop("id")
    data["response_metadata"].pop("id")
    return json.loads(json.dumps(data).replace(message.id, "ID"))


# -- lines: built as invoke builds its body -----------------------------------------------------------------------


def test_each_line_is_the_body_invoke_sends(emu: PerplexityEmulator) -> None:
    model = model_for(emu, temperature=0.2, max_tokens=300, search_domain_filter=["python.org"])
    job = model.submit_batch(INPUTS, stop=["\n\n"])
    lines = uploaded_lines(emu, job.id)
    assert [line["custom_id"] for line in lines] == ["input-0", "input-1", "input-2"]
    for given, line in zip(INPUTS, lines, strict=True):
        assert line["method"] == "POST" and line["url"] == "/v1/responses"
        assert line["body"] == model.request_body(given, stop=["\n\n"])  # the same build step, not a second one
        published_schema.agent_request(line["body"])
    emu.clear()
    model.invoke(INPUTS[1], stop=["\n\n"])
    assert emu.requests[-1].body == lines[1]["body"]  # what invoke posts


def test_bound_tools_and_settings_reach_every_line(emu: PerplexityEmulator) -> None:
    model = model_for(emu)
    bound = model.bind(temperature=0.5).bind_tools([WEATHER], tool_choice="get_weather")
    job = bound.submit_batch(['Use get_weather for "Paris"', 'Use get_weather for "Lyon"'])  # type: ignore[attr-defined]
    for line in uploaded_lines(emu, job.id):
        assert line["body"]["temperature"] == 0.5
        assert "get_weather" in [t.get("name") for t in line["body"]["tools"]]
    answers = job.results(timeout=30)
    assert [m.tool_calls[0]["args"] for m in answers] == [{"city": "Paris"}, {"city": "Lyon"}]
    emu.clear()
    invoked = bound.invoke('Use get_weather for "Paris"')
    assert invoked.tool_calls == answers[0].tool_calls


def test_structured_output_applies_to_each_answer(emu: PerplexityEmulator) -> None:
    structured = model_for(emu).with_structured_output(City)
    job = structured.submit_batch(['"Lyon" has 522000 inhabitants', '"Nice" has 342000 inhabitants'])  # type: ignore[attr-defined]
    assert job.results(timeout=30) == [City(name="Lyon", population=522000), City(name="Nice", population=342000)]
    again = structured.get_batch(job.id).results()  # type: ignore[attr-defined]
    assert again == [City(name="Lyon", population=522000), City(name="Nice", population=342000)]
    raw = model_for(emu).with_structured_output(City, include_raw=True).get_batch(job.id).results()  # type: ignore[attr-defined]
    assert raw[0]["parsed"] == City(name="Lyon", population=522000) and isinstance(raw[0]["raw"], AIMessage)
    forced = model_for(emu).with_structured_output(City, method="function_calling")
    assert forced.submit_batch(['"Lyon" has 522000 inhabitants']).results() == [  # type: ignore[attr-defined]
        City(name="Lyon", population=522000)
    ]


def test_configured_fields_apply(emu: PerplexityEmulator) -> None:
    from langchain_core.runnables import ConfigurableField

    configurable = model_for(emu).configurable_fields(temperature=ConfigurableField(id="temperature"))
    job = configurable.submit_batch(["q"], {"configurable": {"temperature": 0.7}})  # type: ignore[attr-defined]
    assert uploaded_lines(emu, job.id)[0]["body"]["temperature"] == 0.7


# -- answers: what invoke's carry ---------------------------------------------------------------------------------


def test_each_answer_carries_what_invoke_carries(emu: PerplexityEmulator) -> None:
    model = model_for(emu, reasoning_effort="low")
    answers = model.submit_batch(INPUTS).results(timeout=30)
    for given, answer in zip(INPUTS, answers, strict=True):
        invoked = model.invoke(given)
        assert isinstance(answer, AIMessage)
        assert without_ids(answer) == without_ids(invoked)
        assert answer.additional_kwargs["citations"] and answer.additional_kwargs["search_results"]
        assert answer.usage_metadata and answer.response_metadata["cost"]["total_cost"] > 0


# -- the documented limits ----------------------------------------------------------------------------------------


def test_split_keeps_each_file_within_the_documented_limits() -> None:
    small = [b"x\n"] * 50_001
    assert [len(p.lines) for p in _lines.split(small)] == [50_000, 1]
    big = b"y" * 1_000_000
    parts = _lines.split([big] * 201)
    assert [len(p.lines) for p in parts] == [200, 1] and all(len(p.lines) * len(big) <= 200_000_000 for p in parts)
    assert [p.first for p in parts] == [0, 200]


def test_inputs_past_the_limits_go_in_several_batches(emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_lines, "MAX_LINES", 3)
    model = model_for(emu)
    inputs = [f"question {n}" for n in range(7)]
    job = model.submit_batch(inputs)
    assert len(job.ids) == 3 and job.id == ",".join(job.ids)
    assert [len(uploaded_lines(emu, i)) for i in job.ids] == [3, 3, 1]
    answers = job.results(timeout=30)
    assert [a.content.split(":")[0] for a in answers] == [f"On question {n}" for n in range(7)]
    assert [a.content for a in model.get_batch(job.id).results()] == [a.content for a in answers]


def test_a_line_over_the_file_limit_is_refused_before_anything_is_uploaded(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_lines, "MAX_FILE_BYTES", 200)
    with pytest.raises(ValueError, match=r"input 1: its batch line is [\d,]+ bytes, over the 200 bytes"):
        model_for(emu).submit_batch(["a", "a much longer question " * 10])
    assert emu.requests == []


def test_a_bad_input_is_refused_before_anything_is_uploaded(emu: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match="temperature"):
        model_for(emu).submit_batch(["fine", "fine too"], temperature="hot")
    with pytest.raises(TypeError, match="inputs must be a list"):
        model_for(emu).submit_batch("one string")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no inputs"):
        model_for(emu).submit_batch([])
    assert emu.requests == []


# -- the create: retried with the same Idempotency-Key ------------------------------------------------------------


def test_the_create_is_retried_with_the_same_idempotency_key(
    emu: PerplexityEmulator, quick_client_retries: None
) -> None:
    # The upload takes the first fault (none), the create the next two: a 429, then a 503.
    emu.inject(Fault("delay", seconds=0), Fault("rate_limit", seconds=0.01), Fault("server_error", status=503))
    before = listed(emu)
    job = model_for(emu).submit_batch(["q"])
    # A header's name is case-insensitive; the lowest httpx sends it capitalised, newer ones in lower case.
    keys = [{k.lower(): v for k, v in r.headers.items()}.get("idempotency-key") for r in created(emu)]
    assert len(keys) == 3 and len(set(keys)) == 1 and keys[0]
    assert listed(emu) == [job.id, *before]  # one batch created


def test_a_create_whose_answer_was_lost_returns_the_original_batch(
    emu: PerplexityEmulator, quick_client_retries: None
) -> None:
    emu.inject(Fault("delay", seconds=0), Fault("drop"))  # the batch is created, then the connection reset
    before = listed(emu)
    job = model_for(emu).submit_batch(["q"])
    assert len(created(emu)) == 2
    assert listed(emu) == [job.id, *before]
    assert job.results(timeout=30)[0].content.startswith("On q")


def test_a_resubmission_with_the_callers_key_returns_the_same_batches(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_lines, "MAX_LINES", 2)
    model = model_for(emu)
    first = model.submit_batch(["a", "b", "c"], idempotency_key="nightly-2026-12-02")
    again = model.submit_batch(["a", "b", "c"], idempotency_key="nightly-2026-12-02")  # a process killed, run again
    assert again.id == first.id and len(first.ids) == 2
    assert model.submit_batch(["a", "b", "c"]).id != first.id  # without a key, each submission is its own


def test_a_job_half_created_is_cancelled_unless_the_caller_keyed_it(
    slow_emulator: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch, quick_client_retries: None
) -> None:
    emu = slow_emulator
    emu.clear()
    monkeypatch.setattr(_lines, "MAX_LINES", 1)
    model = model_for(emu)
    # Two uploads and the first create pass; the second create fails through the client's retries.
    emu.inject(*[Fault("delay", seconds=0)] * 3, *[Fault("server_error", status=500)] * 3)
    with pytest.raises(Exception, match="500"):
        model.submit_batch(["a", "b"])
    assert created(emu)[0].body["metadata"]["first_input"] == "0"
    assert model.get_batch(listed(emu)[0]).status() in ("cancelling", "cancelled")  # not left to run unseen
    emu.inject(*[Fault("delay", seconds=0)] * 3, *[Fault("server_error", status=500)] * 3)
    with pytest.raises(Exception, match="500"):
        model.submit_batch(["a", "b"], idempotency_key="keyed")
    kept = listed(emu)[0]
    assert model.get_batch(kept).status() == "validating"  # kept, for the resubmission
    job = model.submit_batch(["a", "b"], idempotency_key="keyed")
    assert job.ids[0] == kept and len(job.ids) == 2
    for batch_id in job.ids:
        batch_status(emu, batch_id, "completed")
    assert [m.content[:4] for m in job.results()] == ["On a", "On b"]


# -- a failed line, and every status ------------------------------------------------------------------------------


def test_a_failed_line_is_an_error_in_its_place(emu: PerplexityEmulator) -> None:
    inject_batch_faults(emu, BatchFault("line_error", line=1), BatchFault("line_failed", line=3))
    job = model_for(emu).submit_batch(["a", "b", "c", "d"])
    answers = job.results(timeout=30)
    assert isinstance(answers[0], AIMessage) and isinstance(answers[2], AIMessage)
    error = answers[1]
    assert isinstance(error, PerplexityBatchError)
    assert (error.index, error.custom_id, error.batch_id, error.code) == (1, "input-1", job.id, "internal_error")
    assert "input 1" in str(error) and "emulated failure of this request" in str(error)
    failed = answers[3]
    assert isinstance(failed, PerplexityBatchError) and "input 3" in str(failed) and "the run failed" in str(failed)
    assert failed.partial is not None and failed.partial.content  # what the failed run produced, kept
    assert job.batches[job.id]["request_counts"] == {"total": 4, "completed": 2, "failed": 2}


def test_every_published_status_is_known() -> None:
    from langchain_perplexity_strict._batches._results import STATUSES

    assert set(STATUSES) == set(PUBLISHED_STATUSES)


@pytest.mark.parametrize("status", PENDING)
def test_a_pending_status_is_waited_on(slow_emulator: PerplexityEmulator, status: str) -> None:
    job = model_for(slow_emulator).submit_batch(["q"])
    batch_status(slow_emulator, job.id, status)
    assert job.status() == status
    with pytest.raises(PerplexityBatchTimeoutError, match=f"still {status}") as raised:
        job.results(timeout=0.1)
    assert (raised.value.batch_id, raised.value.status) == (job.id, status)
    batch_status(slow_emulator, job.id, "completed")
    assert job.results(timeout=30)[0].content.startswith("On q")


@pytest.mark.parametrize(
    ("fault", "code", "words"),
    [
        (BatchFault("expired", after_lines=1), "batch_expired", "before the batch expired"),
        (BatchFault("cancelled", after_lines=1), "batch_cancelled", "cancelled before this input ran"),
        (BatchFault("failed", line=1), "invalid_request", "emulated validation failure"),
    ],
)
def test_a_final_status_gives_each_input_an_outcome(
    emu: PerplexityEmulator, fault: BatchFault, code: str, words: str
) -> None:
    inject_batch_faults(emu, fault)
    job = model_for(emu).submit_batch(["a", "b", "c"])
    answers = job.results(timeout=30)
    assert job.status() == fault.kind
    if fault.kind == "failed":  # nothing ran: the line named by the error, and the others, each fail
        assert all(isinstance(a, PerplexityBatchError) for a in answers)
        assert answers[1].code == code and words in str(answers[1])  # type: ignore[union-attr]
        assert answers[0].code == "batch_failed"  # type: ignore[union-attr]
        return
    assert isinstance(answers[0], AIMessage)
    for index in (1, 2):
        error = answers[index]
        assert isinstance(error, PerplexityBatchError) and error.code == code and words in str(error)
        assert f"input {index}" in str(error)


@pytest.mark.usefixtures("quick_client_waits")  # `cancelling` ends with the requests, not with time
def test_cancel_stops_a_running_batch(slow_emulator: PerplexityEmulator) -> None:
    job = model_for(slow_emulator).submit_batch(["a", "b"])
    assert job.status() == "validating"
    assert job.cancel() == "cancelling"
    answers = job.results(timeout=30)
    assert job.status() == "cancelled"
    assert all(isinstance(a, PerplexityBatchError) and a.code == "batch_cancelled" for a in answers)


# -- from another process ------------------------------------------------------------------------------------------

ANOTHER_PROCESS = """
import json, sys
from langchain_perplexity_strict import ChatPerplexityStrict
model = ChatPerplexityStrict(api_key=sys.argv[1], base_url=sys.argv[2])
job = model.get_batch(sys.argv[3])
print(json.dumps([job.status(), [m.content if hasattr(m, "content") else repr(m) for m in job.results(timeout=30)]]))
"""


def test_a_job_is_collected_from_another_process_by_its_id(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_lines, "MAX_LINES", 2)
    inject_batch_faults(emu, BatchFault("line_error", line=0))
    job = model_for(emu).submit_batch(["a", "b", "c"])
    command = [sys.executable, "-c", ANOTHER_PROCESS, KEY, emu.base_url, job.id]
    out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    status, contents = json.loads(out.stdout)
    assert status == "completed"
    assert "input 0" in contents[0] and contents[1:] == [m.content for m in job.results()[1:]]


def test_an_id_not_made_by_submit_batch_is_refused(emu: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match="expected a job's id"):
        model_for(emu).get_batch("")
    headers = {"Authorization": f"Bearer {KEY}"}
    upload = model_for(emu).submit_batch(["q"])
    file_id = upload.batches[upload.id]["input_file_id"]
    body = {"endpoint": "/v1/responses", "input_file_id": file_id, "completion_window": "24h"}
    foreign = loopback.post(f"{emu.base_url}/v1/batches", json=body, headers=headers).json()
    with pytest.raises(ValueError, match="not submitted by submit_batch"):
        model_for(emu).get_batch(foreign["id"])


# -- settings a batch cannot carry ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "call", "name"),
    [
        ({"background": True}, {}, "background"),
        ({}, {"background": True}, "background"),
        ({"use_previous_response_id": True}, {}, "use_previous_response_id"),
        ({"n": 2}, {}, "n"),
        ({"api": "chat_completions"}, {}, "api"),
    ],
)
def test_settings_a_batch_cannot_carry_are_refused(
    emu: PerplexityEmulator, settings: dict[str, Any], call: dict[str, Any], name: str
) -> None:
    model = model_for(emu, **settings)
    with pytest.raises(ValueError, match=rf"submit_batch: {name}="):
        model.submit_batch(["q"], **call)
    with pytest.raises(ValueError, match=rf"submit_batch: {name}="):
        model.bind(**call).submit_batch(["q"])
    assert emu.requests == []


def test_metadata_is_the_callers_and_cannot_take_the_numbering_keys(emu: PerplexityEmulator) -> None:
    model = model_for(emu)
    job = model.submit_batch(["q"], metadata={"project": "eval-7"})
    assert job.batches[job.id]["metadata"]["project"] == "eval-7"
    with pytest.raises(ValueError, match="first_input"):
        model.submit_batch(["q"], metadata={"first_input": "9"})


# -- async ----------------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("quick_client_waits")
async def test_async_twins(emu: PerplexityEmulator, slow_emulator: PerplexityEmulator) -> None:
    model = model_for(emu)
    inject_batch_faults(emu, BatchFault("line_error", line=1))
    job = await model.asubmit_batch(INPUTS)
    assert await job.astatus() == "completed"
    answers = await job.aresults(timeout=30)
    assert isinstance(answers[0], AIMessage) and isinstance(answers[1], PerplexityBatchError)
    assert without_ids(answers[2]) == without_ids(await model.ainvoke(INPUTS[2]))
    again = await model.aget_batch(job.id)
    assert [type(a) for a in await again.aresults()] == [type(a) for a in answers]
    structured = model.with_structured_output(City)
    job = await structured.asubmit_batch(['"Lyon" has 522000 inhabitants'])  # type: ignore[attr-defined]
    assert await job.aresults() == [City(name="Lyon", population=522000)]
    assert await (await structured.aget_batch(job.id)).aresults() == [City(name="Lyon", population=522000)]  # type: ignore[attr-defined]
    slow = await model_for(slow_emulator).bind(temperature=0.1).asubmit_batch(["a"])
    with pytest.raises(PerplexityBatchTimeoutError):
        await slow.aresults(timeout=0.2)
    assert await slow.acancel() == "cancelling"
    assert [a.code for a in await slow.aresults(timeout=30)] == ["batch_cancelled"]  # type: ignore[union-attr]


async def test_async_half_created_job_is_cancelled_unless_keyed(
    slow_emulator: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch, quick_client_retries: None
) -> None:
    emu = slow_emulator
    emu.clear()
    monkeypatch.setattr(_lines, "MAX_LINES", 1)
    model = model_for(emu)
    emu.inject(*[Fault("delay", seconds=0)] * 3, *[Fault("server_error", status=500)] * 3)
    with pytest.raises(Exception, match="500"):
        await model.asubmit_batch(["a", "b"])
    assert await (await model.aget_batch(listed(emu)[0])).astatus() in ("cancelling", "cancelled")
    emu.inject(*[Fault("delay", seconds=0)] * 3, *[Fault("server_error", status=500)] * 3)
    with pytest.raises(Exception, match="500"):
        await model.asubmit_batch(["a", "b"], idempotency_key="async-keyed")
    kept = listed(emu)[0]
    job = await model.asubmit_batch(["a", "b"], idempotency_key="async-keyed")
    assert job.ids[0] == kept and await job.astatus() == "validating"
