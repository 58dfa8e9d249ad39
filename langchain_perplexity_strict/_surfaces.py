"""The two surfaces, each one object: path, body builder, reader."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

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


@dataclass(frozen=True, eq=False)
class Surface:
    """One API: its path, request builder, reader, and what it supports."""

    name: str
    path: str
    build_body: Callable[[BodyInput], dict[str, Any]]
    reader: Callable[[Answer], AgentStreamReader | ChatStreamReader]
    function_tools: bool
    encode_items: ItemEncoder | None
    """None: responses are not stored, so none is continued."""
    resumable_streams: bool = False
    """A broken stream is resumed by `sequence_number`, never re-posted."""
    error_hints: Mapping[str, str] = field(default_factory=dict)
    """Hints for errors only this surface answers, by error `type`."""
    model_notice: Callable[[str], str | None] = lambda model: None
    settings_notice: Callable[[str | None, str | None], str | None] = lambda preset, effort: None
    """The notice for a deprecated `preset` (with `effort`), else None."""
    rules: Sequence[Any] = ()
    """Rules leaving out content this surface cannot take, run before the model's."""
    parts: PartTable = field(default_factory=dict)
    tool_parts: PartTable = field(default_factory=dict)
    reasoning_efforts: tuple[str, ...] = ()
    served: Callable[[Mapping[str, Any], bool], str | None] = lambda settings, explicit: settings["model"]
    """The model the body names (None: an effort picks it); `ValueError` if not served."""

    def notices(self, settings: Mapping[str, Any]) -> tuple[str, ...]:
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


@dataclass(frozen=True)
class PreparedCall:
    """A checked, normalized call, ready to send."""

    surface: Surface
    body: dict[str, Any]
    data: bytes
    stops: tuple[str, ...]
    n: int
    output_version: str
    compaction: dict[str, Any] | None
    context: Context | None
    fallback: Fallback | None
    """A continuation's `Fallback`: the whole conversation."""
    run: RunSettings
    parse_as: type | None
    stream_usage: bool = True
    background: bool = False

    def runs(self, transport: Transport) -> Runs:
        read_timeout = body_read_timeout(transport.chat_openai.root_client.timeout, self.run.stall)
        return Runs(transport, self.surface.path, self.surface.name, self.run.stall, RUN_STATES, read_timeout)

    # Each returns the answer and whether the fallback was used; leaving a background create cancels the run.

    def send(self, transport: Transport) -> tuple[dict[str, Any], bool]:
        background, surface = self.background, self.surface
        create = partial(transport.send, surface.path, self.data, self.fallback, api=surface.name, run=background)
        if not background:
            return create()
        runs = self.runs(transport)
        return guarded(
            create, lambda sent: abandon(runs, sent[0]), lambda sent: (wait(runs, sent[0], self.run), sent[1])
        )

    async def asend(self, transport: Transport) -> tuple[dict[str, Any], bool]:
        background, surface = self.background, self.surface
        create = partial(transport.asend, surface.path, self.data, self.fallback, api=surface.name, run=background)
        if not background:
            return await create()
        runs = self.runs(transport)
        data, fell_back = await aguarded(create, lambda sent: aabandon(runs, sent[0]))
        return await await_run(runs, data, self.run), fell_back

    def open_stream(self, transport: Transport) -> tuple[StreamFollower, bool]:
        runs, background = self.runs(transport), self.background
        resumable = background or self.surface.resumable_streams

        def start() -> tuple[StreamFollower, bool]:
            stream, fell_back = transport.open_stream(
                self.surface.path, self.data, self.fallback, api=runs.api, read_timeout=runs.read_timeout, run=resumable
            )
            follower = StreamFollower(runs, stream, background=background, max_resumes=self.run.max_resumes)
            if background:
                try:
                    follower.identify()
                except BaseException:
                    follower.close()
                    raise
            return follower, fell_back

        return guarded(start, lambda started: started[0].close(), lambda started: started) if background else start()

    async def aopen_stream(self, transport: Transport) -> tuple[AsyncStreamFollower, bool]:
        runs, background = self.runs(transport), self.background
        resumable = background or self.surface.resumable_streams

        async def start() -> tuple[AsyncStreamFollower, bool]:
            stream, fell_back = await transport.aopen_stream(
                self.surface.path, self.data, self.fallback, api=runs.api, read_timeout=runs.read_timeout, run=resumable
            )
            follower = AsyncStreamFollower(runs, stream, background=background, max_resumes=self.run.max_resumes)
            if background:
                try:
                    await follower.identify()
                except BaseException:
                    await follower.close()
                    raise
            return follower, fell_back

        follower, fell_back = await (aguarded(start, lambda started: started[0].close()) if background else start())
        return opened(follower), fell_back
