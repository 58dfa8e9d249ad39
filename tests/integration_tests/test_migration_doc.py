"""docs/migration.md cannot drift: every row is well formed and names a test that exists, and the page's
tables are the ones the rows render (`python -m tests.integration_tests.migration_doc` regenerates them)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.integration_tests import migration_doc

ROWS = migration_doc.collect()


def test_there_are_rows_for_both_tables_from_every_module() -> None:
    assert migration_doc.row_modules(), "no migration_rows_*.py"
    assert {r["_module"] for r in ROWS} == {p.name for p in migration_doc.row_modules()}
    assert {r["group"] for r in ROWS} == set(migration_doc.GROUPS)


@cache
def _test_functions(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")
    )


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['_module']}:{i}" for i, r in enumerate(ROWS)])
def test_each_row_is_well_formed_and_names_a_test_that_exists(row: dict[str, Any]) -> None:
    given = {k: v for k, v in row.items() if k != "_module"}
    assert tuple(sorted(given)) == tuple(sorted(migration_doc.KEYS)), row
    assert all(isinstance(v, str) for v in given.values()), row
    assert row["group"] in migration_doc.GROUPS, row
    assert row["kind"] in migration_doc.KINDS, row
    assert row["habit"] and row["now"] and row["instead"] and row["test"], row
    assert row["now"].startswith(("carries over", "refused before sending", "warned once")), row
    path, _, name = row["test"].partition("::")
    file = migration_doc.ROOT / path
    assert file.is_file(), f"{row['test']}: no such file"
    assert name.split("[")[0] in _test_functions(file), f"{row['test']}: no such test function"


def test_the_page_equals_the_rendered_rows() -> None:
    text = migration_doc.DOC.read_text(encoding="utf-8")
    assert text == migration_doc.render(text, ROWS), (
        "docs/migration.md is out of date: run .venv/bin/python -m tests.integration_tests.migration_doc"
    )


def test_a_drifted_page_or_a_missing_test_is_caught() -> None:
    text = migration_doc.DOC.read_text(encoding="utf-8")
    changed = [{**ROWS[0], "now": ROWS[0]["now"] + " (edited)"}, *ROWS[1:]]
    assert migration_doc.render(text, changed) != text
    with pytest.raises(ValueError, match=r"no .* block"):
        migration_doc.render("no tables here", ROWS)
    assert "test_no_such_thing" not in _test_functions(migration_doc.HERE / "test_migration_arguments.py")
