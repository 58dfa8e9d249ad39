"""LangChain's standard integration tests, against the package's emulator, on both surfaces."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_tests.integration_tests import ChatModelIntegrationTests

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator

_emulator: PerplexityEmulator | None = None


@pytest.fixture(scope="module", autouse=True)
def _running_emulator() -> Iterator[None]:
    global _emulator
    # The standard tests send unrelated conversations that open with the same
    # text ("hello" as system in one, as user in another); the emulator's
    # turn-state memory would take them for one conversation. Our own
    # multi-turn tests keep it on.
    with PerplexityEmulator(api_key="test-key", track_roles=False) as emu:
        _emulator = emu
        yield
    _emulator = None


@pytest.fixture
def vcr() -> None:
    """What langchain-tests' `test_stream_time` asks for besides the model: pytest-recording's cassette, a plugin
    `pyproject.toml` leaves off (the cassettes are tests/recording.py's, vcrpy driven directly). The test skips
    itself here before reading it (`enable_vcr_tests` is False)."""
    return None


def _base_url() -> str:
    assert _emulator is not None
    return _emulator.base_url


class PerplexityIntegrationTests(ChatModelIntegrationTests):
    """What both surfaces share; each subclass says its model and what its surface has."""

    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ChatPerplexityStrict

    @property
    def supports_json_mode(self) -> bool:
        return True  # sent as a json_schema response format, which Perplexity enforces

    @property
    def returns_usage_metadata(self) -> bool:
        return True


class TestAgentApi(PerplexityIntegrationTests):
    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "perplexity/sonar", "api_key": "test-key", "base_url": _base_url()}

    @property
    def has_tool_choice(self) -> bool:
        return True

    @property
    def supports_image_inputs(self) -> bool:
        return True

    @property
    def supports_image_urls(self) -> bool:
        return True

    @pytest.mark.xfail(
        reason="The standard test downloads an image from the internet to inline it; machines "
        "without internet cannot. Image inputs are covered by test_image_url_inputs here.",
        raises=httpx.ConnectError,
        strict=False,
    )
    def test_image_inputs(self, model: BaseChatModel) -> None:
        super().test_image_inputs(model)


class TestChatCompletions(PerplexityIntegrationTests):
    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "sonar", "api": "chat_completions", "api_key": "test-key", "base_url": _base_url()}

    @property
    def has_tool_calling(self) -> bool:
        # The Sonar models have no client-side function tools (docs/perplexity-rules.md).
        return False
