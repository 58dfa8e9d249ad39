"""`PerplexitySearchResults`: Perplexity's Search API as a LangChain tool for agents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator
from pydantic.v1 import ValidationError as ValidationErrorV1
from typing_extensions import Self

from langchain_perplexity_strict._accepts import near_typo
from langchain_perplexity_strict._connection_settings import PerplexityConnection
from langchain_perplexity_strict._once import OncePerOwner
from langchain_perplexity_strict._request._filters import Recency
from langchain_perplexity_strict._search._request import (
    MAX_QUERIES,
    SEARCH_PATH,
    SearchFilters,
    check_field,
    encode_search,
    search_body,
    to_records,
    to_text,
)

CALL_ALIASES = {"search_after_date": "search_after_date_filter", "search_before_date": "search_before_date_filter"}
"""langchain-perplexity 1.4.2's names for a call's date filters (`PerplexitySearchResults._run`)."""


class SearchInput(BaseModel):
    """The arguments a model fills for one search (the rest are the tool's settings). An argument it does not
    have is refused (and told to the model), never dropped."""

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

    @field_validator("*", mode="before")
    @classmethod
    def _strict(cls, value: Any, info: Any) -> Any:
        """The constructor's check, not pydantic's coercion. A `ValueError`, so that the tool's
        `handle_validation_error` decides what the model is told (a `ToolException` here bypassed it)."""
        check_field(info.field_name, value)
        return value


def explain_arguments(error: ValidationError | ValidationErrorV1) -> str:
    """The tool's default `handle_validation_error`: each bad argument in the check's own words (the field,
    the value, what is accepted), or pydantic's with the argument's name, so the model can call again;
    an argument the tool does not have says which it is a near typo of (`max_result`: "Did you mean
    'max_results'?")."""
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


class PerplexitySearchResults(PerplexityConnection, SearchFilters, BaseTool):
    """Perplexity's Search API (`POST /search`) as a tool: numbered results for the model, the answer as artifact.

    The model fills `query` (one string or up to 5) and, when it helps, the
    filters of `SearchInput` (`max_results`, `country`, domains, recency,
    publication dates, languages). The developer fixes the rest as
    constructor arguments: every other field of `ApiSearchRequestInput`
    (`max_tokens`, `max_tokens_per_page`, `search_mode`, `search_type`,
    `search_context_size`, last-updated filters, ...). A filter the developer
    sets on the tool (domains, recency, dates, languages, `country`) is a
    restriction the model cannot lift: a call giving it differently comes back
    to the model as the tool's answer, naming both values; `max_results` on the
    tool is only the default.

    `response_format="content_and_artifact"` (the default): the `ToolMessage`
    content is the results as numbered text (`[1] title`, URL, dates, snippet),
    which models cite well; its `artifact` is Perplexity's answer as it came
    (`{"id", "results": [{"title", "url", "snippet", "date", "last_updated"}], ...}`).
    With `response_format="content"`, the tool returns the numbered text alone.
    With `content_as="results"`, the content is the results as a list of dicts
    instead, as langchain-perplexity's tool returned them (`tool.invoke("q")[0]["url"]`;
    in a `ToolMessage`, LangChain sends them to the model as JSON).

    A bad argument the model chose comes back to it as the tool's answer, in
    the check's words (`handle_validation_error`, default `explain_arguments`);
    a rule across arguments (dates in order, ...) comes back the same way
    (`handle_tool_error=True`). Set either to `False` to raise instead, or to a
    string or callable, as for any LangChain tool.

    The name stays langchain-perplexity's (`perplexity_search_results_json`), so
    prompts that name the tool keep working. Bad values raise `ValueError`
    naming the field, the value and what is accepted; HTTP errors are the chat
    model's (langchain-openai's exceptions with Perplexity's message).

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
    """The tool's content (what `tool.invoke("q")` returns): numbered text for a model (`"text"`), or the
    results as a list of dicts (`"results"`, langchain-perplexity's output). A direct call with the default
    warns once per tool, as langchain-perplexity's returned the list."""
    max_results: int | None = None
    """Default number of results when the model gives none (1 to 20; the API's default is 10)."""
    handle_tool_error: bool | str | Callable[[ToolException], Any] | None = True
    """A combination of values the model chose badly comes back to it as the tool's answer (what was wrong and
    what is accepted), so it can call again; HTTP errors still raise."""
    handle_validation_error: bool | str | Callable[[ValidationError | ValidationErrorV1], str] | None = (
        explain_arguments
    )
    """A single argument the model chose badly comes back to it as the tool's answer, in the check's words."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    _warnings: OncePerOwner = PrivateAttr(default_factory=OncePerOwner)

    def _parse_input(self, tool_input: str | dict[str, Any], tool_call_id: str | None) -> str | dict[str, Any]:
        """langchain-perplexity's argument names (`search_after_date`, `search_before_date`) as this tool's,
        before the schema reads the input: langchain-core keeps only the keys the input named, so they
        would otherwise be dropped without a word."""
        if isinstance(tool_input, dict):
            tool_input = {CALL_ALIASES.get(k, k): v for k, v in tool_input.items()}
        return super()._parse_input(tool_input, tool_call_id)

    @field_validator("max_results", mode="before")
    @classmethod
    def _strict_max_results(cls, value: Any) -> Any:
        check_field("max_results", value)
        return value

    @model_validator(mode="after")
    def _check_search(self) -> Self:
        search_body(self._values({"query": "-"}))
        return self

    def _values(self, arguments: dict[str, Any]) -> dict[str, Any]:
        chosen = {k: v for k, v in arguments.items() if v is not None}
        fixed = {k: v for k, v in self.filter_values().items() if v is not None}
        for name, value in chosen.items():
            # A filter the developer built the tool with is a restriction: the model may repeat it, not widen it.
            if name in fixed and fixed[name] != value:
                msg = (
                    f"{name}: the tool is built with {fixed[name]!r} and the call gives {value!r}; "
                    f"a filter set on the tool is kept, so leave {name} out of the call."
                )
                raise ValueError(msg)
        return {**fixed, "max_results": self.max_results, **chosen}

    def _body(self, arguments: dict[str, Any]) -> bytes:
        try:
            return encode_search(self._values(arguments))
        except ValueError as error:
            raise ToolException(str(error)) from error

    # `query` comes first and positional: BaseTool passes a plain-string input (`tool.invoke("cats")`,
    # `tool.run("cats")`) as the first positional argument, and everything else by keyword.
    def _run(
        self, query: str | list[str], *, run_manager: CallbackManagerForToolRun | None = None, **arguments: Any
    ) -> str | tuple[str, dict[str, Any]]:
        return self._output(self._post(SEARCH_PATH, self._body({"query": query, **arguments})))

    async def _arun(
        self, query: str | list[str], *, run_manager: AsyncCallbackManagerForToolRun | None = None, **arguments: Any
    ) -> str | tuple[str, dict[str, Any]]:
        return self._output(await self._apost(SEARCH_PATH, self._body({"query": query, **arguments})))

    def _output(self, response: dict[str, Any]) -> Any:
        """What `response_format` promises: the content (`content_as`), with the answer as artifact when asked."""
        content = to_text(response) if self.content_as == "text" else to_records(response)
        if self.response_format == "content":
            return content
        return content, response

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self._note_direct_call(input)
        return super().invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self._note_direct_call(input)
        return await super().ainvoke(input, config, **kwargs)

    def _check_direct_call(self, input: Any) -> None:
        """A direct call's bad arguments raise `ValueError`, in the words a model would be told.

        `handle_validation_error` and `handle_tool_error` answer a model's tool call with what was wrong, so
        it can call again; an application's own `tool.invoke({...})` would get that text back as if it
        were the results (`r[0]["url"]` then fails far from the cause). Unless the app set them itself,
        its call is checked here first (the schema, then the rules across arguments), and nothing is sent.
        """
        if {"handle_validation_error", "handle_tool_error"} & self.model_fields_set or not isinstance(input, dict):
            return
        try:
            parsed = self._parse_input(input, None)
        except (ValidationError, ValidationErrorV1) as error:
            raise ValueError(f"{self.name}: {explain_arguments(error)}") from None
        if isinstance(parsed, dict):
            encode_search(self._values(parsed))  # raises ValueError naming the argument

    def _note_direct_call(self, input: Any) -> None:
        """A call outside a tool call (an application's own `tool.invoke("q")`, langchain-perplexity's habit):
        its bad arguments raise (`_check_direct_call`); with the default `content_as`, say once that the
        text is for a model, and how to get the results."""
        if isinstance(input, dict) and input.get("type") == "tool_call":
            return
        self._check_direct_call(input)
        if "content_as" in self.model_fields_set:
            return
        self._warnings.warn(
            self,
            "content_as",
            "PerplexitySearchResults returns the results as numbered text for a model to read; "
            "langchain-perplexity's tool returned a list of dicts. For the list, build the tool with "
            "content_as='results'; content_as='text' keeps the text and silences this warning.",
        )
