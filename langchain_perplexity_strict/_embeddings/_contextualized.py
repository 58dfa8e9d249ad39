"""`PerplexityContextualizedEmbeddings`: chunks embedded in the context of their document.

A vector store's `embed_documents` sees chunk texts without their documents, so `split_documents` embeds each
document's chunks together and keeps the vectors for the store.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, ClassVar

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from pydantic import PrivateAttr
from typing_extensions import Self

from langchain_perplexity_strict._embeddings._request import (
    CONTEXT_MODELS,
    MAX_CHUNKS,
    MAX_INPUTS,
    MAX_REQUEST_TOKENS,
    EmbeddingSettings,
    EmbeddingsResult,
    batches,
    check_size,
    check_text,
    check_texts,
    min_tokens,
    ordered,
    text_cost,
    text_list,
)
from langchain_perplexity_strict._once import warn

_LOCK = threading.Lock()


def _split_one(document: Document, splitter: Any) -> list[Document]:
    """`document`'s chunks by `splitter`'s `split_documents`, else its `split_text`."""
    if callable(getattr(splitter, "split_documents", None)):
        return list(splitter.split_documents([document]))
    if not callable(getattr(splitter, "split_text", None)):
        msg = (
            f"splitter={splitter!r}: expected a LangChain text splitter, with split_documents "
            "(any langchain_text_splitters.TextSplitter) or split_text (such as MarkdownHeaderTextSplitter)."
        )
        raise TypeError(msg)
    chunks = []
    for piece in splitter.split_text(document.page_content):
        if isinstance(piece, Document):  # MarkdownHeaderTextSplitter: headers over metadata
            chunks.append(Document(piece.page_content, metadata={**document.metadata, **piece.metadata}))
        elif isinstance(piece, str):
            chunks.append(Document(piece, metadata=dict(document.metadata)))
        else:
            msg = f"splitter={splitter!r}: split_text returned {type(piece).__name__}, expected strings or Documents."
            raise TypeError(msg)
    return chunks


@dataclass
class _PreparedRun:
    """The chunks one `split_documents` call returned, with their vectors (None once taken).

    Texts match chunks by the run around them, not alone: a repeated chunk keeps each document's vector.
    """

    texts: list[str]
    vectors: list[list[float] | None]
    places: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for n, text in enumerate(self.texts):
            self.places.setdefault(text, []).append(n)

    def match(self, texts: list[str], at: int) -> list[tuple[int, int]]:
        """(start, length) of each untaken run matching the start of `texts[at:]`."""
        found: list[tuple[int, int]] = []
        for start in self.places.get(texts[at], ()):
            if self.vectors[start] is None:
                continue
            length = 1
            while (
                at + length < len(texts)
                and start + length < len(self.texts)
                and self.vectors[start + length] is not None
                and self.texts[start + length] == texts[at + length]
            ):
                length += 1
            found.append((start, length))
        return found

    def take(self, start: int, length: int) -> list[list[float] | None]:
        taken = self.vectors[start : start + length]
        self.vectors[start : start + length] = [None] * length
        return taken


class PerplexityContextualizedEmbeddings(EmbeddingSettings, Embeddings):
    """Perplexity's contextualized embeddings: each chunk's vector knows the rest of its document.

    `embed_in_context` returns one vector per chunk, per document; a document is never split across requests.

    ```python
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    embeddings = PerplexityContextualizedEmbeddings()
    chunks = embeddings.split_documents(documents, RecursiveCharacterTextSplitter(chunk_size=500))
    store = InMemoryVectorStore(embeddings)
    store.add_documents(chunks)  # the vectors computed above
    store.similarity_search("question")  # a one-chunk document
    ```

    Other texts, and queries, are embedded as one-chunk documents.
    """

    model: str = "pplx-embed-context-v1-4b"
    """`pplx-embed-context-v1-4b` or `pplx-embed-context-v1-0.6b`."""

    allowed_models: ClassVar[tuple[str, ...]] = CONTEXT_MODELS
    _api_name: ClassVar[str] = "contextualized embeddings"
    _path: ClassVar[str] = "/v1/contextualizedembeddings"
    _what: ClassVar[str] = "documents"
    _prepared: list[_PreparedRun] = PrivateAttr(default_factory=list)

    def __copy__(self) -> Self:
        """A copy does not share prepared vectors."""
        copied = super().__copy__()
        copied._prepared = []
        return copied

    def _bodies(self, documents: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
        chunks = [
            text_list(doc, f"documents[{n}]", "chunk strings")
            for n, doc in enumerate(text_list(documents, "documents", "documents (each a list of chunk strings)"))
        ]
        for n, doc in enumerate(chunks):
            if not doc:
                msg = f"documents[{n}]=[]: each document needs at least one chunk."
                raise ValueError(msg)
            if len(doc) > MAX_CHUNKS:
                msg = (
                    f"documents[{n}] has {len(doc):,} chunks; Perplexity takes at most {MAX_CHUNKS:,} per request, "
                    "and a document cannot be split across requests without losing its context."
                )
                raise ValueError(msg)
            check_texts(doc, f"documents[{n}]")
            check_size(sum(map(min_tokens, doc)), f"documents[{n}]")
        costs = [sum(map(text_cost, doc)) for doc in chunks]
        return self._batched(chunks, batches(costs, MAX_INPUTS, MAX_REQUEST_TOKENS, list(map(len, chunks)), MAX_CHUNKS))

    def _vectors(self, inputs: list[Any], items: list[dict[str, Any]]) -> list[Any]:
        """Per document, the vectors of its chunks."""
        pairs = zip(inputs, items, strict=True)
        decode = super()._vectors
        return [decode(chunks, ordered(item.get("data"), len(chunks), "chunk embeddings")) for chunks, item in pairs]

    def embed_contexts(self, documents: Sequence[Sequence[str]]) -> EmbeddingsResult:
        """Per document, one vector per chunk, with usage and cost."""
        return self._send(self._bodies(documents))

    async def aembed_contexts(self, documents: Sequence[Sequence[str]]) -> EmbeddingsResult:
        return await self._asend(self._bodies(documents))

    def embed_in_context(self, documents: Sequence[Sequence[str]]) -> list[list[list[float]]]:
        return self.embed_contexts(documents).vectors

    async def aembed_in_context(self, documents: Sequence[Sequence[str]]) -> list[list[list[float]]]:
        return (await self.aembed_contexts(documents)).vectors

    def _split(self, documents: Iterable[Document], splitter: Any) -> list[list[Document]]:
        """Each document's non-empty chunks, for the documents that have any."""
        if isinstance(documents, Document):
            msg = "documents: expected a list of Documents, not one Document; wrap it in a list: [document]."
            raise TypeError(msg)
        listed = text_list(documents, "documents", "Documents")
        for n, document in enumerate(listed):
            if not isinstance(document, Document):
                msg = f"documents[{n}]={document!r}: expected a langchain_core Document."
                raise TypeError(msg)
        groups = [[c for c in _split_one(doc, splitter) if c.page_content] for doc in listed]
        return [group for group in groups if group]

    def _remember(self, groups: list[list[Document]], vectors: list[list[list[float]]]) -> list[Document]:
        chunks = list(chain.from_iterable(groups))
        if chunks:
            with _LOCK:
                self._prepared.append(
                    _PreparedRun([c.page_content for c in chunks], list(chain.from_iterable(vectors)))
                )
        return chunks

    def split_documents(self, documents: Iterable[Document], splitter: Any) -> list[Document]:
        """Split the documents with any LangChain text splitter; embed and return the chunks, keeping their vectors."""
        groups = self._split(documents, splitter)
        return self._remember(groups, self.embed_in_context([[c.page_content for c in g] for g in groups]))

    async def asplit_documents(self, documents: Iterable[Document], splitter: Any) -> list[Document]:
        groups = self._split(documents, splitter)
        return self._remember(groups, await self.aembed_in_context([[c.page_content for c in g] for g in groups]))

    def _take(self, texts: list[str]) -> tuple[list[list[float] | None], dict[int, list[str]]]:
        """The prepared vectors of `texts` (None if none), and each text without one, by position, as a document.

        The longest matching run wins; an ambiguous text gets no vector rather than another document's.
        """
        texts = text_list(texts, "texts")
        check_texts(texts, "texts")
        found: list[list[float] | None] = [None] * len(texts)
        ambiguous = 0
        with _LOCK:
            at = 0
            while at < len(texts):
                candidates = [(run, start, length) for run in self._prepared for start, length in run.match(texts, at)]
                longest = max((length for _, _, length in candidates), default=0)
                best = [(run, start) for run, start, length in candidates if length == longest]
                if not best:
                    at += 1
                    continue
                run, start = best[0]  # the earliest: stores add chunks in order
                others = [(r, s) for r, s in best if r is not run]
                if any(r.vectors[s : s + longest] != run.vectors[start : start + longest] for r, s in others):
                    ambiguous += 1
                    at += 1
                    continue
                found[at : at + longest] = run.take(start, longest)
                at += longest
            self._prepared = [run for run in self._prepared if any(v is not None for v in run.vectors)]
        if ambiguous:
            warn(
                f"embed_documents: {ambiguous} text(s) match chunks prepared by more than one split_documents "
                "call, with different vectors, and nothing around them tells which; they were embedded as "
                "one-chunk documents. Give each store the chunks as split_documents returned them."
            )
        return found, {n: [texts[n]] for n, vector in enumerate(found) if vector is None}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Prepared vectors for these texts; others as one-chunk documents."""
        found, missing = self._take(texts)
        return _filled(found, missing, self.embed_in_context(list(missing.values())))

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        found, missing = self._take(texts)
        return _filled(found, missing, await self.aembed_in_context(list(missing.values())))

    def embed_query(self, text: str) -> list[float]:
        check_text(text, "text")
        return self.embed_in_context([[text]])[0][0]

    async def aembed_query(self, text: str) -> list[float]:
        check_text(text, "text")
        return (await self.aembed_in_context([[text]]))[0][0]


def _filled(
    found: list[list[float] | None], missing: dict[int, list[str]], vectors: list[list[list[float]]]
) -> list[list[float]]:
    """`found` with the vectors of the `missing` texts put in their places."""
    for n, document in zip(missing, vectors, strict=True):
        found[n] = document[0]
    return [vector for vector in found if vector is not None]
