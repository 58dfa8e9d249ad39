"""Stage 4 of a call: bytes to Perplexity and back, for any path; it knows nothing of messages.

`_client` serializes and size-checks a body, posts, gets and streams
(errors translated, a fallback body sent once), `_sse` turns a stream's bytes
into batches of JSON events. For long runs, `_create` sends a run's create
again only when no run was started, `_runs` retrieves, resumes and
cancels a run, `_resume` follows a stream across breaks, and `_poll`
polls a background run to its end.
`_loops` gives async requests a connection pool of the running event loop; `_http` knows which
HTTP library openai is built on (its error class, its TLS context); `_leaving` closes an async
stream as soon as its caller closes the model's `astream`; `_guard` finishes a background run's create
(and the read that names its run) when the caller leaves during it, so the run can be cancelled.
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
