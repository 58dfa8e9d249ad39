"""init_chat_model registration, serialization, and the Runnable wrappers."""

from __future__ import annotations

import pytest
from langchain.chat_models import init_chat_model
from langchain_core.load import dumpd, dumps, load

import langchain_perplexity_strict
from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:The function `load` is in beta"),
]


def test_init_chat_model_by_prefix_and_by_provider(emu: PerplexityEmulator) -> None:
    model = init_chat_model("perplexity_strict:perplexity/sonar", api_key="test-key", base_url=emu.base_url)
    assert isinstance(model, ChatPerplexityStrict)
    assert model.invoke("hello").content
    sonar = init_chat_model("sonar", model_provider="perplexity_strict", api="chat_completions", api_key="k")
    assert isinstance(sonar, ChatPerplexityStrict) and sonar.api == "chat_completions"


def test_configurable_fields(emu: PerplexityEmulator) -> None:
    model = init_chat_model(
        "perplexity_strict:perplexity/sonar",
        api_key="test-key",
        base_url=emu.base_url,
        configurable_fields=("model", "model_provider", "temperature"),
    )
    model.invoke("hi", config={"configurable": {"temperature": 0.5}})
    assert emu.requests[-1].body["temperature"] == 0.5
    overridden = {"model": "openai/gpt-5.1", "model_provider": "perplexity_strict"}
    model.invoke("hi", config={"configurable": overridden})
    assert emu.requests[-1].body["model"] == "openai/gpt-5.1"


def test_registration_explains_a_changed_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain.chat_models import base

    from langchain_perplexity_strict.registration import register_provider

    monkeypatch.setattr(base, "_BUILTIN_PROVIDERS", ["not", "a", "dict"])
    with pytest.warns(RuntimeWarning, match="could not register the 'perplexity_strict' provider"):
        assert register_provider() is False
    assert langchain_perplexity_strict.ChatPerplexityStrict is ChatPerplexityStrict


def test_dumpd_and_load_round_trip_without_the_key() -> None:
    model = ChatPerplexityStrict(api_key="pplx-secret-value", temperature=0.3, search_recency_filter="week")  # type: ignore[arg-type]
    assert "pplx-secret-value" not in dumps(model)
    data = dumpd(model)
    assert data["kwargs"]["api_key"] == {"lc": 1, "type": "secret", "id": ["PPLX_API_KEY"]}
    restored = load(
        data,
        secrets_map={"PPLX_API_KEY": "restored-key"},
        valid_namespaces=["langchain_perplexity_strict"],
        allowed_objects=[ChatPerplexityStrict],
    )
    assert isinstance(restored, ChatPerplexityStrict)
    assert restored.api_key is not None and restored.api_key.get_secret_value() == "restored-key"
    assert (restored.temperature, restored.search_recency_filter) == (0.3, "week")


def test_with_config_retry_and_fallbacks(emu: PerplexityEmulator) -> None:
    model = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, max_retries=0)  # type: ignore[arg-type]
    assert model.with_config(tags=["t"]).invoke("tagged").content
    emu.inject(Fault("server_error", status=503))
    assert model.with_retry(stop_after_attempt=2, wait_exponential_jitter=False).invoke("retry me").content
    broken = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, model="openai/gpt-9", max_retries=0)  # type: ignore[arg-type]
    assert broken.with_fallbacks([model]).invoke("fall back").content
