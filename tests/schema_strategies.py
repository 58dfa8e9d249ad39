"""Hypothesis strategies built from the JSON Schema of Perplexity's published models.

`from_model("ResponsesResponseOutput")` draws JSON values that the strict
published model accepts (unknown fields forbidden): each draw is checked
with `tests.published_schema.verdict` and filtered, so a value is valid by
construction *and* by the judge. Only the JSON Schema the SDK's pydantic
models produce is needed: `$ref`, `anyOf`, `const`, `enum`, objects with
`properties` / `required` / `additionalProperties`, arrays and scalars.
(hypothesis-jsonschema would do this, but it does not run on the
hypothesis this project pins.)
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import strategies as st

from tests import published_schema

TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
JSON_SCALARS = st.none() | st.booleans() | st.integers(-1000, 1000) | TEXT
ANY_JSON = st.recursive(
    JSON_SCALARS, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(TEXT, inner, max_size=2), max_leaves=4
)


def _strategy(schema: dict[str, Any], defs: dict[str, Any], refs: dict[str, st.SearchStrategy[Any]]) -> Any:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name not in refs:
            refs[name] = st.deferred(lambda: _strategy(defs[name], defs, refs))
        return refs[name]
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_strategy(s, defs, refs) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**schema, "type": k}, defs, refs) for k in kind])
    if kind == "object":
        return _object(schema, defs, refs)
    if kind == "array":
        items = _strategy(schema.get("items") or {}, defs, refs)
        return st.lists(items, min_size=schema.get("minItems", 0), max_size=max(schema.get("minItems", 0), 3))
    scalars = {
        "string": TEXT,
        "integer": st.integers(0, 10_000),
        "number": st.floats(0, 1000, allow_nan=False, allow_infinity=False),
        "boolean": st.booleans(),
        "null": st.none(),
    }
    return scalars.get(kind, ANY_JSON)


def _object(schema: dict[str, Any], defs: dict[str, Any], refs: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    fixed = {k: _strategy(v, defs, refs) for k, v in properties.items() if k in required}
    optional = {k: _strategy(v, defs, refs) for k, v in properties.items() if k not in required}
    base = st.fixed_dictionaries(fixed, optional=optional)
    extra = schema.get("additionalProperties")
    if not properties and isinstance(extra, dict):
        return st.dictionaries(TEXT, _strategy(extra, defs, refs), max_size=2)
    if not properties and extra is not False:
        return st.dictionaries(TEXT, ANY_JSON, max_size=2)
    return base


def from_model(name: str) -> st.SearchStrategy[Any]:
    """Valid JSON values of the published model `name` (as `tests.published_schema` judges them).

    The strategy is built from the model's JSON schema when it is first drawn from (`st.deferred`), not when a
    test module names it: every xdist worker imports every test module to collect it, and only the worker that
    runs the property needs the schema."""
    return st.deferred(lambda: _from_model(name))


@cache
def _from_model(name: str) -> st.SearchStrategy[Any]:
    schema = published_schema._adapter(name).json_schema()
    drawn = _strategy(schema, schema.get("$defs") or {}, {})
    return drawn.filter(lambda value: published_schema.verdict(name, value))
