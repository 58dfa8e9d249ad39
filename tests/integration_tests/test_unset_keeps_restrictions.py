"""A value that means "unset", given over a setting a model or a binding holds, keeps the held one.

The forms test_restrictions_on_every_path.py covers: a search setting given by the constructor, a call,
`bind`, `model_copy`, `configurable_fields` or `init_chat_model` (a value, never an unset one); a bound
`web_search` or a replacing built-in tool beside a model's search settings; `PerplexitySearchResults`'
filters. The forms it leaves out, all here:

- the held setting: every Perplexity parameter a model sends (`HELD`: the search filters, options and
  token limits, `max_tokens`, `temperature`..., `instructions`, `models`, `skills`, `web_search=False`,
  `disable_search=True`...) and `stop`; a binding's `tools` (a `web_search` with its own filters),
  `tool_choice` and `response_format` (`with_structured_output`);
- the unset value: `None`, `[]`, `{}`, `""`, and the OpenAI SDK's sentinels (`NOT_GIVEN`, `not_given`,
  `omit`: openai 2 and 3 export all three); `False` over a held `disable_search=True` lifts it and is
  ambiguous, so it is refused naming both, while `False` for a setting that takes no bool is refused as such;
- the path: a call's keyword (invoke, stream, batch, ainvoke, astream), `bind` over the model, `bind` over
  a binding that holds it and a call of that binding, `with_config(configurable=...)` of
  `configurable_fields`, and a model from `init_chat_model`.

`model_copy(update={name: None})` builds another model, as the constructor would: it is the way to lift a
setting, and is not covered here. `init_chat_model(..., configurable_fields=...)` rebuilds the model
from langchain's own `{**defaults, **configured}` (langchain/chat_models/base.py), out of this package's reach.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import openai
import pytest
from langchain.chat_models import init_chat_model
from langchain_core.runnables import ConfigurableField
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict._request._model_arguments import HELD
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY
from tests.integration_tests.habits import refusal
from tests.integration_tests.test_contract import AGENT_VALUES

UNSET = {
    "None": None,
    "[]": [],
    "{}": {},
    "''": "",
    "NOT_GIVEN": openai.NOT_GIVEN,
    "not_given": openai.not_given,
    "omit": openai.omit,
}
# Each held setting at a value that changes the body (`web_search=True` and `disable_search=False` are defaults).
HOLDS = {n: AGENT_VALUES[n] for n in HELD if n in AGENT_VALUES and n not in ("stop", "background")}
HOLDS.update(web_search=False, disable_search=True)
_MODELS: dict[tuple[str, str], ChatPerplexityStrict] = {}


def _model(emu: PerplexityEmulator, **kw: Any) -> ChatPerplexityStrict:
    """One model per emulator and settings: binding, calling or configuring one leaves it as it was."""
    key = (emu.base_url, repr(sorted(kw.items())))
    if key not in _MODELS:
        _MODELS[key] = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, **kw)  # type: ignore[arg-type]
    return _MODELS[key]


def _sent(emu: PerplexityEmulator, run: Callable[[], Any]) -> dict[str, Any]:
    emu.clear()
    run()
    (create,) = [r for r in emu.requests if r.kind == "create"]
    return {k: v for k, v in create.body.items() if k != "stream"}  # the same request, streamed or not


def test_every_held_setting_is_tried() -> None:
    """A new parameter sent to Perplexity is held, and tried here, without a new line."""
    assert set(HOLDS) == set(HELD) - {"stop", "background"} - {n for n in HELD if n not in AGENT_VALUES}
    assert {"search_domain_filter", "max_tokens", "user_location", "instructions", "web_search"} <= set(HOLDS)


def _over_the_model(model: Any, name: str, unset: Any) -> dict[str, Callable[[], Any]]:
    field = ConfigurableField(id="setting")
    return {
        "invoke": lambda: model.invoke("hi", **{name: unset}),
        "bind": lambda: model.bind(**{name: unset}).invoke("hi"),
        "configurable": lambda: model.configurable_fields(**{name: field}).invoke(
            "hi", config={"configurable": {"setting": unset}}
        ),
        "with_config": lambda: (
            model.configurable_fields(**{name: field}).with_config(configurable={"setting": unset}).invoke("hi")
        ),
    }


def _over_a_binding(binding: Any, name: str, unset: Any) -> dict[str, Callable[[], Any]]:
    return {
        "binding invoke": lambda: binding.invoke("hi", **{name: unset}),
        "binding bind": lambda: binding.bind(**{name: unset}).invoke("hi"),
        "binding batch": lambda: binding.batch(["hi"], **{name: unset}),
    }


@pytest.mark.parametrize("unset", list(UNSET.values()), ids=list(UNSET))
@pytest.mark.parametrize("name", sorted(HOLDS))
def test_an_unset_value_keeps_the_held_setting(emu: PerplexityEmulator, name: str, unset: Any) -> None:
    model, value = _model(emu, **{name: HOLDS[name]}), HOLDS[name]
    held = _sent(emu, lambda: model.invoke("hi"))
    assert held != _sent(emu, lambda: _model(emu).invoke("hi")), "the setting changes the body"
    for way, run in _over_the_model(model, name, unset).items():
        assert _sent(emu, run) == held, way
    binding = _model(emu).bind(**{name: value})
    for way, run in _over_a_binding(binding, name, unset).items():
        assert _sent(emu, run) == held, way


async def _async_paths(model: Any, unset: dict[str, Any]) -> None:
    await model.ainvoke("hi", **unset)
    async for _ in model.astream("hi", **unset):
        pass


@pytest.mark.parametrize("unset", list(UNSET.values()), ids=list(UNSET))
def test_every_entry_point_keeps_it(emu: PerplexityEmulator, unset: Any) -> None:
    """stream, batch, ainvoke, astream, and a model from `init_chat_model`, over a filter and a token limit."""
    settings = {"search_domain_filter": ["nature.com"], "max_tokens": 50}
    model = _model(emu, **settings)
    given = dict.fromkeys(settings, unset)
    expected = _sent(emu, lambda: model.invoke("hi"))
    made = init_chat_model("perplexity_strict:perplexity/sonar", api_key=KEY, base_url=emu.base_url, **settings)
    runs = {
        "stream": lambda: list(model.stream("hi", **given)),
        "batch": lambda: model.batch(["hi"], **given),
        "init_chat_model": lambda: made.invoke("hi", **given),
    }
    for way, run in runs.items():
        assert _sent(emu, run) == expected, way
    emu.clear()
    asyncio.run(_async_paths(model, given))
    creates = [r.body for r in emu.requests if r.kind == "create"]
    assert [{k: v for k, v in b.items() if k != "stream"} for b in creates] == [expected, expected]


def _answer_text(emu: PerplexityEmulator, run: Callable[[], Any]) -> str:
    emu.clear()
    return str(run().content)


@pytest.mark.parametrize("unset", list(UNSET.values()), ids=list(UNSET))
def test_an_unset_stop_keeps_the_held_stop(emu: PerplexityEmulator, unset: Any) -> None:
    """`stop` is applied on the client: the answer is cut at the held sequence."""
    whole = _answer_text(emu, lambda: _model(emu).invoke("hi"))
    word = whole.split()[1]
    model = _model(emu, stop=[word])
    cut = _answer_text(emu, lambda: model.invoke("hi"))
    assert cut != whole and word not in cut
    runs = {
        "invoke": lambda: model.invoke("hi", stop=unset),
        "bind": lambda: model.bind(stop=unset).invoke("hi"),
        "binding": lambda: _model(emu).bind(stop=[word]).invoke("hi", stop=unset),
    }
    for way, run in runs.items():
        assert _answer_text(emu, run) == cut, way


class Answer(BaseModel):
    """An answer."""

    text: str


TOOL = {"type": "web_search", "filters": {"search_domain_filter": ["nature.com"]}}


def _function(a: int) -> int:
    """Double a."""
    return 2 * a


BOUND = {
    "tools": lambda m: m.bind_tools([TOOL]),
    "tool_choice": lambda m: m.bind_tools([TOOL, _function], tool_choice="required"),
    "response_format": lambda m: m.with_structured_output(Answer).first,
}


@pytest.mark.parametrize("unset", list(UNSET.values()), ids=list(UNSET))
@pytest.mark.parametrize("name", sorted(BOUND))
def test_an_unset_call_value_keeps_what_a_binding_holds(emu: PerplexityEmulator, name: str, unset: Any) -> None:
    """A bound `web_search`'s own filters, a bound `tool_choice`, a structured output's `response_format`."""
    binding = BOUND[name](_model(emu))
    held = _sent(emu, lambda: binding.invoke("hi"))
    assert held != _sent(emu, lambda: _model(emu).invoke("hi")), "the binding changes the body"
    runs = {
        **_over_a_binding(binding, name, unset),
        "stream": lambda: list(binding.stream("hi", **{name: unset})),
        "ainvoke": lambda: asyncio.run(binding.ainvoke("hi", **{name: unset})),
    }
    for way, run in runs.items():
        assert _sent(emu, run) == held, way


def test_false_over_a_held_disable_search_is_refused_naming_both(emu: PerplexityEmulator) -> None:
    model = _model(emu, disable_search=True)
    runs = {
        "invoke": lambda: model.invoke("hi", disable_search=False),
        "bind": lambda: model.bind(disable_search=False).invoke("hi"),
        "binding": lambda: _model(emu).bind(disable_search=True).invoke("hi", disable_search=False),
    }
    for way, run in runs.items():
        message = refusal(emu, run)
        assert "disable_search=False" in message and "disable_search=True" in message, way


@pytest.mark.parametrize("name", sorted(n for n, v in HOLDS.items() if not isinstance(v, bool)))
def test_false_for_a_setting_that_takes_no_bool_is_refused(emu: PerplexityEmulator, name: str) -> None:
    model = _model(emu, **{name: HOLDS[name]})
    assert name in refusal(emu, lambda: model.invoke("hi", **{name: False}))


RETRIEVER_HELD = {"search_domain_filter": ["python.org"], "search_recency_filter": "week", "country": "US", "k": 3}


@pytest.mark.parametrize("unset", list(UNSET.values()), ids=list(UNSET))
@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_the_retrievers_call_keeps_what_it_was_built_with(emu: PerplexityEmulator, mode: str, unset: Any) -> None:
    """The search retriever's call-time fields merge by the chat model's rule."""
    from langchain_perplexity_strict import PerplexitySearchRetriever

    retriever = PerplexitySearchRetriever(api_key=KEY, base_url=emu.base_url, **RETRIEVER_HELD)  # type: ignore[arg-type]
    given = dict.fromkeys(RETRIEVER_HELD, unset)
    if mode == "invoke":
        retriever.invoke("q", **given)
    else:
        asyncio.run(retriever.ainvoke("q", **given))
    sent = emu.requests[-1].body
    assert sent["search_domain_filter"] == ["python.org"] and sent["search_recency_filter"] == "week"
    assert (sent["country"], sent["max_results"]) == ("US", 3)
