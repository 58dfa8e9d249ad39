"""Perplexity's embedding encodings, decoded into the `list[float]` LangChain's `Embeddings` return.

Perplexity sends no floats (docs.perplexity.ai/api-reference/embeddings-post).
Int8 values stay unscaled, as langchain-perplexity returns them.
Binary is LSB first (docs.perplexity.ai/docs/embeddings/best-practices).
Byte lookup tables make numpy unneeded.
"""

from __future__ import annotations

import base64
import binascii
from itertools import chain
from operator import itemgetter

from langchain_perplexity_strict.errors import PerplexityResponseError

INT8 = [float(b - 256 if b > 127 else b) for b in range(256)]
"""Byte -> signed value, as a float."""
BITS = [tuple(1.0 if b >> bit & 1 else -1.0 for bit in range(8)) for b in range(256)]
"""Byte -> its 8 dimensions, LSB first."""


def _bytes(encoded: object) -> bytes:
    if not isinstance(encoded, str):
        msg = f"Perplexity sent an embedding that is not a base64 string: {str(encoded)[:80]!r}"
        raise PerplexityResponseError(msg)
    try:
        return base64.b64decode(encoded, validate=True)
    except binascii.Error as error:
        msg = f"Perplexity sent an embedding that is not valid base64 ({error})"
        raise PerplexityResponseError(msg) from error


def decode_int8(encoded: object) -> list[float]:
    """A `base64_int8` embedding as floats from -128.0 to 127.0."""
    raw = _bytes(encoded)
    if len(raw) < 2:  # one index: itemgetter returns no tuple
        return [INT8[b] for b in raw]
    return list(itemgetter(*raw)(INT8))


def decode_binary(encoded: object, dimensions: int | None = None) -> list[float]:
    """A `base64_binary` embedding as +1.0 / -1.0; `dimensions` trims padding."""
    raw = _bytes(encoded)
    values = list(chain.from_iterable(BITS[b] for b in raw))
    return values[:dimensions] if dimensions is not None else values


def decode(encoded: object, encoding_format: str, dimensions: int | None = None) -> list[float]:
    """One embedding in `encoding_format` as a vector."""
    if encoding_format == "base64_binary":
        return decode_binary(encoded, dimensions)
    return decode_int8(encoded)
