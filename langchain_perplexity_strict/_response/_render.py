"""An `Answer` as LangChain messages (citations and search results in `additional_kwargs`): whole, chunks, v0 and v1.

A whole v1 message is its v0 message's `content_blocks` (the `_blocks` translator); stream chunks use `content`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.tool import ToolCallChunk, tool_call_chunk
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGenerationChunk

from langchain_perplexity_strict._message_keys import CONTEXT_KEY, THOUGHT_SIGNATURES
from langchain_perplexity_strict._response._answer_view import AnswerView as Answer
from langchain_perplexity_strict._response._blocks import (
    ANNOTATIONS,
    FIRST_TOOL_CALL_INDEX,
    PROVIDER,
    REASONING_INDEX,
    TEXT_INDEX,
    text_block,
)
from langchain_perplexity_strict._response._blocks import citation_annotations as citations_in
from langchain_perplexity_strict._response._server_item_collector import v0_kwargs


def content(
    answer: Answer,
    reasoning: str,
    text: str,
    *,
    annotations: Sequence[dict[str, Any]] = (),
    server_blocks: Sequence[dict[str, Any]] = (),
    tool_blocks: Sequence[Any] = (),
) -> Any:
    """The content of a stream chunk: the text (v0), or v1 standard blocks.

    Not the translator's: a tool call streams before its v0 item exists (tests/unit_tests/test_response_render.py).
    Each block carries its `index`, so LangChain merges chunks block by block.
    """
    if answer.output_version != "v1":
        return text
    blocks: list[dict[str, Any]] = []
    if reasoning:
        blocks.append({"type": "reasoning", "reasoning": reasoning, "index": REASONING_INDEX})
    blocks.extend(server_blocks)
    if text or annotations:
        blocks.append(text_block(text, list(annotations), TEXT_INDEX))
    blocks.extend({**b, "index": FIRST_TOOL_CALL_INDEX + i} for i, b in enumerate(tool_blocks))
    return blocks


def text_chunks(answer: Answer) -> list[AIMessageChunk]:
    """One chunk for pending text, blocks and new sources, or none.

    Each chunk names the provider, so its `content_blocks` use this package's translator.
    """
    reasoning, text = answer.take_pending()
    v1 = answer.output_version == "v1"
    server_blocks = answer.server.take_blocks() if v1 else []
    kwargs = {"reasoning_content": reasoning} if reasoning and not v1 else {}
    kwargs.update({**answer.unsent_sources(), **({} if v1 else answer.server.take_v0())})
    if not (reasoning or text or server_blocks or kwargs):
        return []
    blocks = content(answer, reasoning, text, server_blocks=server_blocks)
    return [AIMessageChunk(content=blocks, additional_kwargs=kwargs, response_metadata=_provider(answer))]


def _provider(answer: Answer) -> dict[str, Any]:
    metadata = {"model_provider": PROVIDER}
    if answer.output_version == "v1":
        metadata["output_version"] = "v1"
    return metadata


def additional_kwargs(answer: Answer, *, v0: bool | None = None) -> dict[str, Any]:
    """Sources, v0 reasoning, thought signatures and fields with no standard place."""
    v0 = answer.output_version != "v1" if v0 is None else v0
    kwargs: dict[str, Any] = {}
    if answer.citations:
        kwargs["citations"] = list(answer.citations)
    if answer.search_results:
        kwargs["search_results"] = list(answer.search_results)
    if v0:
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
    """The text as a `parse_as` instance, as `ChatOpenAI` parses; None for tool calls or no text."""
    if answer.tool_calls or not answer.text.strip():
        return None
    return answer.parse_as.model_validate_json(answer.text)  # type: ignore[union-attr]


def response_metadata(answer: Answer) -> dict[str, Any]:
    return {**answer.metadata, **_provider(answer)}


def citation_annotations(answer: Answer) -> list[dict[str, Any]]:
    """The answer's standard `citation` annotations."""
    return citations_in(answer.text, answer.annotations, answer.citations, answer.search_results)


def annotations_of(answer: Answer) -> list[dict[str, Any]]:
    """The annotations of a v1 text block."""
    return citation_annotations(answer) if answer.output_version == "v1" else []


def message(answer: Answer) -> AIMessage:
    """The whole answer as one message, with its continuation record."""
    result = _message(answer)
    record = answer.context_record(result)
    if record is not None:
        result.response_metadata[CONTEXT_KEY] = record
    return result


def _message(answer: Answer) -> AIMessage:
    """The whole answer as v0; a v1 answer's content is that message's `content_blocks`."""
    tool_calls, invalid = _parse_tool_calls(answer.tool_calls)
    v0 = AIMessage(
        content=answer.text,
        additional_kwargs={**additional_kwargs(answer, v0=True), **v0_kwargs(answer.server.items)},
        response_metadata=response_metadata(answer),
        tool_calls=tool_calls,
        invalid_tool_calls=invalid,
        usage_metadata=answer.usage,
        id=answer.metadata.get("id"),
    )
    if answer.output_version != "v1":
        return v0
    blocks = v0.content_blocks
    return v0.model_copy(update={"content": blocks, "additional_kwargs": additional_kwargs(answer, v0=False)})


def final_chunk(answer: Answer) -> AIMessageChunk:
    """The last stream chunk: pending text, sources, usage (once), metadata, tool calls."""
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
    kwargs.pop("reasoning_content", None)  # streamed already
    kwargs.pop("citations", None)  # only unsent sources follow
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
        ),
        additional_kwargs=kwargs,
        response_metadata=metadata,
        tool_call_chunks=tool_call_chunks,
        usage_metadata=answer.usage if answer.stream_usage else None,
        chunk_position="last",
    )


def _last_tool_blocks(answer: Answer, chunks: list[ToolCallChunk]) -> list[Any]:
    """A last chunk's tool-call blocks, parsed so their stream index cannot collide with the text's.

    Calls whose arguments do not parse stay chunks.
    """
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


def emit(chunk: AIMessageChunk, run_manager: CallbackManagerForLLMRun | None) -> ChatGenerationChunk:
    """`chunk` as a generation chunk, after the callbacks get its text."""
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
