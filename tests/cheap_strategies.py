"""Hypothesis strategies that reach the same values as the obvious ones for a fraction of the generation cost.

Hypothesis spends about the same on each choice it makes (a list's "one more?", an integer, a `one_of`
branch, a string), whatever its size: a list of 30 small integers is some 60 choices, a 60-byte
`st.binary` one. These draw a few large choices and build the value in Python; each docstring says
why the values reachable are the same as the obvious strategy's (`tests/unit_tests/test_sse.py` and
the other properties that use them say which inputs their test needs).

Not for values a test needs to coincide (a stop sequence that occurs in the text, test_stop_filter.py):
Hypothesis's own text strategies make such coincidences ten times as often as independent bytes do.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def _width(low: int, high: int) -> int:
    """Bytes per element: enough to name every integer in [low, high]."""
    return max(1, ((high - low).bit_length() + 7) // 8)


def _elements(data: bytes, low: int, high: int) -> list[int]:
    """Integers in [low, high], `_width` bytes each: low + (the bytes as a number) % (high - low + 1)."""
    width, span = _width(low, high), high - low + 1
    return [low + int.from_bytes(data[i : i + width], "big") % span for i in range(0, len(data) - width + 1, width)]


def int_lists(low: int, high: int, max_size: int) -> st.SearchStrategy[list[int]]:
    """Lists of 0 to `max_size` (at most 255) integers in [low, high], as
    `st.lists(st.integers(low, high), max_size=max_size)`.

    One choice whatever the length, a fixed-size `st.binary`: its first byte the length (% (max_size + 1)),
    the rest the elements (`_elements`). Every list is reachable (the element v from the bytes of v - low);
    the lengths spread evenly up to `max_size`, where `st.lists` mostly draws short lists. Shrinking goes to
    shorter lists of `low`. (One binary of a fixed size: Hypothesis's generator copies spans between draws
    of the same strategy, and between binaries of different sizes every copy is wasted.)
    """
    width = _width(low, high)

    def build(data: bytes) -> list[int]:
        return _elements(data[1 : 1 + data[0] % (max_size + 1) * width], low, high)

    return st.binary(min_size=1 + max_size * width, max_size=1 + max_size * width).map(build)


def int_list_lists(low: int, high: int, max_size: int, max_inner: int) -> st.SearchStrategy[list[list[int]]]:
    """Lists of 0 to `max_size` lists of 0 to `max_inner` integers in [low, high] (both at most 255), as
    `st.lists(st.lists(st.integers(low, high), max_size=max_inner), max_size=max_size)`.

    One choice, a fixed-size `st.binary`: the number of lists, each one's length, then `max_size *
    max_inner` elements (`_elements`) that the lists take in turn. Every list of lists is reachable (the
    elements are their concatenation); shrinking goes to fewer, shorter lists of `low`.
    """
    width = _width(low, high)

    def build(data: bytes) -> list[list[int]]:
        lengths = [n % (max_inner + 1) for n in data[1 : 1 + data[0] % (max_size + 1)]]
        flat, out, start = _elements(data[1 + max_size :], low, high), [], 0
        for length in lengths:
            out.append(flat[start : start + length])
            start += length
        return out

    size = 1 + max_size + max_size * max_inner * width
    return st.binary(min_size=size, max_size=size).map(build)


class _Tree:
    """A JSON value built from a shape (bytes read one at a time, 0 once they run out) and pools of leaves."""

    def __init__(self, shape: bytes, texts: tuple[str, ...], numbers: tuple[Any, ...]) -> None:
        self._shape, self._texts, self._numbers = iter(shape), texts, numbers

    def pick(self, n: int) -> int:
        return next(self._shape, 0) % n

    def size(self) -> int:
        """0 to 3 (elements, keys, events), 3 the likeliest, as in `st.lists(..., max_size=3)`."""
        return min(3, self.pick(6))

    def text(self, longest: int) -> str:
        """One of the drawn texts cut to `longest` characters, or any piece of it up to that length."""
        text = self._texts[self.pick(len(self._texts))]
        if self.pick(2):
            return text[:longest]
        start = self.pick(len(text) + 1)
        return text[start : start + self.pick(longest + 1)]

    def value(self, depth: int) -> Any:
        """null, a boolean, an integer, a float, a string, or (less than 4 levels down) a list or an object."""
        kind = self.pick(9 if depth < 4 else 5)
        if kind == 0:
            return None
        if kind == 1:
            return self.pick(2) == 1
        if kind in (2, 3):  # an integer or a float
            return self._numbers[2 * (kind - 2) + self.pick(2)]
        if kind == 4:
            return self.text(12)
        if kind in (5, 6):
            return [self.value(depth + 1) for _ in range(self.size())]
        return self.object(depth)

    def object(self, depth: int) -> dict[str, Any]:
        return {self.text(6): self.value(depth + 1) for _ in range(self.size())}


def _json_objects(shape: bytes, texts: tuple[str, ...], numbers: tuple[Any, ...]) -> list[dict[str, Any]]:
    tree = _Tree(shape, texts, numbers)
    return [tree.object(0) for _ in range(tree.size())]


json_object_lists: st.SearchStrategy[list[dict[str, Any]]] = st.builds(
    _json_objects,
    st.binary(min_size=512, max_size=512),
    st.tuples(*[st.text(max_size=24)] * 4),
    st.tuples(st.integers(), st.integers(), st.floats(allow_nan=False), st.floats(allow_nan=False)),
)
"""Lists of 0 to 3 JSON objects, as `st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=3),
max_size=3)` with `json_values` the `st.recursive` of null, booleans, `st.integers()`,
`st.floats(allow_nan=False)` and `st.text(max_size=12)` under lists and dictionaries of up to 3 items
(`max_leaves=6`), the strategy this replaces: some 50 choices an example, 5 times the cost.

Nine choices. The leaves come from the same strategies, 4 texts, 2 integers and 2 floats an example: astral
and line-separator characters, infinities, -0.0, integers past 64 bits, and the constants Hypothesis takes
from the source (such as "error") as whole keys, as before. The shape comes from 512 bytes: how many events,
keys and elements (0 to 3 each), each value's kind, which leaf, which piece of a text (a key up to 6
characters, a string up to 12). Every tree down to 4 levels below the events (the old depth) is reachable
(512 bytes are more than the largest the old strategy drew needs), and a run of 2,000 examples draws about as
many leaves of each kind as the old one did (counted: some 2,500 each). Shrinking goes to fewer, emptier
events (bytes to 0: no events).
"""
