"""`PerplexityEmbeddings`, and what both embeddings classes share: settings, limits, batching, reading answers.

Limits: docs.perplexity.ai/api-reference/embeddings-post and .../contextualizedembeddings-post.
Perplexity publishes no tokenizer: batches count UTF-8 bytes (an upper bound), refusals count word runs (a lower).
Vectors come as base64 int8 (kept unscaled, as langchain-perplexity returns them) or binary, LSB first
(docs.perplexity.ai/docs/embeddings/best-practices); byte tables replace numpy.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from typing import Annotated, Any, ClassVar, Literal

from langchain_core.embeddings import Embeddings
from langchain_core.runnables.utils import gather_with_concurrency
from pydantic import ConfigDict, Field, Strict, StrictInt, StrictStr, field_validator, model_validator
from typing_extensions import Self

from langchain_perplexity_strict._accepts import Accepts, check, one_of
from langchain_perplexity_strict._connection_settings import PerplexityConnection
from langchain_perplexity_strict._redact import shown
from langchain_perplexity_strict._transport import encode_body
from langchain_perplexity_strict.errors import PerplexityResponseError

MAX_INPUTS = 512
MAX_CHUNKS = 16_000
MAX_REQUEST_TOKENS = 120_000
MAX_INPUT_TOKENS = 32_768
"""32K tokens per input, read as 32 * 1024, the larger reading."""
_WORD_RUN = re.compile(r"\w+")
MAX_CONCURRENCY = 16
"""Bounded to avoid bursts of 429s (docs.perplexity.ai, "Rate Limits")."""
FULL_DIMENSIONS = {"0.6b": 1024, "4b": 2560}


INT8 = [float(b - 256 if b > 127 else b) for b in range(256)]
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


_SETTINGS = {
    "dimensions": Accepts("an integer (128 up to the model's full size) or None", StrictInt | None),
    "model": Accepts("a string", StrictStr),
    "encoding_format": one_of("base64_int8", "base64_binary"),
    "max_concurrency": Accepts(
        f"an integer from 1 to {MAX_CONCURRENCY}", Annotated[int, Strict(), Field(ge=1, le=MAX_CONCURRENCY)]
    ),
}


class EmbeddingSettings(PerplexityConnection):
    """The settings and requests both embeddings endpoints share, checked."""

    model: str
    dimensions: int | None = None
    """Matryoshka dimensions: 128 to 1024 (0.6b) or 2560 (4b); None: full size."""
    encoding_format: Literal["base64_int8", "base64_binary"] = "base64_int8"
    """How vectors are sent (`decode_int8`, `decode_binary`)."""
    max_concurrency: int = 4
    """Requests in flight at once; not sent to the API."""

    allowed_models: ClassVar[tuple[str, ...]] = ()
    _api_name: ClassVar[str]
    _path: ClassVar[str]
    _what: ClassVar[str]
    """What the answer's items are, for errors."""
    model_config = ConfigDict(extra="forbid", populate_by_name=True, protected_namespaces=())

    @field_validator("dimensions", "model", "encoding_format", "max_concurrency", mode="before")
    @classmethod
    def _as_given(cls, value: Any, info: Any) -> Any:
        """Refuse values pydantic would coerce."""
        check(info.field_name, value, _SETTINGS[info.field_name])
        return value

    @model_validator(mode="after")
    def _check_settings(self) -> Self:
        model = self.model
        if model not in self.allowed_models:
            accepted = ", ".join(self.allowed_models)
            msg = f"model={shown(model)} is not accepted by {type(self).__name__}. Accepted: {accepted}."
            if model in EMBED_MODELS + CONTEXT_MODELS:
                other = "PerplexityEmbeddings" if model in EMBED_MODELS else "PerplexityContextualizedEmbeddings"
                msg += f" {model!r} is served by {other}."
            raise ValueError(msg)
        most = FULL_DIMENSIONS[model.rsplit("-", 1)[-1]]
        if self.dimensions is not None and not 128 <= self.dimensions <= most:
            msg = f"dimensions={self.dimensions!r} is not accepted for {model}: expected an integer from 128 to {most}."
            raise ValueError(msg)
        return self

    def _vectors(self, inputs: list[Any], items: list[dict[str, Any]]) -> list[Any]:
        """The vectors of one answer's ordered items."""
        if self.encoding_format == "base64_binary":
            return [decode_binary(item.get("embedding"), self.dimensions) for item in items]
        return [decode_int8(item.get("embedding")) for item in items]

    def _send(self, bodies: list[dict[str, Any]]) -> EmbeddingsResult:
        """Post the bodies, `max_concurrency` at a time in threads; a failure cancels unsent ones (`Executor.map`)."""

        def post(body: dict[str, Any]) -> dict[str, Any]:
            return self.transport.post(self._path, encode_body(body), api=self._api_name)

        if self.max_concurrency <= 1 or len(bodies) <= 1:
            return self._result(bodies, [post(body) for body in bodies])
        workers = min(self.max_concurrency, len(bodies))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="perplexity-embed") as pool:
            return self._result(bodies, list(pool.map(post, bodies)))

    async def _asend(self, bodies: list[dict[str, Any]]) -> EmbeddingsResult:
        posts = (self.transport.apost(self._path, encode_body(body), api=self._api_name) for body in bodies)
        return self._result(bodies, await gather_with_concurrency(self.max_concurrency, *posts))

    def _result(self, bodies: list[dict[str, Any]], answers: list[dict[str, Any]]) -> EmbeddingsResult:
        """The answers' vectors in input order, with their usage summed."""
        result = EmbeddingsResult([], {}, self.model, len(answers))
        for body, answer in zip(bodies, answers, strict=True):
            data = answer.get("data") if isinstance(answer, dict) else None
            items = ordered(data, len(body["input"]), self._what)
            result.vectors.extend(self._vectors(body["input"], items))
            add_usage(result.usage, answer.get("usage"))
            result.model = answer.get("model") or result.model
        return result

    def _batched(self, inputs: list[Any], groups: list[range]) -> list[dict[str, Any]]:
        """One request body per group of inputs."""
        fields = {"model": self.model, "encoding_format": self.encoding_format, "dimensions": self.dimensions}
        fields = {k: v for k, v in fields.items() if v is not None}
        return [{**fields, "input": inputs[group.start : group.stop]} for group in groups]


EMBED_MODELS = ("pplx-embed-v1-0.6b", "pplx-embed-v1-4b")
CONTEXT_MODELS = ("pplx-embed-context-v1-0.6b", "pplx-embed-context-v1-4b")


@dataclass
class EmbeddingsResult:
    """Vectors in input order, with every request's usage summed."""

    vectors: list[Any]
    usage: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    requests: int = 0


def text_list(texts: Any, name: str, items: str = "texts") -> list[Any]:
    """`texts` as a new list; `TypeError` for a lone string or a non-sequence."""
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Iterable) or isinstance(texts, dict):
        kind = type(texts).__name__
        msg = f"{name}={texts!r}: expected a list of {items}, not {kind}; wrap one in a list: [{texts!r}]."
        raise TypeError(msg)
    return list(texts)


def check_text(text: Any, name: str) -> None:
    """Refuse a non-string or an empty string, as Perplexity does."""
    if not isinstance(text, str):
        msg = f"{name}={text!r}: expected a string, not {type(text).__name__}."
        raise TypeError(msg)
    if not text:
        msg = f"{name}={text!r}: Perplexity embeds non-empty strings only."
        raise ValueError(msg)


def min_tokens(text: str) -> int:
    """A lower bound of `text`'s tokens."""
    return len(_WORD_RUN.findall(text))


def check_size(tokens: int, name: str) -> None:
    """Refuse an input surely over 32K tokens."""
    if tokens > MAX_INPUT_TOKENS:
        msg = (
            f"{name}: at least {tokens:,} tokens (counted as words); Perplexity embeds at most 32K "
            f"({MAX_INPUT_TOKENS:,}) tokens per input. Split it into smaller texts."
        )
        raise ValueError(msg)


def check_texts(texts: Sequence[Any], name: str) -> None:
    """Refuse before sending what Perplexity would refuse."""
    for n, text in enumerate(texts):
        check_text(text, f"{name}[{n}]")
        check_size(min_tokens(text), f"{name}[{n}]")


def text_cost(text: str) -> int:
    """An upper bound of `text`'s tokens."""
    return len(text.encode()) + 2


def batches(
    costs: Sequence[int],
    max_items: int,
    max_cost: int,
    counts: Sequence[int] | None = None,
    max_count: int = MAX_CHUNKS,
) -> list[range]:
    """Consecutive index ranges within `max_items`, `max_cost` and `max_count`; an item over one goes alone."""
    ranges: list[range] = []
    start, cost, count = 0, 0, 0
    for n, item_cost in enumerate(costs):
        item_count = counts[n] if counts is not None else 1
        if n > start and (n - start >= max_items or cost + item_cost > max_cost or count + item_count > max_count):
            ranges.append(range(start, n))
            start, cost, count = n, 0, 0
        cost += item_cost
        count += item_count
    if start < len(costs):
        ranges.append(range(start, len(costs)))
    return ranges


def add_usage(total: dict[str, Any], usage: Any) -> None:
    if not isinstance(usage, dict):
        return
    for key in ("prompt_tokens", "total_tokens"):
        if isinstance(usage.get(key), int):
            total[key] = total.get(key, 0) + usage[key]
    cost = usage.get("cost")
    if isinstance(cost, dict):
        summed = total.setdefault("cost", {})
        for key in ("input_cost", "total_cost"):
            if isinstance(cost.get(key), (int, float)):
                summed[key] = round(summed.get(key, 0.0) + cost[key], 12)
        if cost.get("currency"):
            summed["currency"] = cost["currency"]


def ordered(items: Any, expected: int, what: str) -> list[dict[str, Any]]:
    """`items` sorted by `index`, checked complete."""
    if not isinstance(items, list) or len(items) != expected:
        count = len(items) if isinstance(items, list) else items
        msg = f"Perplexity answered {count!r} {what} for {expected} inputs"
        raise PerplexityResponseError(msg)
    indexed = sorted(items, key=lambda item: item.get("index", 0) if isinstance(item, dict) else 0)
    if [item.get("index", n) for n, item in enumerate(indexed)] != list(range(expected)):
        msg = f"Perplexity answered {what} whose indexes are not 0 to {expected - 1}"
        raise PerplexityResponseError(msg)
    return indexed


class PerplexityEmbeddings(EmbeddingSettings, Embeddings):
    """Perplexity's embeddings (`POST /v1/embeddings`, models `pplx-embed-v1-0.6b` and `pplx-embed-v1-4b`).

    Int8 vectors are floats from -128.0 to 127.0, as langchain-perplexity returns them (divide by 127 for [-1, 1]).
    Binary vectors are +1.0 / -1.0 per dimension: cosine is `1 - 2 * hamming / dimensions`.
    `embed` also returns usage and cost. Connection settings are the chat model's.

    ```python
    from langchain_perplexity_strict import PerplexityEmbeddings

    embeddings = PerplexityEmbeddings(model="pplx-embed-v1-0.6b", dimensions=512)
    vectors = embeddings.embed_documents(["first text", "second text"])
    result = embeddings.embed(["first text"])
    result.usage["cost"]["total_cost"]
    ```
    """

    model: str = "pplx-embed-v1-4b"
    """`pplx-embed-v1-4b` or `pplx-embed-v1-0.6b`."""
    chunk_size: StrictInt = Field(default=MAX_INPUTS, ge=1, le=MAX_INPUTS)
    """Most texts per request."""

    allowed_models: ClassVar[tuple[str, ...]] = EMBED_MODELS
    _api_name: ClassVar[str] = "embeddings"
    _path: ClassVar[str] = "/v1/embeddings"
    _what: ClassVar[str] = "embeddings"

    def _bodies(self, texts: list[str]) -> list[dict[str, Any]]:
        texts = text_list(texts, "texts")
        check_texts(texts, "texts")
        return self._batched(texts, batches([text_cost(t) for t in texts], self.chunk_size, MAX_REQUEST_TOKENS))

    def embed(self, texts: list[str]) -> EmbeddingsResult:
        """The vectors of `texts`, in order, with usage and cost."""
        return self._send(self._bodies(texts))

    async def aembed(self, texts: list[str]) -> EmbeddingsResult:
        return await self._asend(self._bodies(texts))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts).vectors

    def embed_query(self, text: str) -> list[float]:
        check_text(text, "text")
        return self.embed([text]).vectors[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return (await self.aembed(texts)).vectors

    async def aembed_query(self, text: str) -> list[float]:
        check_text(text, "text")
        return (await self.aembed([text])).vectors[0]
