"""Search rules Perplexity documents alike for the Search API, the chat model's web search and built-in tools.

- Built-in tool ranges: docs/perplexity-rules.md.
- Dates: docs.perplexity.ai/docs/search/filters/date-time-filters.
- Domains: docs.perplexity.ai/guides/search-domain-filter-guide.
- Country and language: docs.perplexity.ai/api-reference/search-post,
  docs.perplexity.ai/docs/search/filters/language-filter.
"""

# No `from __future__ import annotations`: TypedDict needs evaluated types.
import datetime
from typing import Annotated, Any, Literal, get_args

from annotated_types import Interval
from pydantic import with_config
from typing_extensions import TypedDict

from langchain_perplexity_strict._request._iso_codes import COUNTRIES, LANGUAGES
from langchain_perplexity_strict._request._shape_check import PUBLISHED

Recency = Literal["hour", "day", "week", "month", "year"]
"""`search_recency_filter` values."""
RECENCY: tuple[str, ...] = get_args(Recency)
DATE_ACCEPTED = "a date as M/D/YYYY or MM/DD/YYYY, such as '3/1/2025' or '03/01/2025'"
MAX_DOMAINS = 20


def parse_date(value: Any) -> datetime.date | None:
    """`value` as a date when it is a `%m/%d/%Y` string, else None."""
    try:
        return datetime.datetime.strptime(value, "%m/%d/%Y").date()
    except (TypeError, ValueError):
        return None


def domains_problem(value: Any) -> str | None:
    """Why `value` is not a valid domain filter (None: it is)."""
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        return "expected a list of domain strings"
    if len(value) > MAX_DOMAINS:
        return f"expected at most {MAX_DOMAINS} domains, got {len(value)}"
    for domain in value:
        if not domain.lstrip("-").strip():
            return f"{domain!r} is empty"
        if "://" in domain:
            bare = domain.lstrip("-").split("://", 1)[1]
            return f"{domain!r} has a protocol; give the domain without it, such as {bare!r}"
    excluded = [d.startswith("-") for d in value]
    if any(excluded) and not all(excluded):
        return "mixes included and excluded ('-') domains; Perplexity takes one kind or the other"
    return None


def is_country(value: Any) -> bool:
    """An ISO 3166-1 alpha-2 code, either case."""
    return isinstance(value, str) and value.upper() in COUNTRIES


def is_language(value: Any) -> bool:
    """An ISO 639-1 code, either case."""
    return isinstance(value, str) and value.lower() in LANGUAGES


MAX_SEARCH_TOKENS = 1_000_000  # the web_search tool's `max_tokens` and `max_tokens_per_page`
MaxUrls = Annotated[int, Interval(ge=1, le=100)]
MaxImages = Annotated[int, Interval(ge=1, le=20)]
SearchTokens = Annotated[int, Interval(ge=1, le=MAX_SEARCH_TOKENS)]


@with_config(PUBLISHED)
class UserLocation(TypedDict, total=False):
    """`ToolUserLocationInput`, also the `user_location` parameter."""

    city: str
    country: str
    region: str
    latitude: Annotated[float, Interval(ge=-90, le=90)]
    longitude: Annotated[float, Interval(ge=-180, le=180)]
