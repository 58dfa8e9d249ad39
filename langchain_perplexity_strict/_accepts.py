"""What a setting accepts, one way for every public class: a strict pydantic type and the words for it.

A setting's rule is a pydantic type, constrained and strict, as langchain-openai
and openai-python carry theirs (`Annotated[float, Strict(), Field(ge=0, le=2)]`,
`Literal[...]`, `StringConstraints`), with a validator for a rule Perplexity
documents beyond types (a date format, a domain list). `Accepts` pairs the type
with the words a refusal shows and builds its `TypeAdapter` once; the chat
model's parameters (`_request/_parameters`) and the Search API's fields
(`_search/_request`) are declared in it, and their constructors and call-time
checks both ask it. Nothing is coerced (`"0.5"` is not 0.5, `True` is not 1),
and the value validated is never the one kept: the caller's value stays theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import AfterValidator, Field, Strict, TypeAdapter, ValidationError

from langchain_perplexity_strict._redact import shown


def rule(check: Callable[[Any], str | None]) -> Any:
    """A validator for a documented rule: `check` says why a value breaks it (None: it does not)."""

    def validate(value: Any) -> Any:
        why = check(value)
        if why is not None:
            raise ValueError(why)
        return value

    return AfterValidator(validate)


def holds(check: Callable[[Any], bool]) -> Any:
    """A validator for a rule with nothing more to say than what is accepted."""
    return rule(lambda value: None if check(value) else "")


def ruled(check: Callable[[Any], str | None]) -> Any:
    """Any value, checked by `check` alone (a rule that tests the type itself, to say what is wrong)."""
    return Annotated[Any, rule(check)]


@dataclass(frozen=True)
class Accepts:
    """A setting's rule: `type`, validated strictly, and `accepted`, the words a refusal ends with."""

    accepted: str
    type: Any
    _adapter: TypeAdapter[Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_adapter", TypeAdapter(self.type))

    def problem(self, value: Any) -> str | None:
        """None when `value` is accepted; else `expected ...`, with the documented rule's reason if it has one."""
        try:
            self._adapter.validate_python(value, strict=True)
        except ValidationError as error:
            reasons = [str(e["ctx"]["error"]) for e in error.errors() if e["type"] == "value_error"]
            reason = next((r for r in reasons if r), "")
            return f"expected {self.accepted}" + (f" ({reason})" if reason else "")
        return None


def check(name: str, value: Any, accepts: Accepts) -> None:
    """Raise `ValueError` naming `name`, the value (as `_redact.shown` allows) and what `accepts` takes."""
    problem = accepts.problem(value)
    if problem is not None:
        msg = f"{name}={shown(value, name)}: {problem}."
        raise ValueError(msg)


RETRIES = Accepts("an integer >= 0", Annotated[int, Strict(), Field(ge=0)])
"""`max_retries`, of the chat model and of the search and embeddings classes alike."""
TOKEN_BUDGET = Accepts("an integer >= 0 (0: no compaction)", Annotated[int, Strict(), Field(ge=0)])
"""The chat model's `max_input_tokens`."""
