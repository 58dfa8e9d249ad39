"""Which server a base URL reaches: Perplexity, the package's emulator, or something else."""

from __future__ import annotations

import os
from typing import Literal
from urllib.parse import urlsplit

from langchain_perplexity_strict._transport import DEFAULT_BASE_URL as PERPLEXITY_BASE_URL
from langchain_perplexity_strict.cli import has_key
from langchain_perplexity_strict.cli._emulator_process import emulator_headers

Kind = Literal["perplexity", "emulator", "other"]


def configured_base_url() -> str:
    """The default base URL: `PPLX_BASE_URL`, else Perplexity's."""
    return os.environ.get("PPLX_BASE_URL") or PERPLEXITY_BASE_URL


def is_perplexity_url(base_url: str) -> bool:
    """Whether `base_url` is Perplexity's API."""
    parts = urlsplit(base_url.strip())
    return parts.scheme == "https" and parts.hostname == "api.perplexity.ai" and parts.port in (None, 443)


def says_emulator(base_url: str) -> bool:
    return emulator_headers(base_url) is not None


def identify(base_url: str) -> Kind:
    """`emulator` if the server says so, `perplexity` for Perplexity's URL, else `other`."""
    if says_emulator(base_url):
        return "emulator"
    return "perplexity" if is_perplexity_url(base_url) else "other"


def describe(kind: Kind, base_url: str) -> str:
    """Who answers, in words for a user."""
    if kind == "perplexity":
        return f"Perplexity's live API ({base_url})"
    if kind == "emulator":
        return f"the local Perplexity emulator at {base_url} (canned answers, not Perplexity)"
    return f"the server at {base_url}, which is not Perplexity's API ({PERPLEXITY_BASE_URL})"


def why_not_perplexity() -> str | None:
    """Why calls from here would not reach Perplexity's live API, or None."""
    if not has_key():
        return "no PPLX_API_KEY or PERPLEXITY_API_KEY is set"
    base_url = configured_base_url()
    if not is_perplexity_url(base_url):
        return f"PPLX_BASE_URL is {base_url}, not Perplexity's API ({PERPLEXITY_BASE_URL})"
    if says_emulator(base_url):
        return f"the server at {base_url} says it is the Perplexity emulator"
    return None
