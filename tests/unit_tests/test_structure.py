"""Properties of the code base a maintainer relies on, checked rather than promised."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "langchain_perplexity_strict"


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_is_over_450_lines() -> None:
    long = {p.relative_to(ROOT).as_posix(): n for p in _sources() if (n := len(p.read_text().splitlines())) > 450}
    assert not long, long


def test_the_emulator_imports_nothing_from_the_client_it_judges() -> None:
    for path in sorted((PACKAGE / "testing").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("langchain_perplexity_strict")
            ):
                assert node.module.startswith("langchain_perplexity_strict.testing"), (path.name, node.module)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("langchain"), (path.name, alias.name)
                    assert not alias.name.startswith("perplexity"), (path.name, alias.name)


def test_code_cites_only_what_a_reader_can_open() -> None:
    pattern = re.compile(r"seeds? 00\d|perplexity-api\.md")
    files = [
        *_sources(),
        *ROOT.joinpath("tests").rglob("*.py"),
        ROOT / "README.md",
        *ROOT.joinpath("docs").rglob("*.md"),
    ]
    cited = [p.relative_to(ROOT).as_posix() for p in files if pattern.search(p.read_text())]
    assert not cited, cited


def test_docs_cited_in_code_exist() -> None:
    for path in _sources():
        for page in re.findall(r"docs/[\w./-]+\.md", path.read_text()):
            assert (ROOT / page).exists(), (path.name, page)
