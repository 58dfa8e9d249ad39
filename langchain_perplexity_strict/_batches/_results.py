"""A batch's statuses, and its output and error files read back into one outcome per input, in input order.

What each published status means for `results()` (wait, or collect) is data: `BatchOutput.status` in
Perplexity's SDK (`perplexity.generated.api`). Lines follow OpenAI's batch output shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage

from langchain_perplexity_strict._batches._lines import index_of
from langchain_perplexity_strict._redact import redact_text
from langchain_perplexity_strict.errors import PerplexityBatchError, PerplexityResponseError

Reader = Callable[[dict[str, Any], tuple[str, ...]], AIMessage]
"""The chat model's reader: an Agent API response and stop sequences into an `AIMessage`."""
Outcome = AIMessage | Exception


@dataclass(frozen=True)
class Status:
    """One batch status: whether it is over, and why an unanswered input failed."""

    name: str
    over: bool
    unanswered: str


STATUSES: dict[str, Status] = {
    s.name: s
    for s in (
        Status("validating", False, ""),
        Status("in_progress", False, ""),
        Status("finalizing", False, ""),
        Status("cancelling", False, ""),
        Status("completed", True, "the batch completed without a line for this input"),
        Status("expired", True, "the batch expired (its 24h completion window ended) before this input ran"),
        Status("cancelled", True, "the batch was cancelled before this input ran"),
        Status("failed", True, "the batch failed"),
    )
}
ORDER = tuple(STATUSES)
"""Earliest to last."""
SEVERITY = ("failed", "expired", "cancelled", "completed")


def status_of(name: str) -> Status:
    """The status `name`; an unpublished one is over, so nothing waits forever."""
    return STATUSES.get(name) or Status(name, True, f"the batch ended with status {name!r}, which is not published")


def job_status(names: list[str]) -> str:
    """A job's status: the earliest pending, else the most severe."""
    pending = [n for n in names if not status_of(n).over]
    if pending:
        return min(pending, key=ORDER.index)
    unknown = [n for n in names if n not in SEVERITY]
    return unknown[0] if unknown else min(names, key=SEVERITY.index)


@dataclass(frozen=True)
class Part:
    """One batch of a job: its id and its `count` inputs from `first`."""

    id: str
    first: int
    count: int
    stops: tuple[str, ...] = ()
    """Stop sequences its answers are cut at."""


def _failure(part: Part, index: int, code: str | None, message: str, partial: AIMessage | None = None) -> Exception:
    named = redact_text(f"{code}: {message}" if code else message)  # the server's words may repeat a sent key
    return PerplexityBatchError(
        f"batch {part.id}, input {index} (custom_id input-{index}): {named}",
        index=index,
        custom_id=f"input-{index}",
        batch_id=part.id,
        code=code,
        partial=partial,
    )


def _error_of(body: Any) -> tuple[str | None, str]:
    """Perplexity's error envelope as (code, message)."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None, json.dumps(body)[:500]
    code = error.get("type") or error.get("code")
    return (str(code) if code is not None else None), str(error.get("message") or error)


def read_line(part: Part, index: int, record: dict[str, Any], read: Reader) -> Outcome:
    """One file line as its input's outcome."""
    error = record.get("error")
    response = record.get("response")
    if isinstance(error, dict):
        return _failure(part, index, error.get("code"), str(error.get("message") or error))
    if not isinstance(response, dict):
        return _failure(part, index, None, f"a result line without a response or an error: {json.dumps(record)[:500]}")
    status, body = response.get("status_code"), response.get("body")
    if status != 200 or not isinstance(body, dict):
        code, message = _error_of(body)
        return _failure(part, index, code, f"HTTP {status}: {message}")
    try:
        return read(body, part.stops)
    except PerplexityResponseError as failed:  # keep the partial answer
        return _failure(part, index, "failed", str(failed), failed.partial)


def _reason(part: Part, error: dict[str, Any]) -> str:
    """One of the batch's errors, as its other inputs read it (a line's names the input it is about)."""
    line = error.get("line")
    where = f"input {part.first + line - 1}: " if isinstance(line, int) else ""
    return f"{where}{error.get('code')}: {error.get('message')}"


def collect(part: Part, batch: dict[str, Any], files: list[bytes], read: Reader) -> list[Outcome]:
    """The outcomes of `part`'s inputs, in order, once `batch` is over."""
    total = (batch.get("request_counts") or {}).get("total")
    if isinstance(total, int) and total and total != part.count:  # never answers for other inputs
        msg = (
            f"batch {part.id} holds {total} requests, but its metadata numbers {part.count} inputs: it is not "
            "the batch these inputs were submitted to, and its answers are not read as theirs."
        )
        raise ValueError(msg)
    found: dict[int, Outcome] = {}
    for record in (json.loads(text) for content in files for text in content.splitlines() if text.strip()):
        index = index_of(record.get("custom_id"))
        if index is not None and part.first <= index < part.first + part.count:
            found[index] = read_line(part, index, record, read)
    status = str(batch.get("status"))
    reason = status_of(status).unanswered
    errors = ((batch.get("errors") or {}).get("data")) or []
    by_line = {e["line"]: e for e in errors if isinstance(e.get("line"), int)}
    general = "; ".join(_reason(part, e) for e in errors)  # a batch failed by one line: every input is told why
    detail = f"{reason} ({general})" if general else reason
    outcomes: list[Outcome] = []
    for index in range(part.first, part.first + part.count):
        line_error = by_line.get(index - part.first + 1)  # lines count from 1
        if index in found:
            outcomes.append(found[index])
        elif line_error is not None:
            outcomes.append(_failure(part, index, line_error.get("code"), str(line_error.get("message"))))
        else:
            outcomes.append(_failure(part, index, f"batch_{status}", detail))
    return outcomes
