"""What the `perplexity-strict` command and its demo share: the key, a model's settings, sources printed."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from typing import Any


def has_key() -> bool:
    """Whether a Perplexity key is in the environment."""
    return bool(os.environ.get("PPLX_API_KEY") or os.environ.get("PERPLEXITY_API_KEY"))


def model_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """`--api`, and `--model` / `--effort` / `--preset` when given (else the surface's default model, or the
    effort level's choice)."""
    chosen = {name: getattr(args, name, None) for name in ("model", "effort", "preset")}
    return {"api": args.api, **{name: value for name, value in chosen.items() if value}}


@contextlib.contextmanager
def model_settings(args: argparse.Namespace, *, emulator: bool) -> Iterator[dict[str, Any]]:
    """Keyword arguments for ChatPerplexityStrict: the real API, or (``emulator``) an embedded emulator."""
    settings = model_arguments(args)
    if not emulator:
        yield settings
        return
    from langchain_perplexity_strict.testing import PerplexityEmulator

    with PerplexityEmulator() as running:
        yield {**settings, "api_key": "emulator", "base_url": running.base_url}


def print_sources(additional_kwargs: dict[str, Any]) -> None:
    """Numbered sources, as the answer's [n] markers refer to them."""
    titles = {r.get("url"): r.get("title") for r in additional_kwargs.get("search_results", [])}
    citations = additional_kwargs.get("citations", [])
    if citations:
        print("\nSources:")
    for n, url in enumerate(citations, start=1):
        title = titles.get(url)
        print(f"  [{n}] {title} - {url}" if title else f"  [{n}] {url}")
