"""Every Python example in docs/platform.md runs offline, after the README's one step."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

DOC = Path(__file__).parents[2] / "docs" / "platform.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def test_the_doc_has_examples() -> None:
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example-{i}" for i in range(len(BLOCKS))])
def test_doc_example_runs(exports: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, block: str) -> None:
    for name, value in exports.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "doc_example"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the examples use nothing deprecated
        exec(compile(block, str(DOC), "exec"), namespace)
    if "response_files" in block:
        assert namespace["data"]
    if "PerplexityDecision" in block:
        assert len(namespace["results"]) == 2  # type: ignore[arg-type]
