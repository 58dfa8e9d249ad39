"""Search and embeddings against Perplexity's published models (extra fields forbidden).

Every request the classes send validates as `ApiSearchRequestInput`,
`EmbeddingsRequestInput` or `ContextualizedEmbeddingsRequestInput`; every
emulator answer as the matching response model; and the emulator refuses
whatever those models refuse.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from langchain_perplexity_strict import (
    PerplexityContextualizedEmbeddings,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import loopback, published_schema
from tests.integration_tests.factory import KEY

REQUEST_MODELS = {
    "/search": "ApiSearchRequestInput",
    "/v1/embeddings": "EmbeddingsRequestInput",
    "/v1/contextualizedembeddings": "ContextualizedEmbeddingsRequestInput",
}
RESPONSE_MODELS = {
    "/search": "ApiSearchResponseOutput",
    "/v1/embeddings": "EmbeddingsResponseOutput",
    "/v1/contextualizedembeddings": "ContextualizedEmbeddingsResponseOutput",
}
EVERY_SEARCH_SETTING: dict[str, Any] = {
    "max_tokens": 5000, "max_tokens_per_page": 512, "country": "US", "search_domain_filter": ["python.org", "pypi.org"],
    "search_language_filter": ["en", "fr"], "search_recency_filter": "hour",
    "last_updated_after_filter": "01/01/2024", "last_updated_before_filter": "12/31/2025",
    "search_mode": "sec", "search_context_size": "high", "search_type": "people", "display_server_time": True,
}  # fmt: skip


async def test_every_request_sent_is_published(emu: PerplexityEmulator) -> None:
    connection = {"api_key": KEY, "base_url": emu.base_url}
    retriever = PerplexitySearchRetriever(**connection, k=5, **EVERY_SEARCH_SETTING)
    retriever.invoke("q")
    await retriever.ainvoke(["q1", "q2"], k=1)  # type: ignore[arg-type]
    PerplexitySearchRetriever(**connection, search_after_date="01/01/2024", search_before_date="02/01/2024").invoke("q")
    # The filters the calls below choose are left to them: a filter set on the tool is kept (the model cannot lift it).
    chosen = ("country", "search_domain_filter", "search_language_filter", "search_recency_filter")
    tool = PerplexitySearchResults(**connection, **{k: v for k, v in EVERY_SEARCH_SETTING.items() if k not in chosen})
    tool.invoke({"query": ["a", "b"], "max_results": 3, "country": "GB", "search_after_date_filter": "01/01/2024",
                 "search_before_date_filter": "01/02/2024", "search_language_filter": ["de"]})  # fmt: skip
    await tool.ainvoke({"query": "a", "search_domain_filter": ["a.org"], "search_recency_filter": "week"})
    for model in ("pplx-embed-v1-0.6b", "pplx-embed-v1-4b"):
        for encoding in ("base64_int8", "base64_binary"):
            embeddings = PerplexityEmbeddings(**connection, model=model, encoding_format=encoding, dimensions=128)
            embeddings.embed_documents(["one", "two"])
            await embeddings.aembed_query("three")
    PerplexityEmbeddings(**connection).embed_query("full dimensions")
    for model in ("pplx-embed-context-v1-0.6b", "pplx-embed-context-v1-4b"):
        contextual = PerplexityContextualizedEmbeddings(**connection, model=model, encoding_format="base64_binary")
        contextual.embed_in_context([["a", "b"], ["c"]])
        contextual.embed_query("q")
        await contextual.aembed_documents(["x", "y"])
    sent = [r for r in emu.requests if r.method == "POST"]
    assert {r.path for r in sent} == set(REQUEST_MODELS) and len(sent) >= 20
    for request in sent:
        published_schema.validate(REQUEST_MODELS[request.path], request.body)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/search", {"query": "q"}),
        ("/search", {"query": ["a", "b"], "max_results": 2, "display_server_time": True}),
        ("/v1/embeddings", {"model": "pplx-embed-v1-0.6b", "input": "one"}),
        ("/v1/embeddings", {"model": "pplx-embed-v1-4b", "input": ["a", "b"], "encoding_format": "base64_binary"}),
        ("/v1/contextualizedembeddings", {"model": "pplx-embed-context-v1-4b", "input": [["a", "b"], ["c"]]}),
        ("/v1/contextualizedembeddings",
         {"model": "pplx-embed-context-v1-0.6b", "input": [["a"]], "dimensions": 128,
          "encoding_format": "base64_int8"}),
    ],
)  # fmt: skip
def test_emulator_answers_are_published(emu: PerplexityEmulator, path: str, body: dict[str, Any]) -> None:
    response = loopback.post(emu.base_url + path, json=body, headers={"Authorization": f"Bearer {KEY}"})
    assert response.status_code == 200, response.text
    published_schema.validate(REQUEST_MODELS[path], body)
    published_schema.validate(RESPONSE_MODELS[path], response.json())


BODIES: list[tuple[str, dict[str, Any]]] = [
    ("/search", {"query": "q", **EVERY_SEARCH_SETTING, "max_results": 20}),
    ("/search", {"query": ["a", "b", "c"], "search_after_date_filter": "01/02/2025", "search_recency_filter": None}),
    ("/search", {}),
    ("/search", {"query": 5}),
    ("/search", {"query": "q", "unknown": 1}),
    ("/search", {"query": "q", "search_mode": "news"}),
    ("/search", {"query": "q", "search_type": "pro"}),
    ("/search", {"query": "q", "search_recency_filter": "minute"}),
    ("/search", {"query": "q", "search_context_size": "max"}),
    ("/search", {"query": "q", "max_results": "3"}),
    ("/search", {"query": "q", "display_server_time": "yes"}),
    ("/search", {"query": "q", "search_domain_filter": "python.org"}),
    ("/search", {"query": "q", "search_language_filter": [1]}),
    ("/search", {"query": ["a", 2]}),
    ("/search", {"query": "q", "search_after_date": "01/01/2025"}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-0.6b", "input": "a", "dimensions": 512}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-4b", "input": ["a"], "encoding_format": "base64_binary"}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-4b", "input": ["a"], "dimensions": None, "encoding_format": None}),
    ("/v1/embeddings", {"model": "pplx-embed-context-v1-4b", "input": ["a"]}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-4b"}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-4b", "input": [["a"]]}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-4b", "input": "a", "encoding_format": "float"}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-4b", "input": "a", "dimensions": "256"}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-4b", "input": "a", "user": "u"}),
    ("/v1/contextualizedembeddings", {"model": "pplx-embed-context-v1-0.6b", "input": [["a", "b"]]}),
    ("/v1/contextualizedembeddings", {"model": "pplx-embed-v1-0.6b", "input": [["a"]]}),
    ("/v1/contextualizedembeddings", {"model": "pplx-embed-context-v1-0.6b", "input": ["a"]}),
    ("/v1/contextualizedembeddings", {"model": "pplx-embed-context-v1-0.6b", "input": "a"}),
    ("/v1/contextualizedembeddings", {"model": "pplx-embed-context-v1-0.6b", "input": [["a"]], "extra": True}),
]
"""Bodies within the documented ranges: the emulator's verdict must equal the published models'."""

BEYOND_TYPES: list[tuple[str, dict[str, Any]]] = [
    ("/search", {"query": "q", "max_results": 21}),
    ("/search", {"query": ["a"] * 6}),
    ("/search", {"query": "q", "country": "USA"}),
    ("/search", {"query": "q", "search_after_date_filter": "2025-01-02"}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-0.6b", "input": "a", "dimensions": 2048}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-4b", "input": ["a", ""]}),
    ("/v1/embeddings", {"model": "pplx-embed-v1-4b", "input": ["a"] * 513}),
    ("/v1/contextualizedembeddings", {"model": "pplx-embed-context-v1-0.6b", "input": [[]]}),
]
"""Valid types the published references' ranges refuse (docs/perplexity-rules.md): the emulator refuses them too."""


def test_the_emulator_refuses_what_the_published_models_refuse(emu: PerplexityEmulator) -> None:
    def status(path: str, body: dict[str, Any]) -> int:
        return loopback.post(emu.base_url + path, json=body, headers={"Authorization": f"Bearer {KEY}"}).status_code

    for path, body in BODIES:
        published = published_schema.verdict(REQUEST_MODELS[path], body)
        assert (status(path, body) == 200) == published, (path, body, published)
    assert sum(published_schema.verdict(REQUEST_MODELS[p], b) for p, b in BODIES) >= 6  # both verdicts occur
    for path, body in BEYOND_TYPES:
        assert published_schema.verdict(REQUEST_MODELS[path], body), body
        assert status(path, body) == 400, (path, body)


SDK_SCRIPT = """
import base64, sys
import perplexity

client = perplexity.Perplexity(api_key="test-key", base_url=sys.argv[1])
found = client.search.create(query="python release", max_results=2)
assert len(found.results) == 2 and found.results[0].url, found
vectors = client.embeddings.create(model="pplx-embed-v1-0.6b", input=["a", "b"])
assert len(base64.b64decode(vectors.data[1].embedding)) == 1024, vectors
chunks = client.contextualized_embeddings.create(model="pplx-embed-context-v1-0.6b", input=[["a", "b"]])
assert len(chunks.data[0].data) == 2, chunks
print("ok")
"""


def test_perplexitys_own_client_reads_the_emulators_answers(emu: PerplexityEmulator) -> None:
    """In its own process: the strict copies of the SDK's models must not be what its client parses with."""
    result = subprocess.run([sys.executable, "-c", SDK_SCRIPT, emu.base_url], capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
