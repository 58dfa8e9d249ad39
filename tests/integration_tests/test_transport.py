"""The transport on its own: any path, JSON or a stream, errors translated, a fallback sent once."""

from __future__ import annotations

import openai
import pytest
from pydantic import SecretStr

from langchain_perplexity_strict._transport import Fallback, Transport, encode_body, iterate_batches
from langchain_perplexity_strict.testing import PerplexityEmulator

BODY = {"model": "perplexity/sonar", "input": "hello", "stream": False}


def _transport(emu: PerplexityEmulator) -> Transport:
    key = (emu.base_url, SecretStr("test-key"), 10.0, 0)
    return Transport.build(key, model="perplexity/sonar")


def test_post_and_get_take_the_path_per_call(emu: PerplexityEmulator) -> None:
    transport = _transport(emu)
    models = transport.get("/v1/models")
    assert "perplexity/sonar" in [m["id"] for m in models["data"]]
    answer = transport.post("/v1/responses", encode_body(BODY), api="agent")
    assert answer["status"] == "completed"
    assert emu.requests[-1].path == "/v1/responses"


def test_a_stream_is_opened_on_the_path_given(emu: PerplexityEmulator) -> None:
    stream = _transport(emu).stream("/v1/responses", encode_body({**BODY, "stream": True}), api="agent")
    try:
        events = [event for batch, _ in iterate_batches(stream, "agent") for event in batch]
    finally:
        stream.close()
    assert events[-1]["type"] == "response.completed"


def test_errors_name_the_api_and_perplexitys_message(emu: PerplexityEmulator) -> None:
    with pytest.raises(openai.BadRequestError, match=r"Perplexity emulator agent API answered HTTP 400"):
        _transport(emu).post("/v1/responses", encode_body({**BODY, "not_a_field": 1}), api="agent")


def test_the_fallback_body_is_sent_once_when_it_applies(emu: PerplexityEmulator) -> None:
    transport = _transport(emu)
    refused = encode_body({**BODY, "not_a_field": 1})
    fallback = Fallback(lambda error: isinstance(error, openai.BadRequestError), lambda: encode_body(BODY))
    answer, fell_back = transport.send("/v1/responses", refused, fallback, api="agent")
    assert fell_back and answer["status"] == "completed"
    never = Fallback(lambda error: False, lambda: encode_body(BODY))
    with pytest.raises(openai.BadRequestError):
        transport.send("/v1/responses", refused, never, api="agent")
