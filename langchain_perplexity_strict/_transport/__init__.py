"""Stage 4 of a call: bytes to Perplexity and back, for any path; it knows nothing of messages.

`_body` serializes and size-checks a body, `_client` posts, gets and streams
(errors translated, a fallback body sent once), `_sse` turns a stream's bytes
into batches of JSON events.
"""

from langchain_perplexity_strict._transport._body import MAX_BODY_BYTES, encode_body
from langchain_perplexity_strict._transport._client import (
    DEFAULT_BASE_URL,
    Fallback,
    Transport,
    aiterate_batches,
    iterate_batches,
    raise_perplexity_error,
    server_root,
)
from langchain_perplexity_strict._transport._sse import SSEBatcher

__all__ = [
    "DEFAULT_BASE_URL",
    "MAX_BODY_BYTES",
    "Fallback",
    "SSEBatcher",
    "Transport",
    "aiterate_batches",
    "encode_body",
    "iterate_batches",
    "raise_perplexity_error",
    "server_root",
]
