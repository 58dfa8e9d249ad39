"""The profile of a model on a surface: one answer for `model.profile` and for every setting read from it.

What is sent comes from the body builders' tables; model facts from `MODEL_FACTS`.
A given `profile=` wins, key by key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models.model_profile import ModelProfile

from langchain_perplexity_strict._surfaces import SURFACES, Surface
from langchain_perplexity_strict.data._profiles import MODEL_FACTS
from langchain_perplexity_strict.normalize._agent_content import ContentLimits
from langchain_perplexity_strict.normalize._rules import DemoteLateSystemMessages

_TURN_KINDS = {
    "image_inputs": ("image", "image_url"),
    "image_url_inputs": ("image_url",),
    "pdf_inputs": ("file",),
    "video_inputs": ("video",),
}
_TOOL_RESULT_KINDS = {"image_tool_message": ("image", "image_url"), "pdf_tool_message": ("file",)}
"""Profile keys -> the content block kinds `ContentLimits` leaves out or names."""


def surface_profile(surface: Surface, rules: Sequence[Any]) -> dict[str, Any]:
    """What `surface` sends, whatever the model."""
    parts, tool_parts, functions = surface.parts, surface.tool_parts, surface.function_tools
    return {
        "text_inputs": "text" in parts,
        "image_inputs": "image" in parts,
        "image_url_inputs": "image" in parts,
        "pdf_inputs": "file" in parts,
        "audio_inputs": "audio" in parts,
        "video_inputs": "video" in parts,
        "image_tool_message": "image" in tool_parts,
        "pdf_tool_message": "file" in tool_parts,
        "text_outputs": True,
        "tool_calling": functions,
        "tool_choice": functions,
        "tool_call_streaming": functions,
        "structured_output": True,
        "mid_conversation_system_messages": not any(isinstance(r, DemoteLateSystemMessages) for r in rules),
    }


def model_profile(
    settings: Mapping[str, Any], api: str, model_explicit: bool, rules: Sequence[Any]
) -> ModelProfile | None:
    """The profile of the model `settings` name on `api`; None if unknown or refused."""
    surface = SURFACES[api]
    try:
        served = surface.served(settings, model_explicit)
    except ValueError:  # the surface does not serve it
        return None
    facts = MODEL_FACTS.get(served) if served is not None else {}
    if facts is None:
        return None
    profile = {**surface_profile(surface, rules), **facts}
    if facts.get("reasoning_output"):
        profile["reasoning_effort_levels"] = list(surface.reasoning_efforts)
    return ModelProfile(**profile)  # type: ignore[typeddict-item]


def call_profile(
    given: Mapping[str, Any] | None, settings: Mapping[str, Any], api: str, explicit: bool, rules: Sequence[Any]
) -> dict[str, Any]:
    """A call's profile: the given keys over those derived for the call's model."""
    derived = model_profile(settings, api, explicit, rules) or surface_profile(SURFACES[api], rules)
    return {**derived, **(given or {})}


def call_rules(surface: Surface, rules: Sequence[Any], profile: Mapping[str, Any]) -> Sequence[Any]:
    """A call's rules: the surface's, the content `profile` refuses, then the model's."""
    sends = surface_profile(surface, ())
    turns = _refused(profile, sends, _TURN_KINDS)
    tool_results = _refused(profile, sends, _TOOL_RESULT_KINDS)
    limits = (ContentLimits("profile_content", turns, tool_results),) if turns or tool_results else ()
    if profile.get("mid_conversation_system_messages"):
        rules = [r for r in rules if not isinstance(r, DemoteLateSystemMessages)]
    return (*surface.rules, *limits, *rules)


def _refused(profile: Mapping[str, Any], sends: Mapping[str, Any], keys: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Each block kind `profile` refuses and the surface would send, and why."""
    return {
        kind: f"this model's profile says {key}=False"
        for key, kinds in keys.items()
        if profile.get(key) is False and sends[key]
        for kind in kinds
    }


def structured_output_method(profile: Mapping[str, Any]) -> str:
    """`with_structured_output`'s default method, by the profile."""
    if profile.get("structured_output", True) or not profile.get("tool_calling"):
        return "json_schema"
    return "function_calling"
