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


# The pipeline, stage by stage: each may import the base modules and the stages listed for it, nothing else.
# normalize -> plan (_continuation) -> build (_request) -> send (_transport) -> read (_response),
# assembled by _surfaces and called by chat_models. The transport knows nothing of messages or plans,
# and the readers know nothing of request building.
BASE = {"_version", "_message_keys", "_arguments", "errors", "data"}
STAGES: dict[str, set[str]] = {
    "normalize": set(),
    "_continuation": {"normalize"},
    "_request": {"normalize", "_continuation"},
    "_transport": set(),
    "_response": {"_continuation"},
    "_surfaces": {"_continuation", "_request", "_response", "_transport"},
    "chat_models": {"normalize", "_continuation", "_request", "_response", "_surfaces", "_transport"},
    # Beside the chat model, on the same transport: the Search API and the embeddings endpoints.
    "_connection": {"_transport"},
    "_search": {"_connection", "_transport"},
    "_embeddings": {"_connection", "_transport"},
    # A callback that reads answers (their response_metadata), not a stage of the call.
    "_cost": set(),
}
ORDER = list(STAGES)
# Entry points above the call: they may import anything of the client (never the other way round).
ENTRY = {
    "__init__",
    "__main__",
    "cli",
    "demo",
    "registration",
    "_endpoint",
    "_background",
}  # the last two serve cli and demo
# Public by name: what an application imports. `demo`, `registration` and `data` keep their
# LangChain-partner names; every other module is private (`_name`) and re-exported when public.
PUBLIC = {
    "__init__",
    "__main__",
    "chat_models",
    "normalize",
    "errors",
    "testing",
    "cli",
    "demo",
    "registration",
    "data",
}


def _unit(path: Path) -> str:
    """The top-level unit a source file belongs to: a root module or a subpackage."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _imported_units(path: Path) -> set[str]:
    units = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
        if isinstance(node, ast.ImportFrom) and node.module == "langchain_perplexity_strict":
            names = [f"langchain_perplexity_strict.{alias.name}" for alias in node.names]
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "langchain_perplexity_strict" and len(parts) > 1:
                units.add(parts[1])
    return units


def test_each_stage_imports_only_the_stages_before_it() -> None:
    assert ORDER.index("normalize") < ORDER.index("_continuation") < ORDER.index("_request")
    for stage, allowed in STAGES.items():
        assert all(ORDER.index(a) < ORDER.index(stage) for a in allowed), (stage, allowed)  # only earlier ones
    wrong = {}
    for path in _sources():
        unit = _unit(path)
        if unit in ENTRY or unit == "testing":
            continue
        allowed = BASE | STAGES.get(unit, set()) | {unit}
        if unit in BASE:
            allowed = BASE
        assert unit in BASE or unit in STAGES, f"{unit}: a module outside the pipeline; place it in STAGES"
        imported = _imported_units(path) - allowed
        if imported:
            wrong[path.relative_to(ROOT).as_posix()] = sorted(imported)
    assert not wrong, wrong


def test_the_layer_check_catches_a_backward_import(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text("from langchain_perplexity_strict._request._agent import agent_body\nimport os\n")
    assert _imported_units(source) == {"_request"}
    assert "_request" not in STAGES["_response"] | BASE


def test_private_modules_are_named_so() -> None:
    public = {_unit(p) for p in _sources() if not _unit(p).startswith("_")}
    assert public <= PUBLIC, public - PUBLIC
    for path in _sources():
        inner = path.relative_to(PACKAGE).parts[1:]
        if inner and _unit(path) not in ("testing", "data"):
            assert inner[-1].startswith("_"), f"{path.relative_to(ROOT)}: a module inside a package is private"
