"""Properties of the code base a maintainer relies on, checked rather than promised."""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import tokenize
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "langchain_perplexity_strict"


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


# The formatter shapes all code; split a module by concern when it grows, never squeeze it to fit (there is
# no line cap). A data table may keep its hand-aligned rows with a trailing `# fmt: skip`: at most five in
# the package, each ending an assignment of a literal table (`data/_profiles.py`'s `PROFILES`, one row a model).
MAX_FORMATTER_OPT_OUTS = 5
OPT_OUT = re.compile(r"#\s*fmt:\s*(skip|off|on)\b")
TABLE_CALLS = {"frozenset", "set", "tuple", "dict"}


def _data(node: ast.expr) -> bool:
    """Whether `node` is data written out: literals, names, and containers (or frozenset/dict/...) of them."""
    if isinstance(node, (ast.Constant, ast.Name, ast.Attribute)):
        return True
    if isinstance(node, ast.UnaryOp):
        return _data(node.operand)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_data(e.value if isinstance(e, ast.Starred) else e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is None or _data(k) for k in node.keys) and all(_data(v) for v in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in TABLE_CALLS:
        return not node.keywords and all(_data(a) for a in node.args)
    return False


def _opt_out_problems(source: str, name: str) -> tuple[int, list[str]]:
    """How many formatter opt-outs `source` has, and those that are not a trailing `# fmt: skip` on a table."""
    tables = {
        node.end_lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        and node.value is not None
        and isinstance(node.value, (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Call))
        and _data(node.value)
    }
    found, wrong = 0, []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and OPT_OUT.search(tok.string):
            found += 1
            if "skip" not in tok.string or tok.start[0] not in tables:
                wrong.append(f"{name}:{tok.start[0]}: {tok.line.strip()}")
    return found, wrong


def test_formatter_opt_outs_are_few_and_only_on_data_tables() -> None:
    total, wrong = 0, []
    for path in _sources():
        found, bad = _opt_out_problems(path.read_text(), path.relative_to(ROOT).as_posix())
        total += found
        wrong += bad
    assert not wrong, f"let `ruff format` shape code; only a data table may keep `# fmt: skip`: {wrong}"
    assert total <= MAX_FORMATTER_OPT_OUTS, f"{total} formatter opt-outs; at most {MAX_FORMATTER_OPT_OUTS}"


def test_the_opt_out_check_tells_a_table_from_code() -> None:
    table = 'ROWS = {\n    "a": {**BASE, "n": 1},  "b": (-1, 2.0),\n}  # fmt: skip\n'
    code = "x = f(1,\n      2)  # fmt: skip\n"
    off = "# fmt: off\nROWS = [1,  2]\n# fmt: on\n"
    assert _opt_out_problems(table, "t") == (1, [])
    assert _opt_out_problems(code, "c") == (1, ["c:2: 2)  # fmt: skip"])
    assert _opt_out_problems(off, "o")[0] == 2 and len(_opt_out_problems(off, "o")[1]) == 2
    assert _opt_out_problems("def f():\n    return [g(x)  for x in y]  # fmt: skip\n", "r")[1]


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
BASE = {"_version", "_message_keys", "_accepts", "_once", "_redact", "_switched", "errors", "data"}
STAGES: dict[str, set[str]] = {
    "normalize": set(),
    "_continuation": {"normalize"},
    "_transport": set(),
    # Every public class's settings base (connection settings, redaction, the transport they make).
    "_connection_settings": {"_transport"},
    "_request": {"normalize", "_continuation", "_connection_settings"},  # the chat model's settings extend it
    "_response": {"normalize", "_continuation"},  # normalize: the server item types it recognizes
    "_surfaces": {"_continuation", "_request", "_response", "_transport"},
    # Perplexity's Batch API, beside the chat pipeline: the chat model hands it each line's bytes and its reader.
    "_batches": {"_transport"},
    # The profile of a model on a surface, from the surfaces' builders and the normalizer's rules.
    "_profile": {"normalize", "_surfaces"},
    # A callback that reads answers, and the scope that tells it which runs were sent (the chat model opens it).
    "_cost": set(),
    "chat_models": {
        "_cost",
        "normalize",
        "_continuation",
        "_request",
        "_response",
        "_surfaces",
        "_profile",
        "_transport",
        "_batches",
    },
    # Beside the chat model, on the same transport: the Search API and the embeddings endpoints.
    "_search": {"_connection_settings", "_request", "_transport"},  # _request: the search-filter rules it shares
    "_embeddings": {"_connection_settings", "_transport"},
    "_platform": {"_connection_settings", "_transport"},
}
ORDER = list(STAGES)
# Entry points above the call: they may import anything of the client (never the other way round).
ENTRY = {"__init__", "__main__", "cli", "registration"}  # cli/ holds the demo and the emulator command too
# Public by name: what an application imports. `registration` and `data` keep their
# LangChain-partner names; every other module is private (`_name`) and re-exported when public.
PUBLIC = {
    "__init__",
    "__main__",
    "chat_models",
    "normalize",
    "errors",
    "testing",
    "cli",
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


def _table_rows(markdown: str, heading: str) -> dict[str, str]:
    """The first table under `heading`: each row's first cell (a backticked unit, `/` and `.py` dropped) to its last."""
    section = markdown[markdown.index(heading) :]
    rows = {}
    for line in section.splitlines()[1:]:
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 2:
            rows[cells[0].strip("`").removesuffix("/").removesuffix(".py")] = cells[-1]
    return rows


def test_the_architecture_doc_states_the_import_rule_of_every_unit() -> None:
    rows = _table_rows((ROOT / "docs" / "architecture.md").read_text(), "## The import rule")
    assert set(rows) == BASE | set(STAGES) | ENTRY | {"testing"}, set(rows) ^ (BASE | set(STAGES) | ENTRY | {"testing"})
    for unit, may_import in rows.items():
        named = set(re.findall(r"`(\w+)`", may_import))
        if unit in STAGES:
            assert named == STAGES[unit], (unit, named, STAGES[unit])
        elif unit in ENTRY:
            assert may_import == "anything", unit
        else:  # the base, and the emulator
            assert not named, unit


def _where_is() -> ModuleType:
    """docs/where_is.py, the generator of architecture.md's "where is" table (a script, not a package module)."""
    spec = importlib.util.spec_from_file_location("where_is", ROOT / "docs" / "where_is.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_module_says_what_it_does_in_one_line() -> None:
    """A module's docstring opens with one line saying what it does and why: the where-is table shows it."""
    where_is = _where_is()
    wrong = []
    for path in _sources():
        docstring = ast.get_docstring(ast.parse(path.read_text()))
        first_paragraph = (docstring or "").strip().split("\n\n")[0]
        if not docstring or "\n" in first_paragraph:
            wrong.append(path.relative_to(ROOT).as_posix())
        else:
            assert where_is.summary(path) == first_paragraph.strip()
    assert not wrong, f"give each a docstring whose first line, alone in its paragraph, says what and why: {wrong}"


def test_the_where_is_table_names_every_module_as_its_docstring_does() -> None:
    where_is = _where_is()
    doc = (ROOT / "docs" / "architecture.md").read_text()
    listed = set(re.findall(r"^\| `([\w/]+\.py)` \|", doc.split(where_is.START, 1)[-1], re.MULTILINE))
    missing = {p.relative_to(PACKAGE).as_posix() for p in _sources()} - listed
    assert where_is.render(doc) == doc, (
        f"docs/architecture.md's where-is table is stale (missing: {sorted(missing)}); run: {where_is.COMMAND}"
    )


def _public_modules_named_in(path: Path) -> set[str]:
    sentence = re.search(r"Public modules are (.*?)(?:;|\. Every)", path.read_text(), re.DOTALL)
    assert sentence, f"{path.name} does not say which modules are public"
    return set(re.findall(r"`(\w+)`", sentence.group(1)))


def test_the_readme_and_the_architecture_doc_name_the_public_modules() -> None:
    for path in (ROOT / "README.md", ROOT / "docs" / "architecture.md"):
        assert _public_modules_named_in(path) == PUBLIC - {"__main__"}, path.name


# A test imports a private module (`_name`, at any depth) only where it tests that module's unit, the
# top-level module or subpackage it belongs to: its file name names the unit or one of the unit's modules
# (`test_transport_errors.py` for `_transport`, `test_sse.py` for `_transport/_sse.py`). Everything else uses
# the public API, or is listed here with its reason: a private helper as the test's oracle, with no public twin.
PRIVATE_IMPORTS_ALLOWED: dict[tuple[str, str], str] = {
    ("integration_tests/test_contract.py", "_request"): "the parameter table, so each parameter has a contract value",
    ("integration_tests/test_real_api.py", "cli"): "the guard that keeps live tests off any other server",
    ("smoke_preflight.py", "cli"): "the same guard, for `make smoke`",
    ("recording.py", "cli"): "the same guard, for `make record`",
    ("integration_tests/test_which_server_labels.py", "cli"): "which server the demo and the CLI say they talk to",
    ("unit_tests/test_imports.py", "cli"): "the emulator command imports no client module",
    ("unit_tests/test_search_embeddings_strict.py", "_accepts"): "the connection checks every class shares",
    ("unit_tests/test_search_embeddings_strict.py", "_request"): "the search-filter rules shared with the chat model",
    ("integration_tests/conftest.py", "_transport"): "quick_client_waits: the poll and resume pauses, cut",
    ("integration_tests/conftest.py", "_batches"): "quick_client_waits: a batch's poll pause, cut",
    ("integration_tests/test_side_effects_never_raise.py", "_batches"): "MAX_LINES cut, so one batch is made first",
}
TESTS = ROOT / "tests"


def _private_imports(path: Path) -> set[tuple[str, str]]:
    """(unit, module) of each private module, or private name, `path` imports from the package."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            inner = parts[1:] if parts[0] == "langchain_perplexity_strict" else []
            private = [p for p in inner if p.startswith("_") and not p.startswith("__")]
            if private:
                found.add((inner[0], private[-1]))
    return found


def _unit_modules(unit: str) -> set[str]:
    """The names a test file may use for `unit`: the unit's and each of its modules', underscores dropped."""
    folder = PACKAGE / unit
    modules = {p.stem for p in folder.rglob("*.py")} - {"__init__"} if folder.is_dir() else set()
    return {name.strip("_") for name in {unit, *modules}}


def _names(test_file: Path, name: str) -> bool:
    return f"_{name}_" in f"_{test_file.stem.removeprefix('test_')}_"


def test_tests_import_private_modules_only_of_the_unit_they_test() -> None:
    wrong = []
    for path in sorted(TESTS.rglob("*.py")):
        where = path.relative_to(TESTS).as_posix()
        for unit, module in _private_imports(path):
            if (where, unit) in PRIVATE_IMPORTS_ALLOWED or any(_names(path, n) for n in _unit_modules(unit)):
                continue
            wrong.append(f"{where} imports {unit}.{module}: name the file for {unit}, or use the public API")
    assert not wrong, wrong


def test_the_private_import_check_sees_private_modules_and_names(tmp_path: Path) -> None:
    source = tmp_path / "test_normalizer_things.py"
    source.write_text(
        "from langchain_perplexity_strict._request._agent import agent_body\n"
        "from langchain_perplexity_strict import _which_server, __version__, ChatPerplexityStrict\n"
        "from langchain_perplexity_strict.normalize import _content\n"
    )
    assert _private_imports(source) == {
        ("_request", "_agent"),
        ("_which_server", "_which_server"),
        ("normalize", "_content"),
    }
    assert _names(source, "normalizer") and not _names(source, "normalize")
    assert "transport" in _unit_modules("_transport") and "sse" in _unit_modules("_transport")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph(paths: list[Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports, by every `import` and `from ... import` anywhere in it
    (inside functions and under `TYPE_CHECKING` too: a lazy import hides a cycle, it does not remove it)."""
    modules = {_module_name(p): p for p in paths}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the module's package, up `level - 1` packages
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([node.module] if node.module else [])])
                for alias in node.names:
                    target = f"{base}.{alias.name}"
                    edges.add(target if target in modules else base)
        graph[name] = {e for e in edges if e in modules and e != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph`: its strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _without_package_inits(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's `__init__` re-exports its modules, which import their siblings through it or directly:
    that is how a package is built, not a cycle. Edges from an `__init__` to its own modules are left out."""
    inits = {name for name in graph if (PACKAGE.parent / name.replace(".", "/") / "__init__.py").exists()}
    return {
        name: {e for e in edges if not (name in inits and e.startswith(f"{name}."))} for name, edges in graph.items()
    }


def test_no_module_of_the_package_imports_itself_through_others() -> None:
    cycles = _cycles(_without_package_inits(_import_graph(_sources())))
    assert not cycles, cycles


def test_the_cycle_check_sees_a_lazy_and_a_type_checking_import(tmp_path: Path) -> None:
    global PACKAGE
    root = tmp_path / "langchain_perplexity_strict"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("def f():\n    from langchain_perplexity_strict.b import g\n")
    (root / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    (root / "c.py").write_text("from langchain_perplexity_strict import a\n")
    saved, PACKAGE = PACKAGE, root
    try:
        graph = _without_package_inits(_import_graph(sorted(root.glob("*.py"))))
    finally:
        PACKAGE = saved
    assert _cycles(graph) == [["langchain_perplexity_strict.a", "langchain_perplexity_strict.b"]]
