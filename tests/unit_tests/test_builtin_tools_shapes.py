"""The built-in tool and skill TypedDicts are Perplexity's published request models, field for field."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union

import pydantic
import pytest
from perplexity.generated import api
from typing_extensions import get_type_hints, is_typeddict

from langchain_perplexity_strict import (
    builtin_skill,
    connector_tool,
    custom_skill,
    fetch_url_tool,
    finance_search_tool,
    image_search_tool,
    inline_skill,
    mcp_tool,
    people_search_tool,
    sandbox_tool,
    web_search_tool,
)
from langchain_perplexity_strict._request._builtin_tools import TOOL_SHAPES, check_builtin_tool
from langchain_perplexity_strict._request._skills import SKILL_SHAPES


def _resolve(annotation: Any) -> Any:
    if isinstance(annotation, typing.ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        annotation = getattr(api, annotation)
    return annotation


def _members(annotation: Any) -> list[Any]:
    annotation = _resolve(annotation)
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return [m for a in typing.get_args(annotation) if a is not type(None) for m in _members(a)]
    return [annotation]


def assert_same(ours: Any, published: Any, path: str) -> None:
    """`ours` (a TypedDict or type) accepts what `published` (a pydantic model or type) does."""
    theirs = _members(published)
    mine = _members(ours)
    if len(theirs) > 1 or len(mine) > 1:
        assert len(mine) == len(theirs), path
        for a, b in zip(mine, theirs, strict=True):
            assert_same(a, b, path)
        return
    (ours,), (published,) = mine, theirs
    if isinstance(published, type) and issubclass(published, pydantic.BaseModel):
        assert is_typeddict(ours), f"{path}: {ours!r} is not a TypedDict"
        hints = get_type_hints(ours)
        fields = published.model_fields
        assert set(hints) == set(fields), f"{path}: {sorted(hints)} != {sorted(fields)}"
        required = {k for k, f in fields.items() if f.is_required()}
        assert set(ours.__required_keys__) == required, f"{path}: required keys differ"
        for key, field in fields.items():
            assert_same(hints[key], field.annotation, f"{path}.{key}")
        return
    origin = typing.get_origin(published)
    assert typing.get_origin(ours) == origin, f"{path}: {ours!r} != {published!r}"
    if origin is Literal:
        assert set(typing.get_args(ours)) == set(typing.get_args(published)), path
    elif origin in (list, dict):
        for a, b in zip(typing.get_args(ours), typing.get_args(published), strict=True):
            assert_same(a, b, f"{path}[]")
    else:
        assert ours == published, f"{path}: {ours!r} != {published!r}"


def _published(union: str) -> dict[str, Any]:
    out = {}
    for member in _members(getattr(api, union)):
        kind = typing.get_args(member.model_fields["type"].annotation)[0]
        out[kind] = member
    return out


def test_every_published_built_in_tool_has_a_shape() -> None:
    assert set(TOOL_SHAPES) == set(_published("ToolInput")) - {"function"}
    assert set(SKILL_SHAPES) == set(_published("SkillInput"))


@pytest.mark.parametrize("kind", sorted(TOOL_SHAPES))
def test_tool_shape_is_the_published_model(kind: str) -> None:
    assert_same(TOOL_SHAPES[kind], _published("ToolInput")[kind], kind)


@pytest.mark.parametrize("kind", sorted(SKILL_SHAPES))
def test_skill_shape_is_the_published_model(kind: str) -> None:
    assert_same(SKILL_SHAPES[kind], _published("SkillInput")[kind], kind)


HELPERS = [
    web_search_tool(filters={"search_domain_filter": ["arxiv.org"], "search_recency_filter": "month"},
                    search_context_size="high", user_location={"country": "FR", "latitude": 48.85}),
    fetch_url_tool(max_urls=3),
    image_search_tool(filters={"format_filter": ["png"], "safe_search": True}, max_results=4),
    people_search_tool(), finance_search_tool(), sandbox_tool(),
    mcp_tool("docs", "https://mcp.example.com", allowed_tools=["search"], headers={"X-Team": "a"},
             require_approval={"never": {"read_only": True}}),
    connector_tool("conn_1", "drive", require_approval="always", server_description="The team drive"),
]  # fmt: skip


@pytest.mark.parametrize("tool", HELPERS, ids=lambda t: t["type"])
def test_helpers_build_published_tools(tool: dict[str, Any]) -> None:
    from tests import published_schema

    published_schema.validate("ToolInput", tool)


@pytest.mark.parametrize("skill", [builtin_skill("office/xlsx"), inline_skill("n", "d", "i"), custom_skill("sk", "2")])
def test_helpers_build_published_skills(skill: dict[str, Any]) -> None:
    from tests import published_schema

    published_schema.validate("SkillInput", skill)


@pytest.mark.parametrize(
    ("tool", "words"),
    [
        ({"type": "web_search", "filters": {"search_domain": ["a.com"]}}, ["tools[0].filters", "'search_domain'"]),
        ({"type": "web_search", "search_context_size": "max"}, ["search_context_size", "'max'", "'high'"]),
        ({"type": "fetch_url", "max_urls": "3"}, ["max_urls", "'3'", "an integer"]),
        ({"type": "mcp", "server_label": "d"}, ["missing field 'server_url'"]),
        ({"type": "mcp", "server_label": "d", "server_url": "u", "require_approval": "ask"},
         ["require_approval", "'ask'", "'always'"]),
        ({"type": "connector", "server_label": "d"}, ["missing field 'id'"]),
        ({"type": "image_search", "filters": {"format_filter": ["tiff"]}}, ["format_filter[0]", "'tiff'", "'png'"]),
        ({"type": "sandbox", "language": "python"}, ["unknown field 'language'"]),
        ({"type": "code_interpreter"}, ["'code_interpreter' is not a built-in tool", "web_search"]),
    ],
)  # fmt: skip
def test_wrong_tools_are_refused_naming_field_value_and_what_is_accepted(
    tool: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(ValueError) as error:
        check_builtin_tool(tool, "tools[0]")
    for word in words:
        assert word in str(error.value)


def _typeddicts(shape: Any) -> list[Any]:
    """`shape` and every TypedDict it uses, however deep."""
    if is_typeddict(shape):
        return [shape, *(t for hint in get_type_hints(shape).values() for t in _typeddicts(hint))]
    return [t for arg in typing.get_args(shape) for t in _typeddicts(arg)]


@pytest.mark.parametrize("shape", [*TOOL_SHAPES.values(), *SKILL_SHAPES.values()], ids=lambda s: s.__name__)
def test_each_shape_is_its_own_pydantic_validation(shape: Any) -> None:
    """One mechanism: the shapes are pydantic's schemas (strict, extra fields forbidden at every depth),
    not declarations a hand-written walker reads."""
    for typed in _typeddicts(shape):
        config = typed.__pydantic_config__
        assert config.get("extra") == "forbid" and config.get("strict") is True, typed.__name__
        with pytest.raises(pydantic.ValidationError, match="Extra inputs are not permitted"):
            pydantic.TypeAdapter(typed).validate_python({"not_a_field": 1})


@pytest.mark.parametrize(
    ("tool", "words", "hidden"),
    [
        (
            {"type": "mcp", "server_label": "d", "server_url": "u", "require_approval": {"never": {"read_only": 1}}},
            ["tools[0].require_approval.never.read_only: 1 is not accepted; expected true or false"],
            None,
        ),
        (
            {"type": "mcp", "server_label": "d", "server_url": "u", "headers": {"X-Key": 7}},
            ["tools[0].headers['X-Key']", "expected a string"],
            "7",
        ),
        (
            {"type": "mcp", "server_label": "d", "server_url": "u", "authorization": ["pplx-canary-31"]},
            ["tools[0].authorization", "expected a string"],
            "pplx-canary-31",
        ),
        ({"type": "fetch_url", "max_urls": 2.0}, ["tools[0].max_urls: 2.0 is not accepted; expected an integer"], None),
        ({"type": "sandbox", "a": 1, "b": None}, ["tools[0]: unknown field 'a'"], None),
    ],
)
def test_pydantics_errors_are_worded_with_the_path_the_value_and_what_is_accepted(
    tool: dict[str, Any], words: list[str], hidden: str | None
) -> None:
    with pytest.raises(ValueError) as error:
        check_builtin_tool(tool, "tools[0]")
    for word in words:
        assert word in str(error.value)
    if hidden is not None:
        assert hidden not in str(error.value) and error.value.__context__ is None


def test_an_optional_field_may_be_null_as_published() -> None:
    check_builtin_tool({"type": "fetch_url", "max_urls": None}, "tools[0]")
    check_builtin_tool({"type": "web_search", "filters": {"search_recency_filter": None}}, "tools[0]")
    with pytest.raises(ValueError, match=r"tools\[0\]\.server_url: None is not accepted; expected a string"):
        check_builtin_tool({"type": "mcp", "server_label": "d", "server_url": None}, "tools[0]")
