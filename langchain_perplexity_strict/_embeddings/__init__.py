"""Perplexity's embeddings (`POST /v1/embeddings`, `/v1/contextualizedembeddings`) as LangChain `Embeddings`."""

from langchain_perplexity_strict._embeddings._contextualized import PerplexityContextualizedEmbeddings
from langchain_perplexity_strict._embeddings._request import EmbeddingsResult, PerplexityEmbeddings

__all__ = ["EmbeddingsResult", "PerplexityContextualizedEmbeddings", "PerplexityEmbeddings"]
