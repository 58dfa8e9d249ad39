"""Search-filter rules that Perplexity documents alike for the Search API and the chat model's web search.

One definition, used by the chat model's parameter table (`_parameter_row`) and
by the Search API (`_search/_request`):

- Dates are `%m/%d/%Y`, so `3/1/2025` and `03/01/2025` are both valid
  (docs.perplexity.ai/docs/search/filters/date-time-filters: "Specific date
  filters must be provided in the "%m/%d/%Y" format (e.g., "3/1/2025")").
- Domains: at most 20, given without the protocol ("nature.com" not
  "https://nature.com"), either all included or all excluded with a `-`
  prefix, never both (docs.perplexity.ai/guides/search-domain-filter-guide).
- Country: an ISO 3166-1 alpha-2 code, language: ISO 639-1 codes (the Search
  API reference, docs.perplexity.ai/api-reference/search-post, and the
  language filter guide, docs.perplexity.ai/docs/search/filters/language-filter).
"""

from __future__ import annotations

import datetime
from typing import Any, Literal, get_args

from langchain_perplexity_strict._request._iso_codes import COUNTRIES, LANGUAGES

Recency = Literal["hour", "day", "week", "month", "year"]
"""`search_recency_filter`, on every endpoint (the type a signature shows)."""
RECENCY: tuple[str, ...] = get_args(Recency)
DATE_FORMAT = "%m/%d/%Y"
DATE_ACCEPTED = "a date as M/D/YYYY or MM/DD/YYYY, such as '3/1/2025' or '03/01/2025'"
MAX_DOMAINS = 20


def parse_date(value: Any) -> datetime.date | None:
    """`value` as a date when it is a `%m/%d/%Y` string, else None."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.datetime.strptime(value, DATE_FORMAT).date()
    except ValueError:
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
    """An ISO 3166-1 alpha-2 code (either case), such as 'US' or 'gb'."""
    return isinstance(value, str) and value.upper() in COUNTRIES


def is_language(value: Any) -> bool:
    """An ISO 639-1 code (either case), such as 'en'."""
    return isinstance(value, str) and value.lower() in LANGUAGES
