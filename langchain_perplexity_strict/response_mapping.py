"""Map what Perplexity returns into LangChain's standard places.

Text goes to ``content`` (``<think>`` reasoning split out, client-side stop
sequences applied); citations and search results to ``additional_kwargs``
(and, with ``output_version="v1"``, to citation annotations on the text
block); usage to ``usage_metadata``, counted once even when streaming; cost,
served model, id and status to ``response_metadata``. Both surfaces, invoke
and stream, share the :class:`Answer` accumulator.
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

from langchain_perplexity_strict.errors import (
    PerplexityIncompleteError,
    PerplexityResponseError,
    PerplexityStreamError,
)
from langchain_perplexity_strict.stop_filter import StopFilter, ThinkSplitter

Api = Literal["agent", "chat_completions"]
_MARKER = re.compile(r"\[(\d+)\]")
TERMINAL_EVENTS = (
    "response.completed",
    "response.failed",
    "response.incomplete",
    "response.cancelled",
)


@dataclass
class Answer:
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

    def pend(self, reasoning: str, answer: str) -> None:
        """Keep text for the next stream chunk (what arrives together goes out together)."""
        if reasoning:
            self._pending_reasoning.append(reasoning)
        if answer:
            self._pending_text.append(answer)

    def take_text(self) -> list[AIMessageChunk]:
        """One chunk for all pending text, or none."""
        chunk = self.text_chunk(*self._take_pending())
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
        """Add raw content; return the ``(reasoning, answer)`` text safe to emit."""
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
        """A ``url_citation`` annotation (kept once)."""
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
        kwargs.update(self.extras)
        return kwargs

    def response_metadata(self) -> dict[str, Any]:
        return {**self.metadata, "model_provider": "perplexity"}

    def citation_annotations(self) -> list[dict[str, Any]]:
        """Standard ``citation`` annotations: Perplexity's own, else one per ``[n]`` marker."""
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
        kwargs = self.additional_kwargs()
        kwargs.pop("reasoning_content", None)  # earlier pieces were streamed in their own chunks
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


def _usage_metadata(input_tokens: Any, output_tokens: Any, total_tokens: Any) -> UsageMetadata:
    # The token details are optional at run time; they are added below when Perplexity reports them.
    return cast(
        UsageMetadata,
        {"input_tokens": int(input_tokens or 0), "output_tokens": int(output_tokens or 0),
         "total_tokens": int(total_tokens or 0)},
    )  # fmt: skip


def agent_usage(usage: dict[str, Any] | None) -> UsageMetadata | None:
    if not usage:
        return None
    metadata = _usage_metadata(usage.get("input_tokens"), usage.get("output_tokens"), usage.get("total_tokens"))
    reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    if reasoning:
        metadata["output_token_details"] = {"reasoning": int(reasoning)}
    cached = (usage.get("input_tokens_details") or {}).get("cached_tokens")
    if cached:
        metadata["input_token_details"] = {"cache_read": int(cached)}
    return metadata


def chat_usage(usage: dict[str, Any] | None) -> UsageMetadata | None:
    if not usage:
        return None
    metadata = _usage_metadata(usage.get("prompt_tokens"), usage.get("completion_tokens"), usage.get("total_tokens"))
    if usage.get("reasoning_tokens"):
        metadata["output_token_details"] = {"reasoning": int(usage["reasoning_tokens"])}
    if usage.get("citation_tokens"):
        # Perplexity's citation tokens have no standard key; InputTokenDetails admits extra keys at run time.
        metadata["input_token_details"] = cast(Any, {"citation": int(usage["citation_tokens"])})
    return metadata


def _usage_extras(usage: dict[str, Any] | None) -> dict[str, Any]:
    keys = ("cost", "tool_calls_details", "num_search_queries", "search_context_size")
    return {k: usage[k] for k in keys if usage and usage.get(k) is not None}


# ---- Agent API ---------------------------------------------------------------------------


def read_agent_response(answer: Answer, response: dict[str, Any]) -> None:
    """Fill ``answer`` from a complete Agent API response object (§4)."""
    for item in response.get("output") or []:
        kind = item.get("type")
        if kind == "message":
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    answer.add_text(part.get("text", ""))
                    for annotation in part.get("annotations") or []:
                        answer.add_annotation(annotation)
        elif kind == "search_results":
            answer.add_search_results(item.get("results") or [])
        elif kind == "function_call":
            answer.tool_calls.append(
                {
                    "id": item.get("call_id"),
                    "name": item.get("name"),
                    "arguments": item.get("arguments") or "",
                }
            )
        elif kind and kind.endswith("_results"):
            answer.extras.setdefault(kind, []).append(item)
    answer.flush_text()
    read_agent_terminal(answer, response)


def read_agent_terminal(answer: Answer, response: dict[str, Any]) -> None:
    """Usage, metadata and status from the response object (non-stream or terminal event)."""
    usage = response.get("usage")
    answer.usage = agent_usage(usage)
    status = response.get("status")
    answer.metadata.update(
        {
            "id": response.get("id"),
            "model_name": response.get("model"),
            "status": status,
            "finish_reason": "tool_calls" if answer.tool_calls else ("length" if status == "incomplete" else "stop"),
            **_usage_extras(usage),
        }
    )
    answer.finished = True
    raise_for_status(answer, response)


def raise_for_status(answer: Answer, response: dict[str, Any]) -> None:
    """HTTP 200 is not success on the Agent API: ``status`` says whether the run completed."""
    status = response.get("status")
    if status in ("completed", None) or answer.stopped:
        return
    error = response.get("error") or {}
    if status == "incomplete":
        reason = (response.get("incomplete_details") or {}).get("reason", "unknown")
        msg = (
            f"Perplexity returned an incomplete answer (status 'incomplete', reason {reason!r}); "
            "the partial answer is on this error's .partial. Raise max_tokens if the reason is "
            "max_output_tokens."
        )
        raise PerplexityIncompleteError(msg, answer.message())
    msg = f"Perplexity reported the run as {status!r}: {error.get('message') or 'no message'}"
    if error.get("code"):
        msg += f" (code {error['code']})"
    raise PerplexityResponseError(msg)


class AgentStream:
    """Agent API stream events → message chunks (perplexity-api.md §4)."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    def feed(self, event: dict[str, Any]) -> list[AIMessageChunk]:
        kind = event.get("type", "")
        answer = self.answer
        if kind == "response.output_text.delta":
            answer.pend(*answer.add_text(event.get("delta", "")))
            return []
        if kind == "response.reasoning.delta":
            piece = str(event.get("delta", ""))
            answer.add_reasoning(piece)
            answer.pend(piece, "")
            return []
        if kind == "response.output_text.annotation.added":
            answer.add_annotation(event.get("annotation") or {})
        elif kind == "response.output_item.done":
            item = event.get("item") or {}
            if item.get("type") == "search_results":
                answer.add_search_results(item.get("results") or [])
            elif item.get("type") == "function_call":
                answer.tool_calls.append(
                    {
                        "id": item.get("call_id"),
                        "name": item.get("name"),
                        "arguments": item.get("arguments") or "",
                    }
                )
        elif kind in TERMINAL_EVENTS:
            return self._terminal(event.get("response") or {})
        elif kind == "error":
            msg = f"Perplexity stream error: {event.get('message') or event.get('error') or event}"
            raise PerplexityResponseError(msg)
        return []

    def _terminal(self, response: dict[str, Any]) -> list[AIMessageChunk]:
        answer = self.answer
        answer.pend(*answer.flush_text())
        # The terminal event carries the full response: sources that no earlier
        # event carried are taken from it too.
        for item in response.get("output") or []:
            if item.get("type") == "search_results":
                answer.add_search_results(item.get("results") or [])
            if item.get("type") == "message":
                for part in item.get("content") or []:
                    for annotation in part.get("annotations") or []:
                        answer.add_annotation(annotation)
            if item.get("type") == "function_call" and not any(
                c["id"] == item.get("call_id") for c in answer.tool_calls
            ):
                answer.tool_calls.append(
                    {
                        "id": item.get("call_id"),
                        "name": item.get("name"),
                        "arguments": item.get("arguments") or "",
                    }
                )
        read_agent_terminal(answer, response)
        return [answer.final_chunk()]

    def finish(self) -> list[AIMessageChunk]:
        """The stream ended: complete only after a terminal event or a matched stop."""
        return _finish(self.answer)


def _finish(answer: Answer) -> list[AIMessageChunk]:
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


# ---- chat completions -----------------------------------------------------------------------


def read_chat_completion(answer: Answer, completion: dict[str, Any]) -> None:
    """Fill ``answer`` from a chat completion (§5)."""
    choice = (completion.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    answer.add_text(message.get("content") or "")
    answer.flush_text()
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        answer.tool_calls.append(
            {
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": function.get("arguments") or "",
            }
        )
    _read_chat_sources(answer, completion)
    _read_chat_end(answer, completion, choice.get("finish_reason"))


def _read_chat_sources(answer: Answer, data: dict[str, Any]) -> None:
    answer.add_citations(data.get("citations") or [])
    if data.get("search_results"):
        answer.add_search_results(data["search_results"])
    for key in ("images", "related_questions"):
        if data.get(key):
            answer.extras[key] = data[key]


def _read_chat_end(answer: Answer, data: dict[str, Any], finish_reason: Any) -> None:
    answer.usage = chat_usage(data.get("usage"))
    answer.metadata.update(
        {
            "id": data.get("id"),
            "model_name": data.get("model"),
            "finish_reason": finish_reason,
            **_usage_extras(data.get("usage")),
        }
    )
    answer.finished = True
    if finish_reason == "length" and not answer.stopped:
        msg = (
            "Perplexity stopped the answer at the token limit (finish_reason 'length'); "
            "the partial answer is on this error's .partial. Raise max_tokens."
        )
        raise PerplexityIncompleteError(msg, answer.message())


class ChatStream:
    """Chat-completions chunks → message chunks.

    Every Perplexity chunk repeats ``citations`` and carries the cumulative
    usage so far (§5): citations are kept once, and only the last usage is
    reported, so nothing is over-counted.
    """

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self._last: dict[str, Any] = {}
        self._finish_reason: Any = None
        self._tool_parts: dict[int, dict[str, Any]] = {}

    def feed(self, data: dict[str, Any]) -> list[AIMessageChunk]:
        answer = self.answer
        self._last = data
        _read_chat_sources(answer, data)
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                answer.pend(*answer.add_text(delta["content"]))
            for call in delta.get("tool_calls") or []:
                part = self._tool_parts.setdefault(int(call.get("index", 0)), {"id": None, "name": "", "arguments": ""})
                function = call.get("function") or {}
                part["id"] = call.get("id") or part["id"]
                part["name"] += function.get("name") or ""
                part["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                self._finish_reason = choice["finish_reason"]
        return []

    def finish(self) -> list[AIMessageChunk]:
        answer = self.answer
        if self._finish_reason is None:
            return _finish(answer)
        answer.pend(*answer.flush_text())
        answer.tool_calls.extend(self._tool_parts[i] for i in sorted(self._tool_parts))
        _read_chat_end(answer, self._last, self._finish_reason)
        return [answer.final_chunk()]
