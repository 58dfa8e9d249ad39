"""Stage 4 of a call: bytes to Perplexity and back, for any path; it knows nothing of messages.

`_client` sends and streams; the long-run modules (`_create`, `_runs`, `_resume`, `_poll`, `_guard`) follow a run
that may outlive its request (docs/long-runs.md); `_loops`, `_http` and `_leaving` serve the clients' pools.
"""

from langchain_perplexity_strict._transport._client import (
    DEFAULT_BASE_URL,
    MAX_BODY_BYTES,
    Fallback,
    Transport,
    aiterate_batches,
    encode_body,
    iterate_batches,
    raise_perplexity_error,
    server_root,
    timeout_seconds,
)
from langchain_perplexity_strict._transport._guard import aguarded, guarded
from langchain_perplexity_strict._transport._leaving import opened
from langchain_perplexity_strict._transport._poll import aabandon, abandon, await_run, wait
from langchain_perplexity_strict._transport._resume import AsyncStreamFollower, StreamFollower
from langchain_perplexity_strict._transport._runs import Call, Runs, RunSettings, RunStates, Steps, adrive, drive
from langchain_perplexity_strict._transport._sse import SSEBatcher

__all__ = [
    "DEFAULT_BASE_URL",
    "MAX_BODY_BYTES",
    "AsyncStreamFollower",
    "Call",
    "Fallback",
    "RunSettings",
    "RunStates",
    "Runs",
    "SSEBatcher",
    "Steps",
    "StreamFollower",
    "Transport",
    "aabandon",
    "abandon",
    "adrive",
    "aguarded",
    "aiterate_batches",
    "await_run",
    "drive",
    "encode_body",
    "guarded",
    "iterate_batches",
    "opened",
    "raise_perplexity_error",
    "server_root",
    "timeout_seconds",
    "wait",
]
