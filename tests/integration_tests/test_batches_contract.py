"""Batches against Perplexity's published models (`File*`, `Batch*`; extra fields forbidden).

What `submit_batch` sends validates as `BatchCreateRequestInput` (and each line's body as
`ResponsesRequestInput`); every emulator answer validates as `FileObjectOutput` or `BatchOutput`, in every
status; the emulator refuses what the models refuse; and Perplexity's own SDK works against it.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from perplexity import Perplexity
from perplexity.generated import api

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator
from langchain_perplexity_strict.testing.batches import BatchFault, batch_status, inject_batch_faults
from tests import loopback, published_schema
from tests.integration_tests.factory import KEY

HEADERS = {"Authorization": f"Bearer {KEY}"}
STATUSES = typing.get_args(api.BatchOutput.model_fields["status"].annotation)


@pytest.fixture(scope="module")
def slow_emulator() -> Iterator[PerplexityEmulator]:
    with PerplexityEmulator(api_key=KEY, run_duration=3600.0) as emu:
        yield emu


@pytest.fixture(scope="module")
def schema_emulator() -> Iterator[PerplexityEmulator]:
    """The emulator in its bare-schema dialect, whose answer lines hold to the published models, extras
    forbidden (the live dialect, the default, adds what the live API sends beyond them)."""
    with PerplexityEmulator(api_key=KEY, dialect="schema") as emu:
        yield emu


def _file_lines(emu: PerplexityEmulator, file_id: str) -> list[dict[str, Any]]:
    content = loopback.get(f"{emu.base_url}/v1/files/{file_id}/content", headers=HEADERS).content
    return [json.loads(line) for line in content.splitlines()]


def test_what_submit_batch_sends_is_published(emu: PerplexityEmulator) -> None:
    model = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, max_tokens=200)
    job = model.submit_batch(["a", [("system", "be brief"), ("human", "b")]], metadata={"team": "evals"})
    creates = [r for r in emu.requests if r.path == "/v1/batches" and r.method == "POST"]
    uploads = [r for r in emu.requests if r.path == "/v1/files" and r.method == "POST"]
    assert len(creates) == len(uploads) == 1
    published_schema.validate("BatchCreateRequestInput", creates[0].body)
    assert creates[0].body["endpoint"] == "/v1/responses" and creates[0].body["completion_window"] == "24h"
    assert uploads[0].body["purpose"] == "batch" and set(uploads[0].body) == {"file", "purpose"}
    content_type = {k.lower(): v for k, v in uploads[0].headers.items()}["content-type"]
    assert content_type.startswith("multipart/form-data; boundary=")
    for line in _file_lines(emu, job.batches[job.id]["input_file_id"]):
        assert set(line) == {"custom_id", "method", "url", "body"}
        published_schema.agent_request(line["body"])


def test_every_answer_is_published_in_every_status(slow_emulator: PerplexityEmulator) -> None:
    emu = slow_emulator
    job = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url).submit_batch(["a", "b"])
    published_schema.validate("BatchOutput", job.batches[job.id])
    upload = loopback.get(f"{emu.base_url}/v1/files/{job.batches[job.id]['input_file_id']}", headers=HEADERS).json()
    published_schema.validate("FileObjectOutput", upload)
    for status in STATUSES:
        batch_status(emu, job.id, status)
        answer = loopback.get(f"{emu.base_url}/v1/batches/{job.id}", headers=HEADERS).json()
        assert answer["status"] == status
        published_schema.validate("BatchOutput", answer)
    listed = loopback.get(f"{emu.base_url}/v1/batches", headers=HEADERS).json()
    published_schema.validate("BatchListOutput", listed)
    files = loopback.get(f"{emu.base_url}/v1/files", headers=HEADERS).json()
    published_schema.validate("FileObjectListOutput", files)


@pytest.mark.parametrize(
    "fault",
    [None, BatchFault("line_error", line=0), BatchFault("expired"), BatchFault("failed"), BatchFault("cancelled")],
)
def test_final_batches_and_their_files_are_published(
    schema_emulator: PerplexityEmulator, fault: BatchFault | None
) -> None:
    emu = schema_emulator
    if fault is not None:
        inject_batch_faults(emu, fault)
    job = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url).submit_batch(["a", "b"])
    job.results(timeout=30)
    batch = job.batches[job.id]
    published_schema.validate("BatchOutput", batch)
    for key in ("output_file_id", "error_file_id"):
        if batch.get(key):
            stored = loopback.get(f"{emu.base_url}/v1/files/{batch[key]}", headers=HEADERS).json()
            published_schema.validate("FileObjectOutput", stored)
            assert stored["purpose"] == "batch_output"
            for line in _file_lines(emu, batch[key]):
                assert set(line) == {"id", "custom_id", "response", "error"}
                if line["response"] and line["response"]["status_code"] == 200:
                    published_schema.agent_response(line["response"]["body"])


CREATES: list[dict[str, Any]] = [
    {"endpoint": "/v1/responses", "input_file_id": "FILE"},
    {"endpoint": "/v1/responses", "input_file_id": "FILE", "completion_window": "24h", "metadata": {"a": "b"}},
    {"endpoint": "/v1/chat/completions", "input_file_id": "FILE"},
    {"endpoint": "/v1/responses", "input_file_id": "FILE", "completion_window": "48h"},
    {"endpoint": "/v1/responses", "input_file_id": "FILE", "metadata": {"a": 1}},
    {"endpoint": "/v1/responses", "input_file_id": "FILE", "priority": "high"},
    {"endpoint": "/v1/responses"},
]


@pytest.mark.parametrize("body", CREATES)
def test_the_emulator_refuses_what_the_create_model_refuses(emu: PerplexityEmulator, body: dict[str, Any]) -> None:
    job = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url).submit_batch(["q"])
    file_id = job.batches[job.id]["input_file_id"]
    body = json.loads(json.dumps(body).replace("FILE", file_id))
    answer = loopback.post(f"{emu.base_url}/v1/batches", json=body, headers=HEADERS)
    assert (answer.status_code == 200) == published_schema.verdict("BatchCreateRequestInput", body), answer.text


def test_the_emulator_refuses_a_file_the_api_refuses(emu: PerplexityEmulator) -> None:
    good = {
        "custom_id": "a",
        "method": "POST",
        "url": "/v1/responses",
        "body": {"input": "hi", "model": "openai/gpt-5.1"},
    }
    bad_body = {**good, "custom_id": "b", "body": {"input": "hi", "model": "openai/gpt-5.1", "temperature": 9}}
    unknown = {**good, "custom_id": "c", "body": {"input": "hi", "max_tokens": 5}}
    cases = {
        "ok": ([good], 200),
        "repeated custom_id": ([good, good], 400),
        "a body the checker refuses": ([good, bad_body], 400),
        "an unknown field": ([unknown], 400),
        "another endpoint": ([{**good, "url": "/v1/chat/completions"}], 400),
    }
    for name, (lines, status) in cases.items():
        content = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        files = {"file": ("in.jsonl", content)}
        answer = loopback.post(f"{emu.base_url}/v1/files", headers=HEADERS, data={"purpose": "batch"}, files=files)
        assert answer.status_code == status, (name, answer.text)
        if status == 400:
            assert "line" in answer.json()["error"]["message"], name
    form = {"purpose": "batch", "expires_after": "1"}
    files = {"file": ("in.jsonl", json.dumps(good).encode())}
    expires = loopback.post(f"{emu.base_url}/v1/files", headers=HEADERS, data=form, files=files)
    assert expires.status_code == 400 and "expires_after" in expires.text


def test_perplexitys_own_sdk_works_against_the_emulator(emu: PerplexityEmulator) -> None:
    client = Perplexity(api_key=KEY, base_url=emu.base_url)
    line = {"custom_id": "x", "method": "POST", "url": "/v1/responses", "body": {"input": "hi", "preset": "fast"}}
    uploaded = client.files.create(file=("in.jsonl", json.dumps(line).encode()), purpose="batch")
    batch = client.batches.create(endpoint="/v1/responses", input_file_id=uploaded.id, idempotency_key="k-1")
    again = client.batches.create(endpoint="/v1/responses", input_file_id=uploaded.id, idempotency_key="k-1")
    assert again.id == batch.id
    done = client.batches.retrieve(batch.id)
    assert done.status == "completed" and done.output_file_id
    output = [json.loads(t) for t in client.files.content(done.output_file_id).read().splitlines()]
    assert output[0]["custom_id"] == "x" and output[0]["response"]["status_code"] == 200
