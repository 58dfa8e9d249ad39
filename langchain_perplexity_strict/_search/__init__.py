"""Perplexity's Search API (`POST /search`) as a LangChain retriever and tool, on the chat model's transport."""

from langchain_perplexity_strict._search._request import PerplexitySearchRetriever
from langchain_perplexity_strict._search._tool import PerplexitySearchResults

__all__ = ["PerplexitySearchResults", "PerplexitySearchRetriever"]
