"""Perplexity's platform endpoints beside the chat model: the models it serves and the Decisions API."""

from langchain_perplexity_strict._platform._decisions import PerplexityDecision, PerplexityDecisionResult
from langchain_perplexity_strict._platform._models import PerplexityModelInfo, alist_models, list_models

__all__ = ["PerplexityDecision", "PerplexityDecisionResult", "PerplexityModelInfo", "alist_models", "list_models"]
