"""Provider names in `init_chat_model`, as langchain-perplexity's and `ChatOpenAI`'s users name them.

LangChain gives a third-party package no hook to register a provider, so `perplexity_strict` is known once
the package is imported: LangChain's table as it ships shows what an application sees before the import
(LangChain's own errors, which the docs answer with the import line), and registering shows what it sees
after (the name works, in the prefix, `model_provider=` and config-file forms). `perplexity` is
langchain-perplexity's name: served by this package only when langchain-perplexity is not installed, with a
warning that names `perplexity_strict:`.
"""

from __future__ import annotations

import warnings

import pytest
from langchain.chat_models import base, init_chat_model

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.registration import LEGACY_PROVIDER, register_provider
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY

CONFIG = {"model": "perplexity/sonar", "model_provider": "perplexity_strict", "api_key": KEY}  # as read from a file


def _attempt(**kwargs: object) -> str:
    try:
        return type(init_chat_model(**kwargs)).__name__  # type: ignore[arg-type]
    except Exception as error:
        return f"{type(error).__name__}: {error}"


def test_the_provider_name_needs_the_import_and_works_after_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the import (LangChain's table as LangChain ships it): LangChain's own errors, which the docs answer
    with the import line (if LangChain ever adds a registration hook, this fails, and the package should use
    it). After it (`register_provider`, which the import runs): the prefix, `model_provider=` and config forms."""
    shipped = {k: v for k, v in base._BUILTIN_PROVIDERS.items() if k != "perplexity_strict"}
    shipped[LEGACY_PROVIDER] = ("langchain_perplexity", "ChatPerplexity", base._call)
    monkeypatch.setattr(base, "_BUILTIN_PROVIDERS", shipped)
    base._get_chat_model_creator.cache_clear()
    prefix = _attempt(model="perplexity_strict:perplexity/sonar", api_key=KEY)
    assert prefix.startswith("ValueError: Unable to infer model provider for model='perplexity_strict:")
    assert _attempt(**CONFIG).startswith("ValueError: Unsupported provider='perplexity_strict'")
    assert register_provider() is True  # what `import langchain_perplexity_strict` runs
    gateway = {"base_url": "https://gateway.example/v1"}
    after = [_attempt(model="perplexity_strict:perplexity/sonar", api_key=KEY), _attempt(**CONFIG, **gateway)]
    assert after == ["ChatPerplexityStrict"] * 2
    base._get_chat_model_creator.cache_clear()


def test_the_perplexity_name_is_served_when_langchain_perplexity_is_gone(emu: PerplexityEmulator) -> None:
    """langchain-perplexity is not installed here: `perplexity:` and an inferred `sonar-*` build this package's
    model (with a warning naming `perplexity_strict:`), and it answers."""
    for spec in ("perplexity:sonar-pro", "sonar-pro"):
        with pytest.warns(UserWarning, match=r"Write 'perplexity_strict:sonar-pro'"):
            model = init_chat_model(spec, api_key=KEY, base_url=emu.base_url, api="chat_completions")
        assert isinstance(model, ChatPerplexityStrict) and model.model == "sonar-pro"
        assert model.invoke("hello").additional_kwargs["citations"]
        assert emu.requests[-1].body["model"] == "sonar-pro"


def test_the_perplexity_name_stays_langchain_perplexitys_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """With langchain-perplexity installed, its entry is left as LangChain wrote it."""
    import importlib.util

    original = ("langchain_perplexity", "ChatPerplexity", base._call)
    providers = {**base._BUILTIN_PROVIDERS, LEGACY_PROVIDER: original}
    monkeypatch.setattr(base, "_BUILTIN_PROVIDERS", providers)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "langchain_perplexity" else real_find_spec(name, *a),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert register_provider() is True
    assert providers[LEGACY_PROVIDER] == original
    assert providers["perplexity_strict"][:2] == ("langchain_perplexity_strict", "ChatPerplexityStrict")
    base._get_chat_model_creator.cache_clear()
