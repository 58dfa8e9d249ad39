"""Skills as Perplexity publishes them (each `X` is `perplexity.generated.api`'s `XInput`), and `skills=`'s check."""

# No `from __future__ import annotations`: TypedDict needs evaluated `NotRequired`.
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, with_config
from typing_extensions import NotRequired, TypedDict

from langchain_perplexity_strict._accepts import Accepts
from langchain_perplexity_strict._redact import shown
from langchain_perplexity_strict._request._shape_check import PUBLISHED, check_tagged

OfficeSkill = Literal["office", "office/docx", "office/pdf", "office/pptx", "office/xlsx"]
"""`BuiltinSkillInput.name`: Perplexity's office skills."""


@with_config(PUBLISHED)
class BuiltinSkill(TypedDict):
    type: Literal["builtin"]
    name: OfficeSkill


@with_config(PUBLISHED)
class InlineSkill(TypedDict):
    type: Literal["inline"]
    name: str
    description: str
    instructions: str


@with_config(PUBLISHED)
class CustomSkill(TypedDict):
    type: Literal["custom"]
    id: str
    version: NotRequired[str]


Skill = BuiltinSkill | InlineSkill | CustomSkill
SKILL_SHAPES: dict[str, Any] = {"builtin": BuiltinSkill, "inline": InlineSkill, "custom": CustomSkill}


def check_skill(skill: Any, path: str = "skills") -> None:
    """Raise `ValueError` naming the field unless `skill` is a skill in its published shape."""
    check_tagged(skill, SKILL_SHAPES, path, "a skill type")


def _check_skills(skills: Any) -> None:
    if not isinstance(skills, (list, tuple)):
        msg = f"skills: {shown(skills, 'skills')} is not accepted; expected a list of skills (builtin_skill(...), ...)"
        raise ValueError(msg)
    for i, skill in enumerate(skills):
        check_skill(skill, f"skills[{i}]")


SKILLS = Accepts(
    "a list of skills (builtin_skill, inline_skill, custom_skill)", Annotated[Any, AfterValidator(_check_skills)]
)
"""The `skills` parameter's rule."""
