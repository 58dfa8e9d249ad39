"""A submitted batch job: submit (upload, create), then status, results and cancel, sync and async.

A job is one or more Perplexity batches (inputs past one file's limits are split, `_lines.split`). Each
batch's `metadata` records which inputs it holds, so `get_batch(id)` in another process rebuilds the job
from its id alone; the job's `id` is its batch ids joined by commas (a single batch's id as it is).
The create carries an `Idempotency-Key` (docs.perplexity.ai, "Create a batch": a repeat with the same key
returns the original batch), which the client's retries send again unchanged.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_perplexity_strict._batches._lines import ENDPOINT, FilePart, split
from langchain_perplexity_strict._batches._results import Outcome, Part, Reader, collect
from langchain_perplexity_strict._batches._statuses import job_status, status_of
from langchain_perplexity_strict._transport import Transport, encode_body
from langchain_perplexity_strict.errors import PerplexityBatchTimeoutError

logger = logging.getLogger("langchain_perplexity_strict")
API = "batch"
FILES = "/v1/files"
BATCHES = "/v1/batches"
COMPLETION_WINDOW = "24h"
METADATA_KEYS = ("langchain_perplexity_strict", "first_input", "inputs")
"""The metadata keys this package writes on each batch (a caller's own may not reuse them)."""
FIRST_POLL, POLL_GROWTH, MAX_POLL = 0.2, 1.5, 30.0
"""Seconds between status checks while a batch runs: 0.2 s, growing 1.5x to 30 s."""

Then = Callable[[Outcome], Outcome]


def _create_body(file_id: str, part: FilePart, metadata: Mapping[str, str]) -> bytes:
    numbering = {"langchain_perplexity_strict": "1", "first_input": str(part.first), "inputs": str(len(part.lines))}
    return encode_body(
        {
            "endpoint": ENDPOINT,
            "input_file_id": file_id,
            "completion_window": COMPLETION_WINDOW,
            "metadata": {**metadata, **numbering},
        }
    )


def check_metadata(metadata: Any) -> dict[str, str]:
    """A caller's `metadata`: string keys and values, none of this package's own keys."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
    ):
        msg = f"metadata={metadata!r}: expected a dict of strings to strings (Perplexity's batch metadata)."
        raise ValueError(msg)
    taken = sorted(set(metadata) & set(METADATA_KEYS))
    if taken:
        msg = f"metadata: {taken} are the keys submit_batch numbers the inputs by; choose other names."
        raise ValueError(msg)
    return dict(metadata)


def _upload(part: FilePart, key: str, n: int) -> tuple[dict[str, str], dict[str, tuple[str, bytes, str]]]:
    return {"purpose": "batch"}, {"file": (f"batch-{key}-{n}.jsonl", part.content, "application/jsonl")}


def _part_of(batch: dict[str, Any]) -> Part:
    metadata = batch.get("metadata") or {}
    first, count = metadata.get("first_input"), metadata.get("inputs")
    if metadata.get("langchain_perplexity_strict") != "1" or not str(first).isdigit() or not str(count).isdigit():
        msg = (
            f"batch {batch.get('id')!r} was not submitted by submit_batch: its metadata does not number the "
            "inputs, so its results cannot be put back in input order."
        )
        raise ValueError(msg)
    return Part(str(batch["id"]), int(str(first)), int(str(count)))


def batch_ids(job_id: Any) -> list[str]:
    """The batch ids of a job id (`job.id`: one id, or several joined by commas), checked."""
    ids = [i.strip() for i in job_id.split(",")] if isinstance(job_id, str) else []
    if not ids or not all(ids):
        msg = f"batch id {job_id!r}: expected a job's id, as job.id gives it (a batch id, or several joined by commas)."
        raise ValueError(msg)
    return ids


def _parts_in_order(batches: list[dict[str, Any]]) -> list[Part]:
    parts = sorted((_part_of(b) for b in batches), key=lambda p: p.first)
    expected = 0
    for part in parts:
        if part.first != expected:
            ids = [p.id for p in parts]
            msg = f"the batches {ids} do not hold one job's inputs: input {expected} is in none of them."
            raise ValueError(msg)
        expected += part.count
    return parts


class BatchJob:
    """Inputs submitted to Perplexity's Batch API; `model.submit_batch(...)` or `model.get_batch(id)` makes one."""

    def __init__(self, transport: Transport, batches: list[dict[str, Any]], read: Reader, then: Then | None = None):
        self._transport = transport
        self._parts = _parts_in_order(batches)
        self.batches: dict[str, dict[str, Any]] = {str(b["id"]): b for b in batches}
        """Each batch's `BatchOutput` as last seen (status, `request_counts`, `usage`, timestamps)."""
        self._read = read
        self._then = then
        self._outcomes: dict[str, list[Outcome]] = {}

    def __repr__(self) -> str:
        return f"BatchJob(id={self.id!r}, inputs={len(self)}, status={self._status()!r})"

    def __len__(self) -> int:
        return sum(p.count for p in self._parts)

    @property
    def id(self) -> str:
        """The job's id, for `get_batch` in another process: the batch id, or the ids joined by commas."""
        return ",".join(p.id for p in self._parts)

    @property
    def ids(self) -> tuple[str, ...]:
        """The Perplexity batch ids of the job, in input order."""
        return tuple(p.id for p in self._parts)

    def then(self, step: Then) -> BatchJob:
        """The same job, each answer passed through `step` too (a structured-output parser)."""
        job = BatchJob(self._transport, list(self.batches.values()), self._read, step)
        job._outcomes = self._outcomes
        return job

    def _status(self) -> str:
        return job_status([str(b.get("status")) for b in self.batches.values()])

    def _pending(self) -> list[str]:
        return [i for i, b in self.batches.items() if not status_of(str(b.get("status"))).over]

    def _finish(self) -> list[Outcome]:
        outcomes = [o for p in self._parts for o in self._outcomes[p.id]]
        if self._then is None:
            return outcomes
        return [o if isinstance(o, Exception) else self._then(o) for o in outcomes]

    def _timeout(self, timeout: float) -> PerplexityBatchTimeoutError:
        pending = self._pending()
        status = self._status()
        return PerplexityBatchTimeoutError(
            f"batch {','.join(pending)} still {status} after {timeout} s; it goes on on Perplexity (not cancelled): "
            f"call results() again later, here or in another process with get_batch({self.id!r}).",
            ",".join(pending),
            status,
        )

    # -- sync ---------------------------------------------------------------------------------------------------

    def _refresh(self, ids: Sequence[str]) -> None:
        for batch_id in ids:
            self.batches[batch_id] = self._transport.get(f"{BATCHES}/{batch_id}", api=API)

    def status(self) -> str:
        """The job's status, refreshed: a published batch status (the earliest still pending, else the most
        severe final one, for a job of several batches)."""
        self._refresh(self._pending() or list(self.batches))
        return self._status()

    def results(self, timeout: float | None = None) -> list[Outcome]:
        """Wait for every batch to end (at most `timeout` seconds; None: as long as it takes), then each input's
        answer, in input order: the `AIMessage` `invoke` returns, or a `PerplexityBatchError` in its place."""
        deadline = None if timeout is None else time.monotonic() + timeout
        wait = FIRST_POLL
        while True:
            self._refresh(self._pending())
            if not self._pending():
                break
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise self._timeout(timeout or 0.0)
            time.sleep(wait if left is None else min(wait, left))
            wait = min(wait * POLL_GROWTH, MAX_POLL)
        for part in self._parts:
            if part.id not in self._outcomes:
                batch = self.batches[part.id]
                files = [self._transport.get_bytes(f"{FILES}/{f}/content", api=API) for f in _files(batch)]
                self._outcomes[part.id] = collect(part, batch, files, self._read)
        return self._finish()

    def cancel(self) -> str:
        """Cancel every batch of the job still running; its status afterwards (`cancelling`, then `cancelled`).
        What ran before the cancel is kept: `results()` returns it, the other inputs as errors."""
        for batch_id in self._pending():
            self.batches[batch_id] = self._transport.post(f"{BATCHES}/{batch_id}/cancel", b"{}", api=API)
        return self._status()

    # -- async --------------------------------------------------------------------------------------------------

    async def _arefresh(self, ids: Sequence[str]) -> None:
        for batch_id in ids:
            self.batches[batch_id] = await self._transport.aget(f"{BATCHES}/{batch_id}", api=API)

    async def astatus(self) -> str:
        await self._arefresh(self._pending() or list(self.batches))
        return self._status()

    async def aresults(self, timeout: float | None = None) -> list[Outcome]:
        deadline = None if timeout is None else time.monotonic() + timeout
        wait = FIRST_POLL
        while True:
            await self._arefresh(self._pending())
            if not self._pending():
                break
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise self._timeout(timeout or 0.0)
            await asyncio.sleep(wait if left is None else min(wait, left))
            wait = min(wait * POLL_GROWTH, MAX_POLL)
        for part in self._parts:
            if part.id not in self._outcomes:
                batch = self.batches[part.id]
                files = [await self._transport.aget_bytes(f"{FILES}/{f}/content", api=API) for f in _files(batch)]
                self._outcomes[part.id] = collect(part, batch, files, self._read)
        return self._finish()

    async def acancel(self) -> str:
        for batch_id in self._pending():
            self.batches[batch_id] = await self._transport.apost(f"{BATCHES}/{batch_id}/cancel", b"{}", api=API)
        return self._status()


def _files(batch: dict[str, Any]) -> list[str]:
    return [str(batch[k]) for k in ("output_file_id", "error_file_id") if batch.get(k)]


# -- submitting ----------------------------------------------------------------------------------------------------


def _key(idempotency_key: str | None) -> str:
    return idempotency_key if idempotency_key is not None else uuid.uuid4().hex


def _to_cancel(created: list[dict[str, Any]], keyed: bool) -> list[str]:
    """A create failed after others succeeded: without the caller's key, the batches made cannot be found
    again by a resubmission, so they are cancelled (best effort) rather than left to run and bill unseen;
    with it, a second `submit_batch` returns them and creates only what is missing."""
    return [] if keyed else [str(b["id"]) for b in created]


def _not_cancelled(batch_id: str, error: Exception) -> None:
    logger.warning("could not cancel batch %s after a failed submit_batch: %s", batch_id, error)


def submit(
    transport: Transport, lines: Sequence[bytes], metadata: Mapping[str, str], idempotency_key: str | None, read: Reader
) -> BatchJob:
    """Upload the lines (split within the limits), then create a batch for each file; the job.

    Every file is uploaded before any batch is created, so a refused upload starts nothing.
    """
    parts, key = split(lines), _key(idempotency_key)
    uploads = [transport.post_form(FILES, *_upload(p, key, n), api=API) for n, p in enumerate(parts)]
    batches: list[dict[str, Any]] = []
    try:
        for n, (part, upload) in enumerate(zip(parts, uploads, strict=True)):
            body = _create_body(upload["id"], part, metadata)
            batches.append(transport.post_with(BATCHES, body, {"Idempotency-Key": f"{key}-{n}"}, api=API))
    except Exception:
        for batch_id in _to_cancel(batches, idempotency_key is not None):
            try:
                transport.post(f"{BATCHES}/{batch_id}/cancel", b"{}", api=API)
            except Exception as error:  # best effort: the create's error is the one raised
                _not_cancelled(batch_id, error)
        raise
    return BatchJob(transport, batches, read)


async def asubmit(
    transport: Transport, lines: Sequence[bytes], metadata: Mapping[str, str], idempotency_key: str | None, read: Reader
) -> BatchJob:
    parts, key = split(lines), _key(idempotency_key)
    uploads = [await transport.apost_form(FILES, *_upload(p, key, n), api=API) for n, p in enumerate(parts)]
    batches: list[dict[str, Any]] = []
    try:
        for n, (part, upload) in enumerate(zip(parts, uploads, strict=True)):
            body = _create_body(upload["id"], part, metadata)
            batches.append(await transport.apost_with(BATCHES, body, {"Idempotency-Key": f"{key}-{n}"}, api=API))
    except Exception:
        for batch_id in _to_cancel(batches, idempotency_key is not None):
            try:
                await transport.apost(f"{BATCHES}/{batch_id}/cancel", b"{}", api=API)
            except Exception as error:  # best effort: the create's error is the one raised
                _not_cancelled(batch_id, error)
        raise
    return BatchJob(transport, batches, read)


def get(transport: Transport, job_id: Any, read: Reader) -> BatchJob:
    return BatchJob(transport, [transport.get(f"{BATCHES}/{i}", api=API) for i in batch_ids(job_id)], read)


async def aget(transport: Transport, job_id: Any, read: Reader) -> BatchJob:
    return BatchJob(transport, [await transport.aget(f"{BATCHES}/{i}", api=API) for i in batch_ids(job_id)], read)
