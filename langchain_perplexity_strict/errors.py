"""Errors for answers Perplexity gave with HTTP 200 that are not complete answers.

HTTP errors surface as langchain-openai's exceptions (both an `openai`
error and a langchain-core `Model*Error`), with Perplexity's message.
"""

from __future__ import annotations

from langchain_core.exceptions import ModelAPIError
from langchain_core.messages import AIMessage


class PerplexityResponseError(ModelAPIError):
    """Perplexity reported a failed or cancelled run, or an `error` stream event."""


class PerplexityIncompleteError(PerplexityResponseError):
    """The answer stopped early (`status: incomplete` / `finish_reason: length`).

    `partial` holds what was produced, so nothing is lost, but it is never
    returned as if it were complete.
    """

    def __init__(self, message: str, partial: AIMessage | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class PerplexityStreamError(PerplexityResponseError):
    """The stream ended before its terminal event: the answer may be cut short."""
