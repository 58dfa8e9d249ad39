"""The private langchain-openai helpers this package reuses, behind one import with a clear error.

The transport re-raises Perplexity's HTTP errors through langchain-openai's own
error mapping (`_handle_openai_api_error`, `_handle_openai_bad_request`), so
callers catch the same exceptions as with `ChatOpenAI`. Those helpers are
private to langchain-openai and first appeared in 1.1.9; an older install
fails here with the version needed instead of a bare `cannot import name`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

LANGCHAIN_OPENAI_NEEDED = "1.1.9"

try:
    from langchain_openai.chat_models.base import (
        _handle_openai_api_error as handle_openai_api_error,
    )
    from langchain_openai.chat_models.base import (
        _handle_openai_bad_request as handle_openai_bad_request,
    )
except ImportError as error:  # pragma: no cover - only on an install below the declared floor
    try:
        found = version("langchain-openai")
    except PackageNotFoundError:
        found = "not installed"
    message = (
        f"langchain-perplexity-strict needs langchain-openai>={LANGCHAIN_OPENAI_NEEDED},<2.0.0 "
        f"(found {found}): {error}. Upgrade it with: pip install 'langchain-openai>={LANGCHAIN_OPENAI_NEEDED},<2.0.0'"
    )
    raise ImportError(message) from error

__all__ = ["LANGCHAIN_OPENAI_NEEDED", "handle_openai_api_error", "handle_openai_bad_request"]
