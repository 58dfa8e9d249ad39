"""Stage 4 of a call: bytes to Perplexity and back, for any path; it knows nothing of messages.

`_client` sends and streams; the long-run modules (`_create`, `_runs`, `_resume`, `_poll`, `_guard`) follow a run
that may outlive its request (docs/long-runs.md); `_loops` serves the clients' pools.
"""

from langchain_perplexity_strict._transport._client import (
    DEFAULT_BASE_URL,
    Fallback,
    Transport,
    encode_body,
    iterate_batches,
    raise_perplexity_error,
    timeout_seconds,
)
from langchain_perplexity_strict._transport._guard import aguarded, guarded
from langchain_perplexity_strict._transport._poll import aabandon, abandon, await_run, wait
from langchain_perplexity_strict._transport._resume import AsyncStreamFollower, StreamFollower, opened
from langchain_perplexity_strict._transport._runs import Call, Runs, RunSettings, RunStates, Steps, adrive, drive

__all__ = [
    "DEFAULT_BASE_URL",
    "AsyncStreamFollower",
    "Call",
    "Fallback",
    "RunSettings",
    "RunStates",
    "Runs",
    "Steps",
    "StreamFollower",
    "Transport",
    "aabandon",
    "abandon",
    "adrive",
    "aguarded",
    "await_run",
    "drive",
    "encode_body",
    "guarded",
    "iterate_batches",
    "opened",
    "raise_perplexity_error",
    "timeout_seconds",
    "wait",
]
