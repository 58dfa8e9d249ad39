"""The tests' environment clean-up removes every variable the package reads."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.conftest import PROVIDER_ENV

PACKAGE = Path(__file__).parents[2] / "langchain_perplexity_strict"
# os.environ.get("X"), os.environ["X"], os.getenv("X"), from_env("X"), secret_from_env(["X", "Y"])
READS = re.compile(r"(?:environ\.get|environ\[|getenv|from_env)\(?\s*(\[[^\]]*\]|\"[A-Z0-9_]+\")")


def variables_read_by_the_package() -> set[str]:
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for found in READS.findall(path.read_text(encoding="utf-8")):
            names.update(re.findall(r"\"([A-Z0-9_]+)\"", found))
    return names


def test_the_scan_finds_the_known_variables() -> None:
    assert {"PPLX_API_KEY", "PERPLEXITY_API_KEY", "PPLX_BASE_URL"} <= variables_read_by_the_package()


def test_clean_up_covers_every_variable_the_package_reads() -> None:
    assert variables_read_by_the_package() <= set(PROVIDER_ENV)


def test_no_provider_variable_reaches_a_test() -> None:
    assert not {name for name in PROVIDER_ENV if name in os.environ}
