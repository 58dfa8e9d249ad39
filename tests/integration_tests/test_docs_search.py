"""Every Python example in docs/search-and-embeddings.md runs offline, after the README's one step."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).parents[2] / "docs" / "search-and-embeddings.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def test_the_doc_has_examples() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("block", BLOCKS, ids=[f"example-{i}" for i in range(len(BLOCKS))])
def test_doc_example_runs(
    exports: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    block: str,
) -> None:
    for name, value in exports.items():
        monkeypatch.setenv(name, value)
    namespace: dict[str, object] = {"__name__": "doc_example"}
    exec(compile(block, str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out
    assert printed.strip(), "an example prints nothing when run as a script"
    if "embed_in_context" in block:
        assert printed.split() == ["2", "3"], printed
    if "create_agent" in block:  # the search ran, and its result reached the model
        messages = namespace["result"]["messages"]  # type: ignore[index]
        assert any(getattr(m, "status", None) == "success" and m.artifact for m in messages), messages
    if "InMemoryVectorStore" in block:
        context = str(namespace["context"])  # the chunks about cats (notes and search), not the markets note
        assert "Cats sleep most of the day" in context and "stocks" not in context.lower(), context
        assert printed.strip()
