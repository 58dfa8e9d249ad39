"""`submit_batch` / `get_batch` arguments through every entry point that has them (docs/batches.md).

Each finding of a 5,000-record classification built from the docs alone, as a class: on the model, sync
and async, and on the runnables that carry `submit_batch` (`bind`, `bind_tools`, `with_structured_output`,
`configurable_fields`, `with_config`). A reused `idempotency_key` with other inputs is refused, never
answered with the old inputs' answers; `stop` cuts the answers as `invoke` cuts, also when collected by id
in another process; a bound config and a list of configs apply as `batch()` applies them; a bad key or
`results(timeout=...)` is refused before anything is sent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.runnables import ConfigurableField
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict, PerplexityBatchError, PerplexityBatchTimeoutError
from langchain_perplexity_strict._batches import _lines
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests import loopback
from tests.integration_tests.factory import KEY


class Label(BaseModel):
    name: str
    population: int


def model_for(emu: PerplexityEmulator, **settings: Any) -> ChatPerplexityStrict:
    return ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, **settings)


def lines_of(emu: PerplexityEmulator, job_id: str) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {KEY}"}
    bodies = []
    for batch_id in job_id.split(","):
        batch = loopback.get(f"{emu.base_url}/v1/batches/{batch_id}", headers=headers).json()
        content = loopback.get(f"{emu.base_url}/v1/files/{batch['input_file_id']}/content", headers=headers).content
        bodies += [json.loads(line)["body"] for line in content.splitlines()]
    return bodies


def configurable(emu: PerplexityEmulator, **settings: Any) -> Any:
    return model_for(emu, temperature=0.2, **settings).configurable_fields(temperature=ConfigurableField(id="temp"))


# Every runnable that has submit_batch, as a LangChain user builds it: (name, build).
RUNNABLES: list[tuple[str, Callable[[PerplexityEmulator], Any]]] = [
    ("model", lambda emu: model_for(emu)),
    ("bind", lambda emu: model_for(emu).bind(max_tokens=300)),
    ("bind_tools", lambda emu: model_for(emu).bind_tools([{"type": "fetch_url"}])),
    ("with_config", lambda emu: model_for(emu).with_config(tags=["evals"])),
    ("configurable_fields", lambda emu: configurable(emu)),
    ("configurable.with_config", lambda emu: configurable(emu).with_config(configurable={"temp": 0.4})),
    ("configurable.bind", lambda emu: configurable(emu).bind(max_tokens=300)),
]
NAMES = [name for name, _ in RUNNABLES]
BUILDS = [build for _, build in RUNNABLES]


async def submitted(runnable: Any, inputs: list[Any], use_async: bool, config: Any = None, **kwargs: Any) -> Any:
    if use_async:
        return await runnable.asubmit_batch(inputs, config, **kwargs)
    return runnable.submit_batch(inputs, config, **kwargs)


# -- 1. a reused idempotency_key with other inputs ------------------------------------------------------------------


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("build", BUILDS, ids=NAMES)
async def test_a_reused_key_with_other_inputs_is_refused_never_answered_with_the_old_ones(
    emu: PerplexityEmulator, build: Callable[[PerplexityEmulator], Any], use_async: bool
) -> None:
    runnable, key = build(emu), f"classify-{id(build)}-{use_async}"
    first = await submitted(runnable, ["Classify: apple", "Classify: apple"], use_async, idempotency_key=key)
    again = await submitted(runnable, ["Classify: apple", "Classify: apple"], use_async, idempotency_key=key)
    assert again.id == first.id  # the same inputs: the batch already created (a process killed, run again)
    with pytest.raises(ValueError, match=rf"idempotency_key='{key}'.*the inputs differ") as refused:
        await submitted(runnable, ["Classify: zebra"] * 3, use_async, idempotency_key=key)
    assert first.id in str(refused.value)
    with pytest.raises(ValueError, match=rf"idempotency_key='{key}'.*\['stop'\]"):  # the same inputs, another stop
        await submitted(runnable, ["Classify: apple", "Classify: apple"], use_async, idempotency_key=key, stop=["x"])


def test_a_reused_key_is_refused_on_structured_output_and_on_each_batch_of_a_split_job(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    structured = model_for(emu).with_structured_output(Label)
    structured.submit_batch(['"Lyon" has 522000 inhabitants'], idempotency_key="structured-reuse")  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"idempotency_key='structured-reuse'.*the inputs differ"):
        structured.submit_batch(['"Nice" has 342000 inhabitants'], idempotency_key="structured-reuse")  # type: ignore[attr-defined]
    monkeypatch.setattr(_lines, "MAX_LINES", 2)
    model = model_for(emu)
    model.submit_batch(["a", "b", "c"], idempotency_key="split-reuse")
    with pytest.raises(ValueError, match=r"idempotency_key='split-reuse'.*the inputs differ"):
        model.submit_batch(["a", "b", "zebra"], idempotency_key="split-reuse")  # only the second batch differs


# -- 2. stop ----------------------------------------------------------------------------------------------------------

QUESTION = "Classify: zebra"
ANOTHER_PROCESS = """
import json, sys
from langchain_perplexity_strict import ChatPerplexityStrict
job = ChatPerplexityStrict(api_key=sys.argv[1], base_url=sys.argv[2]).get_batch(sys.argv[3])
print(json.dumps([[m.content, m.response_metadata.get("stop_sequence")] for m in job.results(timeout=30)]))
"""


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    ("build", "call"),
    [
        (lambda emu: model_for(emu), {"stop": ["[2]"]}),
        (lambda emu: model_for(emu, stop=["[2]"]), {}),
        (lambda emu: model_for(emu).bind(stop=["[2]"]), {}),
        (lambda emu: model_for(emu).bind_tools([{"type": "fetch_url"}], stop=["[2]"]), {}),
        (lambda emu: configurable(emu), {"stop": "[2]"}),
        (lambda emu: configurable(emu).bind(stop=["[2]"]), {}),
        (lambda emu: configurable(emu).with_config(configurable={"temp": 0.5}).bind(stop=["[2]"]), {}),
    ],
    ids=["call", "constructor", "bind", "bind_tools", "configurable", "configurable.bind", "with_config.bind"],
)
async def test_stop_cuts_each_answer_as_invoke_cuts_it_also_when_collected_by_id(
    emu: PerplexityEmulator, build: Callable[[PerplexityEmulator], Any], call: dict[str, Any], use_async: bool
) -> None:
    runnable = build(emu)
    invoked = runnable.invoke(QUESTION, **call)
    assert invoked.response_metadata["stop_sequence"] == "[2]" and "[2]" not in invoked.content
    job = await submitted(runnable, [QUESTION, QUESTION], use_async, **call)
    answers = await job.aresults(timeout=30) if use_async else job.results(timeout=30)
    assert [(a.content, a.response_metadata["stop_sequence"]) for a in answers] == [(invoked.content, "[2]")] * 2
    collected = model_for(emu).get_batch(job.id)  # another model, told nothing of the stop: the batch records it
    assert [a.content for a in collected.results()] == [invoked.content] * 2
    if use_async:
        assert [a.content for a in await (await model_for(emu).aget_batch(job.id)).aresults()] == [invoked.content] * 2


def test_stop_survives_get_batch_in_another_process_and_a_call_stop_replaces_it(emu: PerplexityEmulator) -> None:
    model = model_for(emu)
    job = model.submit_batch([QUESTION], stop=["[2]"])
    cut = model.invoke(QUESTION, stop=["[2]"]).content
    command = [sys.executable, "-c", ANOTHER_PROCESS, KEY, emu.base_url, job.id]
    out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout) == [[cut, "[2]"]]
    recut = model.get_batch(job.id, stop=["[1]"]).results()[0]  # the collecting call's own stop wins
    assert recut.content == model.invoke(QUESTION, stop=["[1]"]).content and recut.content != cut
    structured = model_for(emu).with_structured_output(Label)  # a stop beside a response format: recorded too
    sjob = structured.submit_batch(['"Lyon" has 522000 inhabitants'], stop=["\n\n"])  # type: ignore[attr-defined]
    assert json.loads(sjob.batches[sjob.id]["metadata"]["stop"]) == ["\n\n"]


# -- 3. a bound config reaches the lines ------------------------------------------------------------------------------


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    "build",
    [
        lambda emu: configurable(emu).with_config(configurable={"temp": 1.1}),
        lambda emu: configurable(emu).with_config({"configurable": {"temp": 1.1}}).bind(max_tokens=300),
        lambda emu: configurable(emu).bind(max_tokens=300).with_config(configurable={"temp": 1.1}),
        lambda emu: configurable(emu).with_config(configurable={"temp": 1.1}).bind_tools([{"type": "fetch_url"}]),
        lambda emu: configurable(emu).with_config(configurable={"temp": 1.1}).with_structured_output(Label),
        lambda emu: configurable(emu).with_structured_output(Label).with_config(configurable={"temp": 1.1}),
    ],
    ids=["with_config", "with_config.bind", "bind.with_config", "bind_tools", "structured", "structured.with_config"],
)
async def test_a_bound_config_reaches_every_line_as_it_reaches_invoke(
    emu: PerplexityEmulator, build: Callable[[PerplexityEmulator], Any], use_async: bool
) -> None:
    runnable = build(emu)
    emu.clear()
    runnable.invoke('"Lyon" has 522000 inhabitants')
    assert emu.requests[-1].body["temperature"] == 1.1
    job = await submitted(runnable, ['"Lyon" has 522000 inhabitants', '"Nice" has 342000 inhabitants'], use_async)
    assert [body["temperature"] for body in lines_of(emu, job.id)] == [1.1, 1.1]


# -- 4. a list of configs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    "build", [*BUILDS, lambda emu: model_for(emu).with_structured_output(Label)], ids=[*NAMES, "structured"]
)
async def test_a_list_of_configs_of_another_length_is_refused_as_batch_refuses_it(
    emu: PerplexityEmulator, build: Callable[[PerplexityEmulator], Any], use_async: bool
) -> None:
    runnable = build(emu)
    with pytest.raises(ValueError, match="config must be a list of the same length as inputs"):
        runnable.batch(["a", "b"], [{}, {}, {}])  # what batch() says
    with pytest.raises(ValueError, match="config must be a list of the same length as inputs"):
        await submitted(runnable, ["a", "b"], use_async, [{}, {}, {}])
    assert emu.requests == []
    job = await submitted(runnable, ["a", "b"], use_async, [{"tags": ["x"]}, {"tags": ["y"]}])  # one per input
    assert len(job) == 2


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
async def test_a_list_of_configs_configures_each_input_as_batch_does(emu: PerplexityEmulator, use_async: bool) -> None:
    configs: list[Any] = [{"configurable": {"temp": 0.1}}, {"configurable": {"temp": 0.9}}, {}]
    for runnable in (configurable(emu), configurable(emu).bind(max_tokens=300)):
        emu.clear()
        runnable.batch(["a", "b", "c"], configs)
        sent = sorted(r.body["temperature"] for r in emu.requests if r.path == "/v1/responses")
        job = await submitted(runnable, ["a", "b", "c"], use_async, configs)
        assert [body["temperature"] for body in lines_of(emu, job.id)] == [0.1, 0.9, 0.2]
        assert sent == [0.1, 0.2, 0.9]


# -- 5. idempotency_key ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("build", BUILDS, ids=NAMES)
async def test_a_key_that_is_not_a_non_empty_string_is_refused_before_anything_is_sent(
    emu: PerplexityEmulator, build: Callable[[PerplexityEmulator], Any], use_async: bool
) -> None:
    for key in ["", "   ", 123, b"key", "clé", "two\nlines"]:
        with pytest.raises(ValueError, match=r"idempotency_key=.*expected None .* or a non-empty string"):
            await submitted(build(emu), ["a"], use_async, idempotency_key=key)
        with pytest.raises(ValueError, match=r"idempotency_key=.*expected None .* or a non-empty string"):
            await submitted(build(emu).bind(idempotency_key=key), ["a"], use_async)
    assert emu.requests == []


# -- 6. the smaller ones ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def slow_emulator() -> Iterator[PerplexityEmulator]:
    """Batches that take an hour on the emulator's clock: pending whenever a test looks."""
    with PerplexityEmulator(api_key=KEY, run_duration=3600.0) as emu:
        yield emu


@pytest.mark.parametrize("timeout", [-1, -0.5, "30", True, float("nan")])
async def test_results_refuses_a_timeout_that_is_not_seconds(slow_emulator: PerplexityEmulator, timeout: Any) -> None:
    job = model_for(slow_emulator).submit_batch(["a"])
    slow_emulator.clear()
    with pytest.raises(ValueError, match=r"timeout=.*expected seconds >= 0"):
        job.results(timeout=timeout)
    with pytest.raises(ValueError, match=r"timeout=.*expected seconds >= 0"):
        await job.aresults(timeout=timeout)
    assert slow_emulator.requests == []
    with pytest.raises(PerplexityBatchTimeoutError):  # 0 is accepted: one look
        job.results(timeout=0)
    job.cancel()


def test_the_batch_errors_are_importable_from_the_package_root() -> None:
    import langchain_perplexity_strict
    from langchain_perplexity_strict import errors

    assert langchain_perplexity_strict.PerplexityBatchError is errors.PerplexityBatchError
    assert langchain_perplexity_strict.PerplexityBatchTimeoutError is errors.PerplexityBatchTimeoutError
    assert {"PerplexityBatchError", "PerplexityBatchTimeoutError"} <= set(langchain_perplexity_strict.__all__)
    assert issubclass(PerplexityBatchError, errors.PerplexityResponseError)


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
async def test_a_batch_that_could_not_be_cancelled_is_named_by_the_error(
    emu: PerplexityEmulator,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    quick_client_retries: None,
    use_async: bool,
) -> None:
    monkeypatch.setattr(_lines, "MAX_LINES", 1)
    # Two uploads and the first create pass; the second create fails through the client's retries, and so
    # does the cancel of the first batch.
    emu.inject(*[Fault("delay", seconds=0)] * 3, *[Fault("server_error", status=500)] * 6)
    with pytest.raises(Exception, match="500") as raised:
        await submitted(model_for(emu), ["a", "b"], use_async)
    made = next(r for r in reversed(emu.requests) if r.path.endswith("/cancel")).path.split("/")[3]
    assert f"could not cancel batch {made}" in caplog.text  # every Python
    if sys.version_info >= (3, 11):  # exceptions carry notes from 3.11
        notes = "\n".join(getattr(raised.value, "__notes__", []))
        assert made in notes and "could not be cancelled" in notes and f"get_batch('{made}').cancel()" in notes


def test_a_batch_holding_another_number_of_inputs_than_its_metadata_is_refused(emu: PerplexityEmulator) -> None:
    job = model_for(emu).submit_batch(["apple", "apple"])
    headers = {"Authorization": f"Bearer {KEY}"}
    metadata = {**job.batches[job.id]["metadata"], "inputs": "3"}
    body = {"endpoint": "/v1/responses", "input_file_id": job.batches[job.id]["input_file_id"], "metadata": metadata}
    other = loopback.post(f"{emu.base_url}/v1/batches", json=body, headers=headers).json()
    collected = model_for(emu).get_batch(other["id"])
    assert len(collected) == 3
    with pytest.raises(ValueError, match=r"holds 2 requests, but its metadata numbers 3 inputs"):
        collected.results(timeout=30)
    assert all(isinstance(a, AIMessage) for a in job.results(timeout=30))
