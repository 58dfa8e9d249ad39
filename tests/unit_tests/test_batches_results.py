"""`_batches`: a job's status from its batches' statuses, and output lines back to inputs, without a server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from langchain_perplexity_strict._batches._results import Part, collect, job_status, status_of
from langchain_perplexity_strict.errors import PerplexityBatchError, PerplexityResponseError


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        (["completed", "in_progress"], "in_progress"),
        (["finalizing", "validating"], "validating"),
        (["completed", "expired"], "expired"),
        (["cancelled", "failed", "completed"], "failed"),
        (["completed", "completed"], "completed"),
        (["completed", "paused"], "paused"),  # not published: reported as it is, never waited on
    ],
)
def test_a_job_reports_the_earliest_pending_else_the_most_severe_status(statuses: list[str], expected: str) -> None:
    assert job_status(statuses) == expected


def test_a_status_not_published_is_over_and_fails_its_inputs() -> None:
    assert status_of("paused").over and "paused" in status_of("paused").unanswered


def _read(body: dict[str, Any], stops: tuple[str, ...] = ()) -> AIMessage:
    if body.get("status") == "failed":
        raise PerplexityResponseError("the run failed", partial=AIMessage("so far"))
    return AIMessage(body["text"])


def _file(*lines: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def test_lines_are_joined_on_custom_id_and_every_form_of_failure_names_its_input() -> None:
    part = Part("batch_1", first=10, count=5)
    ok = {"status_code": 200, "request_id": "r", "body": {"text": "eleven"}}
    output = _file(
        {"id": "1", "custom_id": "input-11", "response": ok, "error": None},
        {"id": "2", "custom_id": "input-10", "response": {**ok, "body": {"text": "ten"}}, "error": None},
        {"id": "3", "custom_id": "someone-elses", "response": ok, "error": None},  # not this package's: ignored
        {"id": "4", "custom_id": "input-99", "response": ok, "error": None},  # another part's input: ignored
    )
    refused = {"status_code": 429, "request_id": "r", "body": {"error": {"type": "rate_limit", "message": "slow down"}}}
    errors = _file(
        {"id": "5", "custom_id": "input-12", "response": None, "error": {"code": "batch_expired", "message": "late"}},
        {"id": "6", "custom_id": "input-13", "response": refused, "error": None},
        {"id": "7", "custom_id": "input-14", "response": {**ok, "body": {"status": "failed"}}, "error": None},
    )
    outcomes = collect(part, {"status": "completed"}, [output, errors], _read)
    assert [o.content for o in outcomes[:2]] == ["ten", "eleven"]  # type: ignore[union-attr]
    expired, limited, failed = outcomes[2:]
    assert isinstance(expired, PerplexityBatchError) and expired.code == "batch_expired" and expired.index == 12
    assert isinstance(limited, PerplexityBatchError) and limited.code == "rate_limit" and "HTTP 429" in str(limited)
    assert (
        isinstance(failed, PerplexityBatchError) and failed.partial is not None and failed.partial.content == "so far"
    )
    assert all("batch batch_1, input" in str(o) for o in outcomes[2:])


def test_inputs_without_a_line_get_the_batch_status_or_its_line_error() -> None:
    part = Part("batch_2", first=0, count=3)
    line_error = {"code": "invalid_request", "line": 2, "message": "bad model"}
    batch = {
        "status": "failed",
        "errors": {"object": "list", "data": [line_error, {"code": "quota", "message": "no credit"}]},
    }
    outcomes = collect(part, batch, [], _read)
    assert [o.code for o in outcomes] == ["batch_failed", "invalid_request", "batch_failed"]  # type: ignore[union-attr]
    assert "bad model" in str(outcomes[1]) and "no credit" in str(outcomes[0])


def test_every_input_of_a_batch_failed_by_one_line_gets_perplexitys_reason() -> None:
    """Perplexity fails a whole batch for one bad line: the other inputs say why, naming that input."""
    part = Part("batch_3", first=4, count=3)
    batch = {
        "status": "failed",
        "errors": {"data": [{"code": "invalid_request", "line": 2, "message": "model 'x' is not served"}]},
    }
    outcomes = collect(part, batch, [], _read)
    assert [o.code for o in outcomes] == ["batch_failed", "invalid_request", "batch_failed"]  # type: ignore[union-attr]
    for outcome in (outcomes[0], outcomes[2]):
        assert "the batch failed" in str(outcome)
        assert "input 5: invalid_request: model 'x' is not served" in str(outcome)


def test_a_batchs_errors_repeating_a_sent_key_like_value_never_show_it() -> None:
    """An error line's and a failed batch's words may repeat a key-like `model`: hidden as everywhere."""
    key = "pplx-canary0123456789abcdef"
    part = Part("batch_1", first=0, count=2)
    line = {"custom_id": "input-0", "response": None, "error": {"code": "invalid", "message": f"model {key} unknown"}}
    failed = {"status": "failed", "errors": {"data": [{"code": "invalid", "line": 2, "message": f"bad model {key}"}]}}
    outcomes = collect(part, failed, [_file(line)], _read)
    assert [str(outcome).count("***") for outcome in outcomes] == [1, 1]
    assert all(key[5:] not in str(outcome) for outcome in outcomes)
