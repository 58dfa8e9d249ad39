"""Perplexity's embedding encodings, decoded into the `list[float]` LangChain's `Embeddings` return.

Perplexity sends no float form (docs.perplexity.ai/api-reference/embeddings-post):

- `base64_int8`: one signed byte per dimension, -128 to 127. Decoded as
  those integers, as floats (not rescaled): cosine similarity is unchanged
  by scale, and the values stay those Perplexity sent (and those
  langchain-perplexity returns).
- `base64_binary`: one bit per dimension, packed LSB first
  (docs.perplexity.ai/docs/embeddings/best-practices), `dimensions / 8`
  bytes. Decoded as +1.0 for a set bit and -1.0 for a clear one, so that
  cosine similarity is 1 - 2 * Hamming distance / dimensions.

Decoding looks each byte up in a table of ready-made floats: no float is
allocated per value, which makes pure Python as fast as numpy's route to the
same lists (`benchmarks/bench_embeddings.py`), so numpy is not needed.
"""

from __future__ import annotations

import base64
import binascii
from itertools import chain
from operator import itemgetter

from langchain_perplexity_strict.errors import PerplexityResponseError

INT8 = [float(b - 256 if b > 127 else b) for b in range(256)]
"""Byte value -> its signed int8 value, as a float."""
BITS = [tuple(1.0 if b >> bit & 1 else -1.0 for bit in range(8)) for b in range(256)]
"""Byte value -> its 8 dimensions, least significant bit first."""


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
    if len(raw) < 2:  # itemgetter of one index returns the item, not a tuple
        return [INT8[b] for b in raw]
    return list(itemgetter(*raw)(INT8))


def decode_binary(encoded: object, dimensions: int | None = None) -> list[float]:
    """A `base64_binary` embedding as +1.0 / -1.0 per dimension (`dimensions` trims the last byte's padding)."""
    raw = _bytes(encoded)
    values = list(chain.from_iterable(BITS[b] for b in raw))
    return values[:dimensions] if dimensions is not None else values


def decode(encoded: object, encoding_format: str, dimensions: int | None = None) -> list[float]:
    """One embedding in `encoding_format` (`base64_int8` or `base64_binary`) as a vector."""
    if encoding_format == "base64_binary":
        return decode_binary(encoded, dimensions)
    return decode_int8(encoded)
