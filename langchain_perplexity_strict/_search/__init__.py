"""Perplexity's Search API (`POST /search`) as a LangChain retriever and tool, on the chat model's transport.

`_request` checks, builds and reads a search (`_filters` and `_iso_codes`
hold the documented value rules); `_retriever` and `_tool` are the two
LangChain faces of it.
"""

from langchain_perplexity_strict._search._retriever import PerplexitySearchRetriever
from langchain_perplexity_strict._search._tool import PerplexitySearchResults

__all__ = ["PerplexitySearchResults", "PerplexitySearchRetriever"]
