"""A stream's chunks are a function of the events it receives, never of how the network splits them.

The same events, served in any split into network reads, give the same chunks and the same
`on_llm_new_token` tokens as when served one event per read. The forms covered, each in
`test_any_split_into_reads_gives_the_chunks_of_one_event_per_read`:

- surfaces: the Agent API (`/v1/responses` events: text deltas, reasoning steps with their
  search queries and results, the terminal `response.completed`) and chat completions (Sonar chunks,
  repeated citations, `<think>` reasoning in the content, usage on the last chunk, `[DONE]`);
- entry points: `stream`, `astream`, and `invoke` / `ainvoke` with `streaming=True` (whose tokens
  reach the callbacks; the message is the merged chunks), each served the drawn split, and the two
  readers (`stream`, `astream`) one event per read too (the property's docstring says why that suffices);
- `output_version` v0 and v1, with and without a client-side `stop` sequence.

Shapes: `ResponseStreamEventOutput` and `CompletionResponseOutput` in `perplexity.generated.api`.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessageChunk

from langchain_perplexity_strict import ChatPerplexityStrict
from tests.integration_tests.reads import replay

# Pieces that cross the client's text machinery: a stop sequence ("lo"), `<think>` split across pieces,
# a citation marker.
PIECES = st.sampled_from(["Hel", "lo", " wor", "ld", " [1]", "<thi", "nk>", "hm", "</th", "ink>", "\n", "é"])
TEXTS = st.lists(st.text(max_size=4) | PIECES, min_size=1, max_size=8)
SOURCES = [{"url": f"https://example.com/{i}", "title": f"page {i}"} for i in range(3)]


def agent_events(pieces: list[str], searched: bool) -> list[dict[str, Any]]:
    text = "".join(pieces)
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}]
    if searched:
        events += [
            {"type": "response.reasoning.search_queries", "thought": "Searching", "queries": ["q"]},
            {"type": "response.reasoning.search_results", "thought": "Reading", "results": SOURCES[:2]},
        ]
    events += [
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": p} for p in pieces
    ]
    message = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
    usage = {"input_tokens": 3, "output_tokens": len(pieces), "total_tokens": 3 + len(pieces)}
    response = {"id": "resp_1", "model": "perplexity/sonar", "status": "completed", "output": [message], "usage": usage}
    events.append({"type": "response.completed", "response": response})
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


def chat_events(pieces: list[str], searched: bool) -> list[dict[str, Any] | str]:
    citations = {"citations": [s["url"] for s in SOURCES]} if searched else {}

    def chunk(delta: dict[str, Any], finish: str | None = None, **more: Any) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "c1", "model": "sonar", "choices": [choice], **citations, **more}

    usage = {"prompt_tokens": 3, "completion_tokens": len(pieces), "total_tokens": 3 + len(pieces)}
    events: list[dict[str, Any] | str] = [chunk({"role": "assistant", "content": p}) for p in pieces]
    return [*events, chunk({}, "stop", usage=usage), "[DONE]"]


def encode(events: list[Any]) -> list[bytes]:
    """One server-sent event per element: the stream served one event per read."""
    return [f"data: {e if isinstance(e, str) else json.dumps(e, ensure_ascii=False)}\n\n".encode() for e in events]


def split(data: bytes, cuts: bytes) -> list[bytes]:
    """`data` cut at up to 12 places: each two bytes of `cuts` a position (one draw, not a list of integers)."""
    places = {int.from_bytes(cuts[i : i + 2], "big") % (len(data) + 1) for i in range(0, len(cuts) - 1, 2)}
    bounds = [0, *sorted(places), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]


class Tokens(BaseCallbackHandler):
    """The tokens `on_llm_new_token` received, in order.

    Called in the event loop's thread (`run_inline`), not through langchain-core's thread pool: the tokens and
    their order are the same, without a thread hand-off per token (a third of the property's CPU time)."""

    run_inline = True

    def __init__(self) -> None:
        self.tokens: list[str] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to note; defined so langchain-core does not fall back to `on_llm_start` (it catches the base
        class's NotImplementedError and renders the messages as text for it, on every call)."""


def view(chunk: AIMessageChunk) -> tuple[Any, ...]:
    """What a chunk carries (its id is the run's, which differs per call)."""
    return (
        chunk.content,
        chunk.additional_kwargs,
        chunk.response_metadata,
        chunk.usage_metadata,
        chunk.tool_call_chunks,
        chunk.chunk_position,
    )


def served(llm: ChatPerplexityStrict, entry: str, reads: list[bytes]) -> tuple[Any, list[str]]:
    """What `stream` (its chunks) or `invoke` with `streaming=True` (its message's content) gives with the
    stream arriving in `reads`, and the tokens `on_llm_new_token` received."""
    replay(llm, reads)
    tokens = Tokens()
    if entry == "stream":
        return list(llm.stream("hi", config={"callbacks": [tokens]})), tokens.tokens
    return streaming(llm).invoke("hi", config={"callbacks": [tokens]}).content, tokens.tokens


async def aserved(llm: ChatPerplexityStrict, entry: str, reads: list[bytes]) -> tuple[Any, list[str]]:
    """`served` for `astream` and `ainvoke`."""
    replay(llm, reads)
    tokens = Tokens()
    if entry == "astream":
        return [c async for c in llm.astream("hi", config={"callbacks": [tokens]})], tokens.tokens
    return (await streaming(llm).ainvoke("hi", config={"callbacks": [tokens]})).content, tokens.tokens


def views(served: tuple[list[AIMessageChunk], list[str]]) -> tuple[list[tuple[Any, ...]], list[str]]:
    """A stream's chunks as `view` sees them, and its tokens."""
    chunks, tokens = served
    return [view(c) for c in chunks], tokens


_STREAMING: dict[int, tuple[ChatPerplexityStrict, ChatPerplexityStrict]] = {}


def streaming(llm: ChatPerplexityStrict) -> ChatPerplexityStrict:
    """`llm` with `streaming=True`, made once per model; it shares `llm`'s transport, patched per call."""
    kept = _STREAMING.get(id(llm))
    if kept is None or kept[0] is not llm:
        copy = llm.model_copy(update={"streaming": True})
        copy._transport = llm.transport  # the same patched transport
        kept = _STREAMING[id(llm)] = (llm, copy)
    return kept[1]


@functools.cache
def model(api: str, output_version: str, stop: str | None) -> ChatPerplexityStrict:
    """The model for one combination of the drawn settings, built once (8 models for 2,000 examples): what a
    call sends and reads is a function of its settings and the events served, never of earlier calls."""
    return ChatPerplexityStrict(
        model="perplexity/sonar" if api == "agent" else "sonar",
        api=api,
        api_key="k",
        base_url="http://127.0.0.1:9",
        output_version=output_version,
        stop=[stop] if stop else None,
    )


@given(
    st.sampled_from(["agent", "chat_completions"]),
    TEXTS,
    st.booleans(),
    st.sampled_from(["v0", "v1"]),
    st.sampled_from([None, "lo"]),
    st.binary(max_size=24),
)
def test_any_split_into_reads_gives_the_chunks_of_one_event_per_read(
    runner: asyncio.Runner,
    api: str,
    pieces: list[str],
    searched: bool,
    output_version: str,
    stop: str | None,
    cuts: bytes,
) -> None:
    """Six calls per example: `stream` and `astream` with one event per read (the reference is `stream`'s),
    and all four entry points with the drawn split; each result equals the reference (chunks and tokens;
    for `invoke` / `ainvoke`, the message's content is the reference chunks' sum, and the tokens).

    Why this catches whatever serving both layouts to all four entry points (eight calls) caught: reads reach
    the package only in its two readers. `stream` and `invoke` (`streaming=True`: langchain-core's
    `_generate_with_cache` streams) both call `_stream(messages, stop, **kwargs)`; `astream` and `ainvoke`
    both call `_astream`; what lies between an entry point and its reader (langchain-core, `astream`'s scope,
    `_billing`) sees chunks, never reads. So a dependence on the reads in any one entry point shows on the
    split, which every entry point is served; a reader's fault seen only with one event per read shows in
    `stream` or `astream`, which are served that too; and the eight results were all required equal, which
    the six equal to one reference still are (the contents, once compared only with their own
    one-event-per-read content, now with the reference's sum: stronger). Left out: `invoke` / `ainvoke`
    with one event per read, whose fault would sit in a reader and depend on `streaming=True` and on reads
    that align with events at once. Checked by mutation (each fails the eight-call and this property): text
    taken per read in `ainvoke` only; a whitespace-only chunk dropped in `astream` only; the stop filter's
    held text let go at each read's end in the sync reader; the async reader taking a read that is one whole
    event as JSON (`[DONE]` alone in a read breaks it).
    """
    llm = model(api, output_version, stop)
    per_event = encode((agent_events if api == "agent" else chat_events)(pieces, searched))  # type: ignore[arg-type]
    reads = split(b"".join(per_event), cuts)
    chunks, tokens = served(llm, "stream", per_event)
    expected = views((chunks, tokens))
    content = (chunks[0] + chunks[1:]).content  # their sum, merged as langchain-core merges a stream's chunks
    out: dict[str, Any] = {}

    async def asynced() -> None:  # one turn of the runner for the three; None: the runner's end reprs its task
        out["astream, one event per read"] = await aserved(llm, "astream", per_event)
        out["astream"] = await aserved(llm, "astream", reads)
        out["ainvoke"] = await aserved(llm, "ainvoke", reads)

    runner.run(asynced())
    assert views(out["astream, one event per read"]) == expected
    assert views(served(llm, "stream", reads)) == expected
    assert views(out["astream"]) == expected
    assert served(llm, "invoke", reads) == (content, tokens)
    assert out["ainvoke"] == (content, tokens)


def test_an_answer_read_at_once_streams_a_chunk_per_text_delta(runner: asyncio.Runner) -> None:
    """The whole stream in one network read: a chunk per text delta and a last chunk, not one chunk
    (the whole answer as one token) as when chunks followed the reads."""
    llm = ChatPerplexityStrict(api_key="k", base_url="http://127.0.0.1:9")
    pieces = ["Rayleigh", " scattering", " [1]."]
    chunks, tokens = views(served(llm, "stream", [b"".join(encode(agent_events(pieces, searched=True)))]))
    assert tokens[-len(pieces) - 1 :] == [*pieces, ""]
    assert [c[-1] for c in chunks][-1] == "last"
    sources = [i for i, c in enumerate(chunks) if c[1].get("search_results")]
    assert sources and sources[0] < len(chunks) - 1  # the sources before the answer ends
