"""A canary key never shows in repr, str, logs at any level, exception text or serialized forms."""

from __future__ import annotations

import json
import logging

import pytest
from langchain_core.load import dumpd, dumps

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:The method `BaseChatModel.dict` was deprecated:DeprecationWarning"),
]

CANARY = "pplx-CANARY-0123456789abcdef"


def test_the_key_never_leaks(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    with PerplexityEmulator(api_key="another-key") as emu:
        llm = ChatPerplexityStrict(api_key=CANARY, base_url=emu.base_url, max_retries=0)  # type: ignore[arg-type]
        seen += [repr(llm), str(llm), dumps(llm), json.dumps(dumpd(llm)), str(llm.model_dump()), str(llm.dict())]
        seen.append(repr(llm.transport.chat_openai))
        with pytest.raises(Exception) as info:  # the emulator answers 401 to the canary key
            llm.invoke("hello")
        seen += [str(info.value), repr(info.value), str(info.value.__cause__)]
        with pytest.raises(Exception) as stream_info:
            list(llm.stream("hello"))
        seen += [str(stream_info.value), repr(stream_info.value)]
        assert "401" in str(info.value)
        headers = {k.lower(): v for k, v in emu.requests[-1].headers.items()}
        assert headers["authorization"] == f"Bearer {CANARY}"  # it was sent, to the server only
    seen.append(caplog.text)
    seen += [str(r.__dict__) for r in caplog.records]
    for text in seen:
        assert CANARY not in text


def test_the_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERPLEXITY_API_KEY", CANARY)
    llm = ChatPerplexityStrict()
    assert llm.api_key is not None and llm.api_key.get_secret_value() == CANARY
    monkeypatch.setenv("PPLX_API_KEY", "first-choice")
    assert ChatPerplexityStrict().api_key.get_secret_value() == "first-choice"  # type: ignore[union-attr]
