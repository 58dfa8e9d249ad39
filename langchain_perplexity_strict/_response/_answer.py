"""The answer built from one response (stops applied, citations gathered), whichever event carried each piece.

Readers call its methods, never set its fields. It owns the text pipeline (`<think>`, stops, pending),
sources and tool calls (each once), usage and metadata; `_render` makes messages.
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
    """The conversation as the server holds it, for a continuation record."""
    usage: UsageMetadata | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    finished: bool = False
    raise_on_length: bool = False
    """Whether a cut answer raises `PerplexityIncompleteError`."""
    parse_as: type | None = None
    """A Pydantic class to parse the text into."""
    stream_usage: bool = True
    """Whether a stream's last chunk carries `usage_metadata`."""
    server: ServerItems = field(default_factory=ServerItems)

    def __post_init__(self) -> None:
        self._think = ThinkSplitter()
        self._stop = StopFilter(self.stops)
        self._pending_reasoning: list[str] = []
        self._pending_text: list[str] = []
        self._cited = set(self.citations)  # Sonar repeats URLs in every chunk
        self._results_kept = {_result_key(r) for r in self.search_results}
        self._call_ids = {c["id"] for c in self.tool_calls}
        self._sent_citations = 0
        self._sent_results = 0

    # -- text, piece by piece ---------------------------------------------------------

    def add_text(self, piece: str) -> tuple[str, str]:
        """Add raw content; return the `(reasoning, answer)` text safe to emit."""
        reasoning, answer = self._think.feed(piece)
        return self._take(reasoning, answer)

    def flush_text(self) -> tuple[str, str]:
        """At the end: what the splitter and filter hold."""
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
        """Reasoning from its own events (Agent API)."""
        self.reasoning += piece

    @property
    def stopped(self) -> bool:
        """Whether a stop sequence matched."""
        return self._stop.stopped

    def pend(self, reasoning: str, answer: str) -> None:
        """Keep text for the next stream chunk."""
        if reasoning:
            self._pending_reasoning.append(reasoning)
        if answer:
            self._pending_text.append(answer)

    def take_pending(self) -> tuple[str, str]:
        """Take the pending `(reasoning, answer)` text."""
        reasoning, text = "".join(self._pending_reasoning), "".join(self._pending_text)
        self._pending_reasoning.clear()
        self._pending_text.clear()
        return reasoning, text

    def take_text(self) -> list[AIMessageChunk]:
        """One chunk for pending text and new sources, or none; each source streams once."""
        return _render.text_chunks(self)

    # -- sources, tool calls, extras ------------------------------------------------------

    def add_search_results(self, results: Sequence[dict[str, Any]]) -> None:
        """Keep each record once (by URL and `id`); citations are their URLs, in order."""
        for record in results:
            key = _result_key(record)
            if key not in self._results_kept:
                self.search_results.append(search_result(record))
                self._results_kept.add(key)
        self.add_citations(r["url"] for r in results if r.get("url"))

    def add_citations(self, urls: Iterable[str]) -> None:
        """Keep each URL once."""
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
        """Take the citations and search results not streamed yet."""
        kwargs: dict[str, Any] = {}
        if len(self.citations) > self._sent_citations:
            kwargs["citations"] = self.citations[self._sent_citations :]
            self._sent_citations = len(self.citations)
        if len(self.search_results) > self._sent_results:
            kwargs["search_results"] = self.search_results[self._sent_results :]
            self._sent_results = len(self.search_results)
        return kwargs

    def add_tool_call(self, call_id: Any, name: Any, arguments: Any, thought_signature: Any = None) -> None:
        """A function call, once per id; `thought_signature` is kept to echo back.

        A call without an id gets one by position, alike in invoke and stream.
        """
        call_id = call_id or f"call_without_id_{len(self.tool_calls)}"
        if call_id in self._call_ids:
            return
        self._call_ids.add(call_id)
        self.tool_calls.append({"id": call_id, "name": name, "arguments": arguments or ""})
        if thought_signature:
            self.thought_signatures[str(call_id)] = str(thought_signature)

    def add_items(self, key: str, items: Sequence[Any]) -> None:
        """Records with no standard place, in `additional_kwargs[key]`, each once."""
        known = self.extras.setdefault(key, [])
        known.extend(item for item in items if item not in known)

    def add_queries(self, queries: Sequence[str]) -> None:
        """The search queries Perplexity ran, once each."""
        known = self.extras.setdefault("search_queries", [])
        known.extend(q for q in queries if q not in known)

    @property
    def waits_for_the_app(self) -> bool:
        """`requires_action` with function calls or approvals for the app."""
        return self.metadata.get("status") == "requires_action" and bool(
            self.tool_calls or self.server.approval_requests()
        )

    # -- the end --------------------------------------------------------------------------

    def end(self, data: dict[str, Any], finish_reason: Any, **fields: Any) -> None:
        """The response is complete: keep id, model, `fields`, finish reason, usage and cost."""
        usage = data.get("usage")
        self.usage = read_usage(usage)
        served = {"model_name": data.get("model"), "model": data.get("model")}
        self.metadata.update({"id": data.get("id"), **served, **fields, "finish_reason": finish_reason})
        self.metadata.update({"token_usage": usage} if usage else {})
        self.metadata.update(usage_extras(usage))
        self.finished = True

    def fail(self) -> None:
        """The run failed: the answer so far is final."""
        self.pend(*self.flush_text())
        self.finished = True

    def partial(self) -> AIMessage | None:
        """A failed run's output for its error, unparsed; None before its end was read."""
        if not self.finished:
            return None
        parse_as, self.parse_as = self.parse_as, None
        try:
            return self.message()
        finally:
            self.parse_as = parse_as

    def cut_at_length(self, message: str) -> None:
        """The answer hit the token limit: `finish_reason: "length"`, or raise with `raise_on_length`."""
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
        """Set `response_metadata[key]`."""
        self.metadata[key] = value

    # -- as LangChain messages (`_render`) ---------------------------------------------------

    def message(self) -> AIMessage:
        """The whole answer as one message (invoke)."""
        return _render.message(self)

    def final_chunk(self) -> AIMessageChunk:
        """The last stream chunk."""
        return _render.final_chunk(self)

    def context_record(self, message: AIMessage) -> dict[str, Any] | None:
        """The continuation record, for a whole, completed answer."""
        status = self.metadata.get("status")
        if self.context is None or self.stopped or not self.metadata.get("id"):
            return None
        if status != "completed" and not self.waits_for_the_app:
            return None
        return self.context.record(message)


def _result_key(record: Mapping[str, Any]) -> tuple[Any, Any]:
    """A search result's identity: URL and `id` (`[n]` markers cite ids)."""
    return record.get("url"), record.get("id")
