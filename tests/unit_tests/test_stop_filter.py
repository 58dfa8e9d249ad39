"""The client-side stop filter."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from langchain_perplexity_strict._response._stop import StopFilter
from tests.cheap_strategies import int_lists


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    """The whole-text form: ``text`` up to the earliest stop, and whether one matched."""
    stop_filter = StopFilter(stops)
    kept = stop_filter.feed(text)
    return (kept, True) if stop_filter.stopped else (kept + stop_filter.flush(), False)


alphabet = st.sampled_from(list("ab#\n<>/think "))
# Hypothesis's own text strategies, not stops built from bytes (tests/cheap_strategies.py): a stop of two or more
# characters occurs in the text in some 15% of examples, against 1.3% for stops built from bytes, and built so the
# property missed a broken hold-back that it finds with these.
stops_strategy = st.lists(st.text(alphabet="ab#\n", min_size=1, max_size=5), max_size=4)  # none: the pass-through


def run(text: str, stops: list[str], sizes: list[int]) -> tuple[str, bool, int]:
    stop_filter = StopFilter(stops)
    out, held_max, i = [], 0, 0
    for size in sizes or [len(text) or 1]:
        piece, i = text[i : i + size], i + size
        if piece:
            out.append(stop_filter.feed(piece))
            held_max = max(held_max, len(stop_filter.held))
    if i < len(text):
        out.append(stop_filter.feed(text[i:]))
    if not stop_filter.stopped:
        out.append(stop_filter.flush())
    return "".join(out), stop_filter.stopped, held_max


@given(st.text(alphabet=alphabet, max_size=60), stops_strategy, int_lists(1, 7, max_size=40))
def test_output_does_not_depend_on_chunking(text: str, stops: list[str], sizes: list[int]) -> None:
    """Any cut into pieces of 1 to 7 characters (`int_lists`: the same lists as `st.lists(st.integers(1, 7),
    max_size=40)`, one choice an example instead of some 20), the rest of the text as one piece."""
    whole = run(text, stops, [len(text) or 1])
    chars = run(text, stops, [1] * len(text))
    chunked = run(text, stops, sizes)
    assert whole[:2] == chars[:2] == chunked[:2]
    assert max(chars[2], chunked[2]) <= max((len(s) - 1 for s in stops), default=0)


@given(st.text(alphabet=alphabet, max_size=60), stops_strategy)
def test_never_emits_a_stop_and_keeps_everything_before_it(text: str, stops: list[str]) -> None:
    out, stopped, _ = run(text, stops, [1] * len(text))
    assert text.startswith(out)
    if stopped:
        rest = text[len(out) :]
        assert any(rest.startswith(s) for s in stops)
    else:
        assert out == text
    assert not any(s in out for s in stops)


def test_first_stop_to_complete_wins() -> None:
    assert cut_at_stop("xabcd", ["abcd", "bc"]) == ("xa", True)
    assert cut_at_stop("xabcd", ["abc", "bc"]) == ("x", True)  # both complete at "c": the longer wins
    assert cut_at_stop("no stop here", ["zz"]) == ("no stop here", False)


def test_held_text_is_released_when_the_stream_ends() -> None:
    stop_filter = StopFilter(["STOP"])
    assert stop_filter.feed("go ST") == "go "
    assert stop_filter.held == "ST"
    assert stop_filter.flush() == "ST"
