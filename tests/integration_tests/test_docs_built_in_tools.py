"""Every Python example in docs/built-in-tools.md runs offline, against the emulator the page starts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integration_tests.test_readme import STEP

PAGE = Path(__file__).parents[2] / "docs" / "built-in-tools.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)


def test_the_page_starts_the_emulator_and_has_an_example_per_tool_family() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert STEP in text
    for helper in ("web_search_tool", "fetch_url_tool", "image_search_tool", "people_search_tool",
                   "finance_search_tool", "sandbox_tool", "mcp_tool", "connector_tool", "builtin_skill",
                   "get_perplexity_cost_callback"):  # fmt: skip
        assert any(helper in block for block in BLOCKS), helper


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example-{i}" for i in range(len(BLOCKS))])
def test_example_runs(exports: dict[str, str], monkeypatch: pytest.MonkeyPatch, block: str) -> None:
    for name, value in exports.items():
        monkeypatch.setenv(name, value)
    exec(compile(block, str(PAGE), "exec"), {"__name__": "docs_example"})
