"""The `perplexity-strict` command line: chat, check a conversation, list the models, serve the emulator, demo."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr, ValidationError

from langchain_perplexity_strict._request._model_names import DEFAULT_MODELS
from langchain_perplexity_strict._version import __version__
from langchain_perplexity_strict.cli import _emulator_process

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

# Each command imports what it needs of the client: `perplexity-strict emulator` loads none of it.

DESCRIPTION = "Ask Perplexity through ChatPerplexityStrict, see what it would send, or serve a strict local emulator."
NO_KEY = (
    "no PPLX_API_KEY or PERPLEXITY_API_KEY is set, so there is no Perplexity to ask. "
    "Set one, or add --emulator to get an answer from the local emulator (canned answers, for trying things out)."
)
EMULATOR_LABEL = "[answered by the local Perplexity emulator, not by Perplexity]"


class CommandError(Exception):
    """A one-line error for the user: printed without a traceback, with exit status ``status``."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def has_key() -> bool:
    return bool(os.environ.get("PPLX_API_KEY") or os.environ.get("PERPLEXITY_API_KEY"))


def model_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """`--api`, and `--model` / `--effort` / `--preset` when given."""
    chosen = {"api": args.api, "model": args.model, "effort": args.effort, "preset": args.preset}
    return {name: value for name, value in chosen.items() if value}


@contextlib.contextmanager
def connection(emulator: bool) -> Iterator[dict[str, Any]]:
    """The connection settings: none (the environment's), or (`emulator`) an embedded emulator's."""
    if not emulator:
        yield {}
        return
    from langchain_perplexity_strict.testing import PerplexityEmulator

    with PerplexityEmulator() as running:
        yield {"api_key": "emulator", "base_url": running.base_url}


def print_sources(additional_kwargs: dict[str, Any]) -> None:
    """Numbered sources, as the answer's [n] markers refer to them."""
    titles = {r.get("url"): r.get("title") for r in additional_kwargs.get("search_results", [])}
    citations = additional_kwargs.get("citations", [])
    if citations:
        print("\nSources:")
    for n, url in enumerate(citations, start=1):
        title = titles.get(url)
        print(f"  [{n}] {title} - {url}" if title else f"  [{n}] {url}")


@contextlib.contextmanager
def _connected(args: argparse.Namespace, label_to: Any = None) -> Iterator[dict[str, Any]]:
    """The connection: the key's server, or `--emulator`'s; an emulator's answers are labelled (on `label_to`)."""
    from langchain_perplexity_strict.cli._which_server import configured_base_url, is_perplexity_url, says_emulator

    if not has_key() and not args.emulator:
        raise CommandError(NO_KEY, status=2)
    with connection(args.emulator) as settings:
        base_url = configured_base_url()  # an emulator's when the README's offline step exported it with a key
        if args.emulator or (not is_perplexity_url(base_url) and says_emulator(base_url)):
            print(EMULATOR_LABEL, file=label_to)
        yield settings


def _chat(args: argparse.Namespace) -> int:
    from langchain_perplexity_strict import ChatPerplexityStrict

    if not args.question.strip():
        raise CommandError('the question is empty: ask something, for example: chat "What is new in Python 3.13?"', 2)
    messages: list[tuple[str, str]] = [("system", args.system)] if args.system else []
    messages.append(("human", args.question))
    with _connected(args) as settings:
        llm = ChatPerplexityStrict(**model_arguments(args), **settings)
        full: Any = None
        try:
            for chunk in llm.stream(messages):
                print(chunk.text, end="", flush=True)
                full = chunk if full is None else full + chunk
        except Exception as error:  # the emulator's "GET /v1/models lists them" names a call this command cannot make
            if not args.emulator or "GET /v1/models" not in str(error):
                raise
            from langchain_perplexity_strict.testing.agent_api import AGENT_MODELS

            served = f"the emulator serves {', '.join(AGENT_MODELS)}"
            raise CommandError(str(error).replace("GET /v1/models lists them", served)) from error
    print()
    print_sources(full.additional_kwargs if full is not None else {})
    return 0


def _models(args: argparse.Namespace) -> int:
    """`models`: the models Perplexity serves (`GET /v1/models`), one per line, or the published JSON."""
    from langchain_perplexity_strict._platform import list_models

    with _connected(args, label_to=sys.stderr) as settings:  # stdout stays the list, for pipes
        listed = list_models(**settings)
    if args.json:
        print(json.dumps({"object": "list", "data": [m.model_dump() for m in listed]}, indent=2))
    else:
        for info in listed:
            print(f"{info.id}\t{info.owned_by}")
    return 0


def read_conversation(path: str) -> list[BaseMessage]:
    """LangChain or OpenAI message dicts from a JSON list or `{"messages": [...]}` file; `-` reads stdin."""
    from langchain_core.messages import convert_to_messages, messages_from_dict

    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    expected = "expected a list of messages or an object with a 'messages' list"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error}); {expected}") from error
    if isinstance(data, dict) and "messages" in data:
        data = data["messages"]
    if not isinstance(data, list):
        raise ValueError(f"{expected}, got {type(data).__name__}")
    if data and all(isinstance(m, dict) and "type" in m and "data" in m for m in data):
        return messages_from_dict(data)
    return convert_to_messages(data)


def _check(args: argparse.Namespace) -> int:
    from langchain_perplexity_strict import ChatPerplexityStrict

    source = "standard input" if args.file == "-" else args.file
    try:
        messages = read_conversation(args.file)
        llm = ChatPerplexityStrict(**model_arguments(args), api_key=SecretStr("unused"))  # nothing is sent
        report = llm.normalize(messages)
        body = llm.request_body(messages)
    except (OSError, ValueError, KeyError, TypeError, NotImplementedError) as error:
        raise CommandError(f"{source}: {error}", status=2) from error
    print(f"{len(messages)} message(s) read from {source}; nothing is sent.")
    print("\nWhat the rules changed:" if report.changes else "\nNo rule changed anything.")
    for change in report.changes:
        print(f"  - {change}")
    print(f"\nThe request body for api={args.api!r}:")
    print(json.dumps(body, indent=2, ensure_ascii=False))
    return 0


def _emulator(args: argparse.Namespace) -> int:
    if args.stop:
        return _stop_emulator(args)
    if args.env and not args.background:
        raise CommandError(
            "--env prints shell exports for a background emulator: add --background (or --stop to undo them)",
            status=2,
        )
    if args.background:
        return _emulator_in_background(args)
    from langchain_perplexity_strict.testing import PerplexityEmulator

    options = ("host", "port", "sonar_retired", "event_delay", "dialect")  # the flags, as the emulator's parameters
    emulator = PerplexityEmulator(**{name: getattr(args, name) for name in options})
    try:
        emulator.start()
    except OSError as error:
        raise CommandError(_emulator_process.listen_error(args.host, args.port, error), status=2) from error
    print(f"Perplexity emulator on {emulator.base_url} (Ctrl-C to stop)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        threading.Event().wait()  # until Ctrl-C
    emulator.stop()
    return 0


def _emulator_in_background(args: argparse.Namespace) -> int:
    """Reuse the emulator already serving the port, or start one and wait until it serves; then say which."""
    running = _emulator_process.running_emulator_at(f"http://{args.host}:{args.port}") if args.port else None
    if running is None:
        command = [sys.executable, "-m", "langchain_perplexity_strict", "emulator", "--host", args.host]
        command += ["--port", str(args.port), "--event-delay", str(args.event_delay), "--dialect", args.dialect]
        if args.sonar_retired:
            command.append("--sonar-retired")
        running = _emulator_process.start(command)  # a child that cannot listen says why, as the foreground does
    print(*_emulator_process.report(running, env=args.env), sep="\n", flush=True)
    return 0


def _stop_emulator(args: argparse.Namespace) -> int:
    """Stop the emulator this shell points at (else --host/--port's) unless another shell started it; `--env` undoes."""
    if args.background:
        raise CommandError("--stop and --background cannot go together", status=2)
    pointed = os.environ.get("PPLX_BASE_URL") if "PERPLEXITY_EMULATOR_PID" in os.environ else None
    where = pointed or f"http://{args.host}:{args.port}"
    running = _emulator_process.running_emulator_at(where) if pointed or args.port else None  # port 0: none
    if running is None:
        print(f"# no Perplexity emulator serves {where}", file=sys.stderr if args.env else sys.stdout, flush=True)
    elif pointed and "PERPLEXITY_EMULATOR_REUSED" in os.environ:
        left = f"# Perplexity emulator at {running.base_url} (process {running.pid}) left running"
        print(f"{left}: another shell started it, and this one reused it", flush=True)
    else:
        _emulator_process.stop(running)
        print(f"# Perplexity emulator at {running.base_url} (process {running.pid}) stopped", flush=True)
    if args.env:
        print(*_emulator_process.restore(), sep="\n", flush=True)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from langchain_perplexity_strict.cli._tour import run_demo

    return run_demo()


def _from_zero(kind: Callable[[str], float], top: float, what: str) -> Callable[[str], Any]:
    """An argparse type: a `kind` from 0 to `top`; anything else is refused as not `what`."""

    def read(text: str) -> Any:
        with contextlib.suppress(ValueError):
            if 0 <= (value := kind(text)) <= top:
                return value
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")

    return read


class _Parser(argparse.ArgumentParser):
    """argparse, whose errors ("unrecognized arguments: --api-key pplx-...") never repeat a credential."""

    def error(self, message: str) -> Any:
        super().error(_without_keys(message))


def _without_keys(text: str) -> str:
    """`text` without the environment's keys, nor anything shaped like a credential (`_redact.redact_text`)."""
    from langchain_perplexity_strict._redact import redact_text

    return redact_text(text, *(os.environ.get(name, "") for name in ("PPLX_API_KEY", "PERPLEXITY_API_KEY")))


_PORT = _from_zero(int, 65535, "a port: use 0 to 65535 (0: any free port)")
_SECONDS = _from_zero(float, sys.float_info.max, "a number of seconds: use 0 or more")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; `chat` and `check` share the model's flags."""
    parser = _Parser(prog="perplexity-strict", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    model = _Parser(add_help=False)
    defaults = f"{DEFAULT_MODELS['agent']}; {DEFAULT_MODELS['chat_completions']} with --api chat_completions"
    model.add_argument("--model", help=f"model slug (default: {defaults})")
    model.add_argument(
        "--effort", help="the effort level that picks the model: fast, low, medium, high, xhigh (fast@VERSION pins one)"
    )
    model.add_argument("--preset", help="deprecated by Perplexity: use --effort")
    model.add_argument(
        "--api",
        choices=DEFAULT_MODELS,  # one default model per surface
        default="agent",
        help="Perplexity surface (default: agent; chat_completions is Sonar's, which Perplexity retired)",
    )

    chat = sub.add_parser(
        "chat", parents=[model], help="ask Perplexity and stream the answer with its numbered sources"
    )
    chat.add_argument("question", help="what to ask (quote it)")
    chat.add_argument("--system", help="a system message")
    chat.add_argument("--emulator", action="store_true", help="answer from the local emulator instead (no key needed)")
    chat.set_defaults(func=_chat)

    check = sub.add_parser("check", parents=[model], help="show what the rules change and the body it would send")
    check.add_argument("file", help="a JSON conversation (LangChain or OpenAI message dicts); - reads standard input")
    check.set_defaults(func=_check)

    listing = sub.add_parser("models", help="list the models Perplexity serves (GET /v1/models): id and owner")
    listing.add_argument("--json", action="store_true", help="print Perplexity's list as JSON (ModelListOutput)")
    listing.add_argument("--emulator", action="store_true", help="list the local emulator's models (no key needed)")
    listing.set_defaults(func=_models)

    emulator = sub.add_parser("emulator", help="serve the strict Perplexity emulator on this machine")
    emulator.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    emulator.add_argument("--port", type=_PORT, default=8765, help="port to listen on (default: 8765; 0: any free)")
    for switch, says in (
        ("--background", "run it as its own process; return once it serves (reuses an emulator on the port)"),
        ("--env", "with --background: print shell exports for eval; with --stop: print what undoes them"),
        ("--stop", "stop the background emulator this shell points at (PPLX_BASE_URL), else the one on --port"),
        ("--sonar-retired", "answer chat completions with 403"),
    ):
        emulator.add_argument(switch, action="store_true", help=says)
    emulator.add_argument("--event-delay", type=_SECONDS, default=0.0, help="seconds between stream events")
    emulator.add_argument(
        "--dialect",
        choices=("live", "schema"),
        default="live",
        help="live: answer as the live Agent API does (default); schema: the bare published schema",
    )
    emulator.set_defaults(func=_emulator)
    sub.add_parser("demo", help="a short tour (against the local emulator when no key is set)").set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status. Errors are one line, never a traceback."""
    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = functools.partial(_show_warning, args.command)
            return int(args.func(args))
    except BrokenPipeError:
        # The reader (`| head`) stopped reading: stop quietly, with the status a shell gives SIGPIPE.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # the command's, an API or a setting error: the message is what the user needs
        print(f"perplexity-strict {args.command}: {_one_line(error)}", file=sys.stderr)
        return error.status if isinstance(error, CommandError) else 1


def _show_warning(command: str, message: Warning | str, *_: object, **__: object) -> None:
    """A `warnings.showwarning` that prints a warning as one notice line, without a file path or source."""
    print(f"perplexity-strict {command}: note: {_one_line(Exception(message))}", file=sys.stderr)


def _one_line(error: BaseException) -> str:
    """The error's own words on one line, without pydantic's input dump or LangChain's troubleshooting link."""
    if isinstance(error, ValidationError):
        text = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in error.errors())
    else:
        text = str(error).split("\nFor troubleshooting, visit:")[0]
    text = _without_keys(" ".join(text.split())) or type(error).__name__
    if "base_url=" in text and os.environ.get("PPLX_BASE_URL"):
        text += " (base_url is read from PPLX_BASE_URL)"
    return text if len(text) <= 400 else text[:397] + "..."
