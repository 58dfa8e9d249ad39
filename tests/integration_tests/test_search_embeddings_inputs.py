"""Search and embeddings against the emulator, as a new user calls them: every tool input form, the
documented filter values, faults on these routes, splitters with only `split_text`, the agent's arguments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_text_splitters import MarkdownHeaderTextSplitter

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict.errors import PerplexityResponseError
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import KEY


@pytest.fixture(scope="module")
def emu() -> Iterator[PerplexityEmulator]:
    with PerplexityEmulator(api_key=KEY) as emulator:
        yield emulator


def _connection(emu: PerplexityEmulator) -> dict[str, Any]:
    return {"api_key": KEY, "base_url": emu.base_url}


# -- finding 1: every input a BaseTool accepts, sync and async ---------------------------------------------------

TOOL_CALL = {"type": "tool_call", "id": "call-1", "name": "perplexity_search_results_json", "args": {"query": "cats"}}
FORMS: list[tuple[str, Any]] = [
    ("str", "cats"),
    ("dict", {"query": "cats"}),
    ("dict with filters", {"query": "cats", "max_results": 2, "country": "US"}),
    ("tool call", TOOL_CALL),
]


# run/arun take the tool's input, not a ToolCall (BaseTool.run's own contract), so they get the other forms.
CASES = [(name, form, method) for name, form in FORMS for method in ("invoke", "ainvoke", "run", "arun")
         if form is not TOOL_CALL or method in ("invoke", "ainvoke")]  # fmt: skip


@pytest.mark.parametrize(("form", "method"), [c[1:] for c in CASES], ids=[f"{c[0]}-{c[2]}" for c in CASES])
async def test_the_tool_takes_every_input_form(emu: PerplexityEmulator, form: Any, method: str) -> None:
    tool = PerplexitySearchResults(**_connection(emu), max_results=3)
    result = getattr(tool, method)(form)
    if method.startswith("a"):
        result = await result
    text = result.content if isinstance(result, ToolMessage) else result
    assert text.startswith("[1] cats (1)\nURL: https://example.com/cats/1-1\n")
    body = emu.requests[-1].body
    assert body["query"] == "cats"
    assert body["max_results"] == (form.get("max_results", 3) if isinstance(form, dict) and "query" in form else 3)
    if isinstance(result, ToolMessage):
        assert result.tool_call_id == "call-1" and result.artifact["results"][0]["title"] == "cats (1)"


# -- finding 2: the Search API's documented values are sent as given ----------------------------------------------


async def test_documented_date_format_and_recency_with_dates_are_sent(emu: PerplexityEmulator) -> None:
    retriever = PerplexitySearchRetriever(**_connection(emu), k=2, search_after_date_filter="3/1/2025",
                                          search_recency_filter="week")  # fmt: skip
    docs = await retriever.ainvoke("cats", search_before_date_filter="12/31/2025")
    assert len(docs) == 2
    assert emu.requests[-1].body == {
        "query": "cats", "max_results": 2, "search_after_date_filter": "3/1/2025",
        "search_before_date_filter": "12/31/2025", "search_recency_filter": "week",
    }  # fmt: skip


# -- finding 10: faults act on /search and the embeddings routes --------------------------------------------------


def _calls(emu: PerplexityEmulator) -> dict[str, Any]:
    return {
        "search": lambda: PerplexitySearchRetriever(**_connection(emu), k=1).invoke("q"),
        "embeddings": lambda: PerplexityEmbeddings(**_connection(emu), dimensions=128).embed_query("q"),
        "contextualized": lambda: PerplexityContextualizedEmbeddings(**_connection(emu)).embed_in_context([["q"]]),
    }


@pytest.mark.parametrize("route", ["search", "embeddings", "contextualized"])
def test_malformed_json_is_a_clear_error_on_every_route(emu: PerplexityEmulator, route: str) -> None:
    emu.inject(Fault("malformed_json"))
    with pytest.raises(PerplexityResponseError, match="not valid JSON"):
        _calls(emu)[route]()


@pytest.mark.parametrize("route", ["search", "embeddings", "contextualized"])
def test_a_reset_mid_body_is_retried_on_every_route(emu: PerplexityEmulator, route: str) -> None:
    emu.inject(Fault("reset"))
    before = len(emu.requests)
    assert _calls(emu)[route]()
    assert len(emu.requests) - before == 2


# -- finding 9: splitters with only split_text ----------------------------------------------------------------------


async def test_a_markdown_header_splitter_indexes_in_context(emu: PerplexityEmulator) -> None:
    embeddings = PerplexityContextualizedEmbeddings(**_connection(emu))
    splitter = MarkdownHeaderTextSplitter([("#", "title"), ("##", "section")])
    notes = [
        Document("# Cats\n## Sleep\nCats sleep most of the day.\n## Food\nCats eat fish.", metadata={"source": "c.md"}),
        Document("# Markets\nBond yields rose and stocks fell.", metadata={"source": "m.md"}),
    ]
    chunks = await embeddings.asplit_documents(notes, splitter)
    assert [c.metadata for c in chunks] == [
        {"source": "c.md", "title": "Cats", "section": "Sleep"},
        {"source": "c.md", "title": "Cats", "section": "Food"},
        {"source": "m.md", "title": "Markets"},
    ]
    assert notes[0].metadata == {"source": "c.md"}  # the caller's documents are not changed
    sent = len(emu.requests)
    store = InMemoryVectorStore(embeddings)
    store.add_documents(chunks)
    assert len(emu.requests) == sent  # the in-context vectors were kept, not embedded again
    assert store.similarity_search("why do cats sleep", k=1)[0].page_content == "Cats sleep most of the day."


def test_a_splitter_whose_split_text_returns_strings(emu: PerplexityEmulator) -> None:
    class Sentences:  # split_text only, as some community splitters are
        def split_text(self, text: str) -> list[str]:
            return [s.strip() + "." for s in text.split(".") if s.strip()]

    embeddings = PerplexityContextualizedEmbeddings(**_connection(emu))
    chunks = embeddings.split_documents([Document("One cat. Two dogs.", metadata={"n": 1})], Sentences())
    assert [(c.page_content, c.metadata) for c in chunks] == [("One cat.", {"n": 1}), ("Two dogs.", {"n": 1})]
    assert emu.requests[-1].body["input"] == [["One cat.", "Two dogs."]]


# -- the emulator's agent fills only the tool arguments the question holds ---------------------------------------------


def test_the_agent_searches_a_plain_question_with_the_query_only(emu: PerplexityEmulator) -> None:
    agent = create_agent(ChatPerplexityStrict(**_connection(emu), web_search=False),
                         [PerplexitySearchResults(**_connection(emu), max_results=2)])  # fmt: skip
    messages = agent.invoke({"messages": [("user", "search cats")]})["messages"]
    assert messages[1].tool_calls[0]["args"] == {"query": "cats"}
    assert messages[2].status == "success" and messages[2].content.startswith("[1] cats (1)")


def test_the_agent_passes_the_filters_the_question_names(emu: PerplexityEmulator) -> None:
    agent = create_agent(ChatPerplexityStrict(**_connection(emu), web_search=False),
                         [PerplexitySearchResults(**_connection(emu))])  # fmt: skip
    question = 'Search "python" in "GB" from the last week'
    args = agent.invoke({"messages": [("user", question)]})["messages"][1].tool_calls[0]["args"]
    assert args == {"query": "python", "country": "GB", "search_recency_filter": "week"}
