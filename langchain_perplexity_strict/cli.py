"""The `perplexity-strict` command line: chat, check a conversation, serve the emulator, demo."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, convert_to_messages, messages_from_dict
from pydantic import SecretStr

NO_KEY_NOTICE = "No PPLX_API_KEY or PERPLEXITY_API_KEY is set: answering from the embedded Perplexity emulator."


def has_key() -> bool:
    """Whether a Perplexity key is in the environment."""
    return bool(os.environ.get("PPLX_API_KEY") or os.environ.get("PERPLEXITY_API_KEY"))


@contextlib.contextmanager
def model_settings(args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """Keyword arguments for ChatPerplexityStrict: the real API with a key, else an embedded emulator."""
    settings: dict[str, Any] = {"model": args.model, "api": args.api}
    if has_key():
        yield settings
        return
    from langchain_perplexity_strict.testing import PerplexityEmulator

    print(NO_KEY_NOTICE, file=sys.stderr)
    with PerplexityEmulator() as emulator:
        yield {**settings, "api_key": "emulator", "base_url": emulator.base_url}


def print_sources(additional_kwargs: dict[str, Any]) -> None:
    """Numbered sources, as the answer's [n] markers refer to them."""
    titles = {r.get("url"): r.get("title") for r in additional_kwargs.get("search_results", [])}
    citations = additional_kwargs.get("citations", [])
    if citations:
        print("\nSources:")
    for n, url in enumerate(citations, start=1):
        title = titles.get(url)
        print(f"  [{n}] {title} - {url}" if title else f"  [{n}] {url}")


def _chat(args: argparse.Namespace) -> int:
    from langchain_perplexity_strict import ChatPerplexityStrict

    messages: list[tuple[str, str]] = [("system", args.system)] if args.system else []
    messages.append(("human", args.question))
    with model_settings(args) as settings:
        llm = ChatPerplexityStrict(**settings)
        full: Any = None
        for chunk in llm.stream(messages):
            print(chunk.text, end="", flush=True)
            full = chunk if full is None else full + chunk
    print()
    print_sources(full.additional_kwargs if full is not None else {})
    return 0


def read_conversation(path: str) -> list[BaseMessage]:
    """A conversation from JSON: LangChain message dicts or OpenAI `{"role", "content"}` dicts.

    The file holds a list, or an object with a `messages` list.
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict) and "messages" in data:
        data = data["messages"]
    if not isinstance(data, list):
        msg = f"expected a list of messages or an object with a 'messages' list, got {type(data).__name__}"
        raise ValueError(msg)
    if data and all(isinstance(m, dict) and "type" in m and "data" in m for m in data):
        return messages_from_dict(data)
    return convert_to_messages(data)


def _check(args: argparse.Namespace) -> int:
    from langchain_perplexity_strict import ChatPerplexityStrict

    try:
        messages = read_conversation(args.file)
        key = SecretStr(os.environ.get("PPLX_API_KEY") or "unused")  # nothing is sent
        llm = ChatPerplexityStrict(model=args.model, api=args.api, api_key=key)
        report = llm.normalize(messages)
        body = llm.request_body(messages)
    except (OSError, ValueError, KeyError, TypeError, NotImplementedError) as error:
        print(f"perplexity-strict check: {args.file}: {error}", file=sys.stderr)
        return 2
    print(f"{len(messages)} message(s) read from {args.file}; nothing is sent.")
    print("\nWhat the rules changed:" if report.changes else "\nNo rule changed anything.")
    for change in report.changes:
        print(f"  - {change}")
    print(f"\nThe request body for api={args.api!r}:")
    print(json.dumps(body, indent=2, ensure_ascii=False))
    return 0


def _emulator(args: argparse.Namespace) -> int:
    from langchain_perplexity_strict.testing import PerplexityEmulator

    emulator = PerplexityEmulator(
        host=args.host, port=args.port, sonar_retired=args.sonar_retired, event_delay=args.event_delay
    )
    print(f"Perplexity emulator on http://{args.host}:{args.port} (Ctrl-C to stop)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        emulator.serve_forever()
    return 0


def _demo(args: argparse.Namespace) -> int:
    from langchain_perplexity_strict.demo import run_demo

    return run_demo()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    parser = argparse.ArgumentParser(prog="perplexity-strict", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def model_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--model", default=None, help="model (default: perplexity/sonar, or sonar on chat_completions)")
        p.add_argument("--api", choices=["agent", "chat_completions"], default="agent")

    chat = sub.add_parser("chat", help="stream an answer with its numbered sources")
    chat.add_argument("question")
    chat.add_argument("--system", default=None, help="a system message")
    model_options(chat)
    chat.set_defaults(func=_chat)

    check = sub.add_parser("check", help="dry run: what the rules change and the body that would be sent")
    check.add_argument("file", help="a JSON conversation (LangChain or OpenAI message dicts)")
    model_options(check)
    check.set_defaults(func=_check)

    emulator = sub.add_parser("emulator", help="serve the Perplexity emulator")
    emulator.add_argument("--host", default="127.0.0.1")
    emulator.add_argument("--port", type=int, default=8765)
    emulator.add_argument("--sonar-retired", action="store_true", help="answer chat completions with 403")
    emulator.add_argument("--event-delay", type=float, default=0.0, help="seconds between stream events")
    emulator.set_defaults(func=_emulator)

    demo = sub.add_parser("demo", help="a short tour (against the emulator without a key)")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    if getattr(args, "model", "unset") is None:
        args.model = "perplexity/sonar" if args.api == "agent" else "sonar"
    return int(args.func(args))
