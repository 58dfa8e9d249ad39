"""The perplexity-strict command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from langchain_perplexity_strict.cli import NO_KEY_NOTICE, main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "langchain_perplexity_strict", *args],
        capture_output=True, text=True, timeout=120, check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parents[2])},
    )  # fmt: skip


def test_chat_streams_with_numbered_sources_from_the_emulator() -> None:
    result = run("chat", "What is LangChain?", "--system", "Be brief.")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == NO_KEY_NOTICE
    assert "Here is what I found about: What is LangChain?" in result.stdout
    assert "[1] Source 1 on What is LangChain? - https://source1.example.com/what-is-langchain" in result.stdout


def test_chat_on_chat_completions() -> None:
    result = run("chat", "Hello", "--api", "chat_completions", "--model", "sonar-pro")
    assert result.returncode == 0, result.stderr
    assert "Sources:" in result.stdout


def test_check_prints_changes_and_the_body(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps({"messages": [
        {"role": "system", "content": "s"}, {"role": "assistant", "content": "Hi"},
        {"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}))  # fmt: skip
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "merge_adjacent_turns: #2, #3" in out
    body = json.loads(out[out.index("{") :])
    assert body["input"][-1] == {"role": "user", "content": "a\n\nb"}


def test_check_reads_langchain_dicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from langchain_core.messages import HumanMessage, SystemMessage, messages_to_dict

    path = tmp_path / "lc.json"
    path.write_text(json.dumps(messages_to_dict([HumanMessage("a"), SystemMessage("late")])))
    assert main(["check", str(path), "--api", "chat_completions"]) == 0
    assert "demote_late_system_messages: #1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{nope", "Expecting"),
        ('{"x": 1}', "expected a list"),
        ("[]", "empty"),
        ('[{"role": "narrator", "content": "x"}]', ""),
    ],
)
def test_check_rejects_invalid_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, fragment: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"perplexity-strict check: {path}: ")
    assert fragment in err


def test_check_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "/nonexistent/conversation.json"]) == 2
    assert "No such file" in capsys.readouterr().err


def test_demo_runs_the_tour() -> None:
    result = run("demo")
    assert result.returncode == 0, result.stderr
    for step in (
        "1. A messy",
        "2. Plain ChatOpenAI",
        "400",
        "3. What ChatPerplexityStrict",
        "4. The answer",
        "5. A streamed",
    ):
        assert step in result.stdout
