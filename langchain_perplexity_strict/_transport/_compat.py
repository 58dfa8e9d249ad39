"""The private langchain-openai helpers this package reuses, behind one import with a clear error.

The transport re-raises Perplexity's HTTP errors through langchain-openai's own
error mapping (`_handle_openai_api_error`, `_handle_openai_bad_request`), so
callers catch the same exceptions as with `ChatOpenAI`, which from
langchain-openai 1.6.0 are also langchain-core's `ModelAPIError` kinds. Those
helpers are private to langchain-openai (added in 1.1.9); an install without
them fails here with the version needed instead of a bare `cannot import name`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version

import openai

LANGCHAIN_OPENAI_NEEDED = "1.6.0"

try:
    from langchain_openai.chat_models.base import _handle_openai_api_error, _handle_openai_bad_request
except ImportError as error:  # only on an install below the declared floor
    try:
        found = version("langchain-openai")
    except PackageNotFoundError:
        found = "not installed"
    message = (
        f"langchain-perplexity-strict needs langchain-openai>={LANGCHAIN_OPENAI_NEEDED},<2.0.0 (found {found}): "
        f"{error}. Upgrade it: pip install 'langchain-openai>={LANGCHAIN_OPENAI_NEEDED},<2.0.0'"
    )
    raise ImportError(message) from error


def _through(helper: Callable[[openai.APIError], None], error: openai.APIError) -> None:
    """Run `helper` with `error` as the exception being handled.

    `_handle_openai_api_error` ends in a bare `raise` for errors it does not map
    (a 409 or 422, say), which re-raises whatever is being handled, perhaps the
    original error without Perplexity's message: raising `error` first makes that
    `error` itself, on every version.
    """
    try:
        raise error
    except openai.APIError:
        helper(error)


def handle_openai_bad_request(error: openai.BadRequestError) -> None:
    """Raise langchain-openai's exception for a 400 (context overflow, invalid request), else `error`."""
    _through(_handle_openai_bad_request, error)  # type: ignore[arg-type]


def handle_openai_api_error(error: openai.APIError) -> None:
    """Raise langchain-openai's exception for an API error (auth, rate limit, timeout...), else `error`."""
    _through(_handle_openai_api_error, error)
