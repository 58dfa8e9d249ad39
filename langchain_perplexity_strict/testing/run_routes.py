"""The emulator's routes to a stored response: `GET /v1/responses/{id}` (polled or streamed again), cancel.

The endpoints and their parameters are the SDK's `responses.retrieve`
(`format`, `stream`, `starting_after`) and `responses.cancel` (answering
`ResponsesCancelResponseOutput`: `{"response_id", "status": "cancelling"}`).
What they leave open is chosen here and listed in docs/perplexity-rules.md.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from langchain_perplexity_strict.testing import response_files
from langchain_perplexity_strict.testing.agent_events import stream_events
from langchain_perplexity_strict.testing.answers import EmulatedAnswer
from langchain_perplexity_strict.testing.dialect import live_events
from langchain_perplexity_strict.testing.errors import APIError, invalid
from langchain_perplexity_strict.testing.handler import BaseHandler
from langchain_perplexity_strict.testing.runs import Run
from langchain_perplexity_strict.testing.state import Fault

RESPONSES_PREFIX = "/v1/responses/"
ERROR_TYPE = "invalid_request"


def cancel_path(path: str) -> bool:
    """Whether `path` is `POST /v1/responses/{id}/cancel`."""
    return path.startswith(RESPONSES_PREFIX) and path.endswith("/cancel") and path.count("/") == 4


class RunRoutes(BaseHandler):
    """The Agent API's answers as runs, and the routes that reach a run after its create."""

    def _account(self) -> str:
        """The caller's API key: what a stored response, a run and remembered roles belong to."""
        auth = self.headers.get("Authorization", "")
        return auth[7:] if auth.startswith("Bearer ") else ""

    def _check_auth(self) -> None:
        auth = self.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else ""
        if not token or (self.state.api_key is not None and token != self.state.api_key):
            raise APIError(401, "forbidden", "Invalid or missing API key (Authorization: Bearer ...)")

    def _serve_run(
        self, body: dict[str, Any], response: dict[str, Any], answer: EmulatedAnswer, fault: Fault | None
    ) -> None:
        """Answer a create: keep the run (unless `store: false`), then stream it, or answer at once.

        Background: the response as accepted (status `queued`), before any
        work; the run then goes on on the clock. A stream follows the run
        (`run_duration` paces it). Otherwise the finished response.
        """
        background = bool(body.get("background"))
        if background and body.get("store") is False:
            raise invalid(ERROR_TYPE, "background: true needs the response stored; store: false was sent", "store")
        state = self.state
        run = Run(
            response,
            lambda: self._events(body, response, answer),
            duration=state.run_duration if background or body.get("stream") else 0.0,
            queued_for=state.queue_time if background else 0.0,
            background=background,
            account=self._account(),
            clock=state.clock,
        )
        if body.get("store") is not False:
            state.runs.add(run)
        if body.get("stream"):
            self._stream_run(run, 0, fault)
        elif background:
            accepted = {**response, "status": "queued", "output": [], "usage": None}
            accepted.pop("error", None)
            self._answer_json(accepted, fault)
        else:
            self._answer_json(response, fault)

    def _events(self, body: dict[str, Any], response: dict[str, Any], answer: EmulatedAnswer) -> list[dict[str, Any]]:
        """The run's stream: the published events, in the live dialect unless `dialect="schema"`."""
        events = stream_events(response, answer, openai_events=self.state.openai_events)
        if self.state.dialect != "live":
            return list(events)
        return list(live_events(events, body, web_search=bool(answer.queries), reasoning=bool(answer.reasoning)))

    def _find_run(self, response_id: str) -> Run:
        run = self.state.runs.get(response_id)
        if run is None or run.account != self._account():  # another key's run is not there for this one
            raise APIError(404, "not_found", f"no response with id {response_id!r}")
        return run

    def _retrieve(self, path: str, query: str) -> None:
        """`GET /v1/responses/{id}`: the response as of now, or (`stream=true`) its events after `starting_after`."""
        self._check_auth()
        response_id = path[len(RESPONSES_PREFIX) :]
        if not response_id or "/" in response_id:
            raise APIError(404, "not_found", f"no route for GET {path}")
        stream, after, _format = _retrieve_params(query)
        run = self._find_run(response_id)
        fault = self.state.next_fault()
        self._pre_answer_fault(fault)
        if not stream:
            self._answer_json(run.snapshot(), fault)
            return
        if not run.background and not self.state.resumable_streams:
            raise invalid(
                ERROR_TYPE,
                f"response {response_id!r} was not created with background: true; "
                "only a background response can be streamed again",
                "stream",
            )
        last = run.last_number()
        if after is not None and after > last:
            raise invalid(
                ERROR_TYPE, f"starting_after {after} is past the response's last event ({last})", "starting_after"
            )
        self._stream_run(run, run.index_after(after), fault)

    def _files(self, path: str) -> None:
        """A run's shared files (`response_files`): the list, or one file's bytes."""
        self._check_auth()
        response_id, file_id = response_files.parse(path) or ("", None)
        run = self._find_run(response_id)  # another key's run is not there for this one
        fault = self.state.next_fault()
        self._pre_answer_fault(fault)
        response = run.snapshot()
        if file_id is None:
            self._answer_json({"object": "list", "data": response_files.shared_files(response)}, fault)
            return
        data, filename, kind = response_files.content(response, file_id)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Disposition", f'attachment; filename="{filename}"')
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _cancel(self, path: str) -> None:
        """`POST /v1/responses/{id}/cancel`: stop a queued or running response."""
        response_id = path[len(RESPONSES_PREFIX) : -len("/cancel")]
        run = self._find_run(response_id)
        fault = self.state.next_fault()
        self._pre_answer_fault(fault)
        status = run.status()
        if status in ("completed", "failed", "requires_action"):
            raise invalid(
                ERROR_TYPE,
                f"response {response_id!r} is already {status}; only a queued or in_progress response can be cancelled",
            )
        run.cancel()
        self._send_json(200, {"response_id": response_id, "status": "cancelling"})


def _retrieve_params(query: str) -> tuple[bool, int | None, str]:
    """`stream`, `starting_after` and `format` from a retrieve's query string, checked."""
    params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    stream = params.get("stream", "false").lower()
    if stream not in ("true", "false"):
        raise invalid(ERROR_TYPE, f"stream must be true or false, got {params['stream']!r}", "stream")
    after_text = params.get("starting_after")
    if after_text is not None and not after_text.isdigit():
        raise invalid(
            ERROR_TYPE, f"starting_after must be a non-negative integer, got {after_text!r}", "starting_after"
        )
    form = params.get("format", "default")
    if form not in ("default", "short"):
        raise invalid(ERROR_TYPE, f"format must be default or short, got {form!r}", "format")
    return stream == "true", None if after_text is None else int(after_text), form
