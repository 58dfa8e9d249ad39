"""An `Answer` as LangChain messages: the whole message (invoke), the stream's chunks, v0 and v1.

Text goes to `content` (with `output_version="v1"`, standard blocks: reasoning,
text with citation annotations, tool calls); citations and search results to
`additional_kwargs`; usage to `usage_metadata`, counted once even when
streaming; cost, served model, id and status to `response_metadata`. The
content of every message and chunk is assembled by `content`, in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.tool import ToolCallChunk, tool_call_chunk
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk

from langchain_perplexity_strict._message_keys import CONTEXT_KEY, THOUGHT_SIGNATURES

if TYPE_CHECKING:
    from langchain_perplexity_strict._response._answer import Answer

_MARKER = re.compile(r"\[(\d+)\]")


def content(
    answer: Answer,
    reasoning: str,
    text: str,
    *,
    annotations: Sequence[dict[str, Any]] = (),
    tool_blocks: Sequence[Any] = (),
    whole: bool,
) -> Any:
    """The content of a message (`whole`) or a stream chunk: the text (v0), or v1 standard blocks.

    A chunk's blocks carry their `index` (reasoning 0, text 1, tool calls from 2), so
    LangChain merges a stream's chunks block by block; a whole message always has a
    text block unless it is only tool calls.
    """
    if answer.output_version != "v1":
        return text
    blocks: list[dict[str, Any]] = []
    if reasoning:
        blocks.append(_indexed({"type": "reasoning", "reasoning": reasoning}, 0, whole))
    if text or annotations or (whole and not tool_blocks):
        block: dict[str, Any] = {"type": "text", "text": text}
        if whole and annotations:
            block["annotations"] = list(annotations)
        block = _indexed(block, 1, whole)
        if not whole and annotations:
            block["annotations"] = list(annotations)
        blocks.append(block)
    blocks.extend(_indexed(dict(b), 2 + i, whole) for i, b in enumerate(tool_blocks))
    return blocks


def _indexed(block: dict[str, Any], index: int, whole: bool) -> dict[str, Any]:
    if not whole:
        block["index"] = index
    return block


def text_chunks(answer: Answer) -> list[AIMessageChunk]:
    """One chunk for the answer's pending text and the sources found since the last chunk, or none."""
    reasoning, text = answer.take_pending()
    chunk = None
    if reasoning or text:
        kwargs = {"reasoning_content": reasoning} if reasoning and answer.output_version != "v1" else {}
        chunk = AIMessageChunk(content=content(answer, reasoning, text, whole=False), additional_kwargs=kwargs)
    sources = answer.unsent_sources()
    if sources:
        if chunk is None:
            chunk = AIMessageChunk(content=[] if answer.output_version == "v1" else "")
        chunk.additional_kwargs.update(sources)
    return [chunk] if chunk else []


def additional_kwargs(answer: Answer) -> dict[str, Any]:
    """Sources, reasoning (v0), thought signatures and the fields with no standard place."""
    kwargs: dict[str, Any] = {}
    if answer.citations:
        kwargs["citations"] = list(answer.citations)
    if answer.search_results:
        kwargs["search_results"] = list(answer.search_results)
    if answer.reasoning and answer.output_version != "v1":
        kwargs["reasoning_content"] = answer.reasoning
    if answer.thought_signatures:
        kwargs[THOUGHT_SIGNATURES] = dict(answer.thought_signatures)
    kwargs.update(answer.extras)
    return kwargs


def response_metadata(answer: Answer) -> dict[str, Any]:
    metadata = {**answer.metadata, "model_provider": "perplexity"}
    if answer.output_version == "v1":
        metadata["output_version"] = "v1"
    return metadata


def citation_annotations(answer: Answer) -> list[dict[str, Any]]:
    """Standard `citation` annotations: Perplexity's own, else one per `[n]` marker."""
    text = answer.text
    if answer.annotations:
        return [_citation(a.get("url"), a.get("title"), a.get("start_index"), a.get("end_index"), text)
                for a in answer.annotations]  # fmt: skip
    titles = {r.get("url"): r.get("title") for r in answer.search_results}
    out = []
    for match in _MARKER.finditer(text):
        n = int(match.group(1))
        if 1 <= n <= len(answer.citations):
            url = answer.citations[n - 1]
            out.append(_citation(url, titles.get(url), match.start(), match.end(), text))
    return out


def message(answer: Answer) -> AIMessage:
    """The whole answer as one message (invoke), with its continuation record when it has one."""
    result = _message(answer)
    record = answer.context_record(result)
    if record is not None:
        result.response_metadata[CONTEXT_KEY] = record
    return result


def _message(answer: Answer) -> AIMessage:
    tool_calls, invalid = _parse_tool_calls(answer.tool_calls)
    annotations = citation_annotations(answer) if answer.output_version == "v1" else ()
    tool_blocks = [{"type": "tool_call", "id": c["id"], "name": c["name"], "args": c["args"]} for c in tool_calls]
    return AIMessage(
        content=content(
            answer, answer.reasoning, answer.text, annotations=annotations, tool_blocks=tool_blocks, whole=True
        ),
        additional_kwargs=additional_kwargs(answer),
        response_metadata=response_metadata(answer),
        tool_calls=tool_calls,
        invalid_tool_calls=invalid,
        usage_metadata=answer.usage,
        id=answer.metadata.get("id"),
    )


def final_chunk(answer: Answer) -> AIMessageChunk:
    """The last stream chunk: the text still pending, sources, usage (once), metadata, tool calls.

    Text that arrived with the end of the stream goes out in this chunk, so an
    answer that arrives in one network read is one chunk.
    """
    reasoning, text = answer.take_pending()
    tool_call_chunks: list[ToolCallChunk] = [
        tool_call_chunk(name=c["name"], args=c["arguments"], id=c["id"], index=i)
        for i, c in enumerate(answer.tool_calls)
    ]
    annotations = citation_annotations(answer) if answer.output_version == "v1" else ()
    metadata = response_metadata(answer)
    if answer.context is not None:
        record = answer.context_record(_message(answer))
        if record is not None:
            metadata[CONTEXT_KEY] = record
    kwargs = additional_kwargs(answer)
    kwargs.pop("reasoning_content", None)  # earlier pieces were streamed in their own chunks
    kwargs.pop("citations", None)  # sources go once each: those not streamed yet
    kwargs.pop("search_results", None)
    kwargs.update(answer.unsent_sources())
    if reasoning and answer.output_version != "v1":
        kwargs["reasoning_content"] = reasoning
    return AIMessageChunk(
        content=content(answer, reasoning, text, annotations=annotations, tool_blocks=tool_call_chunks, whole=False),
        additional_kwargs=kwargs,
        response_metadata=metadata,
        tool_call_chunks=tool_call_chunks,
        usage_metadata=answer.usage,
        chunk_position="last",
    )


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
