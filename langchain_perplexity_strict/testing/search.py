"""`POST /search`: the Search API, answered with deterministic results built from the query.

The request is checked as `ApiSearchRequestInput` (Perplexity's SDK,
`perplexity.generated.api`) with unknown fields refused, plus the ranges of
Perplexity's Search API reference (docs/perplexity-rules.md, "Search API").
The answer has the shape of `ApiSearchResponseOutput`. Standard library only.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from typing import Any

from langchain_perplexity_strict.testing.errors import invalid, unknown_field

RECENCY = ("hour", "day", "week", "month", "year")
_CODE = re.compile(r"^[A-Za-z]{2}$")
_WORD = re.compile(r"\w+")


def _is_int(v: Any, low: int, high: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _is_date(v: Any) -> bool:
    try:
        datetime.datetime.strptime(v, "%m/%d/%Y")
    except (TypeError, ValueError):
        return False
    return True


def _strings(v: Any, most: int, check: Any = bool) -> bool:
    return isinstance(v, list) and len(v) <= most and all(isinstance(s, str) and check(s) for s in v)


CHECKS: dict[str, tuple[str, Any]] = {
    "query": (
        "a non-empty string or a list of 1 to 5 non-empty strings",
        lambda v: (isinstance(v, str) and v.strip() != "") or (_strings(v, 5, str.strip) and len(v) >= 1),
    ),
    "max_results": ("an integer from 1 to 20", lambda v: _is_int(v, 1, 20)),
    "max_tokens": ("an integer from 1 to 1000000", lambda v: _is_int(v, 1, 1_000_000)),
    "max_tokens_per_page": ("an integer from 1 to 1000000", lambda v: _is_int(v, 1, 1_000_000)),
    "country": ("a two-letter country code", lambda v: isinstance(v, str) and bool(_CODE.match(v))),
    "search_domain_filter": ("a list of at most 20 domains", lambda v: _strings(v, 20)),
    "search_language_filter": (
        "a list of at most 20 two-letter language codes",
        lambda v: _strings(v, 20, _CODE.match),
    ),
    "search_recency_filter": ("one of " + ", ".join(RECENCY), lambda v: v in RECENCY),
    "search_after_date_filter": ("a date as MM/DD/YYYY", _is_date),
    "search_before_date_filter": ("a date as MM/DD/YYYY", _is_date),
    "last_updated_after_filter": ("a date as MM/DD/YYYY", _is_date),
    "last_updated_before_filter": ("a date as MM/DD/YYYY", _is_date),
    "search_mode": ("one of web, academic, sec", lambda v: v in ("web", "academic", "sec")),
    "search_context_size": ("one of low, medium, high", lambda v: v in ("low", "medium", "high")),
    "search_type": ("one of web, fast, people", lambda v: v in ("web", "fast", "people")),
    "display_server_time": ("a boolean", lambda v: isinstance(v, bool)),
}
"""Every field of `ApiSearchRequestInput` (all but `query` nullable in the published model)."""


def check_search(body: Any) -> None:
    """Raise the `APIError` Perplexity would answer for a body `ApiSearchRequestInput` refuses."""
    if not isinstance(body, dict):
        raise invalid("invalid_request", "invalid request body: expected a JSON object")
    for name in body:
        if name not in CHECKS:
            raise unknown_field(name)
    if "query" not in body:
        raise invalid("invalid_request", "query: field required", param="query")
    for name, value in body.items():
        accepted, check = CHECKS[name]
        if (value is not None or name == "query") and not check(value):
            raise invalid("invalid_request", f"{name}: {value!r} is not valid; expected {accepted}", param=name)


def answer_search(body: Any) -> dict[str, Any]:
    """A deterministic `ApiSearchResponseOutput`: `max_results` pages per query, each quoting its query's words."""
    check_search(body)
    queries = [body["query"]] if isinstance(body["query"], str) else body["query"]
    count = body.get("max_results") or 10
    digest = hashlib.sha256(repr(sorted(body.items())).encode()).hexdigest()
    results = []
    for q, query in enumerate(queries):
        words = _WORD.findall(query.lower()) or ["page"]
        slug = "-".join(words[:6])
        for n in range(count):
            results.append(
                {
                    "title": f"{query.strip()} ({n + 1})",
                    "url": f"https://example.com/{slug}/{q + 1}-{n + 1}",
                    "snippet": f"A page about {' '.join(words)}. It is result {n + 1} of {count} for this query.",
                    "date": f"2025-{(n % 12) + 1:02d}-{(q % 28) + 1:02d}",
                    "last_updated": f"2025-{(n % 12) + 1:02d}-{(q % 28) + 2:02d}",
                }
            )
    answer: dict[str, Any] = {"id": f"search-{digest[:24]}", "results": results}
    if body.get("display_server_time"):
        answer["server_time"] = "2025-06-01T12:00:00Z"
    return answer


ROUTES = {"/search": answer_search}
