"""Reading server-sent events as network reads complete them (chunks follow the events: test_stream_chunking.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from langchain_perplexity_strict._transport._sse import SSEBatcher
from langchain_perplexity_strict.errors import PerplexityResponseError
from tests.cheap_strategies import int_lists, json_object_lists


def stream_bytes(events: list[dict[str, int]], newline: str = "\n") -> bytes:
    return "".join(f"data: {json.dumps(e)}{newline}{newline}" for e in events).encode()


@given(int_lists(0, 10_000, max_size=30), int_lists(1, 40, max_size=60), st.sampled_from(["\n", "\r\n"]))
def test_events_survive_any_split_into_reads(values: list[int], sizes: list[int], newline: str) -> None:
    """Any events (values of 1 to 5 digits), cut into reads of any sizes, either line end: every split point,
    a `\r\n\r\n` cut anywhere included. (`int_lists`: the same lists as `st.lists(st.integers(...))`, two
    choices an example instead of some 30.)"""
    events = [{"n": v} for v in values]
    data = stream_bytes(events, newline)
    batcher, got, i = SSEBatcher(), [], 0
    for size in sizes:
        got += batcher.feed(data[i : i + size])
        i += size
    got += batcher.feed(data[i:]) + batcher.close()
    assert got == events


def test_a_read_with_several_events_is_one_batch() -> None:
    assert SSEBatcher().feed(stream_bytes([{"a": 1}, {"a": 2}, {"a": 3}])) == [{"a": 1}, {"a": 2}, {"a": 3}]


def test_done_ends_the_stream_and_other_lines_are_ignored() -> None:
    batcher = SSEBatcher()
    data = b': keep-alive\n\nevent: message\ndata: {"a": 1}\n\ndata: [DONE]\n\ndata: {"a": 2}\n\n'
    assert batcher.feed(data) == [{"a": 1}]
    assert batcher.done
    assert batcher.feed(b'data: {"a": 3}\n\n') == []


def test_a_last_event_without_its_blank_line_is_kept() -> None:
    batcher = SSEBatcher()
    assert batcher.feed(b'data: {"a": 1}') == []
    assert batcher.close() == [{"a": 1}]


def test_a_terminal_event_without_its_blank_line_is_kept_where_openais_decoder_drops_it() -> None:
    """Why `_sse` is not openai's `SSEDecoder`: the Agent API has no `[DONE]`, so its terminal event is the
    only sign an answer is whole, and a stream whose last blank line is lost must not lose it."""
    from openai._streaming import SSEDecoder

    reads = [b'data: {"type": "response.created"}\n\n', b'data: {"type": "response.completed"}']
    assert [json.loads(e.data) for e in SSEDecoder().iter_bytes(iter(reads))] == [{"type": "response.created"}]
    batcher = SSEBatcher()
    events = [event for read in reads for event in batcher.feed(read)] + batcher.close()
    assert events == [{"type": "response.created"}, {"type": "response.completed"}]


def test_malformed_and_error_events_raise() -> None:
    with pytest.raises(PerplexityResponseError, match="not valid JSON"):
        SSEBatcher().feed(b"data: {not json\n\n")
    with pytest.raises(PerplexityResponseError, match="stream error: overloaded"):
        SSEBatcher().feed(b'data: {"error": {"message": "overloaded"}}\n\n')


@given(json_object_lists)
def test_events_decode_as_json_loads_does(events: list[dict[str, object]]) -> None:
    """Up to 3 events of any JSON (every kind of value, nested 4 deep; any text, non-ASCII sent as it is:
    astral characters, U+2028 and U+0085, which `str.splitlines` would split on; infinities, -0.0, integers
    past 64 bits) decode as `json.loads` decodes them, on the one-data-line fast path.

    `json_object_lists` draws the same events as the `st.recursive` JSON strategy this test had, at a
    fraction of its generation cost (which was all of this test's time): see its docstring."""
    events = [e for e in events if not isinstance(e.get("error"), dict)]  # those raise (tested below)
    data = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events).encode()
    assert SSEBatcher().feed(data) == [json.loads(json.dumps(e)) for e in events]


def test_spacing_multiline_data_and_empty_events() -> None:
    data = b'data:  {"a": 1} \n\ndata:{"b": 2}\n\ndata: [1,\ndata: 2]\n\ndata: \n\nevent: ping\n\n'
    assert SSEBatcher().feed(data) == [{"a": 1}, {"b": 2}, [1, 2]]


def test_bytes_that_are_not_utf8_raise() -> None:
    with pytest.raises(PerplexityResponseError, match="not valid JSON"):
        SSEBatcher().feed(b'data: {"a": "\xff"}\n\n')
