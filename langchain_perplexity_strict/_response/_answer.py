"""The answer being built from one response, whichever event or chunk carried each piece.

The readers (`_agent`, `_chat`) call its methods; they never change its
fields. It owns the text pipeline (`<think>` reasoning split out, then
client-side stop sequences, text kept pending until the next stream chunk),
the sources (each citation and search result kept once), tool calls (once per
id), usage and metadata. Turning it into a message or a chunk is `_render`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.ai import UsageMetadata

from langchain_perplexity_strict._continuation import Context
from langchain_perplexity_strict._response import _render
from langchain_perplexity_strict._response._records import search_result
from langchain_perplexity_strict._response._server_item_collector import ServerItems
from langchain_perplexity_strict._response._stop import StopFilter
from langchain_perplexity_strict._response._think import ThinkSplitter
from langchain_perplexity_strict._response._usage import read_usage, usage_extras
from langchain_perplexity_strict.errors import PerplexityIncompleteError, PerplexityStreamError


@dataclass
class Answer:
    """Everything gathered from one response: text, reasoning, sources, tool calls, usage, metadata."""

    output_version: str = "v0"
    stops: Sequence[str] = ()
    text: str = ""
    reasoning: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    citations: list[str] = field(default_factory=list)
    search_results: list[dict[str, Any]] = field(default_factory=list)
    annotations: list[dict[str, Any]] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
    thought_signatures: dict[str, str] = field(default_factory=dict)
    context: Context | None = None
    """The call's conversation as the server will hold it (Agent API): the answer gets a continuation record."""
    usage: UsageMetadata | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    finished: bool = False
    raise_on_length: bool = False
    """Whether an answer cut at the output limit raises (`PerplexityIncompleteError`) instead of returning."""
    parse_as: type | None = None
    """A Pydantic class the finished answer's text is parsed into (`additional_kwargs["parsed"]`)."""
    stream_usage: bool = True
    """Whether a stream's last chunk carries `usage_metadata` (`stream_usage=False`: not; invoke's message does)."""
    server: ServerItems = field(default_factory=ServerItems)
    """The server tools' and skills' output items, and their blocks not streamed yet."""

    def __post_init__(self) -> None:
        self._think = ThinkSplitter()
        self._stop = StopFilter(self.stops)
        self._pending_reasoning: list[str] = []
        self._pending_text: list[str] = []
        self._cited = set(self.citations)  # Sonar repeats every URL in every chunk: look up, don't scan
        self._results_kept = {_result_key(r) for r in self.search_results}
        self._call_ids = {c["id"] for c in self.tool_calls}
        self._sent_citations = 0  # sources already streamed in an earlier chunk
        self._sent_results = 0

    # -- text, piece by piece ---------------------------------------------------------

    def add_text(self, piece: str) -> tuple[str, str]:
        """Add raw content; return the `(reasoning, answer)` text safe to emit."""
        reasoning, answer = self._think.feed(piece)
        return self._take(reasoning, answer)

    def flush_text(self) -> tuple[str, str]:
        """At the end of the content: what the splitter and filter still hold."""
        reasoning, answer = self._think.flush()
        reasoning, answer = self._take(reasoning, answer)
        if not self._stop.stopped:
            held = self._stop.flush()
            self.text += held
            answer += held
        return reasoning, answer

    def _take(self, reasoning: str, answer: str) -> tuple[str, str]:
        self.reasoning += reasoning
        answer = self._stop.feed(answer) if answer else ""
        if self._stop.stopped:
            self.metadata["stop_sequence"] = self._stop.matched
        self.text += answer
        return reasoning, answer

    def add_reasoning(self, piece: str) -> None:
        """Reasoning that arrives as its own events (Agent API)."""
        self.reasoning += piece

    @property
    def stopped(self) -> bool:
        """Whether a stop sequence matched (the rest of the answer is not wanted)."""
        return self._stop.stopped

    def pend(self, reasoning: str, answer: str) -> None:
        """Keep text for the next stream chunk (what one event brings goes out together)."""
        if reasoning:
            self._pending_reasoning.append(reasoning)
        if answer:
            self._pending_text.append(answer)

    def take_pending(self) -> tuple[str, str]:
        """The pending `(reasoning, answer)` text, now taken."""
        reasoning, text = "".join(self._pending_reasoning), "".join(self._pending_text)
        self._pending_reasoning.clear()
        self._pending_text.clear()
        return reasoning, text

    def take_text(self) -> list[AIMessageChunk]:
        """One chunk for all pending text and the sources found since the last chunk, or none.

        Taken after each event: sources go out as soon as an event brings them,
        before the answer ends; each citation and search result is streamed once.
        """
        return _render.text_chunks(self)

    # -- sources, tool calls, extras ------------------------------------------------------

    def add_search_results(self, results: Sequence[dict[str, Any]]) -> None:
        """Keep each record once; citations are their URLs, in order.

        A record is its URL and its `id`: a stream repeats the same records (its events, the item, the
        response), while a later search may find a URL again under another `id`, which `[n]` markers cite.
        """
        for record in results:
            key = _result_key(record)
            if key not in self._results_kept:
                self.search_results.append(search_result(record))
                self._results_kept.add(key)
        self.add_citations(r["url"] for r in results if r.get("url"))

    def add_citations(self, urls: Iterable[str]) -> None:
        """Keep each URL once (Sonar repeats them in every chunk)."""
        for url in urls:
            if url not in self._cited:
                self.citations.append(url)
                self._cited.add(url)

    def add_annotation(self, annotation: dict[str, Any]) -> None:
        """A `url_citation` annotation (kept once)."""
        if annotation.get("type") == "url_citation" and annotation not in self.annotations:
            self.annotations.append(annotation)
            if annotation.get("url"):
                self.add_citations([annotation["url"]])

    def unsent_sources(self) -> dict[str, Any]:
        """The citations and search results not streamed yet, now counted as sent."""
        kwargs: dict[str, Any] = {}
        if len(self.citations) > self._sent_citations:
            kwargs["citations"] = self.citations[self._sent_citations :]
            self._sent_citations = len(self.citations)
        if len(self.search_results) > self._sent_results:
            kwargs["search_results"] = self.search_results[self._sent_results :]
            self._sent_results = len(self.search_results)
        return kwargs

    def add_tool_call(self, call_id: Any, name: Any, arguments: Any, thought_signature: Any = None) -> None:
        """A function call, once per id; a thinking model's `thought_signature` is kept to echo back.

        A call that comes without an id gets one by its position, so its result can answer it (and
        invoke and stream name it alike).
        """
        call_id = call_id or f"call_without_id_{len(self.tool_calls)}"
        if call_id in self._call_ids:
            return
        self._call_ids.add(call_id)
        self.tool_calls.append({"id": call_id, "name": name, "arguments": arguments or ""})
        if thought_signature:
            self.thought_signatures[str(call_id)] = str(thought_signature)

    def add_items(self, key: str, items: Sequence[Any]) -> None:
        """Records with no standard place (`images`, `videos`, `related_questions`, `reasoning_steps`):
        `additional_kwargs[key]`, each kept once (Sonar repeats them in every chunk that carries them)."""
        known = self.extras.setdefault(key, [])
        known.extend(item for item in items if item not in known)

    def add_queries(self, queries: Sequence[str]) -> None:
        """The search queries Perplexity ran (`additional_kwargs["search_queries"]`), once each."""
        known = self.extras.setdefault("search_queries", [])
        known.extend(q for q in queries if q not in known)

    @property
    def waits_for_the_app(self) -> bool:
        """`requires_action` with something for the app to do: run function calls, or approve MCP calls."""
        return self.metadata.get("status") == "requires_action" and bool(
            self.tool_calls or self.server.approval_requests()
        )

    # -- the end --------------------------------------------------------------------------

    def end(self, data: dict[str, Any], finish_reason: Any, **fields: Any) -> None:
        """The response is complete: its id, served model (as `model_name` and `model`), `fields` (the Agent
        API's `status` and `object`), the finish reason, usage (also as sent, `token_usage`, where `ChatOpenAI`
        keeps a chat completion's) and cost."""
        usage = data.get("usage")
        self.usage = read_usage(usage)
        served = {"model_name": data.get("model"), "model": data.get("model")}
        self.metadata.update({"id": data.get("id"), **served, **fields, "finish_reason": finish_reason})
        self.metadata.update({"token_usage": usage} if usage else {})
        self.metadata.update(usage_extras(usage))
        self.finished = True

    def fail(self) -> None:
        """The run failed (the reader raises next): the answer so far is final."""
        self.pend(*self.flush_text())
        self.finished = True

    def partial(self) -> AIMessage | None:
        """For a failed run's error: what it produced and reported (usage, cost), once its end was read;
        the text is not parsed into `parse_as`, as a failed run's text is no answer."""
        if not self.finished:
            return None
        parse_as, self.parse_as = self.parse_as, None
        try:
            return self.message()
        finally:
            self.parse_as = parse_as

    def cut_at_length(self, message: str) -> None:
        """The answer reached the token limit: `finish_reason: "length"`, as `ChatOpenAI` reports it, or
        with `raise_on_length`, `PerplexityIncompleteError(message)` with the answer on `.partial`."""
        self.metadata["finish_reason"] = "length"
        if self.raise_on_length:
            raise PerplexityIncompleteError(message, self.message())

    def close_stream(self) -> list[AIMessageChunk]:
        """The stream ended: complete only after a terminal event or a matched stop."""
        if self.finished:
            return []
        if self.stopped:
            self.metadata.setdefault("finish_reason", "stop")
            self.finished = True
            return [self.final_chunk()]
        msg = (
            "the Perplexity stream ended before its final event, so the answer may be cut "
            f"short ({len(self.text)} characters received)"
        )
        raise PerplexityStreamError(msg)

    def note(self, key: str, value: Any) -> None:
        """`response_metadata[key]` (compaction, continuation) set by the chat model."""
        self.metadata[key] = value

    # -- as LangChain messages (`_render`) ---------------------------------------------------

    def message(self) -> AIMessage:
        """The whole answer as one message (invoke)."""
        return _render.message(self)

    def final_chunk(self) -> AIMessageChunk:
        """The last stream chunk: pending text, sources, usage (once), metadata, tool calls."""
        return _render.final_chunk(self)

    def context_record(self, message: AIMessage) -> dict[str, Any] | None:
        """The continuation record, for a completed answer that is whole (no stop sequence cut it)."""
        status = self.metadata.get("status")
        if self.context is None or self.stopped or not self.metadata.get("id"):
            return None
        if status != "completed" and not self.waits_for_the_app:
            return None
        return self.context.record(message)


def _result_key(record: Mapping[str, Any]) -> tuple[Any, Any]:
    """What makes a search result record the same record: its URL and its `id` (`[n]` markers cite ids)."""
    return record.get("url"), record.get("id")
