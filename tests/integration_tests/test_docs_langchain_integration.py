"""docs/langchain-integration.mdx, the page in LangChain's partner-integration form, runs offline.

Its Python blocks share one namespace, as a reader runs them top to bottom (the model is built once,
then used), against the emulator of the README's one step. The page keeps the template's sections
(langchain-ai/docs, src/oss/python/integrations/chat/TEMPLATE.mdx).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).parents[2] / "docs" / "langchain-integration.mdx"
TEXT = PAGE.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python[^\n]*\n(.*?)```", TEXT, re.DOTALL)
SECTIONS = (
    "## Overview",
    "### Details",
    "### Features",
    "## Setup",
    "### Credentials",
    "### Installation",
    "## Instantiation",
    "## Invocation",
    "## API reference",
)


def test_the_page_has_the_templates_sections_in_order() -> None:
    places = [TEXT.find(section + "\n") for section in SECTIONS]
    assert -1 not in places, [s for s, p in zip(SECTIONS, places, strict=True) if p == -1]
    assert places == sorted(places)
    assert TEXT.startswith("---\ntitle: ")


def test_the_blocks_run_in_order_and_each_prints(
    exports: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(BLOCKS) >= 8
    for name, value in exports.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("getpass.getpass", lambda prompt="": pytest.fail("the key is set: no prompt"))
    namespace: dict[str, object] = {"__name__": "docs_example"}
    for i, block in enumerate(BLOCKS):
        exec(compile(block, f"{PAGE}:block-{i}", "exec"), namespace)
        printed = capsys.readouterr().out
        assert printed.strip() or i == 0 or "model = ChatPerplexityStrict(" in block, f"block {i} prints nothing"
        if "normalize(history)" in block:  # the rules' names, in the report
            assert "merge_adjacent_turns" in printed and "start_with_user_turn" in printed, printed
        if "with_structured_output" in block:
            assert "name='Lyon'" in printed and "population=522000" in printed, printed
