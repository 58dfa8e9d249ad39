"""Model names on each surface, and Perplexity's Sonar → Agent API migration table."""

from __future__ import annotations

from dataclasses import dataclass

RESERVED_FUNCTION_NAMES = frozenset(
    {"web_search", "search_web", "people_search", "search_people", "fetch_url", "finance_search", "sandbox"}
)
"""Built-in tool names, reserved on the Agent API (docs/perplexity-rules.md)."""

DEFAULT_MODELS = {"agent": "perplexity/sonar", "chat_completions": "sonar"}  # when none is given


@dataclass(frozen=True)
class AgentTarget:
    """What a Sonar model name becomes on the Agent API: a model, or an effort level."""

    model: str | None
    preset: str | None


SONAR_TO_AGENT: dict[str, AgentTarget] = {
    "sonar": AgentTarget("perplexity/sonar", None),
    "sonar-pro": AgentTarget(None, "low"),
    "sonar-reasoning": AgentTarget(None, "low"),
    "sonar-reasoning-pro": AgentTarget(None, "low"),
    "sonar-deep-research": AgentTarget(None, "medium"),
}
"""Perplexity's migration table (docs.perplexity.ai/docs/agent-api/migrate-from-sonar)."""


def sonar_notice(model: str) -> str | None:
    """The warning for a Sonar name (None: not one)."""
    target = SONAR_TO_AGENT.get(model)
    if target is None:
        return None
    becomes = f"model {target.model!r}" if target.model else f"effort {target.preset!r}"
    return (
        f"model {model!r} is a Sonar chat-completions name; on the Agent API it is "
        f"sent as {becomes} with web search, per Perplexity's migration table. "
        "Pass that directly to silence this warning."
    )


def preset_notice(preset: str | None, effort: str | None) -> str | None:
    """The warning for a deprecated `preset` (`ResponsesRequestInput.preset`)."""
    if not preset:
        return None
    if effort:
        return (
            f"preset={preset!r} is not sent: effort={effort!r} takes precedence (Perplexity deprecated preset; "
            "when both are supplied, effort wins). Remove preset."
        )
    known = preset.split("@")[0] in EFFORT_NAMES
    write = f"effort={preset!r}" if known else "effort=... (fast, low, medium, high or xhigh)"
    return f'preset={preset!r} is deprecated by Perplexity ("Use effort instead"); write {write}.'


EFFORT_NAMES = ("fast", "low", "medium", "high", "xhigh")
"""The Agent API's effort levels (docs.perplexity.ai/docs/agent-api/effort)."""

AGENT_TO_SONAR = {target.model: name for name, target in SONAR_TO_AGENT.items() if target.model}


def chat_model_name(model: str) -> str:
    """`model` as Sonar chat completions take it; another provider's slug is refused ("Invalid model")."""
    if model in AGENT_TO_SONAR:
        return AGENT_TO_SONAR[model]
    if "/" in model:
        msg = (
            f"model={model!r} is an Agent API model slug, which Sonar chat completions do not serve; "
            f"on api='chat_completions' pass a Sonar model ({', '.join(SONAR_TO_AGENT)}), "
            "or use api='agent' for this model."
        )
        raise ValueError(msg)
    return model


def agent_name_notice(model: str) -> str | None:
    """The warning when chat completions send `model` by its Sonar name."""
    if model not in AGENT_TO_SONAR:
        return None
    return (
        f"model {model!r} is an Agent API name; on api='chat_completions' it is sent as "
        f"{AGENT_TO_SONAR[model]!r}, its Sonar name. Pass that directly to silence this warning."
    )
