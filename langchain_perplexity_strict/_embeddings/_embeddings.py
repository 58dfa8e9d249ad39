"""`PerplexityEmbeddings`: Perplexity's `pplx-embed-v1-*` models as LangChain `Embeddings`."""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.embeddings import Embeddings
from pydantic import Field, StrictInt

from langchain_perplexity_strict._connection_settings import PerplexityConnection
from langchain_perplexity_strict._embeddings._request import (
    EMBED_MODELS,
    MAX_INPUTS,
    MAX_REQUEST_TOKENS,
    EmbeddingSettings,
    EmbeddingsResult,
    arun_batches,
    batches,
    check_text,
    check_texts,
    run_batches,
    text_cost,
    text_list,
)

PATH = "/v1/embeddings"


class PerplexityEmbeddings(PerplexityConnection, EmbeddingSettings, Embeddings):
    """Perplexity's embeddings (`POST /v1/embeddings`, models `pplx-embed-v1-0.6b` and `pplx-embed-v1-4b`).

    Int8 vectors are floats from -128.0 to 127.0, as langchain-perplexity returns them (divide by 127 for [-1, 1]).
    Binary vectors are +1.0 / -1.0 per dimension: cosine is `1 - 2 * hamming / dimensions`.
    Texts are batched within Perplexity's limits, vectors kept in order.
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

    def _bodies(self, texts: list[str]) -> list[dict[str, Any]]:
        check_texts(texts, "texts")
        fields = self.request_fields()
        groups = batches([text_cost(t) for t in texts], self.chunk_size, MAX_REQUEST_TOKENS)
        return [{**fields, "input": texts[group.start : group.stop]} for group in groups]

    def embed(self, texts: list[str]) -> EmbeddingsResult:
        """The vectors of `texts`, in order, with usage and cost."""
        bodies = self._bodies(text_list(texts, "texts"))
        return self._result(bodies, run_batches(self._post, PATH, bodies, self.max_concurrency), "embeddings")

    async def aembed(self, texts: list[str]) -> EmbeddingsResult:
        bodies = self._bodies(text_list(texts, "texts"))
        answers = await arun_batches(self._apost, PATH, bodies, self.max_concurrency)
        return self._result(bodies, answers, "embeddings")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""
        return self.embed(texts).vectors

    def embed_query(self, text: str) -> list[float]:
        """The vector of one text."""
        check_text(text, "text")
        return self.embed([text]).vectors[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return (await self.aembed(texts)).vectors

    async def aembed_query(self, text: str) -> list[float]:
        check_text(text, "text")
        return (await self.aembed([text])).vectors[0]
