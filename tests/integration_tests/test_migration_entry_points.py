"""Provider names in `init_chat_model`, as langchain-perplexity's and `ChatOpenAI`'s users name them.

LangChain gives a third-party package no hook to register a provider, so `perplexity_strict` is known once
the package is imported; one fresh interpreter shows what an application sees before the import (LangChain's
own errors, which docs/migration.md answers with the import line) and after it (the name works, in the prefix,
`model_provider=` and config-file forms). `perplexity` is langchain-perplexity's name: served by this package
only when langchain-perplexity is not installed, with a warning that names `perplexity_strict:`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pytest
from langchain.chat_models import base, init_chat_model

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.registration import LEGACY_PROVIDER, register_provider
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY

# Runs in a fresh interpreter: what init_chat_model does before and after `import langchain_perplexity_strict`.
SCRIPT = """
import json, sys
from langchain.chat_models import init_chat_model

config = {"model": "perplexity/sonar", "model_provider": "perplexity_strict", "api_key": "k"}
def attempt(**kwargs):
    try:
        return type(init_chat_model(**kwargs)).__name__
    except Exception as error:
        return f"{type(error).__name__}: {error}"

before = [attempt(model="perplexity_strict:perplexity/sonar", api_key="k"), attempt(**config)]
import langchain_perplexity_strict  # the line docs/migration.md says to add
after = [
    attempt(model="perplexity_strict:perplexity/sonar", api_key="k"),
    attempt(**config),
    attempt(model="perplexity_strict:perplexity/sonar", api_key="k", base_url="https://gateway.example/v1"),
]
print(json.dumps({"before": before, "after": after}))
"""


@pytest.fixture(scope="module")
def fresh_interpreter() -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_the_provider_name_needs_the_import_and_works_after_it(fresh_interpreter: dict[str, list[str]]) -> None:
    """Before the import: LangChain's errors (if LangChain ever adds a registration hook, this fails, and the
    package should use it); after it, every form builds the model."""
    prefix, config = fresh_interpreter["before"]
    assert prefix.startswith("ValueError: Unable to infer model provider for model='perplexity_strict:")
    assert config.startswith("ValueError: Unsupported provider='perplexity_strict'")
    assert fresh_interpreter["after"] == ["ChatPerplexityStrict"] * 3


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
