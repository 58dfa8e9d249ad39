"""Every Python example in README.md, and in the docs pages it sends readers to, runs offline.

The README's one step is `eval "$(perplexity-strict emulator --background --env)"`;
the session's `exports` fixture (conftest.py) runs that command, this test takes the
exports it prints into the environment and executes every block. docs/search-and-embeddings.md
has its own test (test_docs_search.py), which checks what its examples print.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
# The pages the README moved its longer examples to.
DOC_PAGES = ("conversations.md", "parameters.md", "emulator.md", "batches.md", "migration.md", "long-runs.md")
DOC_BLOCKS = [
    (page, block)
    for page in DOC_PAGES
    for block in re.findall(r"```python\n(.*?)```", (ROOT / "docs" / page).read_text(encoding="utf-8"), re.DOTALL)
]
STEP = 'eval "$(perplexity-strict emulator --background --env)"'


def test_the_readme_has_examples() -> None:
    assert len(BLOCKS) >= 8


def test_the_readme_starts_the_emulator_as_the_exports_fixture_does() -> None:
    """The `exports` fixture (conftest.py) runs this step, with `--port 0` so it never meets a busy port."""
    assert STEP in README.read_text(encoding="utf-8")


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example-{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(
    exports: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], block: str
) -> None:
    """Each block runs as a script and prints what it is about; the stop and agent blocks show their claim."""
    for name, value in exports.items():
        monkeypatch.setenv(name, value)
    exec(compile(block, str(README), "exec"), {"__name__": "readme_example"})
    printed = capsys.readouterr().out
    assert printed.strip(), "a README example prints nothing when run as a script"
    if "stop=" in block:  # the answer is cut before the stop sequence, and the metadata says so
        text, matched = printed.splitlines()[:2]
        assert "[1]" in text and "[2]" not in text and matched == "[2]", printed
    if "create_agent" in block:  # the last answer comes from the tool's result, not from the injected reminder
        assert printed.splitlines()[-1] == "From the tool results: 30.", printed


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example-{i}" for i in range(len(BLOCKS))])
def test_a_block_that_needs_the_agents_extra_says_so(block: str) -> None:
    """`make test-readme` installs `.[agents]` only for blocks marked so; `pip install .` lacks langchain/langgraph."""
    needs_extra = re.search(r"^(from|import) (langchain|langgraph)\b(?!_)", block, re.MULTILINE) is not None
    assert needs_extra == block.startswith('# needs: pip install ".[agents]"\n')


def test_each_docs_page_has_examples() -> None:
    assert {page for page, _ in DOC_BLOCKS} == set(DOC_PAGES)


@pytest.mark.parametrize(("page", "block"), DOC_BLOCKS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(DOC_BLOCKS)])
def test_docs_example_runs(
    exports: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], page: str, block: str
) -> None:
    for name, value in exports.items():
        monkeypatch.setenv(name, value)
    exec(compile(block, str(ROOT / "docs" / page), "exec"), {"__name__": "docs_example"})
    printed = capsys.readouterr().out
    assert printed.strip(), f"an example of docs/{page} prints nothing when run as a script"
    if "compact_messages" in block:  # a long run of dropped messages is one range, not 82 numbers
        assert re.search(r"compact_to_context_window: #1-#\d+:", printed), printed
