"""The request body as the bytes sent: serialized once, size-checked on those bytes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

MAX_BODY_BYTES = 32 * 1024 * 1024  # docs/perplexity-rules.md: Perplexity answers 413 payload_too_large above 32 MiB


def encode_body(payload: Mapping[str, Any]) -> bytes:
    """The body's bytes, exactly as sent; a body Perplexity would answer 413 is refused here.

    Serialized once, with the openai client's own settings (compact, UTF-8, no
    NaN), and posted as bytes: the size checked is the size sent, and the
    client does not serialize the body a second time.
    """
    try:
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    except ValueError as error:
        msg = f"request body: {error}; NaN and infinite numbers are not JSON (check model_kwargs)."
        raise ValueError(msg) from error
    size = len(body)
    if size > MAX_BODY_BYTES:
        msg = (
            f"request body: {size:,} bytes is over Perplexity's limit of {MAX_BODY_BYTES:,} bytes (32 MiB); "
            "shorten the conversation (max_input_tokens compacts it) or send smaller images."
        )
        raise ValueError(msg)
    return body
