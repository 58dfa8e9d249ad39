"""Every Python example in README.md runs, against the emulator (PPLX_BASE_URL points at it)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_perplexity_strict.testing import PerplexityEmulator

README = Path(__file__).parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


@pytest.fixture
def readme_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[PerplexityEmulator]:
    with PerplexityEmulator() as emu:
        monkeypatch.setenv("PPLX_API_KEY", "readme-key")
        monkeypatch.setenv("PPLX_BASE_URL", emu.base_url)
        yield emu


def test_the_readme_has_examples() -> None:
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example-{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(readme_env: PerplexityEmulator, block: str) -> None:
    exec(compile(block, str(README), "exec"), {"__name__": "readme_example"})
