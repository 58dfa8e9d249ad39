"""The ``perplexity-strict`` command line."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Sequence


def _emulator(args: argparse.Namespace) -> int:
    from langchain_perplexity_strict.testing import PerplexityEmulator

    emulator = PerplexityEmulator(host=args.host, port=args.port, sonar_retired=args.sonar_retired)
    print(
        f"Perplexity emulator on http://{args.host}:{args.port or '<ephemeral>'} (Ctrl-C to stop)",
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        emulator.serve_forever()
    return 0


def _demo(args: argparse.Namespace) -> int:
    from langchain_perplexity_strict.demo import run_demo

    return run_demo()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests)."""
    parser = argparse.ArgumentParser(prog="perplexity-strict", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    emulator = sub.add_parser("emulator", help="serve the Perplexity emulator")
    emulator.add_argument("--host", default="127.0.0.1")
    emulator.add_argument("--port", type=int, default=8765)
    emulator.add_argument("--sonar-retired", action="store_true", help="answer chat completions with 403")
    emulator.set_defaults(func=_emulator)
    demo = sub.add_parser("demo", help="a short tour (against the emulator without a key)")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    return int(args.func(args))
