"""docs/migration.md's two tables, rendered from the rows of every `migration_rows_*.py` beside this module.

Each such module defines `ROWS`, a list of dicts with exactly the keys of `KEYS` (the format in the module
docstrings). The page's prose is written by hand; each table sits between its markers and is replaced
by `write()`. Regenerate after changing a row:

    .venv/bin/python -m tests.integration_tests.migration_doc

`test_migration_doc.py` checks that every row names a test that exists and that the page equals the render.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
DOC = ROOT / "docs" / "migration.md"

KEYS = ("group", "kind", "habit", "now", "instead", "defaults", "test")
GROUPS = ("langchain-perplexity", "ChatOpenAI")
KINDS = ("default", "argument", "call argument", "output", "entry point")
"""The order of a table's rows: defaults first, then arguments, call arguments, outputs, entry points."""
HEADER = ("", "habit", "what happens now", "write instead", "default that differs")


def row(group: str, kind: str, habit: str, now: str, instead: str, test: str, defaults: str = "") -> dict[str, str]:
    """One row of a migration table, in the keys `KEYS` names (the row modules build theirs with it)."""
    return {
        "group": group,
        "kind": kind,
        "habit": habit,
        "now": now,
        "instead": instead,
        "defaults": defaults,
        "test": test,
    }


def row_modules() -> list[Path]:
    """Every `migration_rows_*.py` beside this module, by name."""
    return sorted(HERE.glob("migration_rows_*.py"))


def collect() -> list[dict[str, Any]]:
    """Every row of every rows module, in module then list order, each with the module it came from."""
    rows: list[dict[str, Any]] = []
    for path in row_modules():
        module = importlib.import_module(f"tests.integration_tests.{path.stem}")
        rows.extend({**row, "_module": path.name} for row in module.ROWS)
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def table(rows: list[dict[str, Any]], group: str) -> str:
    """The markdown table of `group`'s rows, ordered by kind (`KINDS`), then as the rows modules give them."""
    mine = sorted((r for r in rows if r["group"] == group), key=lambda r: KINDS.index(r["kind"]))
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in mine:
        cells = (row["kind"], row["habit"], row["now"], row["instead"], row["defaults"])
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def markers(group: str) -> tuple[str, str]:
    return f"<!-- rows: {group} (generated: python -m tests.integration_tests.migration_doc) -->", "<!-- end rows -->"


def render(text: str, rows: list[dict[str, Any]]) -> str:
    """`text` (the page) with each group's table replaced by the one its rows render."""
    for group in GROUPS:
        start, end = markers(group)
        pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
        if not pattern.search(text):
            msg = f"{DOC.name} has no {start!r} ... {end!r} block"
            raise ValueError(msg)
        block = f"{start}\n{table(rows, group)}\n{end}"
        text = pattern.sub(lambda _, block=block: block, text)
    return text


def write() -> bool:
    """Rewrite the page's tables from the rows; True when the page changed."""
    old = DOC.read_text(encoding="utf-8")
    new = render(old, collect())
    if new != old:
        DOC.write_text(new, encoding="utf-8")
    return new != old


if __name__ == "__main__":
    print(f"{DOC.relative_to(ROOT)}: {'rewritten' if write() else 'unchanged'}")
