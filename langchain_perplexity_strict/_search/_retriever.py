"""`PerplexitySearchRetriever`: Perplexity's Search API as a LangChain retriever."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import AliasChoices, ConfigDict, Field, field_validator, model_validator
from typing_extensions import Self

from langchain_perplexity_strict._connection_settings import PerplexityConnection
from langchain_perplexity_strict._search._request import (
    SEARCH_PATH,
    SearchFilters,
    check_field,
    encode_search,
    search_body,
    to_documents,
)


class PerplexitySearchRetriever(PerplexityConnection, SearchFilters, BaseRetriever):
    """Perplexity's Search API (`POST /search`) as a retriever: one `Document` per result.

    Each document's `page_content` is the result's snippet; its metadata holds
    `url`, `title`, `date`, `last_updated` and `search_id` (the answer's `id`),
    plus `server_time` with `display_server_time=True`.

    Every field of the published `ApiSearchRequestInput` is a constructor
    argument (`k` is `max_results`, 1 to 20) and can be overridden per call
    (`retriever.invoke("query", k=3, search_mode="academic")`). The query is
    one string, or a list of up to 5 (`retriever.invoke(["q1", "q2"])`, a
    multi-query search). Values are checked before anything is sent; a bad one
    raises `ValueError` naming the field, the value and what is accepted.
    langchain-perplexity's `search_after_date` / `search_before_date` are
    accepted and sent as the API's `search_after_date_filter` /
    `search_before_date_filter`.

    Key, base URL, timeout, retries and error translation are the chat
    model's (`api_key` from `PPLX_API_KEY` or `PERPLEXITY_API_KEY`, `base_url`
    from `PPLX_BASE_URL`); offline, point `base_url` at the emulator.

    ```python
    from langchain_perplexity_strict import PerplexitySearchRetriever

    retriever = PerplexitySearchRetriever(k=5, search_recency_filter="week")
    docs = retriever.invoke("What changed in Python 3.13?")
    docs[0].metadata["url"]
    ```
    """

    k: int = Field(default=10, validation_alias=AliasChoices("k", "max_results"))
    """How many results (`max_results`, 1 to 20; `max_results=` also works)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, arbitrary_types_allowed=True)

    @field_validator("k", mode="before")
    @classmethod
    def _strict_k(cls, value: Any) -> Any:
        check_field("max_results", value, "k")
        return value

    @model_validator(mode="after")
    def _check_search(self) -> Self:
        search_body(self._values("-"))  # the query is per call; a placeholder checks the rest now
        return self

    def _values(self, query: Any, **overrides: Any) -> dict[str, Any]:
        if "k" in overrides:
            check_field("max_results", overrides["k"], "k")  # named as the caller named it
            overrides["max_results"] = overrides.pop("k")
        return {"query": query, "max_results": self.k, **self.filter_values(), **overrides}

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return to_documents(self._post(SEARCH_PATH, encode_search(self._values(query, **kwargs))))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        body = encode_search(self._values(query, **kwargs))
        return to_documents(await self._apost(SEARCH_PATH, body))
