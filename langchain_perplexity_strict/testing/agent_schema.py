"""The Agent API request schema, as data, and a strict checker for it.

Transcribed from `ResponsesRequestInput` and the models it references in
`perplexity.generated.api` (Perplexity's SDK, generated from its OpenAPI
spec; perplexityai 0.46). Standard library only: the emulator imports nothing
from the client it judges, nor Perplexity's SDK. A contract test checks that
this checker and the SDK's models (with unknown fields forbidden) give the
same verdict on a corpus of valid and invalid requests.

Rule zero of the Agent API (docs.perplexity.ai, "Agent API" quickstart and
migration guide): an unknown field, top-level or nested, is a 400 naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_perplexity_strict.testing.errors import APIError, invalid, unknown_field

ERROR_TYPE = "invalid_request"


class Spec:
    """A schema node: `check(value, path)` raises `APIError` when `value` does not fit."""

    def check(self, value: Any, path: str) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Scalar(Spec):
    kinds: tuple[type, ...]
    name: str

    def check(self, value: Any, path: str) -> None:
        if isinstance(value, bool) and bool not in self.kinds:
            raise invalid(ERROR_TYPE, f"{path} must be {self.name}", path)
        if not isinstance(value, self.kinds):
            raise invalid(ERROR_TYPE, f"{path} must be {self.name}", path)


@dataclass(frozen=True)
class OneOf(Spec):
    values: tuple[Any, ...]

    def check(self, value: Any, path: str) -> None:
        if value not in self.values:
            raise invalid(ERROR_TYPE, f"{path} must be one of {', '.join(map(str, self.values))}", path)


@dataclass(frozen=True)
class ListOf(Spec):
    item: Spec

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise invalid(ERROR_TYPE, f"{path} must be a list", path)
        for i, item in enumerate(value):
            self.item.check(item, f"{path}[{i}]")


@dataclass(frozen=True)
class Obj(Spec):
    fields: dict[str, Spec]
    required: frozenset[str] = frozenset()
    open: bool = False  # a free-form object (dict[str, Any] in the models)

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise invalid(ERROR_TYPE, f"{path or 'the body'} must be an object", path or None)
        if self.open:
            return
        for key, item in value.items():
            where = f"{path}.{key}" if path else key
            spec = self.fields.get(key)
            if spec is None:
                raise unknown_field(where)
            if item is not None:  # every optional field of the models admits null
                spec.check(item, where)
        for key in self.required:
            if value.get(key) is None:
                where = f"{path}.{key}" if path else key
                raise invalid(ERROR_TYPE, f"{where} is required", where)


@dataclass(frozen=True)
class MapOf(Spec):
    """An object with any keys whose values all fit `value` (`dict[str, X]` in the models)."""

    value: Spec

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise invalid(ERROR_TYPE, f"{path} must be an object", path)
        for key, item in value.items():
            self.value.check(item, f"{path}.{key}")


@dataclass(frozen=True)
class Tagged(Spec):
    """A union told apart by `type` (`default` when the item has none)."""

    variants: dict[str, Obj]
    default: str | None = None

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise invalid(ERROR_TYPE, f"{path} must be an object", path)
        kind = value.get("type", self.default)
        spec = self.variants.get(str(kind))
        if spec is None:
            raise invalid(ERROR_TYPE, f"{path}.type {kind!r} is not one of {', '.join(self.variants)}", f"{path}.type")
        spec.check(value, path)


@dataclass(frozen=True)
class Either(Spec):
    """A string, or the other spec (`input`, message `content`, `tool_choice`, `output`)."""

    other: Spec
    strings: tuple[str, ...] = ()

    def check(self, value: Any, path: str) -> None:
        if isinstance(value, str):
            if self.strings and value not in self.strings:
                raise invalid(ERROR_TYPE, f"{path} must be one of {', '.join(self.strings)} or an object", path)
            return
        self.other.check(value, path)


STR = Scalar((str,), "a string")
INT = Scalar((int,), "an integer")
NUM = Scalar((int, float), "a number")
BOOL = Scalar((bool,), "a boolean")
ANY_OBJECT = Obj({}, open=True)
STRINGS = ListOf(STR)
STATUS = OneOf(("in_progress", "completed", "incomplete"))
BUILTIN_SKILLS = ("office", "office/docx", "office/pdf", "office/pptx", "office/xlsx")


def _obj(required: str = "", **fields: Spec) -> Obj:
    return Obj(fields, frozenset(required.split()))


_CONTENT_PART = Tagged(
    {
        "input_text": _obj("type", type=STR, text=STR, image_url=STR, file_data=STR, file_url=STR, filename=STR),
        "input_image": _obj("type", type=STR, text=STR, image_url=STR, file_data=STR, file_url=STR, filename=STR),
        "input_file": _obj("type", type=STR, text=STR, image_url=STR, file_data=STR, file_url=STR, filename=STR),
    }
)
_OUTPUT_PART = Tagged(
    {
        "input_text": _obj("type text", type=STR, text=STR),
        "input_image": _obj("type image_url", type=STR, image_url=STR, detail=OneOf(("low", "high", "auto"))),
    }
)
_MCP_TOOL = _obj(
    "name input_schema", name=STR, description=STR, input_schema=ANY_OBJECT, annotations=_obj(read_only=BOOL)
)
INPUT_ITEM = Tagged(
    {
        "message": _obj(
            "role content",
            type=OneOf(("message",)),
            role=OneOf(("user", "assistant", "system", "developer")),
            content=Either(ListOf(_CONTENT_PART)),
        ),
        "function_call": _obj(
            "type call_id name arguments", type=STR, call_id=STR, name=STR, arguments=STR, thought_signature=STR
        ),
        "function_call_output": _obj(
            "type call_id output",
            type=STR,
            call_id=STR,
            id=STR,
            name=STR,
            output=Either(ListOf(_OUTPUT_PART)),
            status=STATUS,
            thought_signature=STR,
        ),
        "reasoning": _obj(
            "type summary",
            type=STR,
            id=STR,
            status=STATUS,
            encrypted_content=STR,
            summary=ListOf(_obj("type text", type=OneOf(("summary_text",)), text=STR)),
            content=ListOf(_obj("type text", type=OneOf(("reasoning_text",)), text=STR)),
        ),
        "mcp_approval_response": _obj(
            "type approval_request_id approve", type=STR, approval_request_id=STR, approve=BOOL, id=STR, reason=STR
        ),
        "mcp_approval_request": _obj(
            "type id server_label name arguments",
            type=STR,
            id=STR,
            server_label=STR,
            name=STR,
            arguments=STR,
            connector_id=STR,
            thought_signature=STR,
        ),
        "mcp_call": _obj(
            "type id server_label name arguments",
            type=STR,
            id=STR,
            server_label=STR,
            name=STR,
            arguments=STR,
            output=STR,
            error=STR,
            approval_request_id=STR,
            connector_id=STR,
        ),
        "mcp_list_tools": _obj("type", type=STR, id=STR, server_label=STR, tools=ListOf(_MCP_TOOL), error=STR),
    },
    default="message",
)
_FILTER = _obj(read_only=BOOL, tool_names=STRINGS)
_APPROVAL = Either(_obj(always=_FILTER, never=_FILTER), ("always", "never"))
TOOL = Tagged(
    {
        "web_search": _obj(
            "type",
            type=STR,
            filters=_obj(
                search_domain_filter=STRINGS,
                search_recency_filter=OneOf(("hour", "day", "week", "month", "year")),
                search_after_date_filter=STR,
                search_before_date_filter=STR,
                last_updated_after_filter=STR,
                last_updated_before_filter=STR,
            ),
            max_tokens=INT,
            max_tokens_per_page=INT,
            search_context_size=OneOf(("low", "medium", "high")),
            search_type=OneOf(("web", "fast")),
            user_location=_obj(city=STR, country=STR, region=STR, latitude=NUM, longitude=NUM),
        ),
        "image_search": _obj(
            "type",
            type=STR,
            max_results=INT,
            filters=_obj(
                domain_filter=STRINGS,
                format_filter=ListOf(OneOf(("bmp", "gif", "jpeg", "png", "webp", "svg"))),
                safe_search=BOOL,
            ),
        ),
        "fetch_url": _obj("type", type=STR, max_urls=INT),
        "people_search": _obj("type", type=STR),
        "finance_search": _obj("type", type=STR),
        "sandbox": _obj("type", type=STR),
        "function": _obj("type name", type=STR, name=STR, description=STR, parameters=ANY_OBJECT, strict=BOOL),
        "mcp": _obj(
            "type server_label server_url",
            type=STR,
            server_label=STR,
            server_url=STR,
            allowed_tools=STRINGS,
            authorization=STR,
            defer_loading=BOOL,
            headers=MapOf(STR),
            require_approval=_APPROVAL,
        ),
        "connector": _obj(
            "type id server_label",
            type=STR,
            id=STR,
            server_label=STR,
            server_description=STR,
            allowed_tools=STRINGS,
            require_approval=_APPROVAL,
        ),
    }
)
SKILL = Tagged(
    {
        "builtin": _obj("type name", type=STR, name=OneOf(BUILTIN_SKILLS)),
        "inline": _obj("type name description instructions", type=STR, name=STR, description=STR, instructions=STR),
        "custom": _obj("type id", type=STR, id=STR, version=STR),
    }
)
REQUEST = _obj(
    "input",
    background=BOOL,
    effort=STR,
    input=Either(ListOf(INPUT_ITEM)),
    instructions=STR,
    language_preference=STR,
    max_output_tokens=INT,
    max_steps=INT,
    model=STR,
    models=STRINGS,
    preset=STR,
    previous_response_id=STR,
    profile=_obj("id type", id=STR, type=OneOf(("custom",)), version=STR),
    prompt_cache_key=STR,
    reasoning=_obj(effort=OneOf(("none", "minimal", "low", "medium", "high", "xhigh"))),
    response_format=_obj(
        "type",
        type=OneOf(("json_schema",)),
        json_schema=_obj("name schema", name=STR, schema=ANY_OBJECT, description=STR, strict=BOOL),
    ),
    service_tier=OneOf(("auto", "default", "flex", "priority", "fast")),
    skills=ListOf(SKILL),
    step_budget_reminder=BOOL,
    store=BOOL,
    stream=BOOL,
    temperature=NUM,
    tool_choice=Either(ANY_OBJECT, ("none", "auto", "required")),
    tools=ListOf(TOOL),
    top_p=NUM,
)


@dataclass
class Verdict:
    """What the schema alone says of a body (for the agreement test)."""

    error: APIError | None = field(default=None)

    @property
    def valid(self) -> bool:
        return self.error is None


def check_schema(body: Any) -> None:
    """Raise the 400 Perplexity gives for a body outside the published request schema."""
    REQUEST.check(body, "")


def schema_verdict(body: Any) -> Verdict:
    """The schema's verdict on `body`, without raising."""
    try:
        check_schema(body)
    except APIError as error:
        return Verdict(error)
    return Verdict()
