"""Every Python example in docs/built-in-tools.md runs offline, against the emulator the page starts."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Any

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


def _said(comment: str) -> re.Pattern[str] | None:
    """What a `print(...)  # comment` line says it prints: a Python value (`['fetch_url']`), or one with `...`
    for what varies (`{'search_web': {'invocation': 1, 'cost_usd': ...}, ...}`); None for prose."""
    try:
        return re.compile(re.escape(str(ast.literal_eval(comment))) + r"\Z")
    except (ValueError, SyntaxError):
        pass
    if comment[:1] in "[{(" and "..." in comment:
        return re.compile(".*?".join(map(re.escape, comment.split("..."))) + r"\Z")
    return None


def _printed_lines(block: str) -> dict[int, re.Pattern[str]]:
    """The block's lines (1-based) that print with a comment saying what, and the pattern of it."""
    found = {}
    for number, line in enumerate(block.splitlines(), 1):
        code, _, comment = line.partition("  # ")
        if code.lstrip().startswith("print(") and comment and (said := _said(comment.strip())) is not None:
            found[number] = said
    return found


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example-{i}" for i in range(len(BLOCKS))])
def test_example_runs(exports: dict[str, str], monkeypatch: pytest.MonkeyPatch, block: str) -> None:
    """It runs, and each print whose comment says what it prints prints that."""
    for name, value in exports.items():
        monkeypatch.setenv(name, value)
    printed: dict[int, str] = {}

    def record(*values: Any, **kwargs: Any) -> None:
        printed[sys._getframe(1).f_lineno] = " ".join(map(str, values))

    exec(compile(block, str(PAGE), "exec"), {"__name__": "docs_example", "print": record})
    for number, said in _printed_lines(block).items():
        assert said.match(printed.get(number, "")), f"line {number}: {printed.get(number)!r}, the page says {said}"


def test_the_printed_output_is_read_from_the_comments() -> None:
    assert any(_printed_lines(block) for block in BLOCKS)
    assert _said("['fetch_url', 'image_search']").match("['fetch_url', 'image_search']")  # type: ignore[union-attr]
    assert _said("one line per pending request") is None
