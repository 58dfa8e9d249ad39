"""An HTTP error as the exception of its kind (`errors.kind_of`), so middleware reads the kind and retry flag.

langchain-openai's class for it where there is one, as `ChatOpenAI` raises it
(both an `openai` error and a langchain-core one), else this package's.
"""

from __future__ import annotations

from typing import Any

import openai

from langchain_perplexity_strict._transport._compat import OPENAI_KINDS, langchain_openai_error
from langchain_perplexity_strict.errors import (
    PerplexityInvalidRequestError,
    PerplexityServerError,
    PerplexityUnprocessableEntityError,
    error_detail,
    kind_of,
)


def http_error(error: openai.APIStatusError, message: str) -> Exception:
    """`error` as the exception of its kind, with `message` (Perplexity's words)."""
    kind = kind_of(error_detail(error.body), error.status_code)
    fields: Any = {"message": message, "response": error.response, "body": error.body}
    if kind == "invalid_request" and isinstance(error, openai.BadRequestError):
        # langchain-openai's own reading (an overflow by its wording, a structured-output hint)
        return langchain_openai_error(openai.BadRequestError(**fields))
    if kind == "invalid_request":
        unprocessable = isinstance(error, openai.UnprocessableEntityError)
        return (PerplexityUnprocessableEntityError if unprocessable else PerplexityInvalidRequestError)(**fields)
    if kind == "server" and not isinstance(error, openai.InternalServerError):
        return PerplexityServerError(**fields)
    return OPENAI_KINDS[kind if kind is not None else "server"](**fields)
