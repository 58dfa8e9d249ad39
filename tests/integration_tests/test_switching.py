"""What a langchain-perplexity 1.4.2 app meets when it switches by docs/migration.md (a stranger's findings).

- `web_search_options={"image_search_relevance_enhanced": True}` (1.4.2's `WebSearchOptions` key): sent as
  Perplexity's published `web_search_options.image_results_enhanced_relevance` on chat completions; refused on
  the Agent API with an error that names the key as written, then the published name;
- a switch that turns search off (`disable_search=True`, `web_search=False`, `tool_choice="none"`) with search
  settings that nothing would carry: refused before sending on the Agent API, naming both, whichever path each
  came by; chat completions take both (`ApiChatCompletionsRequestInput` has both fields), so both are sent;
- `PerplexitySearchResults` given an argument it lacks (`max_result`): a direct call raises `ValueError` with
  "Did you mean 'max_results'?"; a model's tool call gets the same words back as the tool's answer;
- the rows of `migration_rows_switching.py`: structured output's methods and options, `streaming=True`,
  `model_kwargs`, tools on chat completions, and what each Sonar model name becomes on the Agent API.

Every body is the one the emulator received (it refuses one the published models refuse).
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import ConfigurableField
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict, PerplexitySearchResults, web_search_tool
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY, make
from tests.integration_tests.habits import refusal

Q = "What changed in Python 3.13?"
APIS = ("agent", "chat_completions")


def _sent(emu: PerplexityEmulator) -> dict[str, Any]:
    """The body of the one request `emu` received since it was cleared."""
    bodies = [r.body for r in emu.requests if r.kind in ("create", "chat")] or [r.body for r in emu.requests]
    assert bodies, "nothing was sent"
    return bodies[-1]


def _paths(emu: PerplexityEmulator, api: str, **given: Any) -> dict[str, Callable[[], Any]]:
    """Every way a setting reaches a call: constructor, call, `.bind`, `model_copy`, `configurable_fields`,
    and a call through `bind_tools` (a function tool on the Agent API; chat completions have none)."""
    names = sorted(given)
    configurable = make(emu, api).configurable_fields(
        **{name: ConfigurableField(id=name) for name in names if name in ChatPerplexityStrict.model_fields}
    )
    runs: dict[str, Callable[[], Any]] = {
        "constructor": lambda: make(emu, api, **given).invoke(Q),
        "call": lambda: make(emu, api).invoke(Q, **given),
        "bind": lambda: make(emu, api).bind(**given).invoke(Q),
        "model_copy": lambda: make(emu, api).model_copy(update=given).invoke(Q),
        "ainvoke": lambda: asyncio.run(make(emu, api, **given).ainvoke(Q)),
        "stream": lambda: list(make(emu, api, **given).stream(Q)),
    }
    if all(name in ChatPerplexityStrict.model_fields for name in names):
        runs["configurable_fields"] = lambda: configurable.invoke(Q, config={"configurable": given})
    if api == "agent":
        runs["bind_tools"] = lambda: make(emu, api).bind_tools([add]).invoke(Q, **given)
    return runs


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


# -- 1. web_search_options={"image_search_relevance_enhanced": True} ----------------------------------------

OLD_KEY = {"image_search_relevance_enhanced": True}


def test_image_search_relevance_enhanced_is_sent_by_its_published_name_on_chat_completions(
    emu: PerplexityEmulator,
) -> None:
    """1.4.2's key is `WebSearchOptionsInput.image_results_enhanced_relevance` (perplexity.generated.api)."""
    for way, run in _paths(emu, "chat_completions", web_search_options=OLD_KEY).items():
        emu.clear()
        run()
        assert _sent(emu)["web_search_options"] == {"image_results_enhanced_relevance": True}, way


def test_image_search_relevance_enhanced_is_refused_on_the_agent_api_naming_the_key_as_written(
    emu: PerplexityEmulator,
) -> None:
    for way, run in _paths(emu, "agent", web_search_options=OLD_KEY).items():
        message = refusal(emu, run)
        assert "web_search_options['image_search_relevance_enhanced'] (" in message, (way, message)
        assert "web_search_options.image_results_enhanced_relevance" in message, way  # the published name
        assert "image_search" in message and "api='chat_completions'" in message, way  # what to do instead


def test_every_web_search_options_key_is_named_as_written_when_refused(emu: PerplexityEmulator) -> None:
    """The class: any key of a converted dict that the API refuses is named as the user wrote it."""
    message = refusal(emu, lambda: make(emu).invoke(Q, web_search_options={"search_type": "pro"}))
    assert "web_search_options['search_type'] (" in message and "'pro'" in message
    message = refusal(emu, lambda: make(emu).bind(reasoning={"effort": "max"}).invoke(Q))
    assert "reasoning['effort'] (" in message and "reasoning_effort" in message
