"""Map what Perplexity returns into LangChain's standard places.

Text goes to `content` (`<think>` reasoning split out, client-side stop
sequences applied); citations and search results to `additional_kwargs`
(and, with `output_version="v1"`, to citation annotations on the text
block); usage to `usage_metadata`, counted once even when streaming; cost,
served model, id and status to `response_metadata`. Both surfaces, invoke
and stream, share the `ResponseAccumulator`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import ToolCallChunk, tool_call_chunk
from langchain_core.output_parsers.openai_tools import (
    make_invalid_tool_call,
    parse_tool_call,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk

from langchain_perplexity_strict._agent_request import THOUGHT_SIGNATURES
from langchain_perplexity_strict._continuation import CONTEXT_KEY, Context
from langchain_perplexity_strict.errors import (
    PerplexityStreamError,
)
from langchain_perplexity_strict.stop_filter import StopFilter, ThinkSplitter

Api = Literal["agent", "chat_completions"]
_MARKER = re.compile(r"\[(\d+)\]")


@dataclass
class ResponseAccumulator:  # the accumulator both surfaces fill
    """Everything gathered from one response, whichever event or chunk carried it."""

    api: Api
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

    def __post_init__(self) -> None:
        self._think = ThinkSplitter()
        self._stop = StopFilter(self.stops)
        self._pending_reasoning: list[str] = []
        self._pending_text: list[str] = []
        self._cited = set(self.citations)  # Sonar repeats every URL in every chunk: look up, don't scan
        self._result_urls = {r.get("url") for r in self.search_results}
        self._sent_citations = 0  # sources already streamed in an earlier chunk
        self._sent_results = 0

    def pend(self, reasoning: str, answer: str) -> None:
        """Keep text for the next stream chunk (what arrives together goes out together)."""
        if reasoning:
            self._pending_reasoning.append(reasoning)
        if answer:
            self._pending_text.append(answer)

    def take_text(self) -> list[AIMessageChunk]:
        """One chunk for all pending text and the sources found since the last chunk, or none.

        Sources go out as soon as a network read brings them, before the answer
        ends; each citation and search result is streamed once.
        """
        chunk = self.text_chunk(*self._take_pending())
        sources = self._unsent_sources()
        if sources:
            if chunk is None:
                chunk = AIMessageChunk(content=[] if self.output_version == "v1" else "")
            chunk.additional_kwargs.update(sources)
        return [chunk] if chunk else []

    def _take_pending(self) -> tuple[str, str]:
        reasoning, text = "".join(self._pending_reasoning), "".join(self._pending_text)
        self._pending_reasoning.clear()
        self._pending_text.clear()
        return reasoning, text

    @property
    def stopped(self) -> bool:
        """Whether a stop sequence matched (the rest of the answer is not wanted)."""
        return self._stop.stopped

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

    # -- sources -----------------------------------------------------------------------

    def add_search_results(self, results: Sequence[dict[str, Any]]) -> None:
        """Keep each record once; citations are their URLs, in order."""
        for record in results:
            url = record.get("url")
            if url not in self._result_urls:
                self.search_results.append(dict(record))
                self._result_urls.add(url)
        self.add_citations(r["url"] for r in results if r.get("url"))

    def add_citations(self, urls: Any) -> None:
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

    # -- the message -------------------------------------------------------------------

    def additional_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if self.citations:
            kwargs["citations"] = list(self.citations)
        if self.search_results:
            kwargs["search_results"] = list(self.search_results)
        if self.reasoning and self.output_version != "v1":
            kwargs["reasoning_content"] = self.reasoning
        if self.thought_signatures:
            kwargs[THOUGHT_SIGNATURES] = dict(self.thought_signatures)
        kwargs.update(self.extras)
        return kwargs

    def add_tool_call(self, call_id: Any, name: Any, arguments: Any, thought_signature: Any = None) -> None:
        """A function call, once per id; a thinking model's `thought_signature` is kept to echo back."""
        if any(c["id"] == call_id for c in self.tool_calls):
            return
        self.tool_calls.append({"id": call_id, "name": name, "arguments": arguments or ""})
        if thought_signature:
            self.thought_signatures[str(call_id)] = str(thought_signature)

    def _unsent_sources(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if len(self.citations) > self._sent_citations:
            kwargs["citations"] = self.citations[self._sent_citations :]
            self._sent_citations = len(self.citations)
        if len(self.search_results) > self._sent_results:
            kwargs["search_results"] = self.search_results[self._sent_results :]
            self._sent_results = len(self.search_results)
        return kwargs

    def response_metadata(self) -> dict[str, Any]:
        return {**self.metadata, "model_provider": "perplexity"}

    def citation_annotations(self) -> list[dict[str, Any]]:
        """Standard `citation` annotations: Perplexity's own, else one per `[n]` marker."""
        if self.annotations:
            return [_citation(a.get("url"), a.get("title"), a.get("start_index"), a.get("end_index"), self.text)
                    for a in self.annotations]  # fmt: skip
        titles = {r.get("url"): r.get("title") for r in self.search_results}
        out = []
        for match in _MARKER.finditer(self.text):
            n = int(match.group(1))
            if 1 <= n <= len(self.citations):
                url = self.citations[n - 1]
                out.append(_citation(url, titles.get(url), match.start(), match.end(), self.text))
        return out

    def content(self, tool_calls: Sequence[dict[str, Any]] = ()) -> Any:
        if self.output_version != "v1":
            return self.text
        blocks: list[dict[str, Any]] = []
        if self.reasoning:
            blocks.append({"type": "reasoning", "reasoning": self.reasoning})
        annotations = self.citation_annotations()
        if self.text or annotations or not tool_calls:
            text_block: dict[str, Any] = {"type": "text", "text": self.text}
            if annotations:
                text_block["annotations"] = annotations
            blocks.append(text_block)
        blocks.extend({"type": "tool_call", "id": c["id"], "name": c["name"], "args": c["args"]} for c in tool_calls)
        return blocks

    def message(self) -> AIMessage:
        """The whole answer as one message (invoke)."""
        message = self._message()
        record = self._context_record(message)
        if record is not None:
            message.response_metadata[CONTEXT_KEY] = record
        return message

    def _context_record(self, message: AIMessage) -> dict[str, Any] | None:
        """The continuation record, for a completed answer that is whole (no stop sequence cut it)."""
        status = self.metadata.get("status")
        if self.context is None or self.stopped or not self.metadata.get("id"):
            return None
        if status != "completed" and not (status == "requires_action" and self.tool_calls):
            return None
        return self.context.record(message)

    def _message(self) -> AIMessage:
        tool_calls, invalid = _parse_tool_calls(self.tool_calls)
        metadata = self.response_metadata()
        if self.output_version == "v1":
            metadata["output_version"] = "v1"
        return AIMessage(
            content=self.content(tool_calls),
            additional_kwargs=self.additional_kwargs(),
            response_metadata=metadata,
            tool_calls=tool_calls,
            invalid_tool_calls=invalid,
            usage_metadata=self.usage,
            id=self.metadata.get("id"),
        )

    def final_chunk(self) -> AIMessageChunk:
        """The last stream chunk: the text still pending, sources, usage (once), metadata, tool calls.

        Text that arrived with the end of the stream goes out in this chunk, so an
        answer that arrives in one network read is one chunk.
        """
        reasoning, text = self._take_pending()
        content: Any = text
        tool_call_chunks: list[ToolCallChunk] = [
            tool_call_chunk(name=c["name"], args=c["arguments"], id=c["id"], index=i)
            for i, c in enumerate(self.tool_calls)
        ]
        if self.output_version == "v1":
            content = [{"type": "reasoning", "reasoning": reasoning, "index": 0}] if reasoning else []
            annotations = self.citation_annotations()
            if text or annotations:
                block: dict[str, Any] = {"type": "text", "text": text, "index": 1}
                if annotations:
                    block["annotations"] = annotations
                content.append(block)
            content += [{**c, "index": 2 + i} for i, c in enumerate(tool_call_chunks)]
        metadata = self.response_metadata()
        if self.output_version == "v1":
            metadata["output_version"] = "v1"
        if self.context is not None:
            record = self._context_record(self._message())
            if record is not None:
                metadata[CONTEXT_KEY] = record
        kwargs = self.additional_kwargs()
        kwargs.pop("reasoning_content", None)  # earlier pieces were streamed in their own chunks
        kwargs.pop("citations", None)  # sources go once each: those not streamed yet
        kwargs.pop("search_results", None)
        kwargs.update(self._unsent_sources())
        if reasoning and self.output_version != "v1":
            kwargs["reasoning_content"] = reasoning
        return AIMessageChunk(
            content=content,
            additional_kwargs=kwargs,
            response_metadata=metadata,
            tool_call_chunks=tool_call_chunks,
            usage_metadata=self.usage,
            chunk_position="last",
        )

    def text_chunk(self, reasoning: str, answer: str) -> AIMessageChunk | None:
        """A stream chunk for newly emitted reasoning and answer text."""
        if not reasoning and not answer:
            return None
        if self.output_version == "v1":
            blocks: list[str | dict[Any, Any]] = []
            if reasoning:
                blocks.append({"type": "reasoning", "reasoning": reasoning, "index": 0})
            if answer:
                blocks.append({"type": "text", "text": answer, "index": 1})
            return AIMessageChunk(content=blocks)
        kwargs = {"reasoning_content": reasoning} if reasoning else {}
        return AIMessageChunk(content=answer, additional_kwargs=kwargs)


def _citation(url: Any, title: Any, start: Any, end: Any, text: str) -> dict[str, Any]:
    citation: dict[str, Any] = {"type": "citation", "url": url}
    if title:
        citation["title"] = title
    if isinstance(start, int) and isinstance(end, int):
        citation["start_index"] = start
        citation["end_index"] = end
        citation["cited_text"] = text[start:end]
    return citation


def _parse_tool_calls(calls: Sequence[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    valid, invalid = [], []
    for call in calls:
        raw = {
            "id": call["id"],
            "function": {"name": call["name"], "arguments": call["arguments"]},
        }
        try:
            parsed = parse_tool_call(raw, return_id=True)
        except Exception as error:
            invalid.append(make_invalid_tool_call(raw, str(error)))
            continue
        if parsed is not None:
            valid.append(parsed)
    return valid, invalid


# ---- usage ----------------------------------------------------------------------------


def usage_metadata(input_tokens: Any, output_tokens: Any, total_tokens: Any) -> UsageMetadata:
    # The token details are optional at run time; they are added below when Perplexity reports them.
    return cast(
        UsageMetadata,
        {"input_tokens": int(input_tokens or 0), "output_tokens": int(output_tokens or 0),
         "total_tokens": int(total_tokens or 0)},
    )  # fmt: skip


def usage_extras(usage: dict[str, Any] | None) -> dict[str, Any]:
    keys = ("cost", "tool_calls_details", "num_search_queries", "search_context_size")
    return {k: usage[k] for k in keys if usage and usage.get(k) is not None}


def finish(answer: ResponseAccumulator) -> list[AIMessageChunk]:
    """The stream ended: complete only after a terminal event or a matched stop."""
    if answer.finished:
        return []
    if answer.stopped:
        answer.metadata.setdefault("finish_reason", "stop")
        answer.finished = True
        return [answer.final_chunk()]
    msg = (
        "the Perplexity stream ended before its final event, so the answer may be cut "
        f"short ({len(answer.text)} characters received)"
    )
    raise PerplexityStreamError(msg)


def merge_generation_chunks(chunks: list[ChatGenerationChunk]) -> ChatGeneration:
    """A stream's chunks as one generation (`streaming=True` under invoke)."""
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    message = merged.message
    return ChatGeneration(
        message=AIMessage(
            content=message.content,
            additional_kwargs=message.additional_kwargs,
            response_metadata=message.response_metadata,
            tool_calls=getattr(message, "tool_calls", []),
            invalid_tool_calls=getattr(message, "invalid_tool_calls", []),
            usage_metadata=getattr(message, "usage_metadata", None),
            id=message.id,
        ),
        generation_info=merged.generation_info,
    )
