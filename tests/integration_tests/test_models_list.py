"""`list_models` / `alist_models` (`GET /v1/models`) with the chat model's connection settings, on the emulator,
and the emulator's list against the published `ModelListOutput`."""

from __future__ import annotations

import json
import urllib.request

import pytest

from langchain_perplexity_strict import ChatPerplexityStrict, PerplexityModelInfo, alist_models, list_models
from langchain_perplexity_strict.testing import PerplexityEmulator
from langchain_perplexity_strict.testing.agent_api import AGENT_MODELS
from tests import published_schema
from tests.integration_tests.factory import KEY


def test_the_emulator_serves_the_published_model_list(emu: PerplexityEmulator) -> None:
    with urllib.request.urlopen(emu.base_url + "/v1/models") as answer:  # no key: the list needs none
        listed = json.loads(answer.read())
    published_schema.validate("ModelListOutput", listed)
    assert [m["id"] for m in listed["data"]] == list(AGENT_MODELS)


async def test_list_models_returns_the_published_models_sync_and_async(emu: PerplexityEmulator) -> None:
    listed = list_models(api_key=KEY, base_url=emu.base_url)
    assert [m.id for m in listed] == list(AGENT_MODELS)
    assert listed == await alist_models(api_key=KEY, base_url=emu.base_url)
    for info in listed:
        assert isinstance(info, PerplexityModelInfo)
        published_schema.validate("ModelOutput", info.model_dump())
    headers = {k.lower(): v for k, v in emu.requests[-1].headers.items()}
    assert headers["authorization"] == f"Bearer {KEY}"  # the key goes, as the SDK sends it
    # Every model listed is one the chat model can be given.
    assert ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, model=listed[-1].id).invoke("hi").content  # type: ignore[arg-type]


def test_the_connection_settings_are_the_chat_models(emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    """Aliases and environment variables as the chat model takes them; bad values refused before sending."""
    assert list_models(pplx_api_key=KEY, openai_api_base=emu.base_url, request_timeout=5, max_retries=0)
    monkeypatch.setenv("PPLX_API_KEY", KEY)
    monkeypatch.setenv("PPLX_BASE_URL", emu.base_url + "/v1")  # the OpenAI-compatibility form
    assert [m.id for m in list_models()] == list(AGENT_MODELS)
    monkeypatch.delenv("PPLX_API_KEY")
    monkeypatch.delenv("PERPLEXITY_API_KEY", raising=False)
    emu.clear()
    with pytest.raises(ValueError, match="api_key: no key given to list_models"):
        list_models()
    for bad, name in (
        ({"timeout": -1}, "timeout"),
        ({"max_retries": "2"}, "max_retries"),
        ({"base_url": "not a url"}, "base_url"),
        ({"model": "x"}, "model"),
    ):
        with pytest.raises(ValueError, match=name):
            list_models(api_key=KEY, **bad)
    assert emu.requests == []


def test_errors_are_translated_as_the_chat_models(emu: PerplexityEmulator) -> None:
    with pytest.raises(Exception, match="models API answered HTTP 404"):
        list_models(api_key=KEY, base_url=emu.base_url + "/elsewhere", max_retries=0)
    assert [r.path for r in emu.requests] == ["/elsewhere/v1/models"]
