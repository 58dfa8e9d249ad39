"""Names that left `__all__` (the root's and `normalize`'s) still import for one release, and say where they went.

The forms, each tested for every name:
- `from langchain_perplexity_strict import X` and `from langchain_perplexity_strict.normalize import X`: one
  `DeprecationWarning` per import (importlib's `hasattr` before the import stays silent), at the importing
  line, naming the new spelling; the object is the one the new spelling gives;
- attribute access (`langchain_perplexity_strict.X`, `normalize.X`): the same, each time (never cached);
- `from ... import *` and `dir()`: only the public names, so they never warn;
- the package's own imports (every module, every public name): no such warning.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings
from typing import Any

import pytest

import langchain_perplexity_strict
import langchain_perplexity_strict.normalize

ROOT = "langchain_perplexity_strict"
NORMALIZE = f"{ROOT}.normalize"
ERRORS = f"{ROOT}.errors"

# Where each name that left the root's `__all__` went: its public module, or None when it is private now (a
# built-in tool's TypedDict: its factory or a dict is written instead; a checker: bind_tools checks).
MOVED_FROM_ROOT: dict[str, str | None] = {
    **dict.fromkeys(
        [
            "PerplexityBudgetExceededError",
            "PerplexityIncompleteError",
            "PerplexityResponseError",
            "PerplexityResumeError",
            "PerplexityRunTimeoutError",
            "PerplexityRunUnknownError",
            "PerplexityStreamError",
        ],
        ERRORS,
    ),
    **dict.fromkeys(
        [
            "DEFAULT_RULES",
            "CanonicalMessages",
            "Change",
            "DemoteLateSystemMessages",
            "DropTrailingAssistantMessages",
            "Entry",
            "MergeAdjacentTurns",
            "RepairToolProtocol",
            "Rule",
            "StartWithUserTurn",
            "compact_messages",
        ],
        NORMALIZE,
    ),
    **dict.fromkeys(
        [
            "NormalizationResult",
            "CompactionResult",
            "WebSearchTool",
            "FetchUrlTool",
            "ImageSearchTool",
            "PeopleSearchTool",
            "FinanceSearchTool",
            "SandboxTool",
            "McpTool",
            "ConnectorTool",
            "BuiltinTool",
            "WebSearchFilters",
            "UserLocation",
            "ImageSearchFilters",
            "ApprovalFilter",
            "ApprovalFilters",
            "BuiltinSkill",
            "InlineSkill",
            "CustomSkill",
            "Skill",
            "check_builtin_tool",
            "check_skill",
        ]
    ),
}
# What left `normalize.__all__`: the two result types and the stage's internals, all private now.
MOVED_FROM_NORMALIZE = [
    "NormalizationResult",
    "CompactionResult",
    "AGENT_CONTENT",
    "NOT_SENT",
    "Prepared",
    "prepare",
    "TokenCounter",
    "compaction_warning",
    "count_tokens",
    "approval_requests",
    "approval_responses",
    "canonical_blocks",
    "canonical_text",
    "data_url",
    "text_of",
    "is_developer",
]
CASES = [(ROOT, name) for name in MOVED_FROM_ROOT] + [(NORMALIZE, name) for name in MOVED_FROM_NORMALIZE]
FACTORY = re.compile(r"\b(\w+_(?:tool|skill))\(")


def _table(package: str) -> dict[str, tuple[str, str]]:
    table: dict[str, tuple[str, str]] = importlib.import_module(package)._DEPRECATED
    return table


def _imported(package: str, name: str) -> tuple[Any, list[warnings.WarningMessage]]:
    """`from package import name`, run as its own statement, and the warnings it gave."""
    namespace: dict[str, Any] = {}
    code = compile(f"from {package} import {name}", "<the app's import>", "exec")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(code, namespace)
    return namespace[name], caught


def test_every_name_that_left_all_is_deprecated_not_dropped() -> None:
    assert set(_table(ROOT)) == set(MOVED_FROM_ROOT)
    assert set(_table(NORMALIZE)) == set(MOVED_FROM_NORMALIZE)
    for package, name in CASES:
        assert name not in importlib.import_module(package).__all__, (package, name)


@pytest.mark.parametrize(("package", "name"), CASES)
def test_a_deprecated_import_warns_once_naming_the_new_spelling(package: str, name: str) -> None:
    value, caught = _imported(package, name)
    assert [w.category for w in caught] == [DeprecationWarning], [str(w.message) for w in caught]
    message, where = str(caught[0].message), caught[0].filename
    assert where == "<the app's import>", where  # the warning points at the app's line
    assert f"{package}.{name} is deprecated" in message
    module, instead = _table(package)[name]
    assert instead in message
    assert value is getattr(importlib.import_module(f"{package}.{module}"), name)
    new_home = MOVED_FROM_ROOT.get(name) if package == ROOT else None
    if new_home is not None:  # moved to a public module: the warning gives the import to write
        assert f"from {new_home} import {name}" in message
        assert value is getattr(importlib.import_module(new_home), name)
        assert name in getattr(importlib.import_module(new_home), "__all__", [name])
    for factory in FACTORY.findall(message):  # made private: the factory named instead is public
        assert factory in langchain_perplexity_strict.__all__, (name, factory)


@pytest.mark.parametrize(("package", "name"), CASES)
def test_each_attribute_access_warns(package: str, name: str) -> None:
    module = importlib.import_module(package)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(module, name)
        assert [w.category for w in caught] == [DeprecationWarning], (package, name)


def test_star_imports_and_dir_show_only_public_names() -> None:
    for package in (ROOT, NORMALIZE):
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            namespace: dict[str, Any] = {}
            exec(f"from {package} import *", namespace)
        module = importlib.import_module(package)
        assert not set(_table(package)) & set(namespace), package
        assert not set(_table(package)) & set(dir(module)), package


PACKAGE_IMPORTS = """
import importlib, pkgutil, warnings
warnings.filterwarnings("error", message=".* is deprecated and goes in the next release", category=DeprecationWarning)
import langchain_perplexity_strict as package
for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    if not info.name.endswith("__main__"):  # runs the CLI
        importlib.import_module(info.name)
for name in package.__all__:
    getattr(package, name)
print("ok")
"""


def test_the_package_itself_imports_no_deprecated_name() -> None:
    result = subprocess.run([sys.executable, "-c", PACKAGE_IMPORTS], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]
