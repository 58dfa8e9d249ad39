"""A stream's chunks are a function of the events it receives, never of how the network splits them.

The same events, served in any split into network reads, give the same chunks and the same
`on_llm_new_token` tokens as when served one event per read. The forms covered, each in
`test_any_split_into_reads_gives_the_chunks_of_one_event_per_read`:

- surfaces: the Agent API (`/v1/responses` events: text deltas, reasoning steps with their
  search queries and results, the terminal `response.completed`) and chat completions (Sonar chunks,
  repeated citations, `<think>` reasoning in the content, usage on the last chunk, `[DONE]`);
- entry points: `stream`, `astream`, and `invoke` / `ainvoke` with `streaming=True` (whose tokens
  reach the callbacks; the message is the merged chunks);
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
from tests.integration_tests.reads import AsyncReads, Reads

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
    return [f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n".encode() for e in events]


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted({c % (len(data) + 1) for c in cuts}), len(data)]
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


def served(llm: ChatPerplexityStrict, reads: list[bytes], runner: asyncio.Runner) -> dict[str, Any]:
    """The chunks of `stream` and `astream`, and the tokens of every entry point, with the stream in `reads`."""

    async def astream(*_: Any, **__: Any) -> AsyncReads:
        return AsyncReads(reads)

    llm.transport.stream = lambda *_, **__: Reads(reads)  # type: ignore[method-assign]
    llm.transport.astream = astream  # type: ignore[method-assign]
    out: dict[str, Any] = {}
    tokens = Tokens()
    out["stream"] = [view(c) for c in llm.stream("hi", config={"callbacks": [tokens]})]
    out["stream tokens"] = tokens.tokens

    async def asynced() -> None:
        atokens = Tokens()
        out["astream"] = [view(c) async for c in llm.astream("hi", config={"callbacks": [atokens]})]
        out["astream tokens"] = atokens.tokens
        ainvoke_tokens = Tokens()
        out["ainvoke"] = (await streaming(llm).ainvoke("hi", config={"callbacks": [ainvoke_tokens]})).content
        out["ainvoke tokens"] = ainvoke_tokens.tokens

    runner.run(asynced())
    invoke_tokens = Tokens()
    out["invoke"] = streaming(llm).invoke("hi", config={"callbacks": [invoke_tokens]}).content
    out["invoke tokens"] = invoke_tokens.tokens
    return out


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
    st.lists(st.integers(0, 10_000), max_size=12),
)
def test_any_split_into_reads_gives_the_chunks_of_one_event_per_read(
    runner: asyncio.Runner,
    api: str,
    pieces: list[str],
    searched: bool,
    output_version: str,
    stop: str | None,
    cuts: list[int],
) -> None:
    llm = model(api, output_version, stop)
    events = (agent_events if api == "agent" else chat_events)(pieces, searched)
    per_event = encode(events)  # type: ignore[arg-type]
    expected = served(llm, per_event, runner)
    assert served(llm, split(b"".join(per_event), cuts), runner) == expected
    assert expected["stream"] == expected["astream"]
    assert expected["stream tokens"] == expected["astream tokens"] == expected["invoke tokens"]
    assert expected["invoke tokens"] == expected["ainvoke tokens"]


def test_an_answer_read_at_once_streams_a_chunk_per_text_delta(runner: asyncio.Runner) -> None:
    """The whole stream in one network read: a chunk per text delta and a last chunk, not one chunk
    (the whole answer as one token) as when chunks followed the reads."""
    llm = ChatPerplexityStrict(api_key="k", base_url="http://127.0.0.1:9")
    pieces = ["Rayleigh", " scattering", " [1]."]
    out = served(llm, [b"".join(encode(agent_events(pieces, searched=True)))], runner)
    assert out["stream tokens"][-len(pieces) - 1 :] == [*pieces, ""]
    assert [c[-1] for c in out["stream"]][-1] == "last"
    sources = [i for i, c in enumerate(out["stream"]) if c[1].get("search_results")]
    assert sources and sources[0] < len(out["stream"]) - 1  # the sources before the answer ends
