"""The version in _version.py matches pyproject.toml."""

import re
from pathlib import Path

from langchain_perplexity_strict import __version__


def test_version_matches_pyproject() -> None:
    text = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    match = re.search(r'^version = "([^"]+)"', text, re.MULTILINE)
    assert match is not None
    assert match.group(1) == __version__
