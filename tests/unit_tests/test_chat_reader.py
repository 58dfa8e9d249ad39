"""The chat-completions stream reader, fed chunks in the orders gateways send them (no I/O).

Perplexity's chat-completions chunks repeat the envelope (`id`, `model`,
`citations`) and carry the cumulative usage so far; some servers put the usage
on the finish chunk and send the sources in a trailing chunk of their own. The
answer must be the same whichever chunk carries what.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk

from langchain_perplexity_strict._response._answer import Answer
from langchain_perplexity_strict._response._chat import ChatStreamReader

USAGE = {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12, "cost": {"total_cost": 0.0051}}
SOURCES = {"citations": ["https://a"], "search_results": [{"title": "A", "url": "https://a"}]}
ENVELOPE = {"id": "cmpl_1", "model": "sonar", "object": "chat.completion.chunk", "created": 1}


def text_chunk(text: str, **fields: Any) -> dict[str, Any]:
    return {**ENVELOPE, "choices": [{"index": 0, "delta": {"content": text}}], **fields}


def finish_chunk(**fields: Any) -> dict[str, Any]:
    return {**ENVELOPE, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], **fields}


# Where the usage and the sources arrive, as the chunks that follow the text.
ENDINGS: dict[str, list[dict[str, Any]]] = {
    "usage and sources on the finish chunk": [finish_chunk(usage=USAGE, **SOURCES)],
    "usage on the finish chunk, then a chunk with only the sources": [
        finish_chunk(usage=USAGE),
        {"choices": [], **SOURCES},
    ],
    "usage on the finish chunk, then sources with a null usage": [
        finish_chunk(usage=USAGE),
        {**ENVELOPE, "choices": [], "usage": None, **SOURCES},
    ],
    "sources first, then usage alone": [finish_chunk(**SOURCES), {"choices": [], "usage": USAGE}],
}


def read(chunks: list[dict[str, Any]]) -> AIMessageChunk:
    reader = ChatStreamReader(Answer())
    out: list[AIMessageChunk] = []
    for chunk in chunks:
        out += reader.feed(chunk)
        out += reader.answer.take_text()
    out += reader.finish()
    merged = out[0]
    for piece in out[1:]:
        merged += piece
    return merged


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_usage_id_model_and_sources_survive_whichever_chunk_brings_them(ending: str) -> None:
    merged = read([text_chunk("Paris [1]", usage={**USAGE, "completion_tokens": 2}), *ENDINGS[ending]])
    assert merged.content == "Paris [1]"
    assert merged.usage_metadata is not None
    assert merged.usage_metadata["input_tokens"] == 7
    assert merged.usage_metadata["output_tokens"] == 5  # the last cumulative count, once
    assert merged.response_metadata["cost"] == {"total_cost": 0.0051}
    assert merged.response_metadata["id"] == "cmpl_1"
    assert merged.response_metadata["model_name"] == "sonar"
    assert merged.response_metadata["finish_reason"] == "stop"
    assert merged.additional_kwargs["citations"] == ["https://a"]
