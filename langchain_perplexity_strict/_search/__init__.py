"""Perplexity's Search API (`POST /search`) as a LangChain retriever and tool, on the chat model's transport.

`_request` checks, builds and reads a search; `_retriever` and `_tool` wrap it.
"""

from langchain_perplexity_strict._search._retriever import PerplexitySearchRetriever
from langchain_perplexity_strict._search._tool import PerplexitySearchResults

__all__ = ["PerplexitySearchResults", "PerplexitySearchRetriever"]
