"""What kind of error Perplexity reported: the one table of its error types and codes.

A kind is a langchain-core exception (`langchain_core.exceptions`), which carries
`is_retryable`; middleware acts on both (`errors` module docstring). An HTTP error
becomes langchain-openai's class of that kind (`_transport._kinds`, as `ChatOpenAI`'s
would), an error reported inside an answer (a failed run, a stream's `error` event)
this package's (`reported_error`), a refusal before sending `PerplexityRequestError`.
Sources: docs/perplexity-rules.md.
"""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from langchain_perplexity_strict.errors import (
    PerplexityContextOverflowError,
    PerplexityRequestError,
    PerplexityRequestTypeError,
    PerplexityResponseError,
)

Kind = Literal["context_overflow", "invalid_request", "auth", "permission", "not_found", "rate_limit", "server"]

ERROR_KINDS: dict[str, Kind] = {
    # Sonar's over-long input, recorded live (400); OpenAI's name for it, which langchain-openai also reads.
    "too_many_prompt_tokens": "context_overflow",
    "context_length_exceeded": "context_overflow",
    # The Agent API's published error types (docs.perplexity.ai, API error reference).
    "invalid_request": "invalid_request",
    "invalid_model": "invalid_request",
    "invalid_parameter": "invalid_request",
    "invalid_message": "invalid_request",
    "payload_too_large": "invalid_request",
    "chat_completions_not_available": "permission",
    "not_found": "not_found",
    "request_rate_limit_exceeded": "rate_limit",
    "internal_error": "server",
    "server_error": "server",
    "bad_gateway": "server",
    "service_unavailable": "server",
    "gateway_timeout": "server",
    "upstream_structured_output_failed": "server",
}
"""Perplexity's error `type` (or `code`) → its kind. A type not listed takes the kind of its HTTP status."""

STATUS_KINDS: dict[int, Kind] = {401: "auth", 403: "permission", 404: "not_found", 429: "rate_limit"}
RETRIED_STATUSES = frozenset({408, 409, 424})
"""4xx a retry may get past: a timeout, a conflict (both retried by openai's client), a failed dependency."""


def kind_of(detail: Mapping[str, Any], status: int | None = None) -> Kind | None:
    """The kind of an error object (`{"type", "code", "message"}`), by the table, else by `status`."""
    for key in ("type", "code"):
        kind = ERROR_KINDS.get(str(detail.get(key)))
        if kind is not None:
            return kind
    if status is None:
        return None
    if status in STATUS_KINDS:
        return STATUS_KINDS[status]
    return "server" if status >= 500 or status in RETRIED_STATUSES else "invalid_request"


def error_detail(body: Any) -> dict[str, Any]:
    """The error object of a body in any form Perplexity or a gateway sends, with `message` filled when the
    body has words: `{"error": {...}}`, `{"error": "..."}`, FastAPI's `{"detail": ...}`, text or HTML."""
    if isinstance(body, Mapping):  # openai's `body` is the envelope's `error` object when there is one
        error = body.get("error", body)
        if not isinstance(error, Mapping):
            return {"message": str(error)} if error else {}
        detail = dict(error)
        if not detail.get("message") and "detail" in detail:
            detail["message"] = _fastapi_words(detail["detail"])
        return detail
    return {"message": _page_words(body)} if isinstance(body, str) and body.strip() else {}


def _fastapi_words(detail: Any) -> str:
    """FastAPI's validation errors (`[{"loc", "msg", "type"}]`, the schema's `HTTPValidationError`) as text."""
    if not isinstance(detail, list):
        return str(detail)
    said = [
        f"{'.'.join(str(part) for part in item.get('loc') or ())}: {item.get('msg')}"
        if isinstance(item, dict)
        else str(item)
        for item in detail
    ]
    return "; ".join(said)


def _page_words(text: str, limit: int = 500) -> str:
    """A text or HTML body's words (a gateway's error page), its tags and extra spaces dropped."""
    if "<" in text and ">" in text:
        text = html.unescape(re.sub(r"<[^>]*>", " ", re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", text)))
    words = " ".join(text.split())
    return words if len(words) <= limit else words[: limit - 1] + "…"


def reported_error(message: str, detail: Mapping[str, Any], partial: Any = None) -> PerplexityResponseError:
    """The error for a failure Perplexity reported inside an answer (a failed run, a stream `error` event)."""
    if kind_of(detail) == "context_overflow":
        return PerplexityContextOverflowError(message, partial)
    return PerplexityResponseError(message, partial)


@contextlib.contextmanager
def refused_before_sending() -> Iterator[None]:
    """A plain `ValueError` or `TypeError` raised while a call is checked, as `PerplexityRequestError` (still a
    `ValueError` or `TypeError`): langchain's retry middleware reads "not retryable" only from a `ModelError`."""
    try:
        yield
    except (ValueError, TypeError) as error:
        if type(error) not in (ValueError, TypeError):
            raise
        kind = PerplexityRequestTypeError if type(error) is TypeError else PerplexityRequestError
        raise kind(*error.args).with_traceback(error.__traceback__) from None
