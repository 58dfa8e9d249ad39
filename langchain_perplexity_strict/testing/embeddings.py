"""`POST /v1/embeddings` and `POST /v1/contextualizedembeddings`, with deterministic vectors.

Requests are checked as `EmbeddingsRequestInput` and
`ContextualizedEmbeddingsRequestInput` (Perplexity's SDK) with unknown fields
refused, plus the limits of Perplexity's embeddings reference
(docs/perplexity-rules.md, "Embeddings"). Answers have the shapes of
`EmbeddingsResponseOutput` and `ContextualizedEmbeddingsResponseOutput`.

A vector is a hashed bag of words: each lowercase word adds +1 or -1 (by its
hash) at four positions its hash picks, and the sum is scaled to unit length, so
texts that share words are nearer than texts that do not. It is then encoded
as published: `base64_int8` is round(127 * x) per dimension as signed bytes;
`base64_binary` is one bit per dimension (1 where x > 0), packed LSB first.
Standard library only.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from functools import lru_cache
from typing import Any

from langchain_perplexity_strict.testing.errors import APIError, invalid, unknown_field

MODELS = {"pplx-embed-v1-0.6b": 1024, "pplx-embed-v1-4b": 2560}
CONTEXT_MODELS = {"pplx-embed-context-v1-0.6b": 1024, "pplx-embed-context-v1-4b": 2560}
PRICE_PER_MILLION = {"0.6b": 0.004, "4b": 0.03}  # illustrative prices: usage shows a cost, not a quote
MAX_TEXTS = 512
MAX_CHUNKS = 16_000
MAX_INPUT_TOKENS = 32_000
MAX_REQUEST_TOKENS = 120_000
ENCODINGS = ("base64_int8", "base64_binary")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"\w+")


def tokens(text: str) -> int:
    """The emulator's token count: words and punctuation marks (never more than the UTF-8 bytes)."""
    return len(_TOKEN.findall(text))


SLOTS_PER_WORD = 4  # a few positions per word, so that binary (sign) vectors carry each word too


@lru_cache(maxsize=65536)
def _slots(word: str, dimensions: int) -> tuple[tuple[int, float], ...]:
    digest = hashlib.blake2b(word.encode(), digest_size=8 * SLOTS_PER_WORD).digest()
    values = [int.from_bytes(digest[i : i + 8], "little") for i in range(0, len(digest), 8)]
    return tuple((value % dimensions, 1.0 if value >> 63 else -1.0) for value in values)


def vector(text: str, dimensions: int) -> list[float]:
    """The unit-length hashed bag of words of `text`."""
    values = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        for index, sign in _slots(word, dimensions):
            values[index] += sign
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def encode(values: list[float], encoding: str) -> str:
    """`values` as Perplexity sends them: base64 of signed int8 (x 127), or of bits packed LSB first."""
    if encoding == "base64_int8":
        raw = bytes(round(v * 127) & 0xFF for v in values)
    else:
        raw = bytes(
            sum(1 << bit for bit in range(8) if i + bit < len(values) and values[i + bit] > 0)
            for i in range(0, len(values), 8)
        )
    return base64.b64encode(raw).decode()


def _check_common(body: Any, models: dict[str, int], fields: set[str]) -> tuple[str, int, str]:
    if not isinstance(body, dict):
        raise invalid("invalid_request", "invalid request body: expected a JSON object")
    for name in body:
        if name not in fields:
            raise unknown_field(name)
    model = body.get("model")
    if model not in models:
        raise invalid("invalid_request", f"model: {model!r} is not one of {', '.join(models)}", param="model")
    encoding = body.get("encoding_format")
    if encoding is None:
        encoding = "base64_int8"
    elif encoding not in ENCODINGS:
        raise invalid(
            "invalid_request",
            f"encoding_format: {encoding!r} is not one of {', '.join(ENCODINGS)}",
            param="encoding_format",
        )
    dimensions = body.get("dimensions")
    if dimensions is None:
        dimensions = models[model]
    elif isinstance(dimensions, bool) or not isinstance(dimensions, int) or not 128 <= dimensions <= models[model]:
        raise invalid(
            "invalid_request",
            f"dimensions: {dimensions!r} is not an integer from 128 to {models[model]} for {model}",
            param="dimensions",
        )
    return model, dimensions, encoding


def _texts(value: Any, param: str, most: int) -> list[str]:
    if not isinstance(value, list) or not 1 <= len(value) <= most:
        raise invalid("invalid_request", f"{param}: expected a list of 1 to {most} items", param=param)
    for n, text in enumerate(value):
        if not isinstance(text, str) or not text:
            raise invalid("invalid_request", f"{param}[{n}]: expected a non-empty string", param=f"{param}[{n}]")
    return value


def _usage(model: str, count: int) -> dict[str, Any]:
    price = PRICE_PER_MILLION["4b" if model.endswith("4b") else "0.6b"]
    cost = round(count * price / 1_000_000, 10)
    return {
        "prompt_tokens": count,
        "total_tokens": count,
        "cost": {"currency": "USD", "input_cost": cost, "total_cost": cost},
    }


def _within_limits(texts: list[str], param: str, per_input: int) -> int:
    counts = [tokens(t) for t in texts]
    for n, count in enumerate(counts):
        if count > per_input:
            raise invalid("invalid_request", f"{param}[{n}]: {count} tokens is over {per_input}", param=param)
    if sum(counts) > MAX_REQUEST_TOKENS:
        raise invalid(
            "invalid_request", f"{param}: {sum(counts)} tokens in all is over {MAX_REQUEST_TOKENS}", param=param
        )
    return sum(counts)


def _item(text: str, index: int, dimensions: int, encoding: str) -> dict[str, Any]:
    return {"object": "embedding", "index": index, "embedding": encode(vector(text, dimensions), encoding)}


def answer_embeddings(body: Any) -> dict[str, Any]:
    """`POST /v1/embeddings`: one embedding per input, in order."""
    model, dimensions, encoding = _check_common(body, MODELS, {"model", "input", "dimensions", "encoding_format"})
    value = body.get("input")
    texts = _texts([value] if isinstance(value, str) else value, "input", MAX_TEXTS)
    count = _within_limits(texts, "input", MAX_INPUT_TOKENS)
    data = [_item(text, n, dimensions, encoding) for n, text in enumerate(texts)]
    return {"object": "list", "data": data, "model": model, "usage": _usage(model, count)}


def answer_contextualized(body: Any) -> dict[str, Any]:
    """`POST /v1/contextualizedembeddings`: per document, one embedding per chunk, in order.

    A chunk's vector mixes in its document's words (a quarter weight), as context does.
    """
    fields = {"model", "input", "dimensions", "encoding_format"}
    model, dimensions, encoding = _check_common(body, CONTEXT_MODELS, fields)
    documents = body.get("input")
    if not isinstance(documents, list) or not 1 <= len(documents) <= MAX_TEXTS:
        raise invalid("invalid_request", f"input: expected a list of 1 to {MAX_TEXTS} documents", param="input")
    chunks = [_texts(doc, f"input[{n}]", MAX_CHUNKS) for n, doc in enumerate(documents)]
    if sum(map(len, chunks)) > MAX_CHUNKS:
        raise invalid("invalid_request", f"input: more than {MAX_CHUNKS} chunks in all", param="input")
    count = 0
    for n, doc in enumerate(chunks):
        document_tokens = _within_limits(doc, f"input[{n}]", MAX_INPUT_TOKENS)
        if document_tokens > MAX_INPUT_TOKENS:
            raise APIError(
                400,
                "invalid_request",
                f"input[{n}]: {document_tokens} tokens in one document is over {MAX_INPUT_TOKENS}",
                param=f"input[{n}]",
            )
        count += document_tokens
    if count > MAX_REQUEST_TOKENS:
        raise invalid("invalid_request", f"input: {count} tokens in all is over {MAX_REQUEST_TOKENS}", param="input")
    data = []
    for n, doc in enumerate(chunks):
        context = vector(" ".join(doc), dimensions)
        items = []
        for m, chunk in enumerate(doc):
            mixed = [c + 0.25 * d for c, d in zip(vector(chunk, dimensions), context, strict=True)]
            norm = math.sqrt(sum(v * v for v in mixed)) or 1.0
            items.append({"object": "embedding", "index": m, "embedding": encode([v / norm for v in mixed], encoding)})
        data.append({"object": "list", "index": n, "data": items})
    return {"object": "list", "data": data, "model": model, "usage": _usage(model, count)}


ROUTES = {"/v1/embeddings": answer_embeddings, "/v1/contextualizedembeddings": answer_contextualized}
