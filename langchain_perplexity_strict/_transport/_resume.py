"""Resume a broken stream where it broke (`stream_chunk_timeout`, `max_resumes`), to the run's terminal event.

A broken stream is picked up with `GET /v1/responses/{id}?stream=true&starting_after=N` (N the last event's
`sequence_number`), repeated events dropped; the run is never posted again (docs/long-runs.md).

An async call's stream is closed when its caller closes the model's `astream` (`StreamScope`): langchain-core's
`astream` leaves `_astream` to the loop's finalizer, which never runs when `asyncio.run` ends first.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import openai

from langchain_perplexity_strict._transport._client import aiterate_batches, iterate_batches
from langchain_perplexity_strict._transport._guard import CALLER_LEFT
from langchain_perplexity_strict._transport._runs import Runs, Steps, adrive, drive
from langchain_perplexity_strict.errors import PerplexityResumeError, PerplexityRunUnknownError, PerplexityStreamError

RESUME_BACKOFF = 0.25
"""Seconds before the second resume in a row (the first is immediate); doubled each time, up to `RESUME_BACKOFF_MAX`."""
RESUME_BACKOFF_MAX = 4.0

Batch = tuple[list[dict[str, Any]], bool]


@dataclass
class Cursor:
    """Where a followed run stands: its id, the last event received, and the resumes so far."""

    terminal: Callable[[Mapping[str, Any]], bool]
    response_id: str | None = None
    after: int | None = None
    """The `sequence_number` of the last event received."""
    finished: bool = False
    """A terminal event arrived: the run is over, nothing to resume or cancel."""
    idle: int = 0
    """Resumed connections in a row that brought no new event."""
    unnumbered: bool = False
    """Events came without `sequence_number` (chat completions): such a stream cannot be resumed."""
    resumes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def resumable(self) -> bool:
        return self.response_id is not None and self.after is not None

    def take(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The events of `batch` not received before (a resumed stream may repeat some), noting the newest."""
        fresh = []
        for event in batch:
            number = event.get("sequence_number")
            if isinstance(number, int):
                if self.after is not None and number <= self.after:
                    continue
                self.after = number
            else:
                self.unnumbered = True
            response = event.get("response")
            if self.response_id is None and isinstance(response, dict) and isinstance(response.get("id"), str):
                self.response_id = response["id"]
            if self.terminal(event):
                self.finished = True
            fresh.append(event)
        if fresh:
            self.idle = 0
        return fresh


def stalled(error: BaseException) -> bool:
    """Whether a broken stream broke because no bytes came for the read timeout (httpx's, or its fork's)."""
    cause = error.__cause__ or error
    return isinstance(cause, TimeoutError) or type(cause).__name__.endswith("Timeout")


class _Follower:
    """What the sync and async followers share: the cursor, and the decisions on a break."""

    def __init__(self, runs: Runs, stream: Any, *, background: bool, max_resumes: int) -> None:
        self.runs = runs
        self.stream = stream
        self.background = background
        self.max_resumes = max_resumes
        self.metadata: dict[str, Any] = {}
        """Where the resumes are noted: the caller sets the answer's `response_metadata` here."""
        self.cursor = Cursor(runs.states.terminal)
        self.failures = 0
        """Resume requests in a row that failed."""
        self.over: dict[str, Any] | None = None
        """The run as retrieved once it was over, while its last events are fetched."""
        self.gave_up = False
        """Resuming failed for good: the run is left to finish on the server (the error names it)."""
        self.closed = False
        self.early: list[Batch] = []
        """Batches read by `identify`, before the caller iterates."""

    def read(self, batch: list[dict[str, Any]], ended: bool) -> Batch | None:
        """What one network read passes on, marked ended if the answer is complete; None when nothing new."""
        fresh = self.cursor.take(batch)
        if ended and not self.cursor.finished and self.cursor.resumable:
            return (fresh, False) if fresh else None  # resumed next
        if ended and self.background and not self.cursor.finished:
            raise self.unidentified("the Perplexity stream ended")
        return (fresh, ended) if fresh or ended else None

    def reason(self, error: PerplexityStreamError) -> str:
        """Why the stream broke, when it can be resumed; otherwise the error to raise, raised."""
        stall = stalled(error)
        if self.cursor.resumable:
            return "stall" if stall else "connection broken"
        if isinstance(error, PerplexityRunUnknownError) or (self.cursor.unnumbered and not stall):
            raise error
        if stall:
            read = self.runs.read_timeout
            # The read timeout is the lower of `timeout` and `stream_chunk_timeout`: name the one that fired.
            setting = "stream_chunk_timeout" if self.runs.stall and read == self.runs.stall else "timeout"
            detail = (
                f"Perplexity sent no bytes for {read} seconds ({setting})"
                if read
                else "Perplexity sent no bytes within the client's read timeout (timeout)"
            )
        else:
            cause = error.__cause__ or error
            detail = f"the connection to Perplexity broke ({type(cause).__name__}: {cause})"
        raise self.unidentified(detail) from error

    def unidentified(self, detail: str) -> PerplexityStreamError:
        """The error for a stream that broke (as `detail` says) before any event identified its run."""
        if self.cursor.unnumbered:
            return PerplexityStreamError(f"{detail}; the answer is incomplete.")
        return PerplexityRunUnknownError(
            f"{detail} before any event identified the run, so it cannot be resumed; the answer is incomplete. "
            "The run may have started on Perplexity, and be billed; it was not posted again."
        )

    def standing(self, response: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The run's terminal event once it is over and its last events were asked for; else None (resume)."""
        if not self.runs.states.over(response):
            self.over = None
            return None
        if self.over is None:
            self.over = response  # resume once more: the events after `after` may still be there
            return None
        self.cursor.finished = True
        return [self.runs.states.as_event(response)]

    def note(self, reason: str) -> float:
        """Count one resume (raising once `max_resumes` requests in a row failed); the backoff before it."""
        cursor = self.cursor
        if self.failures >= self.max_resumes:
            how = (
                f"({reason}) after event {cursor.after}, and resuming is off (max_resumes=0)"
                if not self.max_resumes
                else f"and {self.failures} resume requests in a row failed ({reason}; max_resumes={self.max_resumes}); "
                f"the last event received was number {cursor.after}"
            )
            msg = (
                f"the stream of Perplexity run {cursor.response_id} broke {how}. The run was not posted again; it may "
                f"still finish on the server (GET /v1/responses/{cursor.response_id})."
            )
            self.gave_up = True
            raise PerplexityResumeError(msg, cursor.response_id, cursor.after)
        waited = cursor.idle + self.failures
        delay = min(RESUME_BACKOFF * 2 ** (waited - 1), RESUME_BACKOFF_MAX) if waited else 0.0
        cursor.idle += 1  # until the new connection brings something
        cursor.resumes.append({"starting_after": cursor.after, "reason": reason})
        self.metadata["resumes"] = cursor.resumes
        return delay

    def refused(self, error: openai.APIStatusError) -> PerplexityResumeError:
        """The error for a resume the server refuses for good."""
        cursor = self.cursor
        msg = (
            f"Perplexity cannot resume run {cursor.response_id} after event {cursor.after} "
            f"(HTTP {error.status_code}: {error.message}). The run was not posted again."
        )
        if not self.background:
            msg += " Runs created with background=True can always be resumed."
        self.gave_up = True
        return PerplexityResumeError(msg, cursor.response_id, cursor.after)

    def failed(self, error: openai.APIError) -> str:
        """A resume request failed: raise if for good, else count it and say why."""
        if isinstance(error, openai.APIStatusError):
            if error.status_code < 500 and error.status_code not in (408, 409, 429):
                raise self.refused(error) from error
            self.failures += 1
            return f"resume answered HTTP {error.status_code}"
        self.failures += 1
        return f"resume failed ({type(error).__name__})"

    def recovering(self, reason: str) -> Steps[Any]:
        """After an early end: the run's terminal event as the last batch if it is over, else a new stream."""
        if self.cursor.idle:  # the last connection brought nothing: ask where the run stands
            try:
                terminal = self.standing((yield "retrieve", (str(self.cursor.response_id),), {}))
            except openai.APIError as error:
                if isinstance(error, openai.APIStatusError) and error.status_code == 404:  # the run is unknown
                    raise self.refused(error) from error
                terminal = None  # left to the resume that follows
            if terminal is not None:
                return terminal, True
        while True:
            delay = self.note(reason)
            if delay:
                yield "sleep", (delay,), {}
            try:
                stream = yield "resume", (str(self.cursor.response_id), int(self.cursor.after or 0)), {}
            except openai.APIError as error:
                reason = self.failed(error)
                continue
            self.failures = 0
            return stream

    def must_cancel(self) -> str | None:
        """The id of the background run the caller leaves before its end, to cancel (none once resuming failed)."""
        if self.closed:
            return None
        self.closed = True
        if not self.cursor.finished and not self.gave_up:
            return self.cursor.response_id
        return None


class StreamFollower(_Follower):
    """The batches of a run's events, across as many connections as it takes (sync)."""

    reads: Generator[Batch, None, None] | None = None

    def identify(self) -> None:
        """Read until an event names the run, keeping what was read for `events`: a background stream is handed
        over once its run can be cancelled (`_guard`)."""
        self.reads = self._follow()
        for batch in self.reads:
            self.early.append(batch)
            if self.cursor.response_id is not None or batch[1]:
                break

    def events(self) -> Iterator[dict[str, Any]]:
        """The run's events one by one, however the network splits them."""
        reads = self.reads = self.reads or self._follow()
        left = CALLER_LEFT.get()  # set, in a thread of `batch`, once its caller left by Ctrl-C
        with contextlib.closing(reads):
            for batch, _ in itertools.chain(self.early, reads):
                yield from batch
                if left is not None and left.is_set():  # closed (a background run cancelled) by the caller's `finally`
                    raise KeyboardInterrupt

    def _follow(self) -> Generator[Batch, None, None]:
        while True:
            try:
                with contextlib.closing(
                    iterate_batches(self.stream, self.runs.api, self.runs.transport.hints)
                ) as reads:
                    for batch, ended in reads:
                        out = self.read(batch, ended)
                        if out is not None:
                            yield out
                            if out[1]:
                                return
                reason = "ended before the terminal event"
            except PerplexityStreamError as error:
                reason = self.reason(error)
            self.stream.close()
            again = drive(self.runs, self.recovering(reason))
            if isinstance(again, tuple):  # the run is over: its terminal event ends the batches
                yield again
                return
            self.stream = again

    def close(self) -> None:
        """Close the connection; cancel the run on the server if the caller leaves a background run early."""
        if self.reads is not None:
            self.reads.close()
        self.stream.close()
        response_id = self.must_cancel() if self.background else None
        if response_id is not None:
            self.runs.cancel(response_id)


class AsyncStreamFollower(_Follower):
    """Async twin of `StreamFollower`."""

    reads: AsyncGenerator[Batch, None] | None = None

    async def identify(self) -> None:
        self.reads = self._follow()
        async for batch in self.reads:
            self.early.append(batch)
            if self.cursor.response_id is not None or batch[1]:
                break

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        reads = self.reads = self.reads or self._follow()
        async with contextlib.aclosing(reads):
            while self.early:
                for event in self.early.pop(0)[0]:
                    yield event
            async for batch, _ in reads:
                for event in batch:
                    yield event

    async def _follow(self) -> AsyncGenerator[Batch, None]:
        while True:
            try:
                # Closed here, not left to the garbage collector ("Task was destroyed but it is pending").
                async with contextlib.aclosing(
                    aiterate_batches(self.stream, self.runs.api, self.runs.transport.hints)
                ) as reads:
                    async for batch, ended in reads:
                        out = self.read(batch, ended)
                        if out is not None:
                            yield out
                            if out[1]:
                                return
                reason = "ended before the terminal event"
            except PerplexityStreamError as error:
                reason = self.reason(error)
            await self.stream.close()
            again = await adrive(self.runs, self.recovering(reason))
            if isinstance(again, tuple):
                yield again
                return
            self.stream = again

    async def close(self) -> None:
        """Async twin of `StreamFollower.close` (the cancel request waits a moment at most)."""
        response_id = self.must_cancel() if self.background else None
        try:
            if self.reads is not None:
                await self.reads.aclose()
            await self.stream.close()
        finally:
            if response_id is not None:
                await self.runs.acancel(response_id)


_SCOPE: ContextVar[list[AsyncStreamFollower] | None] = ContextVar("perplexity_stream_scope", default=None)


def opened(follower: AsyncStreamFollower) -> AsyncStreamFollower:
    """Record `follower` in the current scope, unless that scope has its stream already: a task started while an
    `astream` is suspended copies its context, and its stream is its own."""
    scope = _SCOPE.get()
    if scope is not None and not scope:
        scope.append(follower)
    return follower


class StreamScope:
    """The stream one `astream` call opens: entered before the call's first step, closed from its `finally`."""

    def __init__(self) -> None:
        self.followers: list[AsyncStreamFollower] = []
        self.token = _SCOPE.set(self.followers)

    async def close(self, outer: AsyncIterator[Any] | None = None) -> None:
        """Close the stream opened in this scope, then `outer` (langchain-core's `astream`: its callbacks end now)."""
        try:
            with contextlib.suppress(ValueError):  # ended from another context (a finalizer's): nothing to restore
                _SCOPE.reset(self.token)
            for follower in self.followers:
                await follower.close()
        finally:
            aclose = getattr(outer, "aclose", None)  # an async generator's
            if aclose is not None:
                await aclose()
