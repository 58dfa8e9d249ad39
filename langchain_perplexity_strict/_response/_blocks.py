"""An answer's standard content blocks, and the translator (registered for `"perplexity"`) giving v0 the same."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_perplexity_strict._response._server_item_blocks import item_blocks, v0_items

ANNOTATIONS = "annotations"  # v0 key of Perplexity's `url_citation` annotations

_MARKER = re.compile(r"\[(\d+)\]")
REASONING_INDEX, TEXT_INDEX, FIRST_TOOL_CALL_INDEX = 0, 1, 2  # stream block indices


def citation_annotations(
    text: str,
    annotations: Sequence[Mapping[str, Any]],
    citations: Sequence[str],
    search_results: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Standard `citation` annotations: Perplexity's `url_citation`s, else one per `[n]` marker.

    `[n]` cites the result with `id` n (docs/perplexity-rules.md), else the n-th citation.
    """
    if annotations:
        return [
            _citation(a.get("url"), a.get("title"), a.get("start_index"), a.get("end_index"), text) for a in annotations
        ]
    titles = {r.get("url"): r.get("title") for r in search_results}
    by_id: dict[int, str] = {}
    for record in search_results:
        if isinstance(record.get("id"), int) and isinstance(record.get("url"), str):
            by_id.setdefault(record["id"], record["url"])
    out = []
    for match in _MARKER.finditer(text):
        n = int(match.group(1))
        url = by_id.get(n) if by_id else (citations[n - 1] if 1 <= n <= len(citations) else None)
        if url is not None:
            out.append(_citation(url, titles.get(url), match.start(), match.end(), text))
    return out


def _citation(url: Any, title: Any, start: Any, end: Any, text: str) -> dict[str, Any]:
    citation: dict[str, Any] = {"type": "citation", "url": url}
    if title:
        citation["title"] = title
    if isinstance(start, int) and isinstance(end, int):
        citation["start_index"] = start
        citation["end_index"] = end
        citation["cited_text"] = text[start:end]
    return citation


def text_block(text: str, annotations: list[dict[str, Any]], index: int | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if annotations:
        block["annotations"] = annotations
    if index is not None:
        block["index"] = index
    return block


def translate_content(message: AIMessage, *, chunk: bool = False) -> list[Any]:
    """The standard blocks of a v0 answer, as v1 has them; a stream `chunk`'s with stream indices."""
    if not isinstance(message.content, str):
        raise NotImplementedError  # langchain-core falls back to best-effort parsing
    kwargs = message.additional_kwargs
    blocks: list[dict[str, Any]] = []
    reasoning = kwargs.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        blocks.append(_indexed({"type": "reasoning", "reasoning": reasoning}, REASONING_INDEX, chunk))
    for item, block_id in v0_items(kwargs):
        for block in item_blocks(item, block_id):
            result = block["type"] == "server_tool_result"
            blocks.append(_indexed(block, f"lc_{block_id}_result" if result else f"lc_{block_id}", chunk))
    text = message.content
    annotations = citation_annotations(
        text, kwargs.get(ANNOTATIONS) or [], kwargs.get("citations") or [], kwargs.get("search_results") or []
    )
    calls = _calls(message, chunk)
    if text or annotations or (not calls and not blocks and not chunk):  # else no empty text block
        blocks.append(text_block(text, annotations, TEXT_INDEX if chunk else None))
    blocks.extend(calls)
    return blocks


translate_content_chunk = partial(translate_content, chunk=True)


def _calls(message: AIMessage, chunk: bool) -> list[dict[str, Any]]:
    if chunk and isinstance(message, AIMessageChunk) and message.chunk_position != "last":
        return [
            {"type": "tool_call_chunk", **c, "index": FIRST_TOOL_CALL_INDEX + i}
            for i, c in enumerate(message.tool_call_chunks)
        ]
    blocks = [{"type": "tool_call", "id": c["id"], "name": c["name"], "args": c["args"]} for c in message.tool_calls]
    return [_indexed(b, FIRST_TOOL_CALL_INDEX + i, chunk) for i, b in enumerate(blocks)]


def _indexed(block: dict[str, Any], index: int | str, chunk: bool) -> dict[str, Any]:
    return {**block, "index": index} if chunk else block
