"""Perplexity's search-result records as langchain-perplexity's users read them: by key and by attribute.

langchain-perplexity 1.4.2 gave `additional_kwargs["search_results"]` as the `perplexity` SDK's objects
from a chat-completions `invoke` (`r.url`), and as dicts everywhere else (`r["url"]`: its streams and
its Agent API path). A `SearchResult` is the dict Perplexity sent, so it serializes and compares as
one, and also answers `r.url`, `r.title`, ... as the SDK's `SearchResult` model does: a field of the
published record (`ApiPublicSearchResultOutput`, plus the Agent API's `id`) that Perplexity did not
send reads as None, as the model's optional fields do; any other name is an `AttributeError`.
"""

from __future__ import annotations

from typing import Any

RECORD_FIELDS = frozenset({"title", "url", "date", "last_updated", "snippet", "source", "id"})
"""The fields of a published search-result record: attribute access on them never raises."""


class SearchResult(dict[str, Any]):
    """One search result: the dict as sent, readable as attributes too (`r.url`, `r.title`, `r.date`)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name in self:
            return self[name]
        if name in RECORD_FIELDS:
            return None
        msg = f"search result has no field {name!r} (it has: {', '.join(self)})"
        raise AttributeError(msg)

    def model_dump(self, **_: Any) -> dict[str, Any]:
        """The record as a plain dict (what the SDK object's `model_dump()` gave)."""
        return dict(self)


def search_result(record: dict[str, Any]) -> SearchResult:
    """`record` as a `SearchResult` (a copy: the caller's dict is not changed)."""
    return SearchResult(record)
