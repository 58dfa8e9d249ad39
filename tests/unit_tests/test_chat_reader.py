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


# What Sonar sends beside the published fields (langchain-perplexity 1.4.2 read each into additional_kwargs).
SONAR_LISTS = {
    "images": [{"image_url": "https://i/1.png", "origin_url": "https://a", "height": 480, "width": 640}],
    "videos": [{"url": "https://v/1", "thumbnail_url": "https://v/1.jpg", "duration": 12}],
    "related_questions": ["What about Lyon?"],
    "reasoning_steps": [{"thought": "Searching", "type": "web_search", "web_search": {"search_keywords": ["paris"]}}],
}


def test_sonar_record_lists_are_kept_once_from_invoke_and_stream() -> None:
    """`images`, `videos`, `related_questions` and `reasoning_steps`: in `additional_kwargs`, once each, whether a
    completion carries them or every stream chunk repeats them (the steps may also come in the message)."""
    answer = Answer()
    step = {"thought": "Reading", "type": "fetch_url_content"}
    message = {"role": "assistant", "content": "Paris [1]", "reasoning_steps": [step]}
    completion = {**ENVELOPE, "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], **SONAR_LISTS}
    ChatStreamReader(answer).read({**completion, "usage": USAGE, **SOURCES})
    invoked = answer.message().additional_kwargs
    streamed = read(
        [
            text_chunk("Paris ", **SONAR_LISTS),
            text_chunk("[1]", **SONAR_LISTS),
            {**finish_chunk(usage=USAGE, **SOURCES, **SONAR_LISTS)}
            | {"choices": [{"index": 0, "delta": {"reasoning_steps": [step]}, "finish_reason": "stop"}]},
        ]
    ).additional_kwargs
    for kwargs in (invoked, streamed):
        for key, value in SONAR_LISTS.items():
            expected = [*value, step] if key == "reasoning_steps" else value
            assert kwargs[key] == expected, key
        assert kwargs["search_results"][0].url == "https://a" == kwargs["search_results"][0]["url"]
