"""The Batch API as the emulator enforces and answers it: `/v1/files` and `/v1/batches`, on the run clock.

Perplexity's Batch API (docs.perplexity.ai, "Batch API", and the API reference pages "Upload a file",
"Create a batch", "Retrieve a batch", "Cancel a batch", "Retrieve file content"), with the shapes of
`FileObjectOutput`, `BatchCreateRequestInput` and `BatchOutput` in Perplexity's SDK:

- `POST /v1/files` (multipart: `file`, `purpose: batch`) stores a JSONL file of Agent API requests, at most
  50,000 lines and 200 MB, every line checked before the file is stored: its shape (`custom_id` unique,
  `method: POST`, `url: /v1/responses`, `body`) and its body by the same request checker as
  `POST /v1/responses` (the published schema, then the documented rules and the conversation rules);
  `expires_after` is refused. `GET /v1/files/{id}`, `GET /v1/files/{id}/content` and `GET /v1/files` read it back.
- `POST /v1/batches` (`endpoint: /v1/responses`, `input_file_id`, `completion_window: 24h`, `metadata`)
  honours `Idempotency-Key`: a repeat with the same key returns the original batch. `output_expires_after`
  is refused. `GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`, `GET /v1/batches` (list).

A batch runs on the emulator's clock (`.clock`: the machine's, or a test's `ManualClock`), compressed
(`run_duration`, seconds for the whole batch; 0 ends it at once): `validating` for its first tenth,
`in_progress` (its lines done evenly) to nine tenths, `finalizing`, then `completed`. Nothing runs in the
background: the status is computed from the clock when asked, and the answers (the same as
`POST /v1/responses` gives) when the output file is first needed. Output lines are `{"id", "custom_id",
"response": {"status_code", "request_id", "body"}, "error"}`, in OpenAI's shape, and in no particular order
(shuffled, seeded by the batch id), as a client must join them on `custom_id`.

Faults (`inject_batch_faults(emu, BatchFault(...))`, applied to the next batch created): `line_error` (that
line answers HTTP 500, in the error file), `line_failed` (that line's run ends with status `failed`),
`failed` (the batch fails validation, its `errors` naming the line), `expired` and `cancelled` (the batch
ends so after `after_lines` lines: expired lines are in the error file with code `batch_expired`, cancelled
ones in neither file). The create takes the emulator's own faults (`Fault`: `rate_limit`, `server_error`
before anything is created; `drop` once the batch is created, so its answer is lost).
`batch_status(emu, batch_id, status)` pins a batch's status, for a test that must see one.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Literal

from langchain_perplexity_strict.testing import agent_api
from langchain_perplexity_strict.testing.conversation import check_conversation, turns_from_agent_input
from langchain_perplexity_strict.testing.dialect import live_id, live_response
from langchain_perplexity_strict.testing.errors import APIError, invalid
from langchain_perplexity_strict.testing.handler import Reset
from langchain_perplexity_strict.testing.run_routes import RunRoutes
from langchain_perplexity_strict.testing.state import RecordedRequest

MAX_LINES = 50_000
MAX_FILE_BYTES = 200_000_000  # "200 MB"
ENDPOINT = "/v1/responses"
WINDOW = 24 * 3600
ERROR_TYPE = "invalid_request"
STATUSES = ("validating", "in_progress", "finalizing", "completed", "expired", "cancelling", "cancelled", "failed")
FINAL = ("completed", "expired", "cancelled", "failed")

BatchFaultKind = Literal["line_error", "line_failed", "failed", "expired", "cancelled"]


@dataclass(frozen=True)
class BatchFault:
    """One misbehaviour of the next batch created. `line` (from 0) names the line of `line_error`,
    `line_failed` and `failed`; `after_lines` is how many lines run before `expired` or `cancelled`."""

    kind: BatchFaultKind
    line: int = 0
    after_lines: int = 0


@dataclass
class StoredFile:
    id: str
    account: str
    filename: str
    purpose: str
    content: bytes
    created_at: int = field(default_factory=lambda: int(time.time()))

    def object(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.content),
            "created_at": self.created_at,
            "expires_at": self.created_at + 30 * 24 * 3600,  # kept 30 days (docs.perplexity.ai, "Batch API")
            "filename": self.filename,
            "purpose": self.purpose,
        }


@dataclass
class Batch:
    """One batch on the clock: its lines, its faults, and its files once written."""

    id: str
    account: str
    input_file_id: str
    lines: list[dict[str, Any]]
    metadata: dict[str, str] | None
    duration: float
    faults: tuple[BatchFault, ...] = ()
    live: bool = False
    """Whether its answers are in the live dialect (`.dialect`), as `POST /v1/responses` answers them."""
    started: float = field(default_factory=time.monotonic)
    created_at: int = field(default_factory=lambda: int(time.time()))
    cancelled_at: float | None = None
    pinned: str | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    usage: dict[str, Any] | None = None
    written: bool = False

    def _fault(self, kind: str) -> BatchFault | None:
        return next((f for f in self.faults if f.kind == kind), None)

    def _elapsed(self, now: float) -> float:
        return (now - self.started) / self.duration if self.duration > 0 else 1.0

    def lines_done(self, now: float) -> int:
        """How many lines have run by `now` (evenly through `in_progress`), bounded by an end fault or a cancel."""
        fraction = min(1.0, max(0.0, (self._elapsed(now) - 0.1) / 0.8))
        done = int(len(self.lines) * fraction)
        for kind in ("expired", "cancelled"):
            fault = self._fault(kind)
            if fault is not None:
                done = min(done, fault.after_lines)
        if self.cancelled_at is not None:
            done = min(done, int(len(self.lines) * min(1.0, max(0.0, (self._elapsed(self.cancelled_at) - 0.1) / 0.8))))
        return done

    def status(self, now: float) -> str:
        if self.pinned is not None:
            return self.pinned
        elapsed = self._elapsed(now)
        if self._fault("failed") is not None:
            return "validating" if elapsed < 0.1 else "failed"
        if self.cancelled_at is not None:
            # Cancelling takes a twentieth of the run, half a second at most: what ran is kept.
            return "cancelling" if now - self.cancelled_at < min(0.05 * self.duration, 0.5) else "cancelled"
        if elapsed < 0.1:
            return "validating"
        end = self._fault("expired") or self._fault("cancelled")
        if end is not None and elapsed >= 0.1 + 0.8 * end.after_lines / max(1, len(self.lines)):
            return end.kind
        if elapsed < 0.9:
            return "in_progress"
        return "finalizing" if elapsed < 1.0 else "completed"


class BatchStore:
    """The files and batches of one emulator, and the idempotency keys of its creates."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.files: dict[str, StoredFile] = {}
        self.batches: dict[str, Batch] = {}
        self.keys: dict[tuple[str, str], str] = {}
        self.pending_faults: list[BatchFault] = []


def _store(state: Any) -> BatchStore:
    store = getattr(state, "batch_store", None)
    if store is None:
        with state.lock:
            store = getattr(state, "batch_store", None)
            if store is None:
                store = BatchStore()
                state.batch_store = store
    return store


def inject_batch_faults(emulator: Any, *faults: BatchFault) -> None:
    """Apply `faults` to the next batch `emulator` creates."""
    store = _store(emulator._state)
    with store.lock:
        store.pending_faults.extend(faults)


def batch_status(emulator: Any, batch_id: str, status: str | None) -> None:
    """Pin batch `batch_id` at `status` (one of the published statuses), or let it follow the clock (None)."""
    if status is not None and status not in STATUSES:
        raise ValueError(f"status {status!r} is not a published batch status: {STATUSES}")
    store = _store(emulator._state)
    with store.lock:
        store.batches[batch_id].pinned = status


# -- checks ----------------------------------------------------------------------------------------------------


def check_lines(content: bytes, models: tuple[str, ...], rules: Any) -> list[dict[str, Any]]:
    """The lines of a batch input file, each checked as `POST /v1/responses` checks a body (400 naming the line)."""
    if len(content) > MAX_FILE_BYTES:
        raise invalid(ERROR_TYPE, f"the file is {len(content)} bytes; a batch file holds at most 200 MB", "file")
    texts = content.splitlines()
    if len(texts) > MAX_LINES:
        raise invalid(ERROR_TYPE, f"the file has {len(texts)} lines; a batch file holds at most 50000", "file")
    lines, seen = [], set()
    for number, text in enumerate(texts, start=1):
        try:
            record = json.loads(text)
        except ValueError:
            raise invalid(ERROR_TYPE, f"line {number}: not a JSON object (no blank lines)", "file") from None
        if not isinstance(record, dict) or set(record) != {"custom_id", "method", "url", "body"}:
            raise invalid(ERROR_TYPE, f"line {number}: expected custom_id, method, url and body", "file")
        custom_id = record["custom_id"]
        if not isinstance(custom_id, str) or not custom_id or custom_id in seen:
            raise invalid(ERROR_TYPE, f"line {number}: custom_id {custom_id!r} is missing or repeated", "file")
        seen.add(custom_id)
        if record["method"] != "POST" or record["url"] != ENDPOINT:
            raise invalid(ERROR_TYPE, f"line {number}: method must be POST and url {ENDPOINT}", "file")
        try:
            agent_api.validate_request(record["body"], models)
            if isinstance(record["body"]["input"], list):
                turns = turns_from_agent_input(record["body"]["input"])
                check_conversation(turns, rules, agent_api.ERROR_TYPE)
        except APIError as error:
            raise invalid(error.type, f"line {number}: {error.message}", error.param) from None
        lines.append(record)
    if not lines:
        raise invalid(ERROR_TYPE, "the file has no lines", "file")
    return lines


def _check_create(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise invalid(ERROR_TYPE, "invalid request body: expected a JSON object")
    if "output_expires_after" in body:  # docs.perplexity.ai, "Create a batch": not supported, a 400
        raise invalid(ERROR_TYPE, "output_expires_after is not supported", "output_expires_after")
    for name in body:
        if name not in ("endpoint", "input_file_id", "completion_window", "metadata"):
            raise invalid(ERROR_TYPE, f'invalid request body: json: unknown field "{name}"', name)
    if body.get("endpoint") != ENDPOINT:
        raise invalid(ERROR_TYPE, f"endpoint must be {ENDPOINT}", "endpoint")
    if body.get("completion_window", "24h") != "24h":
        raise invalid(ERROR_TYPE, "completion_window must be 24h", "completion_window")
    if not isinstance(body.get("input_file_id"), str):
        raise invalid(ERROR_TYPE, "input_file_id is required", "input_file_id")
    metadata = body.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        raise invalid(ERROR_TYPE, "metadata must map strings to strings", "metadata")
    return body


# -- answers ---------------------------------------------------------------------------------------------------


def _answer_line(record: dict[str, Any], models: tuple[str, ...], fault: str | None, live: bool) -> dict[str, Any]:
    """One output line: the response `POST /v1/responses` gives for the line's body (or a fault's), in the
    emulator's dialect."""
    line_id = f"batch_req_{uuid.uuid4().hex}"
    request_id = live_id("resp") if live else f"resp_{uuid.uuid4().hex}"
    if fault == "line_error":
        error = {"message": "emulated failure of this request", "type": "internal_error", "code": 500}
        response = {"status_code": 500, "request_id": request_id, "body": {"error": error}}
        return {"id": line_id, "custom_id": record["custom_id"], "response": response, "error": None}
    body = record["body"]
    served = agent_api.validate_request(body, models)
    answer = agent_api.build_answer(body)
    result = agent_api.response_object(body, served, answer, response_id=request_id)
    if fault == "line_failed":
        result["status"] = "failed"
        result["error"] = {
            "code": "server_error",
            "type": "server_error",
            "message": "emulated failure: the run failed",
        }
    if live:
        result = live_response(body, result)
    response = {"status_code": 200, "request_id": request_id, "body": result}
    return {"id": line_id, "custom_id": record["custom_id"], "response": response, "error": None}


def _write_files(store: BatchStore, batch: Batch, status: str, now: float, models: tuple[str, ...]) -> None:
    """The output and error files of a batch that has ended, written once."""
    if batch.written or status not in FINAL or status == "failed":
        return
    batch.written = True
    done = len(batch.lines) if status == "completed" else batch.lines_done(now)
    faults = {f.line: f.kind for f in batch.faults if f.kind in ("line_error", "line_failed")}
    outputs: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    totals = {"input_tokens": 0, "output_tokens": 0, "cached": 0}
    for index, record in enumerate(batch.lines[:done]):
        line = _answer_line(record, models, faults.get(index), batch.live)
        body = line["response"]["body"]
        (errors if line["response"]["status_code"] != 200 else outputs).append(line)
        usage = body.get("usage") or {}
        totals["input_tokens"] += usage.get("input_tokens", 0)
        totals["output_tokens"] += usage.get("output_tokens", 0)
        totals["cached"] += (usage.get("input_tokens_details") or {}).get("cache_read_input_tokens", 0)
    if status == "expired":
        for record in batch.lines[done:]:
            error = {"code": "batch_expired", "message": "This request could not be executed before the batch expired."}
            line_id = f"batch_req_{uuid.uuid4().hex}"
            errors.append({"id": line_id, "custom_id": record["custom_id"], "response": None, "error": error})
    for kind, lines in (("output_file_id", outputs), ("error_file_id", errors)):
        random.Random(batch.id).shuffle(lines)  # not in input order: a client joins on custom_id
        if lines:
            content = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
            name = f"{batch.id}_{kind.removesuffix('_file_id')}.jsonl"
            stored = StoredFile(f"file_{uuid.uuid4().hex}", batch.account, name, "batch_output", content)
            store.files[stored.id] = stored
            setattr(batch, kind, stored.id)
    batch.usage = {
        "input_tokens": totals["input_tokens"],
        "input_tokens_details": {"cached_tokens": totals["cached"]},
        "output_tokens": totals["output_tokens"],
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": totals["input_tokens"] + totals["output_tokens"],
    }


def batch_object(store: BatchStore, batch: Batch, models: tuple[str, ...], now: float) -> dict[str, Any]:
    """`BatchOutput` as of `now` (on the emulator's clock)."""
    status = batch.status(now)
    with store.lock:  # two requests at once write the files once
        _write_files(store, batch, status, now, models)
    done = len(batch.lines) if status == "completed" else batch.lines_done(now)
    if status in ("validating", "failed"):
        done = 0
    failed = sum(1 for f in batch.faults if f.kind in ("line_error", "line_failed") and f.line < done)
    wall = batch.created_at
    out: dict[str, Any] = {
        "id": batch.id,
        "object": "batch",
        "endpoint": ENDPOINT,
        "input_file_id": batch.input_file_id,
        "completion_window": "24h",
        "status": status,
        "created_at": wall,
        "expires_at": wall + WINDOW,
        "request_counts": {"total": len(batch.lines), "completed": done - failed, "failed": failed},
        "usage": batch.usage
        or {
            "input_tokens": 0,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 0,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 0,
        },
        "metadata": batch.metadata,
        "output_file_id": batch.output_file_id,
        "error_file_id": batch.error_file_id,
    }
    if status != "validating":
        out["in_progress_at"] = wall
    if status in ("finalizing", "completed"):
        out["finalizing_at"] = wall
    stamp = {"completed": "completed_at", "expired": "expired_at", "cancelled": "cancelled_at", "failed": "failed_at"}
    if status in stamp:
        out[stamp[status]] = int(time.time())
    if batch.cancelled_at is not None:
        out["cancelling_at"] = wall
    if status == "failed":
        fault = batch._fault("failed")
        line = (fault.line if fault else 0) + 1
        message = "emulated validation failure of this line"
        out["errors"] = {"object": "list", "data": [{"code": "invalid_request", "line": line, "message": message}]}
    return out


def _listed(data: list[dict[str, Any]]) -> dict[str, Any]:
    """A list answer (`BatchListOutput`, `FileObjectListOutput`): every item, newest first, in one page."""
    first, last = (data[0]["id"], data[-1]["id"]) if data else (None, None)
    return {"object": "list", "data": data, "has_more": False, "first_id": first, "last_id": last}


# -- routes ----------------------------------------------------------------------------------------------------


class BatchRoutes(RunRoutes):
    """`/v1/files` and `/v1/batches`: each request recorded, checked and answered here."""

    def _serve_batches(self, method: str, path: str) -> bool:
        """Answer `method path` if it is a Batch API route (True), else leave it to the router (False)."""
        if not (path == "/v1/files" or path.startswith(("/v1/files/", "/v1/batches"))):
            return False
        record = self._record(method, path, None)
        try:
            self._batch_route(method, path, record)
        except APIError as error:
            self._send_error(error)
        except Reset:
            pass
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        return True

    def _batch_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        self._quickack()
        return self.rfile.read(length) if length else b""

    def _batch_object(self, store: BatchStore, batch: Batch) -> dict[str, Any]:
        """`BatchOutput` as of now on the emulator's clock."""
        return batch_object(store, batch, self.state.agent_models, self.state.clock.now())

    def _batch_route(self, method: str, path: str, record: RecordedRequest) -> None:
        raw = self._batch_body() if method == "POST" else b""
        self._check_auth()
        store = _store(self.state)
        parts = path.strip("/").split("/")  # v1, files|batches, id?, content|cancel?
        if method == "POST" and parts == ["v1", "files"]:
            self._upload(store, raw, record)
        elif method == "GET" and parts == ["v1", "files"]:
            files = [f.object() for f in reversed(store.files.values()) if f.account == self._account()]
            self._send_json(200, _listed(files))
        elif method == "GET" and len(parts) in (3, 4) and parts[1] == "files":
            stored = store.files.get(parts[2])
            if stored is None or stored.account != self._account():
                raise APIError(404, "not_found", f"no file with id {parts[2]!r}")
            if len(parts) == 3:
                self._send_json(200, stored.object())
            elif parts[3] == "content":
                self._send_bytes(stored.content)
            else:
                raise APIError(404, "not_found", f"no route for GET {path}")
        elif method == "POST" and parts == ["v1", "batches"]:
            record.body = json.loads(raw) if raw else None
            self._create_batch(store, record)
        elif method == "GET" and parts == ["v1", "batches"]:
            mine = [b for b in store.batches.values() if b.account == self._account()]
            self._send_json(200, _listed([self._batch_object(store, b) for b in reversed(mine)]))
        elif method == "GET" and len(parts) == 3 and parts[1] == "batches":
            self._send_json(200, self._batch_object(store, self._find_batch(store, parts[2])))
        elif method == "POST" and len(parts) == 4 and parts[1] == "batches" and parts[3] == "cancel":
            batch = self._find_batch(store, parts[2])
            fault = self.state.next_fault()
            self._pre_answer_fault(fault)
            with store.lock:
                now = self.state.clock.now()
                status = batch.status(now)
                if status in FINAL:
                    raise invalid(ERROR_TYPE, f"batch {batch.id!r} is already {status}; it cannot be cancelled")
                if batch.cancelled_at is None:
                    batch.cancelled_at = now
            answer = self._batch_object(store, batch)
            if answer["status"] == "cancelled" and batch.duration == 0:
                answer["status"] = "cancelling"  # the answer to a cancel says it is under way
            self._send_json(200, answer)
        else:
            raise APIError(404, "not_found", f"no route for {method} {path}")

    def _find_batch(self, store: BatchStore, batch_id: str) -> Batch:
        batch = store.batches.get(batch_id)
        if batch is None or batch.account != self._account():
            raise APIError(404, "not_found", f"no batch with id {batch_id!r}")
        return batch

    def _send_bytes(self, content: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def _upload(self, store: BatchStore, raw: bytes, record: RecordedRequest) -> None:
        kind = self.headers.get("Content-Type", "")
        if not kind.startswith("multipart/form-data"):
            raise invalid(ERROR_TYPE, "POST /v1/files takes multipart/form-data (file, purpose)")
        form = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + kind.encode() + b"\r\n\r\n" + raw)
        fields: dict[str, Any] = {}
        filename = "upload.jsonl"
        for part in form.iter_parts():
            name = part.get_param("name", header="content-disposition")
            filename = part.get_filename() or filename
            fields[str(name)] = part.get_payload(decode=True) or b""
        record.body = {k: (v.decode() if k != "file" else f"<{len(v)} bytes>") for k, v in fields.items()}
        if "expires_after" in fields or any(k.startswith("expires_after") for k in fields):
            raise invalid(ERROR_TYPE, "expires_after is not supported", "expires_after")
        unknown = sorted(set(fields) - {"file", "purpose"})
        if unknown:
            raise invalid(ERROR_TYPE, f"unknown field {unknown[0]!r}", unknown[0])
        if fields.get("purpose") != b"batch":
            raise invalid(ERROR_TYPE, "purpose must be batch", "purpose")
        if "file" not in fields:
            raise invalid(ERROR_TYPE, "file is required", "file")
        fault = self.state.next_fault()
        self._pre_answer_fault(fault)
        check_lines(fields["file"], self.state.agent_models, self.state.rules)
        stored = StoredFile(f"file_{uuid.uuid4().hex}", self._account(), filename, "batch", fields["file"])
        with store.lock:
            store.files[stored.id] = stored
        self._send_json(200, stored.object())

    def _create_batch(self, store: BatchStore, record: RecordedRequest) -> None:
        body = _check_create(record.body)
        stored = store.files.get(body["input_file_id"])
        if stored is None or stored.account != self._account() or stored.purpose != "batch":
            message = f"input_file_id {body['input_file_id']!r}: no batch file with this id"
            raise invalid(ERROR_TYPE, message, "input_file_id")
        fault = self.state.next_fault()
        if fault is not None and fault.kind != "drop":
            self._pre_answer_fault(fault)  # refused (429, 5xx) or delayed before anything is created
        key = self.headers.get("Idempotency-Key")
        with store.lock:
            known = store.keys.get((self._account(), key)) if key else None
            if known is not None:
                batch = store.batches[known]  # "a repeat with the same key returns the original batch"
            else:
                lines = [json.loads(t) for t in stored.content.splitlines()]
                faults, store.pending_faults = tuple(store.pending_faults), []
                batch_id, duration = f"batch_{uuid.uuid4().hex}", self.state.run_duration
                live = self.state.dialect == "live"
                metadata, started = body.get("metadata"), self.state.clock.now()
                batch = Batch(batch_id, self._account(), stored.id, lines, metadata, duration, faults, live, started)
                store.batches[batch.id] = batch
                if key:
                    store.keys[(self._account(), key)] = batch.id
        if fault is not None and fault.kind == "drop":
            self._pre_answer_fault(fault)  # the batch exists; its answer is lost
        self._send_json(200, self._batch_object(store, batch))
