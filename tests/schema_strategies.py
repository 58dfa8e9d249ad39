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
a choice per union and enum (some 57 choices a response, 84 a chat completion, in a run of the property).
Here the shape comes from drawn bytes, a byte per decision (`_Shape`), and only the leaves are drawn as
before: each string, integer and number from the same strategy (Hypothesis's texts and numbers, with their
edge cases: empty and astral strings, 0, the bounds). Some 20 choices an example, the property's own
included.

The values reachable are the same. Each decision takes a byte modulo its number of options (at most 256),
and bytes are drawn 32 at a time for as long as the shape reads them, so every shape is reachable: every
subset of optional fields, each absent, null (where the schema allows) or any value; every union branch and
enum value; every boolean; every list length up to the same bound (3, or `minItems`); every key order (a
Lehmer code, a byte per key). The odds are about the old ones: an optional field absent half the time and
null a quarter (when nullable), a branch, enum value or boolean as likely as another; a list's length 0 to
3 evenly (`st.lists` drew its lengths geometrically). Shrinking goes to zero bytes: no optional field, empty lists,
the first branch, the schema's key order. (Bytes a few at a time: Hypothesis makes a byte string a byte at
a time, ~1 us each, and the largest chat completion's shape needs 2,400.) The values of free-form objects
(`ANY_JSON`, a few an example) are drawn as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from hypothesis import strategies as st

from tests import published_schema

# Every code point but the surrogates (category Cs), which is what UTF-8 encodes: `codec="utf-8"` made
# Hypothesis work that set out by encoding each of the 1.1 million code points once per checkout.
TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)
JSON_SCALARS = st.none() | st.booleans() | st.integers(-1000, 1000) | TEXT
ANY_JSON = st.recursive(
    JSON_SCALARS, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(TEXT, inner, max_size=2), max_leaves=4
)
_LEAVES: dict[str, st.SearchStrategy[Any]] = {
    "string": TEXT,
    "integer": st.integers(0, 10_000),
    "number": st.floats(0, 1000, allow_nan=False, allow_infinity=False),
}
_LONGEST_LIST = 3  # as `st.lists(..., max_size=max(minItems, 3))` drew
_LONGEST_MAP = 2  # as `st.dictionaries(..., max_size=2)` drew
_CHUNK = st.binary(min_size=32, max_size=32)

Draw = Callable[[st.SearchStrategy[Any]], Any]


class _Shape:
    """A value's decisions, a byte each, drawn 32 bytes at a time as they are needed; and its leaves' draws."""

    def __init__(self, draw: Draw) -> None:
        self.draw = draw
        self._bytes: Iterator[int] = iter(())

    def pick(self, n: int) -> int:
        """One of 0 to n - 1 (n at most 256)."""
        if n < 2:
            return 0
        byte = next(self._bytes, None)
        if byte is None:
            self._bytes = iter(self.draw(_CHUNK))
            byte = next(self._bytes)
        return byte % n


Make = Callable[[_Shape], Any]
_ABSENT = object()


def _constant(value: Any) -> Make:
    return lambda shape: value


class _Compiler:
    """A schema turned into a function that builds a value from a `_Shape`."""

    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.made: dict[str, Make | None] = {}

    def ref(self, name: str) -> Make:
        if name not in self.made:
            self.made[name] = None
            self.made[name] = self.compile(self.defs[name])
        made = self.made[name]
        if made is None:  # a definition inside itself: the published models have none
            raise ValueError(f"recursive schema: {name}")
        return made

    def compile(self, schema: dict[str, Any]) -> Make:
        if "$ref" in schema:
            return self.ref(schema["$ref"].rsplit("/", 1)[-1])
        if "const" in schema:
            return _constant(schema["const"])
        if "enum" in schema:
            return self.one_of([_constant(value) for value in schema["enum"]])
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
            return lambda shape: shape.pick(2) == 1
        if kind == "null":
            return lambda shape: None
        leaf = _LEAVES.get(str(kind), ANY_JSON)
        return lambda shape: shape.draw(leaf)

    @staticmethod
    def one_of(makes: list[Make]) -> Make:
        assert len(makes) <= 256
        return lambda shape: makes[shape.pick(len(makes))](shape)

    @staticmethod
    def array(make: Make, least: int, most: int) -> Make:
        return lambda shape: [make(shape) for _ in range(least + shape.pick(most - least + 1))]

    def object(self, schema: dict[str, Any]) -> Make:
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        if not properties and extra is False:  # an object with no fields
            return lambda shape: {}
        if not properties:  # a map: up to 2 entries (a repeated key leaves fewer, as `st.dictionaries` could draw)
            make = self.compile(extra if isinstance(extra, dict) else {})
            return lambda shape: {shape.draw(TEXT): make(shape) for _ in range(shape.pick(_LONGEST_MAP + 1))}
        required = set(schema.get("required") or ())
        fields = [(key, *self.field(value, key in required)) for key, value in properties.items()]
        assert len(fields) <= 256

        def drawn(shape: _Shape) -> dict[str, Any]:
            pairs = []
            for key, states, make in fields:
                state = states[shape.pick(len(states))]
                if state is not _ABSENT:
                    pairs.append((key, None if state is None else make(shape)))
            # The key order, a Lehmer code: the i-th key is one of the n - i left.
            return dict([pairs.pop(shape.pick(len(pairs))) for _ in range(len(pairs))])

        return drawn

    def field(self, schema: dict[str, Any], required: bool) -> tuple[tuple[Any, ...], Make]:
        """A field's states, each as likely: absent (`_ABSENT`) half the time if optional, as
        `st.fixed_dictionaries` left it; null (None) half the other time if nullable, as
        `st.one_of(value, st.none())` made it; else a value (True). Then how to make the value."""
        branches = schema.get("anyOf") or [schema]
        nullable = len(branches) > 1 and any(branch.get("type") == "null" for branch in branches)
        if nullable:
            rest = [branch for branch in branches if branch.get("type") != "null"]
            schema = rest[0] if len(rest) == 1 else {"anyOf": rest}
        present = (None, True) if nullable else (True,)
        return (present if required else (_ABSENT,) * len(present) + present), self.compile(schema)


def from_model(name: str) -> st.SearchStrategy[Any]:
    """Valid JSON values of the published model `name` (as `tests.published_schema` judges them).

    The strategy is built from the model's JSON schema when it is first drawn from (`st.deferred`), not when a
    test module names it: every xdist worker imports every test module to collect it, and only the worker that
    runs the property needs the schema."""
    return st.deferred(lambda: _from_model(name))


@cache
def _from_model(name: str) -> st.SearchStrategy[Any]:
    schema = published_schema._adapter(name).json_schema()
    make = _Compiler(schema.get("$defs") or {}).compile(schema)

    @st.composite
    def drawn(draw: Draw) -> Any:
        return make(_Shape(draw))

    return drawn().filter(lambda value: published_schema.verdict(name, value))
