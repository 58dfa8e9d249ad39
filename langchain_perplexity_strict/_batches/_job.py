"""A submitted batch job: submit (upload, create), then status, results and cancel, sync and async.

A job is one or more batches; each batch's metadata numbers its inputs, so its id alone rebuilds the job.
Creates carry an `Idempotency-Key` (docs.perplexity.ai, "Create a batch"), so retries are safe.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_perplexity_strict._accepts import IDEMPOTENCY_KEY, RESULTS_TIMEOUT, check
from langchain_perplexity_strict._batches._lines import ENDPOINT, FilePart, split
from langchain_perplexity_strict._batches._results import Outcome, Part, Reader, collect, job_status, status_of
from langchain_perplexity_strict._once import log
from langchain_perplexity_strict._transport import Call, Steps, Transport, adrive, drive, encode_body
from langchain_perplexity_strict.errors import PerplexityBatchTimeoutError

logger = logging.getLogger("langchain_perplexity_strict")
API = "batch"
FILES = "/v1/files"
BATCHES = "/v1/batches"
METADATA_KEYS = ("langchain_perplexity_strict", "first_input", "inputs", "lines_sha256", "stop")
"""Keys this package writes on each batch; callers may not reuse them."""
FIRST_POLL, POLL_GROWTH, MAX_POLL = 0.2, 1.5, 30.0
"""Seconds between status checks."""

Then = Callable[[Outcome], Outcome]


def _call(name: str, *args: Any) -> Call:
    """A Batch API request for `drive`: the transport's method `name` and its arguments."""
    return name, args, {"api": API}


def _batch_metadata(part: FilePart, metadata: Mapping[str, str], stops: Sequence[str]) -> dict[str, str]:
    """The caller's `metadata` plus the batch's inputs, lines digest and stop sequences."""
    own = {
        "langchain_perplexity_strict": "1",
        "first_input": str(part.first),
        "inputs": str(len(part.lines)),
        "lines_sha256": hashlib.sha256(part.content).hexdigest(),
    }
    if stops:
        own["stop"] = json.dumps(list(stops), ensure_ascii=False)
    return {**metadata, **own}


def _same_submission(batch: dict[str, Any], sent: Mapping[str, str], idempotency_key: str | None) -> None:
    """Refuse a batch created for another submission: a reused key returns the original batch."""
    recorded = batch.get("metadata") or {}
    if all(recorded.get(k) == v for k, v in sent.items()):
        return
    what = "the inputs differ" if recorded.get("lines_sha256") != sent["lines_sha256"] else "the call differs"
    differing = sorted(k for k, v in sent.items() if recorded.get(k) != v)
    msg = (
        f"submit_batch: idempotency_key={idempotency_key!r} was already used for batch {batch.get('id')!r}, and "
        f"{what} from what that batch was created with (its metadata {differing} differs): Perplexity returns "
        "the original batch for a repeated key, whose answers are not those of these inputs. Pass the same "
        "inputs and arguments to collect that submission (or get_batch(its id)), or a new key for new inputs."
    )
    raise ValueError(msg)


def check_metadata(metadata: Any) -> dict[str, str]:
    """A caller's `metadata`: strings only, none of this package's keys."""
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


def check_key(idempotency_key: Any) -> None:
    """A caller's `idempotency_key`: None or a non-empty string."""
    check("idempotency_key", idempotency_key, IDEMPOTENCY_KEY)


def recorded_stops(batch: Mapping[str, Any]) -> tuple[str, ...]:
    """The stop sequences a batch's metadata records."""
    try:
        stops = json.loads((batch.get("metadata") or {})["stop"])
    except (KeyError, TypeError, ValueError):  # none recorded, or not JSON
        return ()
    return tuple(s for s in stops if isinstance(s, str)) if isinstance(stops, list) else ()


def _part_of(batch: dict[str, Any]) -> Part:
    metadata = batch.get("metadata") or {}
    first, count = metadata.get("first_input"), metadata.get("inputs")
    if metadata.get("langchain_perplexity_strict") != "1" or not str(first).isdigit() or not str(count).isdigit():
        msg = (
            f"batch {batch.get('id')!r} was not submitted by submit_batch: its metadata does not number the "
            "inputs, so its results cannot be put back in input order."
        )
        raise ValueError(msg)
    return Part(str(batch["id"]), int(str(first)), int(str(count)), recorded_stops(batch))


def batch_ids(job_id: Any) -> list[str]:
    """The batch ids in a job id, checked."""
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
    """Inputs submitted to Perplexity's Batch API; made by `model.submit_batch` or `model.get_batch`."""

    def __init__(self, transport: Transport, batches: list[dict[str, Any]], read: Reader, then: Then | None = None):
        self._transport = transport
        self._parts = _parts_in_order(batches)
        self.batches: dict[str, dict[str, Any]] = {str(b["id"]): b for b in batches}
        """Each batch's `BatchOutput` as last seen."""
        self._read = read
        self._then = then
        self._outcomes: dict[str, list[Outcome]] = {}

    def __repr__(self) -> str:
        return f"BatchJob(id={self.id!r}, inputs={len(self)}, status={self._status()!r})"

    def __len__(self) -> int:
        return sum(p.count for p in self._parts)

    @property
    def id(self) -> str:
        """The job's id for `get_batch`: its batch ids joined by commas."""
        return ",".join(p.id for p in self._parts)

    @property
    def ids(self) -> tuple[str, ...]:
        """The batch ids, in input order."""
        return tuple(p.id for p in self._parts)

    def then(self, step: Then) -> BatchJob:
        """The same job, each answer passed through `step` (a parser)."""
        job = BatchJob(self._transport, list(self.batches.values()), self._read, step)
        job._outcomes = self._outcomes
        return job

    def _status(self) -> str:
        return job_status([str(b.get("status")) for b in self.batches.values()])

    def _pending(self) -> list[str]:
        return [i for i, b in self.batches.items() if not status_of(str(b.get("status"))).over]

    def _refresh(self, ids: Sequence[str]) -> Steps[str]:
        for batch_id in ids:
            self.batches[batch_id] = yield _call("get", f"{BATCHES}/{batch_id}")
        return self._status()

    def status(self) -> str:
        """The job's status, refreshed (`job_status`)."""
        return drive(self._transport, self._refresh(self._pending() or list(self.batches)))

    async def astatus(self) -> str:
        return await adrive(self._transport, self._refresh(self._pending() or list(self.batches)))

    def _results(self, timeout: float | None) -> Steps[list[Outcome]]:
        check("timeout", timeout, RESULTS_TIMEOUT)
        deadline = math.inf if timeout is None else time.monotonic() + timeout
        wait = FIRST_POLL
        while True:
            yield from self._refresh(self._pending())
            pending = ",".join(self._pending())
            if not pending:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                raise PerplexityBatchTimeoutError(
                    f"batch {pending} still {self._status()} after {timeout} s; it goes on on Perplexity (not "
                    f"cancelled): call results() again later, here or in another process with get_batch({self.id!r}).",
                    pending,
                    self._status(),
                )
            yield "sleep", (min(wait, left),), {}
            wait = min(wait * POLL_GROWTH, MAX_POLL)
        for part in self._parts:
            if part.id not in self._outcomes:
                batch = self.batches[part.id]
                files = []
                for key in ("output_file_id", "error_file_id"):
                    if batch.get(key):
                        files.append((yield _call("get_bytes", f"{FILES}/{batch[key]}/content")))
                self._outcomes[part.id] = collect(part, batch, files, self._read)
        outcomes = [o for p in self._parts for o in self._outcomes[p.id]]
        return outcomes if self._then is None else [o if isinstance(o, Exception) else self._then(o) for o in outcomes]

    def results(self, timeout: float | None = None) -> list[Outcome]:
        """Wait up to `timeout` seconds (None: no limit); each input's `AIMessage` or `PerplexityBatchError`."""
        return drive(self._transport, self._results(timeout))

    async def aresults(self, timeout: float | None = None) -> list[Outcome]:
        return await adrive(self._transport, self._results(timeout))

    def _cancel(self) -> Steps[str]:
        for batch_id in self._pending():
            self.batches[batch_id] = yield _call("post", f"{BATCHES}/{batch_id}/cancel", b"{}")
        return self._status()

    def cancel(self) -> str:
        """Cancel the running batches; return the status. Finished answers stay in `results()`."""
        return drive(self._transport, self._cancel())

    async def acancel(self) -> str:
        return await adrive(self._transport, self._cancel())


# -- submitting ----------------------------------------------------------------------------------------------------


def _submit(
    transport: Transport,
    lines: Sequence[bytes],
    metadata: Mapping[str, str],
    idempotency_key: str | None,
    read: Reader,
    stops: Sequence[str] = (),
) -> Steps[BatchJob]:
    """Upload every file, then create a batch per file; a refused upload starts nothing."""
    parts = split(lines)
    key = idempotency_key if idempotency_key is not None else uuid.uuid4().hex
    uploads = []
    for n, part in enumerate(parts):
        file = (f"batch-{key}-{n}.jsonl", part.content, "application/jsonl")
        uploads.append((yield _call("post_form", FILES, {"purpose": "batch"}, {"file": file})))
    batches: list[dict[str, Any]] = []
    try:
        for n, (part, upload) in enumerate(zip(parts, uploads, strict=True)):
            sent = _batch_metadata(part, metadata, stops)
            body = {"endpoint": ENDPOINT, "input_file_id": upload["id"], "completion_window": "24h", "metadata": sent}
            headers = {"Idempotency-Key": f"{key}-{n}"}
            batch = yield _call("post", BATCHES, encode_body(body), headers)
            _same_submission(batch, sent, idempotency_key)
            batches.append(batch)
    except Exception as error:
        failed = []
        # Keyless batches are cancelled: no resubmission can find them.
        for batch_id in [] if idempotency_key is not None else [str(b["id"]) for b in batches]:
            try:
                yield _call("post", f"{BATCHES}/{batch_id}/cancel", b"{}")
            except Exception as why:  # best effort: raise the create's error
                log(logger, logging.WARNING, "could not cancel batch %s after a failed submit_batch: %s", batch_id, why)
                failed.append(batch_id)
        if failed and hasattr(error, "add_note"):  # Python 3.11+; the log names them on 3.10
            ids = ",".join(failed)
            error.add_note(
                f"submit_batch: batch {ids} was created before this error and could not be cancelled; it runs "
                f"until cancelled: get_batch({ids!r}).cancel()."
            )
        raise
    return BatchJob(transport, batches, read)


def submit(transport: Transport, *request: Any) -> BatchJob:
    """Submit the lines; `request`: `_submit`'s arguments after the transport."""
    return drive(transport, _submit(transport, *request))


async def asubmit(transport: Transport, *request: Any) -> BatchJob:
    return await adrive(transport, _submit(transport, *request))


def _get(transport: Transport, job_id: Any, read: Reader) -> Steps[BatchJob]:
    batches = []
    for batch_id in batch_ids(job_id):
        batches.append((yield _call("get", f"{BATCHES}/{batch_id}")))
    return BatchJob(transport, batches, read)


def get(transport: Transport, job_id: Any, read: Reader) -> BatchJob:
    return drive(transport, _get(transport, job_id, read))


async def aget(transport: Transport, job_id: Any, read: Reader) -> BatchJob:
    return await adrive(transport, _get(transport, job_id, read))
