"""The perplexity-strict command line."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.cli import EMULATOR_LABEL, NO_KEY, main
from langchain_perplexity_strict.testing import PerplexityEmulator


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """`main(args)` in this process (no provider keys: the environment is hermetic), reported as a process run.

    Importing the client costs a new process seconds of CPU; calling `main` in this process tests the
    same code. What only a fresh process shows keeps a subprocess: the `python -m` entry point with
    nothing printed on import and a closed pipe (`test_a_closed_pipe_ends_quietly`), and the detached
    emulator `--background` starts (the `exports` fixture, test_background.py).
    """
    capsys.readouterr()
    try:
        status = main(list(args))
    except SystemExit as exit_:  # argparse's --version, --help and usage errors
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), status, out, err)


def test_chat_without_a_key_refuses_and_offers_the_emulator(capsys: pytest.CaptureFixture[str]) -> None:
    result = cli(capsys, "chat", "What is LangChain?")
    assert result.returncode == 2
    assert result.stdout == "" and result.stderr.strip() == f"perplexity-strict chat: {NO_KEY}"


def test_chat_streams_with_numbered_sources_from_the_emulator(capsys: pytest.CaptureFixture[str]) -> None:
    result = cli(capsys, "chat", "What is LangChain?", "--system", "Be brief.", "--emulator")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith(EMULATOR_LABEL)
    assert "On LangChain: the sources found agree" in result.stdout
    assert "[1] Source 1 on What is LangChain? - https://source1.example.com/what-is-langchain" in result.stdout


def test_chat_on_chat_completions(capsys: pytest.CaptureFixture[str]) -> None:
    result = cli(capsys, "chat", "Hello", "--api", "chat_completions", "--model", "sonar-pro", "--emulator")
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


def test_each_surface_has_its_default_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every surface `--api` offers has a default model, and `check` without `--model` sends it."""
    from langchain_perplexity_strict.cli import DEFAULT_MODELS, build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    surfaces = next(a for a in commands["check"]._actions if a.dest == "api").choices
    assert (
        sorted(surfaces)
        == sorted(DEFAULT_MODELS)
        == sorted(get_args(ChatPerplexityStrict.model_fields["api"].annotation))
    )
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    for api, model in DEFAULT_MODELS.items():
        assert main(["check", str(path), "--api", api]) == 0
        out = capsys.readouterr().out
        assert json.loads(out[out.index("{") :])["model"] == model, api


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


def test_demo_runs_the_tour(capsys: pytest.CaptureFixture[str]) -> None:
    result = cli(capsys, "demo")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Answers in this tour come from the local Perplexity emulator")
    for step in (
        "1. A messy",
        "2. Plain ChatOpenAI",
        "refused by the emulator",
        "400",
        "3. What ChatPerplexityStrict",
        "4. The answer",
        "5. A streamed",
    ):
        assert step in result.stdout


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from langchain_perplexity_strict import __version__

    result = cli(capsys, "--version")
    assert result.returncode == 0 and result.stdout.strip() == f"perplexity-strict {__version__}"


def test_help_is_plain_words(capsys: pytest.CaptureFixture[str]) -> None:
    result = cli(capsys, "--help")
    assert result.returncode == 0 and "`" not in result.stdout


def test_an_unknown_model_is_one_line_with_the_right_hint(capsys: pytest.CaptureFixture[str]) -> None:
    result = cli(capsys, "chat", "hi", "--model", "gpt-4o", "--emulator")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "unknown model 'gpt-4o'" in result.stderr and "GET /v1/models" not in result.stderr  # not a CLI call
    assert "the emulator serves perplexity/sonar, " in result.stderr
    assert "Sonar" not in result.stderr


def test_a_busy_port_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = cli(capsys, "emulator", "--port", str(port))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "--port 0" in result.stderr


def test_port_zero_prints_the_real_address_and_background_env_serves(exports: dict[str, str]) -> None:
    """`emulator --port 0 --background --env`, as the `exports` fixture (conftest.py) runs it and checks it exits 0."""
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", exports["PPLX_BASE_URL"])
    assert not exports["PPLX_BASE_URL"].endswith(":0")
    from langchain_perplexity_strict import ChatPerplexityStrict

    answer = ChatPerplexityStrict(api_key=exports["PPLX_API_KEY"], base_url=exports["PPLX_BASE_URL"]).invoke("hi")
    assert answer.text


# -- edges a new user meets: each is one line, or the right behaviour ------------------------------


def test_a_sonar_name_is_one_notice_line_not_a_python_warning(capsys: pytest.CaptureFixture[str]) -> None:
    result = cli(capsys, "chat", "hi", "--model", "sonar-pro", "--emulator")
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("perplexity-strict chat: note: model 'sonar-pro' is a Sonar chat-completions name")
    assert result.stderr.count("\n") == 1 and ".py:" not in result.stderr and "UserWarning" not in result.stderr


def test_the_preset_the_sonar_notice_suggests_can_be_passed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--preset low` is what the notice for `sonar-pro` suggests; `check` shows it sent, with no model chosen."""
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    assert main(["check", str(path), "--preset", "low"]) == 0
    out = capsys.readouterr().out
    body = json.loads(out[out.index("{") :])
    assert body["preset"] == "low" and "model" not in body
    assert cli(capsys, "chat", "hi", "--preset", "low", "--emulator").returncode == 0


def test_an_unknown_host_is_not_called_a_busy_port(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["emulator", "--host", "no-such-host.invalid", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("perplexity-strict emulator: cannot listen on no-such-host.invalid:0: unknown host")
    assert "another program" not in err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["emulator", "--port", "70000", "--background"], "argument --port: '70000' is not a port: use 0 to 65535"),
        (["emulator", "--event-delay", "-1"], "argument --event-delay: '-1' is not a number of seconds"),
    ],
)
def test_out_of_range_options_are_refused_once(args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(args)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and says in err
    assert "perplexity-strict emulator: perplexity-strict emulator" not in err


def test_env_without_background_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["emulator", "--env"]) == 2
    assert capsys.readouterr().err == (
        "perplexity-strict emulator: --env prints shell exports for a background emulator: add --background"
        " (or --stop to undo them)\n"
    )


def test_stop_and_background_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["emulator", "--stop", "--background"]) == 2
    assert capsys.readouterr().err == "perplexity-strict emulator: --stop and --background cannot go together\n"


def test_an_empty_question_is_not_sent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chat", "  ", "--emulator"]) == 2
    assert "perplexity-strict chat: the question is empty" in capsys.readouterr().err


def test_check_dash_reads_standard_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    conversation = [{"role": "assistant", "content": "Hi"}, {"role": "user", "content": "a"}]
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(conversation)))
    assert main(["check", "-"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 message(s) read from standard input; nothing is sent.")


@pytest.mark.parametrize(
    ("conversation", "says"),
    [([{"role": "wizard", "content": "x"}], "Unexpected message type: 'wizard'"),
     ([{"role": "user"}], "Message dict must contain 'role' and 'content' keys")],
)  # fmt: skip
def test_a_bad_conversation_is_one_line_without_langchains_link(
    conversation: list[dict[str, str]], says: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(conversation)))
    result = cli(capsys, "check", "-")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and says in result.stderr and "troubleshooting" not in result.stderr


def test_a_bad_base_url_from_the_environment_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PPLX_API_KEY", "k")
    monkeypatch.setenv("PPLX_BASE_URL", "api.perplexity.ai")
    result = cli(capsys, "chat", "hi")
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "base_url='api.perplexity.ai' is not a URL" in result.stderr and "read from PPLX_BASE_URL" in result.stderr
    assert "pydantic" not in result.stderr and "input_value" not in result.stderr


@pytest.mark.parametrize("text", ["", "not json"])
def test_standard_input_that_is_not_json_is_named_so(
    text: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    result = cli(capsys, "check", "-")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("perplexity-strict check: standard input: not JSON (")


def test_a_closed_pipe_ends_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "langchain_perplexity_strict", "chat", "What is LangChain?", "--emulator"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parents[2])},
    )  # fmt: skip
    assert process.stdout is not None
    process.stdout.close()  # as `| head` does once it has read enough
    _, err = process.communicate(timeout=120)
    assert err == "" and process.returncode == 141  # the status a shell reports for SIGPIPE


def test_every_argument_has_help() -> None:
    from langchain_perplexity_strict.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, command in commands.items():
        for action in command._actions:
            assert action.help, f"{name} {action.dest} has no help text"


def test_the_documented_command_line_does_not_promote_the_retired_surface() -> None:
    page = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    start = page.index("# The command line")
    block = page[start : page.index("```", page.index("```sh", start) + 5)]
    assert "perplexity-strict chat" in block and "chat_completions" not in block and "sonar" not in block


def test_chat_labels_an_exported_emulator(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PPLX_API_KEY", "test-key")
    monkeypatch.setenv("PPLX_BASE_URL", emu.base_url)
    assert main(["chat", "What is LangChain?"]) == 0
    assert capsys.readouterr().out.startswith(EMULATOR_LABEL)


def test_demo_says_it_could_not_connect_not_that_it_was_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A placeholder key and no server to reach: step 2 says where it could not connect, distinct from a refusal."""
    monkeypatch.setenv("PPLX_API_KEY", "pplx-placeholder")
    monkeypatch.setenv("PPLX_BASE_URL", "http://127.0.0.1:9")  # the discard port: nothing listens
    result = cli(capsys, "demo")
    assert "could not connect to that server at http://127.0.0.1:9 (" in result.stdout, result.stdout
    assert "refused by" not in result.stdout
    assert result.returncode != 0 and "Could not connect" in result.stderr  # the answer step: the same cause
