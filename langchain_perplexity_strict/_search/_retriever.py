"""`PerplexitySearchRetriever`: Perplexity's Search API as a LangChain retriever."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import AliasChoices, ConfigDict, Field, field_validator, model_validator
from typing_extensions import Self

from langchain_perplexity_strict._connection_settings import PerplexityConnection
from langchain_perplexity_strict._request._unset import over
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
        search_body(self._values("-"))  # placeholder query: check the rest now
        return self

    def _values(self, query: Any, **overrides: Any) -> dict[str, Any]:
        """The request's fields: a call's over the retriever's, an unset one keeping what it holds (`over`)."""
        if "k" in overrides:
            overrides["max_results"] = overrides.pop("k")
        held = {"max_results": self.k, **self.filter_values()}
        given = over(held, overrides, "the retriever")
        if "max_results" in given:
            check_field("max_results", given["max_results"], "k")
        return {"query": query, **held, **given}

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return to_documents(self._post(SEARCH_PATH, encode_search(self._values(query, **kwargs))))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        body = encode_search(self._values(query, **kwargs))
        return to_documents(await self._apost(SEARCH_PATH, body))
