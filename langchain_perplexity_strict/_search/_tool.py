"""`PerplexitySearchResults`: Perplexity's Search API as a LangChain tool for agents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator
from pydantic.v1 import ValidationError as ValidationErrorV1
from typing_extensions import Self

from langchain_perplexity_strict._accepts import near_typo
from langchain_perplexity_strict._connection_settings import PerplexitySettings
from langchain_perplexity_strict._once import OncePerOwner
from langchain_perplexity_strict._request._filters import Recency
from langchain_perplexity_strict._search._request import (
    MAX_QUERIES,
    OLD_NAMES,
    SEARCH_PATH,
    SearchFilters,
    checked,
    read_results,
    search_body,
    to_text,
)
from langchain_perplexity_strict._transport import encode_body


class SearchInput(BaseModel):
    """The arguments a model fills; unknown ones are refused, never dropped."""

    model_config = ConfigDict(extra="forbid")

    query: str | list[str] = Field(
        description=f"What to search the web for: one query, or a list of up to {MAX_QUERIES} related queries."
    )
    max_results: int | None = Field(default=None, ge=1, le=20, description="How many results, 1 to 20.")
    country: str | None = Field(default=None, description="Two-letter country code to favour, such as 'US'.")
    search_domain_filter: list[str] | None = Field(
        default=None, description="Only these domains (at most 20); prefix one with '-' to exclude it."
    )
    search_recency_filter: Recency | None = Field(
        default=None, description="Only pages from the last hour, day, week, month or year."
    )
    search_after_date_filter: str | None = Field(default=None, description="Published after this date, M/D/YYYY.")
    search_before_date_filter: str | None = Field(default=None, description="Published before this date, M/D/YYYY.")
    search_language_filter: list[str] | None = Field(
        default=None, description="Only pages in these languages, as ISO 639-1 codes such as 'en'."
    )

    _strict = field_validator("*", mode="before")(checked)


def explain_arguments(error: ValidationError | ValidationErrorV1) -> str:
    """The default `handle_validation_error`: each bad argument, and a near name for an unknown one."""
    reasons = []
    for detail in error.errors():
        cause = (detail.get("ctx") or {}).get("error")
        where = ".".join(str(part) for part in detail["loc"])
        reason = str(cause) if isinstance(cause, ValueError) else f"{where}: {detail['msg']}"
        if detail.get("type") in ("extra_forbidden", "value_error.extra") and detail["loc"]:
            close = near_typo(str(detail["loc"][0]), SearchInput.model_fields)
            reason += f". Did you mean {close!r}?" if close else ""
        reasons.append(reason)
    return "; ".join(reasons)


class PerplexitySearchResults(PerplexitySettings, SearchFilters, BaseTool):
    """Perplexity's Search API (`POST /search`) as a tool: numbered results for the model, the answer as artifact.

    The model fills `SearchInput`; other Search API fields are constructor arguments.
    A filter set on the tool binds the model; `max_results` is only a default.
    The artifact is Perplexity's raw answer. `content_as="results"` gives dicts instead of text.
    A model's bad arguments come back to it as the tool's answer (`handle_*_error=False`: they raise).
    The name is langchain-perplexity's, so prompts keep working.

    ```python
    from langchain.agents import create_agent
    from langchain_perplexity_strict import ChatPerplexityStrict, PerplexitySearchResults

    agent = create_agent(ChatPerplexityStrict(web_search=False), [PerplexitySearchResults(max_results=5)])
    ```
    """

    name: str = "perplexity_search_results_json"
    description: str = (
        "Search the web with Perplexity. Input: a search query (or a few related ones) and optional filters. "
        "Output: numbered results, each with title, URL, dates and a snippet to cite."
    )
    args_schema: type[BaseModel] = SearchInput
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    content_as: Literal["text", "results"] = "text"
    """The content: numbered text for a model, or `"results"`, a list of dicts."""
    max_results: int | None = None
    """Results when the model gives no number (1 to 20)."""
    handle_tool_error: bool | str | Callable[[ToolException], Any] | None = True
    """Bad combinations of arguments go back to the model; HTTP errors raise."""
    handle_validation_error: bool | str | Callable[[ValidationError | ValidationErrorV1], str] | None = (
        explain_arguments
    )
    """Bad single arguments go back to the model."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    _warnings: OncePerOwner = PrivateAttr(default_factory=OncePerOwner)

    def _parse_input(self, tool_input: str | dict[str, Any], tool_call_id: str | None) -> str | dict[str, Any]:
        """Rename langchain-perplexity's arguments before the schema would silently drop them."""
        if isinstance(tool_input, dict):
            tool_input = {OLD_NAMES.get(k, k): v for k, v in tool_input.items()}
        return super()._parse_input(tool_input, tool_call_id)

    @model_validator(mode="after")
    def _check_search(self) -> Self:
        self._values({"query": "-"})
        return self

    def _values(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The request body: the call's arguments and the tool's filters, which the call may not change."""
        chosen = {k: v for k, v in arguments.items() if v is not None}
        fixed = {k: v for k, v in self.filter_values().items() if v is not None}
        for name, value in chosen.items():
            if name in fixed and fixed[name] != value:
                msg = (
                    f"{name}: the tool is built with {fixed[name]!r} and the call gives {value!r}; "
                    f"a filter set on the tool is kept, so leave {name} out of the call."
                )
                raise ValueError(msg)
        return search_body({**fixed, "max_results": self.max_results, **chosen})

    def _body(self, arguments: dict[str, Any]) -> bytes:
        try:
            return encode_body(self._values(arguments))
        except ValueError as error:
            raise ToolException(str(error)) from error

    # `query` is positional: BaseTool passes a plain-string input that way. No `run_manager`: none is passed.
    def _run(self, query: str | list[str], **arguments: Any) -> str | tuple[str, dict[str, Any]]:
        return self._output(self.transport.post(SEARCH_PATH, self._body({"query": query, **arguments}), api="search"))

    async def _arun(self, query: str | list[str], **arguments: Any) -> str | tuple[str, dict[str, Any]]:
        return self._output(
            await self.transport.apost(SEARCH_PATH, self._body({"query": query, **arguments}), api="search")
        )

    def _output(self, response: dict[str, Any]) -> Any:
        """The content, with the answer as artifact when `response_format` asks."""
        content = to_text(response) if self.content_as == "text" else [dict(r) for r in read_results(response)[1]]
        return content if self.response_format == "content" else (content, response)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self._note_direct_call(input)
        return super().invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self._note_direct_call(input)
        return await super().ainvoke(input, config, **kwargs)

    def _note_direct_call(self, input: Any) -> None:
        """A direct call's bad arguments raise (not returned as results); the default `content_as` warns once."""
        if isinstance(input, dict) and input.get("type") == "tool_call":
            return
        if isinstance(input, dict) and not {"handle_validation_error", "handle_tool_error"} & self.model_fields_set:
            try:
                parsed = self._parse_input(input, None)
            except (ValidationError, ValidationErrorV1) as error:
                raise ValueError(f"{self.name}: {explain_arguments(error)}") from None
            if isinstance(parsed, dict):
                self._values(parsed)  # raises ValueError
        if "content_as" in self.model_fields_set:
            return
        self._warnings.warn(
            self,
            "content_as",
            "PerplexitySearchResults returns the results as numbered text for a model to read; "
            "langchain-perplexity's tool returned a list of dicts. For the list, build the tool with "
            "content_as='results'; content_as='text' keeps the text and silences this warning.",
        )
