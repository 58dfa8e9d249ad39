"""Perplexity's Search API (`POST /search`) as a LangChain retriever and tool, on the chat model's transport.

`_request` checks, builds and reads a search, and holds the retriever; `_tool` wraps it for agents.
"""

from langchain_perplexity_strict._search._request import PerplexitySearchRetriever
from langchain_perplexity_strict._search._tool import PerplexitySearchResults

__all__ = ["PerplexitySearchResults", "PerplexitySearchRetriever"]
