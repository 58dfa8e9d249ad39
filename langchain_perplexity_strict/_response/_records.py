"""Perplexity's search-result records as langchain-perplexity's users read them: by key and by attribute.

langchain-perplexity gave SDK objects (`r.url`) on some paths and dicts (`r["url"]`) on others; a
`SearchResult` is both. Unsent fields of `ApiPublicSearchResultOutput` read as None.
"""

from __future__ import annotations

from typing import Any

RECORD_FIELDS = frozenset({"title", "url", "date", "last_updated", "snippet", "source", "id"})
"""Published record fields: reading them never raises."""


class SearchResult(dict[str, Any]):
    """One search result: the dict as sent, also readable as attributes."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name in self:
            return self[name]
        if name in RECORD_FIELDS:
            return None
        msg = f"search result has no field {name!r} (it has: {', '.join(self)})"
        raise AttributeError(msg)

    def model_dump(self, **_: Any) -> dict[str, Any]:
        """The record as a plain dict, as the SDK model gives."""
        return dict(self)


def search_result(record: dict[str, Any]) -> SearchResult:
    """A `SearchResult` copy of `record`."""
    return SearchResult(record)
