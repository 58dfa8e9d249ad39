"""The profile of a model on a surface: one answer for `model.profile` and for every setting read from it.

What is sent comes from the body builders' tables, model facts from `MODEL_FACTS`; a given `profile=` wins, key by key.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from langchain_core.language_models.model_profile import ModelProfile

from langchain_perplexity_strict._surfaces import SURFACES, Surface
from langchain_perplexity_strict.data._profiles import MODEL_FACTS
from langchain_perplexity_strict.normalize._normalizer import ContentLimits, DemoteLateSystemMessages

_KINDS = {
    "text_inputs": ("text", (), "turns"),
    "image_inputs": ("image", ("image", "image_url"), "turns"),
    "image_url_inputs": ("image", ("image_url",), "turns"),
    "pdf_inputs": ("file", ("file",), "turns"),
    "audio_inputs": ("audio", (), "turns"),
    "video_inputs": ("video", ("video",), "turns"),
    "image_tool_message": ("image", ("image", "image_url"), "tool results"),
    "pdf_tool_message": ("file", ("file",), "tool results"),
}
"""Profile key -> the part a surface sends for it, the block kinds left out when it is False, and where."""


@lru_cache(maxsize=64)
def surface_profile(surface: Surface, demotes: bool) -> dict[str, Any]:
    """What `surface` sends, whatever the model."""
    parts = {"turns": surface.parts, "tool results": surface.tool_parts}
    sent = {key: part in parts[where] for key, (part, _, where) in _KINDS.items()}
    functions = surface.function_tools
    return {
        **sent,
        "text_outputs": True,
        "tool_calling": functions,
        "tool_choice": functions,
        "tool_call_streaming": functions,
        "structured_output": True,
        "mid_conversation_system_messages": not demotes,
    }


@lru_cache(maxsize=256)
def _derived(api: str, model: str, effort: Any, preset: Any, explicit: bool, demotes: bool) -> dict[str, Any] | None:
    """The profile of `model` on `api`; None if unknown or refused."""
    surface = SURFACES[api]
    try:
        served = surface.served({"model": model, "effort": effort, "preset": preset}, explicit)
    except ValueError:  # the surface does not serve it
        return None
    facts = MODEL_FACTS.get(served) if served is not None else {}
    if facts is None:
        return None
    profile = {**surface_profile(surface, demotes), **facts}
    if facts.get("reasoning_output"):
        profile["reasoning_effort_levels"] = list(surface.reasoning_efforts)
    return profile


def _demotes(rules: Sequence[Any]) -> bool:
    return any(isinstance(rule, DemoteLateSystemMessages) for rule in rules)


def model_profile(
    settings: Mapping[str, Any], api: str, model_explicit: bool, rules: Sequence[Any]
) -> ModelProfile | None:
    """The profile of the model `settings` name on `api`; None if unknown or refused."""
    model, effort, preset = settings["model"], settings.get("effort"), settings.get("preset")
    profile = _derived(api, model, effort, preset, model_explicit, _demotes(rules))
    return None if profile is None else ModelProfile(**copy.deepcopy(profile))  # type: ignore[typeddict-item]


def call_profile(
    given: Mapping[str, Any] | None, settings: Mapping[str, Any], api: str, explicit: bool, rules: Sequence[Any]
) -> dict[str, Any]:
    """A call's profile: the given keys over those derived for the call's model."""
    demotes = _demotes(rules)
    model, effort, preset = settings["model"], settings.get("effort"), settings.get("preset")
    derived = _derived(api, model, effort, preset, explicit, demotes) or surface_profile(SURFACES[api], demotes)
    return {**derived, **(given or {})}


def call_rules(surface: Surface, rules: Sequence[Any], profile: Mapping[str, Any]) -> Sequence[Any]:
    """A call's rules: the surface's, the content `profile` refuses, then the model's."""
    sends = surface_profile(surface, False)
    refused: dict[str, dict[str, str]] = {"turns": {}, "tool results": {}}
    for key, (_, kinds, where) in _KINDS.items():
        if kinds and profile.get(key) is False and sends[key]:
            refused[where].update(dict.fromkeys(kinds, f"this model's profile says {key}=False"))
    turns, tool_results = refused.values()
    limits = (ContentLimits("profile_content", turns, tool_results),) if turns or tool_results else ()
    if profile.get("mid_conversation_system_messages"):
        rules = [r for r in rules if not isinstance(r, DemoteLateSystemMessages)]
    return (*surface.rules, *limits, *rules)
