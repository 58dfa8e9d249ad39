"""The endpoints of a background run: retrieve it, resume its stream, cancel it.

Paths and shapes are the published Agent API's (`responses.retrieve` with `stream` and `starting_after`, and
`responses.cancel` in Perplexity's SDK).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import quote

import openai

from langchain_perplexity_strict._once import log
from langchain_perplexity_strict._transport._client import Transport
from langchain_perplexity_strict._transport._loops import hold_open

logger = logging.getLogger(__name__)

T = TypeVar("T")
Call = tuple[str, tuple[Any, ...], dict[str, Any]]
"""A request a step generator asks for: the sync method's name on the target, its arguments; `sleep` waits."""
Steps = Generator[Call, Any, T]

CANCEL_WAIT = 2.0
"""Seconds a cancelled call waits, at most, for the server to acknowledge the cancel request."""


def body_read_timeout(client_timeout: Any, stall: float | None) -> float | None:
    """Seconds each read of a stream's body may wait: `stall`, or the client's read timeout when shorter (None: the
    client's own)."""
    if not stall:
        return None
    read = getattr(client_timeout, "read", client_timeout)  # seconds, an httpx.Timeout, or None
    return min(read, stall) if isinstance(read, (int, float)) and read else stall


def drive(target: Any, steps: Steps[T], sleep: Callable[[float], None] = time.sleep) -> T:
    """Run `steps` with `target`'s sync methods, each answer (or error) handed back to it."""
    answer: Any = None
    error: BaseException | None = None
    while True:
        try:
            name, args, kwargs = steps.throw(error) if error else steps.send(answer)
        except StopIteration as done:
            return done.value
        try:
            answer, error = (sleep if name == "sleep" else getattr(target, name))(*args, **kwargs), None
        except BaseException as failed:  # handed to the steps, which may clean up (cancel a run) and raise it
            answer, error = None, failed


async def adrive(target: Any, steps: Steps[T]) -> T:
    """`drive` with `target`'s async twins (the method's name with an `a` before it)."""
    answer: Any = None
    error: BaseException | None = None
    while True:
        try:
            name, args, kwargs = steps.throw(error) if error else steps.send(answer)
        except StopIteration as done:
            return done.value
        try:
            method = asyncio.sleep if name == "sleep" else getattr(target, "a" + name)
            answer, error = await method(*args, **kwargs), None
        except BaseException as failed:
            answer, error = None, failed


@dataclass(frozen=True)
class RunStates:
    """What a run's answers mean, in the reader's words (`_surfaces.RUN_STATES`): the transport knows no status."""

    pending: Callable[[Mapping[str, Any]], bool]
    """A retrieved run that is still going: polled on, cancelled when the caller leaves."""
    over: Callable[[Mapping[str, Any]], bool]
    """A retrieved run that has ended: its last events can be read from it."""
    terminal: Callable[[Mapping[str, Any]], bool]
    """A stream event after which the run sends nothing more."""
    as_event: Callable[[dict[str, Any]], dict[str, Any]]
    """A retrieved run that is over, as the stream event its reader reads a whole response from."""


@dataclass(frozen=True)
class RunSettings:
    """How a call follows its run: the stall timeout, failed resumes allowed in a row, the wait's bound."""

    stall: float | None
    max_resumes: int
    timeout: float | None


@dataclass
class Runs:
    """Retrieve, resume and cancel the runs of one endpoint (`path`)."""

    transport: Transport
    path: str
    api: str
    stall: float | None
    states: RunStates
    read_timeout: float | None
    """The bound on each read of a stream's body (`body_read_timeout`)."""
    cancelled: set[str] = field(default_factory=set)
    """Runs a cancel was sent for: each is sent once, however many ways of leaving reach it (`_guard`)."""

    def _path(self, response_id: str, suffix: str = "") -> str:
        return f"{self.path}/{quote(response_id, safe='')}{suffix}"

    def retrieve(self, response_id: str) -> dict[str, Any]:
        """`GET /v1/responses/{id}`: the run as it stands."""
        return self.transport.get(self._path(response_id), api=self.api)

    def resume(self, response_id: str, after: int) -> openai.Stream[Any]:
        """The run's events after sequence number `after`, as a stream."""
        query = {"stream": "true", "starting_after": after}
        return self.transport.stream(self._path(response_id), None, query, api=self.api, read_timeout=self.read_timeout)

    def cancel(self, response_id: str) -> bool:
        """Ask the server to cancel the run (once); never raises, and waits `CANCEL_WAIT` seconds at most."""
        if response_id in self.cancelled:
            return True
        self.cancelled.add(response_id)
        client = self.transport.chat_openai.root_client
        try:
            client.post(self._path(response_id, "/cancel"), cast_to=object, options=_CANCEL_OPTIONS)
        except Exception as error:  # best effort: the caller is already leaving
            _log_failure(response_id, error)
            return False
        return True

    async def aretrieve(self, response_id: str) -> dict[str, Any]:
        return await self.transport.aget(self._path(response_id), api=self.api)

    async def aresume(self, response_id: str, after: int) -> openai.AsyncStream[Any]:
        query = {"stream": "true", "starting_after": after}
        path, timeout = self._path(response_id), self.read_timeout
        return await self.transport.astream(path, None, query, api=self.api, read_timeout=timeout)

    async def acancel(self, response_id: str) -> bool:
        """Async twin of `cancel`: the request is shielded, so cancelling the caller again cannot cut it."""
        if response_id in self.cancelled:
            return True
        client = self.transport.async_client()
        if client.is_closed():  # the loop is shutting down (`_loops` closed its pool): send it the sync way
            return await asyncio.to_thread(self.cancel, response_id)
        self.cancelled.add(response_id)
        path = self._path(response_id, "/cancel")
        request = asyncio.ensure_future(client.post(path, cast_to=object, options=_CANCEL_OPTIONS))
        hold_open(request)
        # Logged once it ends, also when the caller stopped waiting: never an unretrieved task exception.
        request.add_done_callback(lambda done: _settled(response_id, done))
        try:
            await asyncio.wait_for(asyncio.shield(request), CANCEL_WAIT)
        except asyncio.CancelledError:
            raise  # the caller was cancelled again: stop waiting (the shielded request goes on)
        except Exception:  # best effort: `_settled` logs a failure
            return False
        return True


def _log_failure(response_id: str, error: BaseException) -> None:
    if isinstance(error, openai.BadRequestError):  # refused: the run ended before the cancel reached it
        log(logger, logging.INFO, "Perplexity run %s was over before its cancel arrived: %s", response_id, error)
        return
    log(logger, logging.WARNING, "could not cancel Perplexity run %s: %s: %s", response_id, type(error).__name__, error)


def _settled(response_id: str, request: asyncio.Future[Any]) -> None:
    """A cancel request ended: log its failure (which also marks its exception retrieved)."""
    if request.cancelled():
        log(logger, logging.WARNING, "could not cancel Perplexity run %s: the event loop closed first", response_id)
    elif (error := request.exception()) is not None:
        _log_failure(response_id, error)


_CANCEL_OPTIONS: Any = {"timeout": CANCEL_WAIT, "max_retries": 0}
