"""The Search API's request and answer (check, build, read), shared by the tool, and `PerplexitySearchRetriever`.

Types: `ApiSearchRequestInput` / `ApiSearchResponseOutput` (`perplexity.generated.api`).
Ranges: docs.perplexity.ai/api-reference/search-post and docs.perplexity.ai/docs/search/quickstart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator, model_validator
from pydantic.types import Strict
from typing_extensions import Self

from langchain_perplexity_strict._accepts import Accepts, holds, one_of, ruled, suggestion
from langchain_perplexity_strict._connection_settings import PerplexitySettings
from langchain_perplexity_strict._redact import named, shown
from langchain_perplexity_strict._request._filters import (
    DATE_ACCEPTED,
    Recency,
    domains_problem,
    is_country,
    is_language,
    parse_date,
)
from langchain_perplexity_strict._request._unset import over
from langchain_perplexity_strict._transport import encode_body
from langchain_perplexity_strict.errors import PerplexityResponseError

SEARCH_PATH = "/search"
MAX_QUERIES = 5
SearchMode = Literal["web", "academic", "sec"]
ContextSize = Literal["low", "medium", "high"]
SearchType = Literal["web", "fast", "people"]
DATE_PAIRS = (
    ("search_after_date_filter", "search_before_date_filter"),
    ("last_updated_after_filter", "last_updated_before_filter"),
)
MAX_LANGUAGES = 20
"""The schema's `maxItems`; the language guide says 10."""


def _query_problem(v: Any) -> str | None:
    if isinstance(v, str):
        return None if v.strip() else ""
    ok = isinstance(v, list) and 1 <= len(v) <= MAX_QUERIES and all(isinstance(q, str) and q.strip() for q in v)
    return None if ok else ""


TOKENS = Accepts("an integer from 1 to 1,000,000", Annotated[int, Strict(), Field(ge=1, le=1_000_000)])
DATE = Accepts(DATE_ACCEPTED, Annotated[StrictStr, holds(lambda v: parse_date(v) is not None)])
QUERY = Accepts(f"a non-empty string, or a list of 1 to {MAX_QUERIES} non-empty strings", ruled(_query_problem))
MAX_RESULTS = Accepts("an integer from 1 to 20", Annotated[int, Strict(), Field(ge=1, le=20)])


OLD_NAMES = {"search_after_date": "search_after_date_filter", "search_before_date": "search_before_date_filter"}
"""langchain-perplexity's names for two date filters."""


def check_field(name: str, value: Any, label: str | None = None) -> None:
    """Raise `ValueError` unless `value` suits field `name`; `label` is the caller's name for it."""
    problem = None if value is None else FIELDS[name].problem(value)
    if problem is not None:
        msg = f"{label or name}={shown(value, name)} is not accepted by Perplexity's Search API: {problem}."
        raise ValueError(msg)


def checked(value: Any, info: Any) -> Any:
    """`check_field` before pydantic could coerce (a `ValueError`, so `handle_validation_error` applies)."""
    if info.field_name in FIELDS:  # subclasses add fields
        check_field(info.field_name, value)
    return value


def search_body(values: Mapping[str, Any]) -> dict[str, Any]:
    """The request body for `values` (None: not sent); `ValueError` for a bad one."""
    body: dict[str, Any] = {}
    for name, value in values.items():
        name = OLD_NAMES.get(name, name)
        if value is None:
            continue
        if name not in FIELDS:
            hint, like = suggestion(name, FIELDS, {})
            listed = hint or f" Accepted: {', '.join(FIELDS)}."
            msg = f"{named(name, value, *like)} is not a Search API field.{listed}"
            raise ValueError(msg)
        check_field(name, value)
        body[name] = list(value) if isinstance(value, list) else value  # a copy
    if "query" not in body:
        msg = "query: missing. Accepted: " + FIELDS["query"].accepted + "."
        raise ValueError(msg)
    for after, before in DATE_PAIRS:
        start, end = parse_date(body.get(after)), parse_date(body.get(before))
        if start is not None and end is not None and start > end:
            msg = f"{after}={shown(body[after])} is later than {before}={shown(body[before])}: no page can match."
            raise ValueError(msg)
    return body


class SearchFilters(BaseModel):
    """The Search API fields a search keeps between calls (None: the API's default); their rules go to `FIELDS`."""

    max_tokens: Annotated[int | None, TOKENS] = None
    """Most tokens of content across all results."""
    max_tokens_per_page: Annotated[int | None, TOKENS] = None
    """Most tokens of content per page."""
    country: Annotated[
        str | None,
        Accepts("an ISO 3166-1 alpha-2 country code such as 'US' or 'GB'", Annotated[Any, holds(is_country)]),
    ] = None
    """Country to favour, such as `US`."""
    search_domain_filter: Annotated[
        list[str] | None,
        Accepts(
            "a list of at most 20 domains without protocol, all included or all excluded ('-' prefix)",
            ruled(domains_problem),
        ),
    ] = None
    """Domains to search; `-` excludes one."""
    search_language_filter: Annotated[
        list[str] | None,
        Accepts(
            f"a list of at most {MAX_LANGUAGES} ISO 639-1 language codes such as 'en'",
            Annotated[list[Annotated[Any, holds(is_language)]], Field(max_length=MAX_LANGUAGES)],
        ),
    ] = None
    """Language codes, such as `["en", "fr"]`."""
    search_recency_filter: Annotated[Recency | None, one_of(*get_args(Recency))] = None
    """Only recent pages."""
    search_after_date_filter: Annotated[str | None, DATE] = Field(
        default=None, validation_alias=AliasChoices("search_after_date_filter", "search_after_date")
    )
    """Published after this date, M/D/YYYY."""
    search_before_date_filter: Annotated[str | None, DATE] = Field(
        default=None, validation_alias=AliasChoices("search_before_date_filter", "search_before_date")
    )
    """Published before this date, M/D/YYYY."""
    last_updated_after_filter: Annotated[str | None, DATE] = None
    """Updated after this date, M/D/YYYY."""
    last_updated_before_filter: Annotated[str | None, DATE] = None
    """Updated before this date, M/D/YYYY."""
    search_mode: Annotated[SearchMode | None, one_of(*get_args(SearchMode))] = None
    """Which index to search."""
    search_context_size: Annotated[ContextSize | None, one_of(*get_args(ContextSize))] = None
    """Content extracted per page."""
    search_type: Annotated[SearchType | None, one_of(*get_args(SearchType))] = None
    """The kind of search."""
    display_server_time: Annotated[bool | None, Accepts("True or False", StrictBool)] = None
    """Ask for the server's time."""

    _strict = field_validator("*", mode="before")(checked)

    def filter_values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in SearchFilters.model_fields}


FIELDS: dict[str, Accepts] = {
    "query": QUERY,
    "max_results": MAX_RESULTS,
    **{
        name: rule
        for name, info in SearchFilters.model_fields.items()
        for rule in info.metadata
        if isinstance(rule, Accepts)
    },
}
"""Every field of `ApiSearchRequestInput`, with what it accepts."""


def read_results(response: Any) -> tuple[str, list[dict[str, Any]], str | None]:
    """The search id, the results (per-query groups flattened) and the server time of an answer."""
    if not isinstance(response, dict) or not isinstance(response.get("results"), list):
        msg = f"Perplexity's search answer has no results list: {str(response)[:200]!r}"
        raise PerplexityResponseError(msg)
    results: list[dict[str, Any]] = []
    for entry in response["results"]:
        results.extend(entry if isinstance(entry, list) else [entry])
    return str(response.get("id", "")), results, response.get("server_time")


def to_documents(response: Any) -> list[Document]:
    """One `Document` per result: the snippet, with the rest as metadata."""
    search_id, results, server_time = read_results(response)
    documents = []
    for result in results:
        metadata = {key: result.get(key) for key in ("url", "title", "date", "last_updated")}
        metadata["search_id"] = search_id
        if server_time is not None:
            metadata["server_time"] = server_time
        documents.append(Document(page_content=result.get("snippet") or "", metadata=metadata))
    return documents


def to_text(response: Any) -> str:
    """The results as numbered text for a model."""
    _, results, _ = read_results(response)
    if not results:
        return "No results."
    blocks = []
    for n, result in enumerate(results, 1):
        dates = ", ".join(
            f"{label} {result[key]}"
            for key, label in (("date", "published"), ("last_updated", "updated"))
            if result.get(key)
        )
        head = f"[{n}] {result.get('title') or '(untitled)'}\nURL: {result.get('url')}"
        blocks.append(head + (f"\n{dates.capitalize()}" if dates else "") + f"\n{result.get('snippet') or ''}")
    return "\n\n".join(blocks)


class PerplexitySearchRetriever(PerplexitySettings, SearchFilters, BaseRetriever):
    """Perplexity's Search API (`POST /search`) as a retriever: one `Document` per result.

    The snippet is the content; url, title, dates and `search_id` are metadata.
    Search API fields are constructor arguments, overridable per call (`k` is `max_results`).
    The query is a string or a list of up to 5. Connection settings are the chat model's.

    ```python
    from langchain_perplexity_strict import PerplexitySearchRetriever

    retriever = PerplexitySearchRetriever(k=5, search_recency_filter="week")
    docs = retriever.invoke("What changed in Python 3.13?")
    docs[0].metadata["url"]
    ```
    """

    k: int = Field(default=10, validation_alias=AliasChoices("k", "max_results"))
    """How many results (`max_results`)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, arbitrary_types_allowed=True)

    @field_validator("k", mode="before")
    @classmethod
    def _strict_k(cls, value: Any) -> Any:
        check_field("max_results", value, "k")
        return value

    @model_validator(mode="after")
    def _check_search(self) -> Self:
        self._body("-")  # placeholder query: check the rest now
        return self

    def _body(self, query: Any, **overrides: Any) -> dict[str, Any]:
        """The request: a call's fields over the retriever's, an unset one keeping what it holds (`over`)."""
        if "k" in overrides:
            overrides["max_results"] = overrides.pop("k")
        held = {"max_results": self.k, **self.filter_values()}
        given = over(held, overrides, "the retriever")
        if "max_results" in given:
            check_field("max_results", given["max_results"], "k")
        return search_body({"query": query, **held, **given})

    # No `run_manager`: BaseRetriever then passes none.
    def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        return to_documents(self.transport.post(SEARCH_PATH, encode_body(self._body(query, **kwargs)), api="search"))

    async def _aget_relevant_documents(self, query: str, **kwargs: Any) -> list[Document]:
        body = encode_body(self._body(query, **kwargs))
        return to_documents(await self.transport.apost(SEARCH_PATH, body, api="search"))
