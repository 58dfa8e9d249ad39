"""Shared test set-up: hermetic environment and the hypothesis profile."""

from __future__ import annotations

import asyncio
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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Loopback only for every test but the real-API ones; each worker starts with its share of the property tests.

    Sockets: a pytest-socket marker rather than `--allow-hosts` on the command line, so one pytest
    run covers unit and integration tests while the real-API tests still reach Perplexity.
    """
    for item in items:
        if item.get_closest_marker("real_api") is None:
            item.add_marker(pytest.mark.allow_hosts(LOOPBACK))
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    items[:] = property_tests_first_on_each_worker(items, workers)


def property_tests_first_on_each_worker(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """The order for `make test` (pytest-xdist, `--dist worksteal`): the dozen property tests (2,000
    examples, 5-25 s each) dealt out one by one, the integration ones first, to the front of each worker's
    initial share, so that none starts last and runs alone while the other workers are idle.

    Worksteal hands worker i the next `remaining // (workers - i)` tests of the collection, then lets
    an idle worker take the back half of a busy one's queue; what is at the front of a share stays
    there. Within the short tests the collection order (and with it each module's fixtures) is kept.
    """
    if workers < 2:
        return items
    longest = sorted((i for i in items if _is_property_test(i)), key=lambda i: "integration_tests" not in i.path.parts)
    short = [i for i in items if not _is_property_test(i)]
    ordered: list[pytest.Item] = []
    remaining = len(items)
    for worker in range(workers):
        size = remaining // (workers - worker)
        remaining -= size
        mine = longest[worker::workers]
        ordered += mine + short[: size - len(mine)]
        del short[: size - len(mine)]
    return ordered + short


def _is_property_test(item: pytest.Item) -> bool:
    return bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False))


# What the environment held at start-up, for the real-API tests (the only ones that may see it).
_PROVIDER_VALUES = {name: os.environ[name] for name in PROVIDER_ENV if name in os.environ}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Unit and emulator tests never see the provider's real keys: each starts, before its fixtures are set
    up, with none of PROVIDER_ENV set (whatever an earlier test left); a real-API test gets the start-up values.

    A hook rather than an autouse fixture on monkeypatch: a fixture that takes `request` costs pytest an
    `inspect.signature` per test, and this one ran around each of the ~4,600 tests.
    """
    if item.get_closest_marker("real_api") is None:
        for name in PROVIDER_ENV:
            if name in os.environ:
                del os.environ[name]
    else:
        os.environ.update(_PROVIDER_VALUES)


@pytest.fixture(scope="module")
def runner() -> Iterator[asyncio.Runner]:
    """One event loop for a module's sync tests that run async code: `runner.run(coro)` where `asyncio.run(coro)`
    would start and close a loop, and its default thread pool, each time (a property calling `asyncio.run` per
    example spends more on loops than on what it checks). Not for tests of loop start-up or shutdown."""
    with asyncio.Runner() as loop:
        yield loop
