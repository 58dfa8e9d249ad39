"""An `Answer` as LangChain messages: the whole message (invoke), the stream's chunks, v0 and v1.

Text goes to `content` (with `output_version="v1"`, standard blocks: reasoning,
the server tools' calls and results, text with citation annotations, tool
calls); citations and search results to `additional_kwargs`, and, in v0,
the server tools' items too (`_server_stream.v0_kwargs`); usage to
`usage_metadata`, counted once even when streaming; cost, served model, id
and status to `response_metadata`. The content of every message and chunk
is assembled by `content`, in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.tool import ToolCallChunk, tool_call_chunk
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk

from langchain_perplexity_strict._message_keys import CONTEXT_KEY, THOUGHT_SIGNATURES
from langchain_perplexity_strict._response._blocks import ANNOTATIONS, PROVIDER, text_block
from langchain_perplexity_strict._response._blocks import citation_annotations as citations_in
from langchain_perplexity_strict._response._server_stream import v0_kwargs

if TYPE_CHECKING:
    from langchain_perplexity_strict._response._answer import Answer


def content(
    answer: Answer,
    reasoning: str,
    text: str,
    *,
    annotations: Sequence[dict[str, Any]] = (),
    server_blocks: Sequence[dict[str, Any]] = (),
    tool_blocks: Sequence[Any] = (),
    whole: bool,
) -> Any:
    """The content of a message (`whole`) or a stream chunk: the text (v0), or v1 standard blocks.

    The blocks come in the order things happen: reasoning, the server tools' calls and
    results, the text, the function calls. A chunk's blocks carry their `index`
    (reasoning 0, text 1, tool calls from 2, server blocks their own), so LangChain merges
    a stream's chunks block by block; a whole message has an empty text block only when it
    has no other block (as a stream's merged chunks have none beside other blocks).
    """
    if answer.output_version != "v1":
        return text
    blocks: list[dict[str, Any]] = []
    if reasoning:
        blocks.append(_indexed({"type": "reasoning", "reasoning": reasoning}, 0, whole))
    blocks.extend(server_blocks)
    if text or annotations or (whole and not tool_blocks and not blocks):
        blocks.append(text_block(text, list(annotations), None if whole else 1))
    blocks.extend(_indexed(dict(b), 2 + i, whole) for i, b in enumerate(tool_blocks))
    return blocks


def _indexed(block: dict[str, Any], index: int, whole: bool) -> dict[str, Any]:
    if not whole:
        block["index"] = index
    return block


def text_chunks(answer: Answer) -> list[AIMessageChunk]:
    """One chunk for the answer's pending text and blocks, and the sources found since the last chunk, or none
    (taken after each event, so a stream's chunks follow its events).

    Every chunk names the provider (and v1), so `content_blocks` of a chunk, which
    `stream_events(version="v3")` reads, goes through this package's translator.
    """
    reasoning, text = answer.take_pending()
    v1 = answer.output_version == "v1"
    server_blocks = answer.server.take_blocks() if v1 else []
    kwargs = {"reasoning_content": reasoning} if reasoning and not v1 else {}
    kwargs.update({**answer.unsent_sources(), **({} if v1 else answer.server.take_v0())})
    if not (reasoning or text or server_blocks or kwargs):
        return []
    blocks = content(answer, reasoning, text, server_blocks=server_blocks, whole=False)
    return [AIMessageChunk(content=blocks, additional_kwargs=kwargs, response_metadata=_provider(answer))]


def _provider(answer: Answer) -> dict[str, Any]:
    metadata = {"model_provider": PROVIDER}
    if answer.output_version == "v1":
        metadata["output_version"] = "v1"
    return metadata


def additional_kwargs(answer: Answer) -> dict[str, Any]:
    """Sources, reasoning and server tool items (v0), thought signatures and the fields with no standard place."""
    kwargs: dict[str, Any] = {}
    if answer.citations:
        kwargs["citations"] = list(answer.citations)
    if answer.search_results:
        kwargs["search_results"] = list(answer.search_results)
    if answer.output_version != "v1":
        if answer.reasoning:
            kwargs["reasoning_content"] = answer.reasoning
        if answer.annotations:
            kwargs[ANNOTATIONS] = list(answer.annotations)
    if answer.thought_signatures:
        kwargs[THOUGHT_SIGNATURES] = dict(answer.thought_signatures)
    kwargs.update(answer.extras)
    if answer.parse_as is not None and answer.finished:
        kwargs["parsed"] = parsed(answer)
    return kwargs


def parsed(answer: Answer) -> Any:
    """The answer's text as an instance of `parse_as`, as `ChatOpenAI` gives a call's `response_format` class:
    None when the answer is tool calls or has no text; text that does not fit raises pydantic's error."""
    if answer.tool_calls or not answer.text.strip():
        return None
    return answer.parse_as.model_validate_json(answer.text)  # type: ignore[union-attr]


def response_metadata(answer: Answer) -> dict[str, Any]:
    return {**answer.metadata, **_provider(answer)}


def citation_annotations(answer: Answer) -> list[dict[str, Any]]:
    """The answer's standard `citation` annotations, from Perplexity's own or the `[n]` markers."""
    return citations_in(answer.text, answer.annotations, answer.citations, answer.search_results)


def annotations_of(answer: Answer) -> list[dict[str, Any]]:
    """The annotations a v1 answer's text block carries (v0 keeps the text alone)."""
    return citation_annotations(answer) if answer.output_version == "v1" else []


def message(answer: Answer) -> AIMessage:
    """The whole answer as one message (invoke), with its continuation record when it has one."""
    result = _message(answer)
    record = answer.context_record(result)
    if record is not None:
        result.response_metadata[CONTEXT_KEY] = record
    return result


def _message(answer: Answer) -> AIMessage:
    tool_calls, invalid = _parse_tool_calls(answer.tool_calls)
    tool_blocks = [{"type": "tool_call", "id": c["id"], "name": c["name"], "args": c["args"]} for c in tool_calls]
    v1 = answer.output_version == "v1"
    kwargs = additional_kwargs(answer) if v1 else {**additional_kwargs(answer), **v0_kwargs(answer.server.items)}
    return AIMessage(
        content=content(
            answer,
            answer.reasoning,
            answer.text,
            annotations=annotations_of(answer),
            server_blocks=answer.server.blocks() if v1 else (),
            tool_blocks=tool_blocks,
            whole=True,
        ),
        additional_kwargs=kwargs,
        response_metadata=response_metadata(answer),
        tool_calls=tool_calls,
        invalid_tool_calls=invalid,
        usage_metadata=answer.usage,
        id=answer.metadata.get("id"),
    )


def final_chunk(answer: Answer) -> AIMessageChunk:
    """The last stream chunk: the text still pending, sources, usage (once), metadata, tool calls.

    Text still held (by the stop filter or the `<think>` splitter) at the end of
    the stream goes out in this chunk.
    """
    reasoning, text = answer.take_pending()
    tool_call_chunks: list[ToolCallChunk] = [
        tool_call_chunk(name=c["name"], args=c["arguments"], id=c["id"], index=i)
        for i, c in enumerate(answer.tool_calls)
    ]
    v1 = answer.output_version == "v1"
    server_blocks = answer.server.take_blocks() if v1 else []
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
    if not v1:
        kwargs.update(answer.server.take_v0())
    if reasoning and not v1:
        kwargs["reasoning_content"] = reasoning
    return AIMessageChunk(
        content=content(
            answer,
            reasoning,
            text,
            annotations=annotations_of(answer),
            server_blocks=server_blocks,
            tool_blocks=_last_tool_blocks(answer, tool_call_chunks),
            whole=False,
        ),
        additional_kwargs=kwargs,
        response_metadata=metadata,
        tool_call_chunks=tool_call_chunks,
        usage_metadata=answer.usage if answer.stream_usage else None,
        chunk_position="last",
    )


def _last_tool_blocks(answer: Answer, chunks: list[ToolCallChunk]) -> list[Any]:
    """The tool-call blocks of a last chunk: parsed `tool_call` blocks, which keep their stream index (a
    `tool_call_chunk` block of a last chunk becomes an unindexed `tool_call`, which langchain-core then numbers
    by block type, colliding with a text chunk's index when the text came in earlier chunks); a call whose
    arguments do not parse stays a chunk."""
    valid = {c["id"]: c for c in _parse_tool_calls(answer.tool_calls)[0]}
    blocks: list[Any] = []
    for chunk in chunks:
        call = valid.get(chunk["id"])
        blocks.append(chunk if call is None else {"type": "tool_call", **{k: call[k] for k in ("id", "name", "args")}})
    return blocks


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


def emit(chunk: AIMessageChunk, run_manager: CallbackManagerForLLMRun | None) -> ChatGenerationChunk:
    """`chunk` as the generation chunk a stream yields, its text given to the callbacks first."""
    generation = ChatGenerationChunk(message=chunk)
    if run_manager:
        run_manager.on_llm_new_token(generation.text, chunk=generation)
    return generation


async def aemit(chunk: AIMessageChunk, run_manager: AsyncCallbackManagerForLLMRun | None) -> ChatGenerationChunk:
    """Async twin of `emit`."""
    generation = ChatGenerationChunk(message=chunk)
    if run_manager:
        await run_manager.on_llm_new_token(generation.text, chunk=generation)
    return generation
