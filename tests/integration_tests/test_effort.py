"""`effort` (docs.perplexity.ai/docs/agent-api/effort) and the deprecated `preset`, on every path a value takes.

`effort` is checked as the parameter table declares it (the five levels, optionally pinned to a version),
reaches the body under its own name on every path, validates as the published `ResponsesRequestInput`,
and is served by the emulator. `preset` still works, with one warning per model saying what to write;
with both, only `effort` is sent (the published precedence: effort wins when non-null).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.runnables import ConfigurableField

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator
from langchain_perplexity_strict.testing.agent_api import PRESETS
from tests import published_schema
from tests.integration_tests.factory import KEY

LEVELS = ["fast", "low", "medium", "high", "xhigh", "fast@2026-10-16.0", "xhigh@2027-01-02.3"]
REFUSED = ["max", "minimal", "none", "Fast", "", "fast@", "fast@ 1", "fast@a@b", "wide-research", 1, True, ["low"]]


def ways(emu: PerplexityEmulator, name: str, value: Any) -> dict[str, Callable[[], Any]]:
    """Every way a setting reaches a call: constructor, call, bind, configurable, model_copy."""
    base = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url)  # type: ignore[arg-type]
    field = ConfigurableField(id=name)
    return {
        "ctor": lambda: ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, **{name: value}).invoke("hi"),  # type: ignore[arg-type]
        "call": lambda: base.invoke("hi", **{name: value}),
        "bind": lambda: base.bind(**{name: value}).invoke("hi"),
        "configurable": lambda: base.configurable_fields(**{name: field}).invoke(
            "hi", config={"configurable": {name: value}}
        ),
        "model_copy": lambda: base.model_copy(update={name: value}).invoke("hi"),
    }


@pytest.mark.parametrize("level", LEVELS)
def test_effort_reaches_the_body_on_every_path_and_the_emulator_serves_it(emu: PerplexityEmulator, level: str) -> None:
    for way, call in ways(emu, "effort", level).items():
        emu.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # effort is not deprecated: no warning
            answer = call()
        body = emu.requests[-1].body
        assert body["effort"] == level and "preset" not in body and "model" not in body, (way, body)
        published_schema.agent_request(body)
        assert answer.response_metadata.get("model_name"), way


@pytest.mark.parametrize("value", REFUSED)
def test_a_value_not_an_effort_level_is_refused_on_every_path_before_sending(
    emu: PerplexityEmulator, value: Any
) -> None:
    for way, call in ways(emu, "effort", value).items():
        emu.clear()
        with pytest.raises(ValueError, match=r"effort=.*one of fast, low, medium, high, xhigh") as info:
            call()
        assert "pinned to a version" in str(info.value), way
        assert not [r for r in emu.requests if r.method == "POST"], way


def test_effort_is_not_reasoning_effort() -> None:
    body = ChatPerplexityStrict(api_key=KEY, effort="high", reasoning_effort="low").request_body("hi")  # type: ignore[arg-type]
    assert body["effort"] == "high" and body["reasoning"] == {"effort": "low"}
    published_schema.agent_request(body)
    with pytest.raises(ValueError, match="reasoning_effort='fast'"):
        ChatPerplexityStrict(api_key=KEY, reasoning_effort="fast")  # type: ignore[arg-type]


def test_effort_is_an_agent_api_parameter() -> None:
    with pytest.raises(ValueError, match="effort='low' is not available on api='chat_completions'"):
        ChatPerplexityStrict(api_key=KEY, api="chat_completions", effort="low")  # type: ignore[arg-type]


def test_with_a_chosen_model_both_are_sent() -> None:
    body = ChatPerplexityStrict(api_key=KEY, model="openai/gpt-5.1", effort="low").request_body("hi")  # type: ignore[arg-type]
    assert (body["model"], body["effort"]) == ("openai/gpt-5.1", "low")
    published_schema.agent_request(body)


@pytest.mark.parametrize(
    ("preset", "write"),
    [
        ("low", "effort='low'"),
        ("xhigh@2026-10-16.0", "effort='xhigh@2026-10-16.0'"),
        ("wide-research", "effort=... (fast, low, medium, high or xhigh)"),
    ],
)
def test_preset_still_works_and_warns_once_per_model_saying_what_to_write(
    emu: PerplexityEmulator, preset: str, write: str
) -> None:
    first = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, preset=preset)  # type: ignore[arg-type]
    with pytest.warns(UserWarning, match="deprecated by Perplexity") as record:
        first.invoke("hi")
    assert [str(w.message) for w in record if "preset" in str(w.message)] == [
        f'preset={preset!r} is deprecated by Perplexity ("Use effort instead"); write {write}.'
    ]
    assert emu.requests[-1].body["preset"] == preset and "effort" not in emu.requests[-1].body
    published_schema.agent_request(emu.requests[-1].body)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first.invoke("again")  # once per model
    second = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, preset=preset)  # type: ignore[arg-type]
    with pytest.warns(UserWarning, match="deprecated by Perplexity"):
        second.invoke("hi")  # another model says it too


@pytest.mark.parametrize("way", ["ctor", "call", "bind", "configurable", "model_copy"])
def test_preset_warns_on_every_path(emu: PerplexityEmulator, way: str) -> None:
    with pytest.warns(UserWarning, match=r"preset='medium' is deprecated.*write effort='medium'"):
        ways(emu, "preset", "medium")[way]()
    assert emu.requests[-1].body["preset"] == "medium"


@pytest.mark.parametrize("way", ["ctor", "call", "bind", "model_copy"])
def test_with_both_effort_wins_and_preset_is_not_sent(emu: PerplexityEmulator, way: str) -> None:
    """The published precedence: "If both are supplied, effort takes precedence when non-null"; a preset
    that would do nothing is not sent, and the warning says so."""
    base = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url)  # type: ignore[arg-type]
    both = {"effort": "fast@2026-10-16.0", "preset": "high"}
    calls: dict[str, Callable[[], Any]] = {
        "ctor": lambda: ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, **both).invoke("hi"),  # type: ignore[arg-type]
        "call": lambda: base.invoke("hi", **both),
        "bind": lambda: base.bind(preset="high").invoke("hi", effort="fast@2026-10-16.0"),
        "model_copy": lambda: (
            ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, preset="high")  # type: ignore[arg-type]
            .model_copy(update={"effort": "fast@2026-10-16.0"})
            .invoke("hi")
        ),
    }
    with pytest.warns(UserWarning, match=r"preset='high' is not sent: effort='fast@2026-10-16.0' takes precedence"):
        calls[way]()
    body = emu.requests[-1].body
    assert body["effort"] == "fast@2026-10-16.0" and "preset" not in body and "model" not in body
    published_schema.agent_request(body)


def test_the_emulator_serves_the_pinned_levels_model(emu: PerplexityEmulator) -> None:
    """A pinned level is its level on the emulator (the model it picks, not the default model)."""
    for effort in ("xhigh@2026-10-16.0", "xhigh"):
        llm = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, effort=effort)  # type: ignore[arg-type]
        assert llm.invoke("hi").response_metadata["model_name"] == PRESETS["xhigh"] != "perplexity/sonar"
