"""``make weight``: the package's weight figures, measured on the working tree.

A contributor's tool, like ``make bench``: it prints figures and asserts nothing.
Every figure excludes ``testing/`` (the emulator) unless it says otherwise.
"""

from __future__ import annotations

import ast
import asyncio
import io
import re
import statistics
import subprocess
import sys
import tokenize
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PACKAGE = ROOT / "langchain_perplexity_strict"
USER_DOCS_EXCLUDED = {"architecture.md", "development.md", "status.md", "performance.md"}
"""Contributor pages: not counted among the user docs."""


def _sources() -> Iterator[Path]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if "testing" not in path.relative_to(PACKAGE).parts:
            yield path


def _prose_and_code(source: str) -> tuple[int, int]:
    """Words of comments and docstrings, and code lines (non-blank, neither comment nor docstring)."""
    tree = ast.parse(source)
    doc_lines: set[int] = set()
    words = 0
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt in body:  # a docstring, or an attribute docstring after an assignment
            value = getattr(stmt, "value", None)
            if isinstance(stmt, ast.Expr) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                doc_lines.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
                words += len(value.value.split())
    comment_lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            words += len(token.string.lstrip("#").split())
            if not token.line[: token.start[1]].strip():
                comment_lines.add(token.start[0])
    lines = source.splitlines()
    code = sum(1 for n, line in enumerate(lines, 1) if line.strip() and n not in doc_lines and n not in comment_lines)
    return words, code


def _functions() -> list[int]:
    sizes = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                sizes.append((node.end_lineno or node.lineno) - node.lineno + 1)
    return sizes


def _path_of(call: Callable[[], Any]) -> tuple[int, int]:
    """Package modules and functions one warm call runs through in this thread (``testing/`` excluded)."""
    call()  # warm
    seen: set[tuple[str, str]] = set()
    prefix = str(PACKAGE)
    emulator = str(PACKAGE / "testing")

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            name = frame.f_code.co_filename
            if name.startswith(prefix) and not name.startswith(emulator):
                seen.add((name, frame.f_code.co_firstlineno))

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return len({module for module, _ in seen}), len(seen)


def _call_paths() -> tuple[tuple[int, int], tuple[int, int]]:
    from langchain_perplexity_strict import ChatPerplexityStrict
    from langchain_perplexity_strict.testing import PerplexityEmulator

    with PerplexityEmulator() as emu:
        model = ChatPerplexityStrict(api_key="k", base_url=emu.base_url)  # type: ignore[arg-type]
        invoke = _path_of(lambda: model.invoke("Hello"))
        stream = _path_of(lambda: list(model.stream("Hello")))
    return invoke, stream


def _class_shape() -> tuple[int, int]:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.runnables import Runnable
    from pydantic import BaseModel

    from langchain_perplexity_strict import ChatPerplexityStrict

    bases = [b for b in ChatPerplexityStrict.__bases__ if b is not BaseChatModel]
    inherited = set()
    for anchor in (BaseChatModel, Runnable, BaseModel):
        inherited |= {n for n in dir(anchor) if not (n.startswith("__") and n.endswith("__")) or n == "__init__"}
    own = set()
    for cls in ChatPerplexityStrict.__mro__:
        if cls in (BaseChatModel, Runnable, BaseModel) or issubclass(BaseChatModel, cls):
            continue
        own |= {n for n, v in vars(cls).items() if callable(v) or isinstance(v, property)}
    return len(bases), len(own & inherited)


def _refusal_length() -> int:
    from langchain_perplexity_strict import ChatPerplexityStrict

    try:
        ChatPerplexityStrict(temprature=0.5, api_key="k")  # type: ignore[call-arg]
    except Exception as error:
        return len(str(error))
    return 0


def _commit_subjects(since: str | None) -> float:
    span = [f"{since}..HEAD"] if since else []
    out = subprocess.run(["git", "log", "--format=%s", *span], cwd=ROOT, capture_output=True, text=True).stdout
    subjects = [len(s) for s in out.splitlines()]
    return statistics.median(subjects) if subjects else 0


def _doc_lines() -> tuple[int, int, int]:
    """README lines, README with the user docs, README with every doc."""
    readme = len((ROOT / "README.md").read_text().splitlines())
    pages = {p.name: len(p.read_text().splitlines()) for p in (ROOT / "docs").iterdir() if p.suffix in (".md", ".mdx")}
    user = sum(n for name, n in pages.items() if name not in USER_DOCS_EXCLUDED)
    return readme, readme + user, readme + sum(pages.values())


def main() -> None:
    since = sys.argv[1] if len(sys.argv) > 1 else None
    warnings.simplefilter("ignore")
    import langchain_perplexity_strict as package
    from langchain_perplexity_strict import normalize

    words = code = lines = opt_outs = 0
    for path in _sources():
        text = path.read_text()
        w, c = _prose_and_code(text)
        words, code, lines = words + w, code + c, lines + len(text.splitlines())
        opt_outs += len(re.findall(r"# fmt: (?:skip|off)", text))
    sizes = _functions()
    invoke, stream = _call_paths()
    bases, overrides = _class_shape()
    readme, docs, every_doc = _doc_lines()
    root_modules = sum(1 for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    rows = [
        ("modules / functions of a warm invoke", f"{invoke[0]} / {invoke[1]}", "<= 15 / <= 60"),
        ("modules / functions of a warm stream", f"{stream[0]} / {stream[1]}", "<= 18 / <= 80"),
        ("bases besides BaseChatModel / overrides", f"{bases} / {overrides}", "<= 1 / <= 12"),
        ("names in __all__ / normalize.__all__", f"{len(package.__all__)} / {len(normalize.__all__)}", "<= 30 / <= 12"),
        ("prose words per code line", f"{words / code:.2f}", "<= 2.2"),
        ("lines less testing/ (formatter opt-outs)", f"{lines} ({opt_outs})", "<= 12,000 (<= 5)"),
        ("characters of a misspelt argument's refusal", str(_refusal_length()), "<= 300"),
        (f"median commit subject ({since or 'all'}..HEAD)", f"{_commit_subjects(since):.0f}", "<= 72"),
        ("README lines / + user docs / + all docs", f"{readme} / {docs} / {every_doc}", "<= 250 / <= 2,000"),
        ("modules at the package root", str(root_modules), "<= 15"),
        (
            "functions over 60 lines / median lines",
            f"{sum(s > 60 for s in sizes)} / {statistics.median(sizes):.0f}",
            "0 / <= 10",
        ),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'figure':<{width}}  {'now':>18}  goal")
    for name, now, goal in rows:
        print(f"{name:<{width}}  {now:>18}  {goal}")


if __name__ == "__main__":
    asyncio.set_event_loop_policy(None)
    main()
