"""The answer read from one response, and its LangChain messages: whole or as stream chunks, v0 or v1.

A whole v1 message is its v0 message's `content_blocks` (the `_blocks` translator); a stream chunk's v1
blocks are built here, as a tool call streams before its v0 item exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGenerationChunk

from langchain_perplexity_strict._continuation import Context
from langchain_perplexity_strict._message_keys import CONTEXT_KEY, MODEL_PROVIDER, THOUGHT_SIGNATURES
from langchain_perplexity_strict._response._blocks import (
    ANNOTATIONS,
    FIRST_TOOL_CALL_INDEX,
    REASONING_INDEX,
    TEXT_INDEX,
    citation_annotations,
    text_block,
)
from langchain_perplexity_strict._response._server_item_blocks import ServerItems, v0_kwargs
from langchain_perplexity_strict._response._stop import StopFilter
from langchain_perplexity_strict._response._think import ThinkSplitter
from langchain_perplexity_strict.errors import PerplexityIncompleteError, PerplexityStreamError

RECORD_FIELDS = frozenset({"title", "url", "date", "last_updated", "snippet", "source", "id"})
"""Published search-result fields (`ApiPublicSearchResultOutput`): reading them never raises."""
USAGE_EXTRAS = ("cost", "tool_calls_details", "num_search_queries", "search_context_size", "citation_tokens")


class SearchResult(dict[str, Any]):
    """One search result as sent, also readable as attributes, as langchain-perplexity's users read it."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name in self or name in RECORD_FIELDS:
            return self.get(name)
        msg = f"search result has no field {name!r} (it has: {', '.join(self)})"
        raise AttributeError(msg)

    def model_dump(self, **_: Any) -> dict[str, Any]:
        return dict(self)


@dataclass
class Answer:
    """Everything gathered from one response; readers call its methods, never set its fields."""

    output_version: str = "v0"
    stops: Sequence[str] = ()
    text: str = field(init=False, default="")
    reasoning: str = field(init=False, default="")
    tool_calls: list[dict[str, Any]] = field(init=False, default_factory=list)
    citations: list[str] = field(init=False, default_factory=list)
    search_results: list[dict[str, Any]] = field(init=False, default_factory=list)
    annotations: list[dict[str, Any]] = field(init=False, default_factory=list)
    extras: dict[str, Any] = field(init=False, default_factory=dict)
    thought_signatures: dict[str, str] = field(init=False, default_factory=dict)
    context: Context | None = None  # the conversation as the server holds it, for a continuation record
    usage: UsageMetadata | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    finished: bool = False
    raise_on_length: bool = False
    parse_as: type | None = None  # a Pydantic class to parse the text into
    stream_usage: bool = True  # whether a stream's last chunk carries `usage_metadata`
    server: ServerItems = field(default_factory=ServerItems)

    def __post_init__(self) -> None:
        self._stop = StopFilter(self.stops) if self.stops else None
        self._think: ThinkSplitter | None = None
        self._started = False  # whether the text's start was seen: a `<think>` block can only open with `<`
        self._pending = ("", "")  # reasoning, answer: the next stream chunk's text
        self._cited: set[str] = set()  # Sonar repeats URLs in every chunk
        self._results_kept: set[tuple[Any, Any]] = set()  # by URL and `id` (`[n]` markers cite ids)
        self._sent = (0, 0, 0)  # citations, search results and server items streamed
        self.stopped = False  # a stop sequence matched
        self.v1 = self.output_version == "v1"
        self._provider = {"model_provider": MODEL_PROVIDER, **({"output_version": "v1"} if self.v1 else {})}
        self.server.blocks = self.v1

    def add_text(self, piece: str) -> None:
        """Add raw content; what is safe to emit goes to the next stream chunk."""
        if not self._started:
            self._started = True
            if piece.lstrip()[:1] in ("", "<"):
                self._think = ThinkSplitter()
        reasoning = ""
        if self._think is not None:
            reasoning, piece = self._think.feed(piece)
            self.reasoning += reasoning
        if self._stop is not None and piece:
            piece = self._stop.feed(piece)
            if self._stop.stopped:
                self.stopped = True
                self.metadata["stop_sequence"] = self._stop.matched
        self.text += piece
        self._pending = (self._pending[0] + reasoning, self._pending[1] + piece)

    def flush_text(self) -> None:
        """What the splitter and filter hold goes to the next chunk."""
        if self._think is not None:
            reasoning, held = self._think.flush()
            self._think = None
            self.add_reasoning(reasoning)
            self.add_text(held)
        if self._stop is not None and not self.stopped:
            held = self._stop.flush()
            self.text += held
            self._pending = (self._pending[0], self._pending[1] + held)

    def add_reasoning(self, piece: str) -> None:
        """Reasoning from its own events (Agent API)."""
        self.reasoning += piece
        self._pending = (self._pending[0] + piece, self._pending[1])

    def add_search_results(self, results: Sequence[dict[str, Any]]) -> None:
        """Keep each record once (by URL and `id`); citations are their URLs, in order."""
        for record in results:
            key = (record.get("url"), record.get("id"))
            if key not in self._results_kept:
                self.search_results.append(SearchResult(record))
                self._results_kept.add(key)
            if record.get("url") and record["url"] not in self._cited:
                self.citations.append(record["url"])
                self._cited.add(record["url"])

    def add_citations(self, urls: Iterable[str]) -> None:
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

    def add_tool_call(self, call_id: Any, name: Any, arguments: Any, thought_signature: Any = None) -> None:
        """A function call, once per id (else by position); `thought_signature` is kept to echo back."""
        call_id = call_id or f"call_without_id_{len(self.tool_calls)}"
        if any(call["id"] == call_id for call in self.tool_calls):
            return
        self.tool_calls.append({"id": call_id, "name": name, "arguments": arguments or ""})
        if thought_signature:
            self.thought_signatures[str(call_id)] = str(thought_signature)

    def add_items(self, key: str, items: Sequence[Any]) -> None:
        """Records with no standard place (search queries, images, ...) for `additional_kwargs[key]`, each once."""
        known = self.extras.setdefault(key, [])
        known.extend(item for item in items if item not in known)

    def end(self, data: dict[str, Any], finish_reason: Any, envelope: Sequence[str] = (), **fields: Any) -> None:
        """The response is complete: the text held back, id, model, `fields`, `envelope`, usage and cost."""
        if self._think is not None or self._stop is not None:
            self.flush_text()
        usage = data.get("usage") or {}
        self.usage = read_usage(usage)
        sent = ((data, envelope), (usage, USAGE_EXTRAS))
        kept = {key: source[key] for source, keys in sent for key in keys if source.get(key) is not None}
        served = {"id": data.get("id"), "model_name": data.get("model"), "model": data.get("model")}
        self.metadata.update({**served, **fields, **kept, "finish_reason": finish_reason})
        if usage:
            self.metadata["token_usage"] = usage
        self.finished = True

    def fail(self) -> None:
        self.flush_text()
        self.finished = True

    def partial(self) -> AIMessage:
        """A failed run's output for its error, read to its end; unparsed from now on."""
        self.parse_as = None
        return self.message()

    def cut_at_length(self, message: str) -> None:
        """The answer hit the token limit: raise with `raise_on_length`."""
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

    def message(self) -> AIMessage:
        """The whole answer as one message, with a continuation record when it is complete and answered."""
        tool_calls, invalid = _parse_tool_calls(self.tool_calls) if self.tool_calls else ([], [])
        message = AIMessage(
            content=self.text,
            additional_kwargs={**self._kwargs(v0=True), **v0_kwargs(self.server.items)},
            response_metadata={**self.metadata, **self._provider},
            tool_calls=tool_calls,
            invalid_tool_calls=invalid,
            usage_metadata=self.usage,
            id=self.metadata.get("id"),
        )
        if self.v1:
            update = {"content": message.content_blocks, "additional_kwargs": self._kwargs(v0=False)}
            message = message.model_copy(update=update)
        status = self.metadata.get("status")
        answered = status == "completed" or (  # or waits for the app's function calls or approvals
            status == "requires_action" and bool(self.tool_calls or self.server.approval_requests())
        )
        if self.context is not None and not self.stopped and self.metadata.get("id") and answered:
            message.response_metadata[CONTEXT_KEY] = self.context.record(message)
        return message

    def take_text(self) -> list[AIMessageChunk]:
        """One stream chunk for pending text, blocks and new sources, or none; it names the provider, so its
        `content_blocks` use this package's translator."""
        reasoning, text = self._pending
        self._pending = ("", "")
        news = (len(self.citations), len(self.search_results), len(self.server.items)) != self._sent
        kwargs = self._stream_kwargs(reasoning) if news or reasoning else {}
        content = self._content(reasoning, text) if self.v1 else text
        if not (content or kwargs):
            return []
        return [AIMessageChunk(content=content, additional_kwargs=kwargs, response_metadata=dict(self._provider))]

    def final_chunk(self) -> AIMessageChunk:
        """The last stream chunk: pending text, sources, usage (once), metadata, tool calls."""
        reasoning, text = self._pending
        self._pending = ("", "")
        calls = self.tool_calls
        chunks = (
            [tool_call_chunk(name=c["name"], args=c["arguments"], id=c["id"], index=i) for i, c in enumerate(calls)]
            if calls
            else []
        )
        metadata = {**self.metadata, **self._provider}
        if self.context is not None and CONTEXT_KEY in (whole := self.message().response_metadata):
            metadata[CONTEXT_KEY] = whole[CONTEXT_KEY]
        return AIMessageChunk(
            content=self._content(reasoning, text, chunks) if self.v1 else text,
            additional_kwargs={**self._kwargs(v0=not self.v1, whole=False), **self._stream_kwargs(reasoning)},
            response_metadata=metadata,
            tool_call_chunks=chunks,
            usage_metadata=self.usage if self.stream_usage else None,
            chunk_position="last",
        )

    def _content(self, reasoning: str, text: str, tool_chunks: Sequence[Any] | None = None) -> list[Any]:
        """A v1 stream chunk's blocks, indexed to merge by block; the last (`tool_chunks` given) adds the
        annotations, and the tool calls (a parsed one as a block)."""
        blocks: list[dict[str, Any]] = []
        if reasoning:
            blocks.append({"type": "reasoning", "reasoning": reasoning, "index": REASONING_INDEX})
        blocks.extend(self.server.take_blocks())
        annotations = []
        if tool_chunks is not None:
            annotations = citation_annotations(self.text, self.annotations, self.citations, self.search_results)
        if text or annotations:
            blocks.append(text_block(text, annotations, TEXT_INDEX))
        valid = {c["id"]: c for c in _parse_tool_calls(self.tool_calls)[0]} if tool_chunks else {}
        for i, chunk in enumerate(tool_chunks or ()):
            blocks.append({**valid.get(chunk["id"], chunk), "index": FIRST_TOOL_CALL_INDEX + i})
        return blocks

    def _stream_kwargs(self, reasoning: str) -> dict[str, Any]:
        """A chunk's v0 reasoning and server items, and the sources not streamed yet."""
        citations, results, items = self._sent
        self._sent = (len(self.citations), len(self.search_results), len(self.server.items))
        kwargs: dict[str, Any] = {"reasoning_content": reasoning} if reasoning and not self.v1 else {}
        if len(self.citations) > citations:
            kwargs["citations"] = self.citations[citations:]
        if len(self.search_results) > results:
            kwargs["search_results"] = self.search_results[results:]
        if len(self.server.items) > items and not self.v1:
            kwargs.update(v0_kwargs(self.server.items[items:]))
        return kwargs

    def _kwargs(self, *, v0: bool, whole: bool = True) -> dict[str, Any]:
        """Sources, v0 reasoning, thought signatures, extras and the parsed text; not `whole`: without what
        streamed before the last chunk."""
        kwargs: dict[str, Any] = {}
        if self.citations and whole:
            kwargs["citations"] = list(self.citations)
        if self.search_results and whole:
            kwargs["search_results"] = list(self.search_results)
        if v0 and self.reasoning and whole:
            kwargs["reasoning_content"] = self.reasoning
        if v0 and self.annotations:
            kwargs[ANNOTATIONS] = list(self.annotations)
        if self.thought_signatures:
            kwargs[THOUGHT_SIGNATURES] = dict(self.thought_signatures)
        kwargs.update(self.extras)
        if self.parse_as is not None and self.finished:
            # As `ChatOpenAI` parses: None for tool calls or no text.
            unparsed = self.tool_calls or not self.text.strip()
            kwargs["parsed"] = None if unparsed else self.parse_as.model_validate_json(self.text)  # type: ignore[attr-defined]
        return kwargs


def emit(chunk: AIMessageChunk, run_manager: CallbackManagerForLLMRun | None) -> ChatGenerationChunk:
    """`chunk` as a generation chunk, after the callbacks get its text."""
    generation = ChatGenerationChunk(message=chunk)
    if run_manager:
        run_manager.on_llm_new_token(generation.text, chunk=generation)
    return generation


async def aemit(chunk: AIMessageChunk, run_manager: AsyncCallbackManagerForLLMRun | None) -> ChatGenerationChunk:
    generation = ChatGenerationChunk(message=chunk)
    if run_manager:
        await run_manager.on_llm_new_token(generation.text, chunk=generation)
    return generation


def _parse_tool_calls(calls: Sequence[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    valid, invalid = [], []
    for call in calls:
        raw = {"id": call["id"], "function": {"name": call["name"], "arguments": call["arguments"]}}
        try:
            parsed = parse_tool_call(raw, return_id=True)
        except Exception as error:
            invalid.append(make_invalid_tool_call(raw, str(error)))
            continue
        if parsed is not None:
            valid.append(parsed)
    return valid, invalid


def _first(usage: dict[str, Any], *keys: str) -> Any:
    return next((usage[k] for k in keys if usage.get(k) is not None), None)


def read_usage(usage: dict[str, Any]) -> UsageMetadata | None:
    """`usage_metadata` from an Agent API `ResponsesUsageOutput` or a chat-completions `UsageInfoOutput`.

    Citation tokens are priced apart from prompt tokens (https://docs.perplexity.ai/getting-started/pricing),
    so they go to `response_metadata` and, deprecated, `output_token_details`.
    """
    if not usage:
        return None
    metadata: dict[str, Any] = {
        "input_tokens": int(_first(usage, "input_tokens", "prompt_tokens") or 0),
        "output_tokens": int(_first(usage, "output_tokens", "completion_tokens") or 0),
        "total_tokens": int(usage.get("total_tokens") or 0),
    }
    details = usage.get("input_tokens_details") or {}
    reasoning = usage.get("reasoning_tokens")  # chat completions; the Agent API nests it
    if reasoning is None:
        reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    inputs = {
        "cache_read": _first(details, "cache_read_input_tokens", "cached_tokens"),
        "cache_creation": details.get("cache_creation_input_tokens"),
    }
    outputs = {"reasoning": reasoning, "citation_tokens": usage.get("citation_tokens")}  # the latter: deprecated
    for key, counts in (("input_token_details", inputs), ("output_token_details", outputs)):
        if reported := {k: int(v) for k, v in counts.items() if v is not None}:
            metadata[key] = reported
    return cast(UsageMetadata, metadata)


def add_usage(total: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """`total` plus one response's usage, for `generate().llm_output`; langchain-openai's `_update_token_usage`
    takes ints and dicts only, not float costs."""
    out = dict(total)
    for key, value in usage.items():
        if value is None:
            continue
        before = out.get(key)
        if before is None:
            out[key] = value
        elif isinstance(value, dict) and isinstance(before, dict):
            out[key] = add_usage(before, value)
        elif _is_number(value) and _is_number(before):
            out[key] = before + value
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
