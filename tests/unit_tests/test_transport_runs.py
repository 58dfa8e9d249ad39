"""The resumed stream's bookkeeping, without a server: which events are new, and the stall timeout."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
from hypothesis import given

from langchain_perplexity_strict._transport._resume import Cursor, stalled
from langchain_perplexity_strict._transport._runs import body_read_timeout
from langchain_perplexity_strict.errors import PerplexityStreamError
from tests.cheap_strategies import int_list_lists


def events(numbers: list[int]) -> list[dict[str, Any]]:
    return [{"type": "response.output_text.delta", "sequence_number": n, "delta": str(n)} for n in numbers]


def ends(event: Mapping[str, Any]) -> bool:
    """A vocabulary of this test's own: the cursor knows no event type but what it is handed."""
    return event.get("type") == "the end"


def test_the_first_events_name_the_run_and_a_terminal_event_ends_it() -> None:
    cursor = Cursor(ends)
    cursor.take([{"type": "response.created", "sequence_number": 1, "response": {"id": "resp_1"}}])
    assert cursor.response_id == "resp_1" and cursor.after == 1 and cursor.resumable and not cursor.finished
    cursor.take([{"type": "response.completed", "sequence_number": 2, "response": {"id": "resp_2"}}])
    assert not cursor.finished  # not an end in the vocabulary it was handed
    cursor.take([{"type": "the end", "sequence_number": 3}])
    assert cursor.response_id == "resp_1" and cursor.finished


@given(int_list_lists(1, 40, max_size=8, max_inner=12))
def test_each_event_passes_once_however_the_connections_repeat_them(connections: list[list[int]]) -> None:
    """Every resumed connection starts after the last number taken and may repeat any earlier ones.

    Up to 8 connections of up to 12 numbers from 1 to 40 (`int_list_lists`: the same lists of lists as
    `st.lists(st.lists(st.integers(1, 40), ...), ...)`, three choices an example instead of some 60)."""
    cursor = Cursor(ends)
    taken: list[int] = []
    for numbers in connections:
        # In order: old events first (numbers at or below the cursor, sent again), then the new ones.
        taken += [e["sequence_number"] for e in cursor.take(events(sorted(set(numbers))))]
    assert taken == sorted(set(taken))  # increasing: none twice, in order


def test_an_event_without_a_number_passes_and_leaves_the_cursor() -> None:
    cursor = Cursor(ends, after=3)
    assert cursor.take([{"type": "keepalive"}]) == [{"type": "keepalive"}]
    assert cursor.after == 3


def test_the_stall_timeout_bounds_body_reads_unless_the_client_read_timeout_is_shorter() -> None:
    assert body_read_timeout(httpx.Timeout(600, connect=5), 2.5) == 2.5
    assert body_read_timeout(httpx.Timeout(600, connect=5), None) is None  # no stall detection: the client's
    assert body_read_timeout(httpx.Timeout(600), 0) is None
    assert body_read_timeout(httpx.Timeout(5, read=1.0), 2.5) == 1.0  # a shorter client timeout stays
    assert body_read_timeout(httpx.Timeout(5, read=None), 2.5) == 2.5
    assert body_read_timeout(1.0, 2.5) == 1.0
    assert body_read_timeout(None, 2.5) == 2.5


def test_a_read_timeout_is_a_stall_and_a_reset_is_not() -> None:
    stall = PerplexityStreamError("broke")
    stall.__cause__ = httpx.ReadTimeout("no bytes")
    reset = PerplexityStreamError("broke")
    reset.__cause__ = httpx.ReadError("reset")
    assert stalled(stall) and not stalled(reset)
