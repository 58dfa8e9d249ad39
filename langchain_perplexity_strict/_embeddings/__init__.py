"""Perplexity's embeddings (`POST /v1/embeddings`, `/v1/contextualizedembeddings`) as LangChain `Embeddings`.

`_request` holds what both classes share (settings, limits, batching,
reading answers), `_vectors` decodes `base64_int8` and `base64_binary`;
`_embeddings` and `_contextualized` are the two classes.
"""

from langchain_perplexity_strict._embeddings._contextualized import PerplexityContextualizedEmbeddings
from langchain_perplexity_strict._embeddings._embeddings import PerplexityEmbeddings
from langchain_perplexity_strict._embeddings._request import EmbeddingsResult

__all__ = ["EmbeddingsResult", "PerplexityContextualizedEmbeddings", "PerplexityEmbeddings"]
