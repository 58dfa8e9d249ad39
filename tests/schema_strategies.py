"""Hypothesis strategies built from the JSON Schema of Perplexity's published models.

`from_model("ResponsesResponseOutput")` draws JSON values that the strict
published model accepts (unknown fields forbidden): each draw is checked
with `tests.published_schema.verdict` and filtered, so a value is valid by
construction *and* by the judge. Only the JSON Schema the SDK's pydantic
models produce is needed: `$ref`, `anyOf`, `const`, `enum`, objects with
`properties` / `required` / `additionalProperties`, arrays and scalars.
(hypothesis-jsonschema would do this, but it does not run on the
hypothesis this project pins.)

Hypothesis pays about the same for each choice it makes (`tests.cheap_strategies`), and a value built
from `st.fixed_dictionaries`, `st.lists` and `st.one_of` spent most of its choices on its shape: a flag, an
index and a branch for each optional field, a choice per key to shuffle the keys, a flag per list element,
a choice per union and enum (some 60 choices a response, 85 a chat completion). Here the whole shape comes
from one drawn byte string, read a byte per decision (`_Shape`), and only the leaves are drawn: each string,
integer and number from the same strategy as before (Hypothesis's texts and numbers, with their edge cases:
empty and astral strings, 0, the bounds), which leaves some 15 choices an example.

The values reachable are the same. The byte string is as long as the largest shape needs (`_bytes`), and
each decision takes one byte modulo the number of its options (at most 256), so every shape is reachable:
every subset of optional fields, each absent, null (where the schema allows) or any value; every union
branch and enum value; every list length up to the same bound (3, or `minItems`); every key order (a Lehmer
code, a byte per key). The odds are about the old ones: an optional field absent half the time, null a
quarter (when nullable); a list's length 0 to 3 evenly (`st.lists` favoured short lists). Booleans, which
are shape too, come from the bytes. Shrinking goes to zero bytes: no optional field, empty lists, the first
branch, the schema's key order. `ANY_JSON` (free-form objects' values) stays `st.recursive`: few of them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from hypothesis import strategies as st

from tests import published_schema

# Every code point but the surrogates (category Cs), which is what UTF-8 encodes: `codec="utf-8"` made
# Hypothesis work that set out by encoding each of the 1.1 million code points once per checkout.
TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)
JSON_SCALARS = st.none() | st.booleans() | st.integers(-1000, 1000) | TEXT
ANY_JSON = st.recursive(
    JSON_SCALARS, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(TEXT, inner, max_size=2), max_leaves=4
)
_LEAVES: dict[str, st.SearchStrategy[Any]] = {
    "string": TEXT,
    "integer": st.integers(0, 10_000),
    "number": st.floats(0, 1000, allow_nan=False, allow_infinity=False),
}
_LONGEST_LIST = 3
_LONGEST_MAP = 2

Draw = Callable[[st.SearchStrategy[Any]], Any]


class _Shape:
    """The shape's decisions, a byte each from the drawn string (0 once it runs out): `pick(n)` is 0 to n - 1."""

    def __init__(self, data: bytes, draw: Draw) -> None:
        self._bytes, self.draw = iter(data), draw

    def pick(self, n: int) -> int:
        return next(self._bytes, 0) % n if n > 1 else 0


Make = Callable[[_Shape], Any]
_ABSENT = object()


class _Compiler:
    """A schema turned into a function that builds a value from a `_Shape`, and the bytes its largest shape
    needs (`size`)."""

    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.made: dict[str, Make] = {}
        self.sizes: dict[str, int] = {}

    def ref(self, name: str) -> tuple[Make, int]:
        if name not in self.made:
            if name in self.sizes:  # a definition inside itself: the published models have none
                raise ValueError(f"recursive schema: {name}")
            self.sizes[name] = 0
            self.made[name], self.sizes[name] = self.compile(self.defs[name])
        return self.made[name], self.sizes[name]

    def compile(self, schema: dict[str, Any]) -> tuple[Make, int]:
        if "$ref" in schema:
            return self.ref(schema["$ref"].rsplit("/", 1)[-1])
        if "const" in schema:
            const = schema["const"]
            return (lambda shape: const), 0
        if "enum" in schema:
            values = list(schema["enum"])
            return (lambda shape: values[shape.pick(len(values))]), 1
        branches = schema.get("anyOf") or schema.get("oneOf")
        if branches is None and isinstance(schema.get("type"), list):
            branches = [{**schema, "type": kind} for kind in schema["type"]]
        if branches is not None:
            return self.one_of([self.compile(branch) for branch in branches])
        kind = schema.get("type")
        if kind == "object":
            return self.object(schema)
        if kind == "array":
            least = schema.get("minItems", 0)
            return self.array(self.compile(schema.get("items") or {}), least, max(least, _LONGEST_LIST))
        if kind == "boolean":
            return (lambda shape: shape.pick(2) == 1), 1
        if kind == "null":
            return (lambda shape: None), 0
        leaf = _LEAVES.get(kind, ANY_JSON)
        return (lambda shape: shape.draw(leaf)), 0

    def one_of(self, branches: list[tuple[Make, int]]) -> tuple[Make, int]:
        makes = [make for make, _ in branches]
        return (lambda shape: makes[shape.pick(len(makes))](shape)), 1 + max(size for _, size in branches)

    def array(self, items: tuple[Make, int], least: int, most: int) -> tuple[Make, int]:
        make, size = items
        return (lambda shape: [make(shape) for _ in range(least + shape.pick(most - least + 1))]), 1 + most * size

    def object(self, schema: dict[str, Any]) -> tuple[Make, int]:
        properties = schema.get("properties") or {}
        if not properties:  # a map: up to 2 entries (a repeated key leaves fewer, as `st.dictionaries` could draw)
            extra = schema.get("additionalProperties")
            make, size = self.compile(extra) if isinstance(extra, dict) else ((lambda shape: shape.draw(ANY_JSON)), 0)

            def mapping(shape: _Shape) -> dict[str, Any]:
                return {shape.draw(TEXT): make(shape) for _ in range(shape.pick(_LONGEST_MAP + 1))}

            return mapping, 1 + _LONGEST_MAP * size
        required = set(schema.get("required") or ())
        fields = [(key, *self.field(value, key in required)) for key, value in properties.items()]

        def drawn(shape: _Shape) -> dict[str, Any]:
            pairs = []
            for key, states, make, _ in fields:
                state = states[shape.pick(len(states))]
                if state is not _ABSENT:
                    pairs.append((key, None if state is None else make(shape)))
            # The key order, a Lehmer code: the i-th key is one of the n - i left.
            return dict([pairs.pop(shape.pick(len(pairs))) for _ in range(len(pairs))])

        return drawn, sum(2 + size for _, _, _, size in fields)  # each field's state, value and place

    def field(self, schema: dict[str, Any], required: bool) -> tuple[tuple[Any, ...], Make, int]:
        """A field's states, each as likely: absent (`_ABSENT`) half the time if optional, as
        `st.fixed_dictionaries` left it; null (None) half the other time if nullable, as
        `st.one_of(value, st.none())` made it; else a value (True). Then how to make the value, and its size."""
        branches = schema.get("anyOf") or [schema]
        nullable = len(branches) > 1 and any(branch.get("type") == "null" for branch in branches)
        if nullable:
            rest = [branch for branch in branches if branch.get("type") != "null"]
            schema = rest[0] if len(rest) == 1 else {"anyOf": rest}
        make, size = self.compile(schema)
        present = (None, True) if nullable else (True,)
        return (present if required else (_ABSENT,) * len(present) + present), make, size


def from_model(name: str) -> st.SearchStrategy[Any]:
    """Valid JSON values of the published model `name` (as `tests.published_schema` judges them).

    The strategy is built from the model's JSON schema when it is first drawn from (`st.deferred`), not when a
    test module names it: every xdist worker imports every test module to collect it, and only the worker that
    runs the property needs the schema."""
    return st.deferred(lambda: _from_model(name))


@cache
def _from_model(name: str) -> st.SearchStrategy[Any]:
    schema = published_schema._adapter(name).json_schema()
    make, size = _Compiler(schema.get("$defs") or {}).compile(schema)
    shapes = st.binary(min_size=size, max_size=size)

    @st.composite
    def drawn(draw: Draw) -> Any:
        return make(_Shape(draw(shapes), draw))

    return drawn().filter(lambda value: published_schema.verdict(name, value))


def _bytes(name: str) -> int:
    """How many bytes the largest shape of `name` reads."""
    schema = published_schema._adapter(name).json_schema()
    return _Compiler(schema.get("$defs") or {}).compile(schema)[1]
