"""Shared test set-up: hermetic environment and the hypothesis profile."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

# The issue asks for at least 2,000 examples per property.
settings.register_profile(
    "default",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# A quick profile for local iteration: HYPOTHESIS_PROFILE=dev.
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Every variable the package reads (tests/unit_tests/test_env_cleanup.py checks the package's
# source for them), and those langchain-openai and openai read for the transport underneath.
PROVIDER_ENV = (
    "PPLX_API_KEY",
    "PERPLEXITY_API_KEY",
    "PPLX_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
    "OPENAI_ORG_ID",
    "OPENAI_ORGANIZATION",
    "OPENAI_PROJECT_ID",
    "OPENAI_PROXY",
)


LOOPBACK = ["127.0.0.1", "localhost"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test but the real-API ones may connect to loopback only (the emulator), via pytest-socket.

    A marker rather than `--allow-hosts` on the command line, so one pytest run covers unit and
    integration tests while the real-API tests still reach Perplexity.
    """
    for item in items:
        if item.get_closest_marker("real_api") is None:
            item.add_marker(pytest.mark.allow_hosts(LOOPBACK))


@pytest.fixture(autouse=True)
def _hermetic_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Unit and emulator tests never see the provider's real keys."""
    if request.node.get_closest_marker("real_api") is None:
        for name in PROVIDER_ENV:
            monkeypatch.delenv(name, raising=False)
    yield
