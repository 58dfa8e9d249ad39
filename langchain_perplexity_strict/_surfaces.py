"""The two surfaces, each one object: path, body builder, reader.

`SURFACES` is the only place a surface is chosen by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from langchain_core.messages import AIMessageChunk

from langchain_perplexity_strict._continuation import Context, ItemEncoder
from langchain_perplexity_strict._request._agent import (
    AGENT_RULES,
    PARTS,
    TOOL_OUTPUT_PARTS,
    agent_body,
    agent_items,
    model_and_preset,
)
from langchain_perplexity_strict._request._chat import PARTS as CHAT_PARTS
from langchain_perplexity_strict._request._chat import chat_body
from langchain_perplexity_strict._request._input import BodyInput, PartTable
from langchain_perplexity_strict._request._model_names import (
    agent_name_notice,
    chat_model_name,
    preset_notice,
    sonar_notice,
)
from langchain_perplexity_strict._request._parameter_row import CHAT_REASONING_EFFORTS, REASONING_EFFORTS
from langchain_perplexity_strict._response._agent import AgentStreamReader
from langchain_perplexity_strict._response._answer import Answer
from langchain_perplexity_strict._response._chat import ChatStreamReader
from langchain_perplexity_strict._response._vocabulary import as_terminal_event, over, pending, terminal
from langchain_perplexity_strict._transport import (
    AsyncStreamFollower,
    Fallback,
    Runs,
    RunSettings,
    RunStates,
    StreamFollower,
    Transport,
    aabandon,
    abandon,
    aguarded,
    await_run,
    guarded,
    opened,
    wait,
)
from langchain_perplexity_strict._transport._runs import body_read_timeout

RUN_STATES = RunStates(pending=pending, over=over, terminal=terminal, as_event=as_terminal_event)
"""What a run's answers mean, in the reader's words, for the transport."""


class Reader(Protocol):
    """Reads one surface's answer into its `Answer`: whole, or stream event by event."""

    answer: Answer

    def read(self, whole: dict[str, Any]) -> None: ...

    def feed(self, event: dict[str, Any]) -> list[AIMessageChunk]: ...

    def finish(self) -> list[AIMessageChunk]: ...


@dataclass(frozen=True, eq=False)
class Surface:
    """One API: its path, request builder, reader, and what it supports."""

    name: str
    path: str
    build_body: Callable[[BodyInput], dict[str, Any]]
    reader: Callable[[Answer], Reader]
    function_tools: bool
    """Whether client-side function tools exist."""
    encode_items: ItemEncoder | None
    """The item encoder continuations digest; None: responses are not stored."""
    resumable_streams: bool = False
    """Whether a broken stream is resumed by `sequence_number`, never re-posted."""

    error_hints: Mapping[str, str] = field(default_factory=dict)
    """Hints for errors only this surface answers, by error `type`."""

    model_notice: Callable[[str], str | None] = lambda model: None
    """The notice for a model name sent as another, else None."""

    settings_notice: Callable[[str | None, str | None], str | None] = lambda preset, effort: None
    """The notice for `preset` and `effort` (a deprecated `preset`), else None."""

    rules: Sequence[Any] = ()
    """Rules leaving out content this surface cannot take, run before the model's."""

    parts: PartTable = field(default_factory=dict)
    """The content parts its body builder writes, by canonical kind."""
    tool_parts: PartTable = field(default_factory=dict)
    """The parts a tool result takes."""
    reasoning_efforts: tuple[str, ...] = ()
    """The reasoning-effort levels the surface sends."""
    served: Callable[[Mapping[str, Any], bool], str | None] = lambda settings, explicit: settings["model"]
    """The model the body names (None: an effort picks it); `ValueError` if not served."""

    def notices(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
        """The notices for the call's settings on this surface (a model keeps its own: `_CallState`)."""
        said = (
            self.model_notice(settings["model"]),
            self.settings_notice(settings.get("preset"), settings.get("effort")),
        )
        return tuple(notice for notice in said if notice is not None)


SURFACES: dict[str, Surface] = {
    "agent": Surface(
        "agent",
        "/v1/responses",
        agent_body,
        AgentStreamReader,
        True,
        agent_items,
        True,
        model_notice=sonar_notice,
        settings_notice=preset_notice,
        rules=AGENT_RULES,
        parts=PARTS,
        tool_parts=TOOL_OUTPUT_PARTS,
        reasoning_efforts=REASONING_EFFORTS,
        served=lambda settings, explicit: model_and_preset(settings, explicit).get("model"),
    ),
    "chat_completions": Surface(
        "chat_completions",
        "/chat/completions",
        chat_body,
        ChatStreamReader,
        False,
        None,
        error_hints={
            # Perplexity's 403 since the retirement.
            "chat_completions_not_available": "Perplexity ended Sonar chat completions on 2026-09-27: use "
            "ChatPerplexityStrict(api='agent'), the default.",
        },
        model_notice=agent_name_notice,
        parts=CHAT_PARTS,
        tool_parts=CHAT_PARTS,
        reasoning_efforts=CHAT_REASONING_EFFORTS,
        served=lambda settings, explicit: chat_model_name(settings["model"]),
    ),
}


ERROR_HINTS: dict[str, str] = {
    kind: hint for surface in SURFACES.values() for kind, hint in surface.error_hints.items()
}
"""Every surface's error hints, for the one transport."""


@dataclass(frozen=True)
class PreparedCall:
    """A checked, normalized call, ready to send: the body as JSON and as the bytes posted."""

    surface: Surface
    body: dict[str, Any]
    data: bytes
    stops: tuple[str, ...]
    n: int
    output_version: str
    compaction: dict[str, Any] | None
    """What compaction kept and dropped, if it dropped anything."""
    context: Context | None
    """The conversation the server will hold, for the answer's record."""
    fallback: Fallback | None
    """A continuation's `Fallback`: the whole conversation."""
    run: RunSettings
    """How the call follows its run (docs/long-runs.md)."""
    parse_as: type | None
    """The Pydantic class to parse the answer into."""
    stream_usage: bool = True
    """Whether a stream's last chunk carries `usage_metadata`."""
    background: bool = False
    """Whether the body creates a background run (`background: true`)."""

    def runs(self, transport: Transport, settings: RunSettings) -> Runs:
        read_timeout = body_read_timeout(transport.chat_openai.root_client.timeout, settings.stall)
        return Runs(transport, self.surface.path, self.surface.name, settings.stall, RUN_STATES, read_timeout)

    # Each returns the answer and whether the fallback was used. Background creates are
    # guarded: a caller who leaves still gets the run cancelled.

    def send(self, transport: Transport, settings: RunSettings) -> tuple[dict[str, Any], bool]:
        background, surface = self.background, self.surface
        create = partial(transport.send, surface.path, self.data, self.fallback, api=surface.name, run=background)
        if not background:
            return create()
        runs = self.runs(transport, settings)
        return guarded(
            create, lambda sent: abandon(runs, sent[0]), lambda sent: (wait(runs, sent[0], settings), sent[1])
        )

    async def asend(self, transport: Transport, settings: RunSettings) -> tuple[dict[str, Any], bool]:
        background, surface = self.background, self.surface
        create = partial(transport.asend, surface.path, self.data, self.fallback, api=surface.name, run=background)
        if not background:
            return await create()
        runs = self.runs(transport, settings)

        async def left(sent: tuple[dict[str, Any], bool]) -> None:
            await aabandon(runs, sent[0])

        data, fell_back = await aguarded(create, left)
        return await await_run(runs, data, settings), fell_back

    def open_stream(self, transport: Transport, settings: RunSettings) -> tuple[StreamFollower, bool]:
        runs, background = self.runs(transport, settings), self.background
        resumable = background or self.surface.resumable_streams  # followed by id, never re-posted

        def start() -> tuple[StreamFollower, bool]:
            stream, fell_back = transport.open_stream(
                self.surface.path, self.data, self.fallback, api=runs.api, read_timeout=runs.read_timeout, run=resumable
            )
            follower = StreamFollower(runs, stream, background=background, max_resumes=settings.max_resumes)
            if background:
                try:
                    follower.identify()
                except BaseException:
                    follower.close()
                    raise
            return follower, fell_back

        return guarded(start, lambda started: started[0].close(), lambda started: started) if background else start()

    async def aopen_stream(self, transport: Transport, settings: RunSettings) -> tuple[AsyncStreamFollower, bool]:
        runs, background = self.runs(transport, settings), self.background
        resumable = background or self.surface.resumable_streams

        async def start() -> tuple[AsyncStreamFollower, bool]:
            stream, fell_back = await transport.aopen_stream(
                self.surface.path, self.data, self.fallback, api=runs.api, read_timeout=runs.read_timeout, run=resumable
            )
            follower = AsyncStreamFollower(runs, stream, background=background, max_resumes=settings.max_resumes)
            if background:
                try:
                    await follower.identify()
                except BaseException:
                    await follower.close()
                    raise
            return follower, fell_back

        async def left(started: tuple[AsyncStreamFollower, bool]) -> None:
            await started[0].close()

        follower, fell_back = await aguarded(start, left) if background else await start()
        return opened(follower), fell_back
