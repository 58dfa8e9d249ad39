"""Every warning names the line of the caller's code that made the call, also when the call runs elsewhere.

The forms, from grepping the package for `warn(`, `OncePerOwner` and `warnings.warn`: a model's once-per-owner
notices (a Sonar name on the Agent API), the normalizer's warnings (a newest message that loses a block), and
`init_chat_model("perplexity:...")` served without langchain-perplexity. The ways a call runs off the caller's
stack: a sync `batch` (langchain-core's thread pool, whose threads copy the caller's context) with `n>1` answers
in threads of their own, through a binding, a config, `configurable_fields` and a chain; `ainvoke` (langchain-core
gathers the generations in tasks); `abatch` (tasks), through a binding and a chain; a langchain agent's model
(LangChain's and LangGraph's frames). `-W error` still raises the warning out of the call.
"""

from __future__ import annotations

import asyncio
import sys
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.runnables import ConfigurableField, RunnablePassthrough

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY, make

SONAR = "is a Sonar chat-completions name"
VIDEO = {"type": "video", "url": "https://v.example/c.mp4", "mime_type": "video/mp4"}
WARNINGS: dict[str, tuple[dict[str, Any], Any, str]] = {
    "a Sonar name on the Agent API": ({"model": "sonar-pro"}, "hi", SONAR),
    "a lost block": ({}, [HumanMessage([{"type": "text", "text": "hi"}, VIDEO])], "lost content block"),
}

SYNC: dict[str, Callable[[Any, Any], Any]] = {
    "batch": lambda model, x: model.batch([x, x]),
    "batch, n=2": lambda model, x: model.batch([x, x], n=2),
    "bound": lambda model, x: model.bind(temperature=0.5).batch([x, x]),
    "configured": lambda model, x: model.with_config(tags=["t"]).batch([x, x]),
    "configurable": lambda model, x: model.configurable_fields(temperature=ConfigurableField(id="t")).batch([x, x]),
    "chain": lambda model, x: (RunnablePassthrough() | model).batch([x, x]),
}
ASYNC: dict[str, Callable[[Any, Any], Any]] = {
    "ainvoke": lambda model, x: model.ainvoke(x),
    "abatch": lambda model, x: model.abatch([x, x]),
    "abatch, n=2": lambda model, x: model.abatch([x, x], n=2),
    "bound": lambda model, x: model.bind(temperature=0.5).abatch([x, x]),
    "chain": lambda model, x: (RunnablePassthrough() | model).abatch([x, x]),
}


def _next_line() -> int:
    """The line after the caller's."""
    return sys._getframe(1).f_lineno + 1


def _where(caught: list[warnings.WarningMessage], says: str) -> set[tuple[str, int]]:
    assert any(says in str(w.message) for w in caught), [str(w.message) for w in caught]
    return {(w.filename, w.lineno) for w in caught if says in str(w.message)}


@pytest.mark.parametrize("warning", WARNINGS)
@pytest.mark.parametrize("form", SYNC)
def test_a_batchs_warnings_name_the_line_that_called_it(emu: PerplexityEmulator, form: str, warning: str) -> None:
    settings, given, says = WARNINGS[warning]
    call = SYNC[form]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(make(emu, **settings), given)
    assert _where(caught, says) == {(__file__, call.__code__.co_firstlineno)}


@pytest.mark.parametrize("warning", WARNINGS)
@pytest.mark.parametrize("form", ASYNC)
async def test_async_calls_warn_at_the_line_that_awaited_them(emu: PerplexityEmulator, form: str, warning: str) -> None:
    settings, given, says = WARNINGS[warning]
    model = make(emu, **settings)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = _next_line()
        await ASYNC[form](model, given)
    assert _where(caught, says) == {(__file__, line)}


def test_an_agents_model_warns_at_the_line_that_ran_the_agent(emu: PerplexityEmulator) -> None:
    agent = create_agent(make(emu, model="sonar-pro"), tools=[])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = _next_line()
        agent.invoke({"messages": [("user", "hi")]})
    assert _where(caught, SONAR) == {(__file__, line)}


def test_the_legacy_provider_warns_at_the_line_that_built_the_model(emu: PerplexityEmulator) -> None:
    """A configurable `init_chat_model` builds the model inside its call, deeper in LangChain's code."""
    from langchain.chat_models import init_chat_model

    import langchain_perplexity_strict  # noqa: F401  # registers the providers

    model = init_chat_model(
        "perplexity:sonar", configurable_fields=("temperature",), api_key=KEY, base_url=emu.base_url
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = _next_line()
        model.batch(["hi", "ho"])
    assert _where(caught, "langchain-perplexity's, which is not installed") == {(__file__, line)}


def test_warnings_as_errors_raise_out_of_a_batch_and_warn_again_after(emu: PerplexityEmulator) -> None:
    model = make(emu, model="sonar-pro")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match=SONAR):
            model.batch(["hi", "ho"])
        with pytest.raises(UserWarning, match=SONAR):
            asyncio.run(model.abatch(["hi", "ho"]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = _next_line()
        model.batch(["hi", "ho"])
    assert _where(caught, SONAR) == {(__file__, line)}
