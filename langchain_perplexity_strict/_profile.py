"""The profile of a model on a surface: one answer for `model.profile` and for every setting read from it.

What the package sends comes from the body builders' own tables (the surface's
content parts, its function tools and reasoning levels), so the profile cannot
claim a shape the builder does not write; what the served model is (its limits,
whether it reasons) comes from `data._profiles.MODEL_FACTS`, for the model the
body names: a Sonar name on the Agent API is the model (or effort level)
Perplexity's migration table maps it to. A profile the application gives
(`profile=`) wins for every setting read from it: each key it states, over the
derived ones.
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
"""Profile keys -> the kinds of content block `ContentLimits` leaves out (turns) or names (tool results)."""


def surface_profile(surface: Surface, rules: Sequence[Any]) -> dict[str, Any]:
    """What `surface` sends, whatever the model: its builder's parts, function tools and structured output."""
    parts, tool_parts, functions = surface.parts, surface.tool_parts, surface.function_tools
    return {
        "text_inputs": "text" in parts,
        "image_inputs": "image" in parts,
        "image_url_inputs": "image" in parts,  # both builders send an image's URL as given
        "pdf_inputs": "file" in parts,
        "audio_inputs": "audio" in parts,  # no surface has one: `canonical_content` drops audio, and reports it
        "video_inputs": "video" in parts,
        "image_tool_message": "image" in tool_parts,
        "pdf_tool_message": "file" in tool_parts,
        "text_outputs": True,
        "tool_calling": functions,
        "tool_choice": functions,
        "tool_call_streaming": functions,
        "structured_output": True,  # both builders send Perplexity's json_schema response_format
        "mid_conversation_system_messages": not any(isinstance(r, DemoteLateSystemMessages) for r in rules),
    }


def model_profile(
    settings: Mapping[str, Any], api: str, model_explicit: bool, rules: Sequence[Any]
) -> ModelProfile | None:
    """The profile of the model a body for `settings` names on `api`: None for a model the package does not
    know, or one the surface refuses; an effort level's model (Perplexity's choice) has no limits."""
    surface = SURFACES[api]
    try:
        served = surface.served(settings, model_explicit)
    except ValueError:  # refused before sending (an Agent API slug on chat completions)
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
    """The profile a call's settings are read from: the application's keys over those derived for the model the
    call names (a key it leaves out is the derived one), over what the surface sends."""
    derived = model_profile(settings, api, explicit, rules) or surface_profile(SURFACES[api], rules)
    return {**derived, **(given or {})}


def call_rules(surface: Surface, rules: Sequence[Any], profile: Mapping[str, Any]) -> Sequence[Any]:
    """The normalizer's rules for a call: the surface's, the content `profile` refuses (where the surface takes
    it), then the model's `rules`, without moving late system messages where `profile` says they stay."""
    sends = surface_profile(surface, ())
    turns = _refused(profile, sends, _TURN_KINDS)
    tool_results = _refused(profile, sends, _TOOL_RESULT_KINDS)
    limits = (ContentLimits("profile_content", turns, tool_results),) if turns or tool_results else ()
    if profile.get("mid_conversation_system_messages"):
        rules = [r for r in rules if not isinstance(r, DemoteLateSystemMessages)]
    return (*surface.rules, *limits, *rules)


def _refused(profile: Mapping[str, Any], sends: Mapping[str, Any], keys: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Each kind of block `profile` says the model does not take and the surface would send, and why."""
    return {
        kind: f"this model's profile says {key}=False"
        for key, kinds in keys.items()
        if profile.get(key) is False and sends[key]
        for kind in kinds
    }


def structured_output_method(profile: Mapping[str, Any]) -> str:
    """`with_structured_output`'s default method: Perplexity's `response_format` where the profile has structured
    output, else a forced tool call where it has tool calling."""
    if profile.get("structured_output", True) or not profile.get("tool_calling"):
        return "json_schema"
    return "function_calling"
