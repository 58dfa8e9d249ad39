"""A misspelt name gets a suggestion wherever names are taken, and a value of a wrong type, or an empty model, is
refused before sending, never coerced, naming the field, the value and what is accepted, on every class and path.

Each refusal is checked against the emulator: nothing reaches it (`refusal`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.runnables import ConfigurableField
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityDecision,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY, make
from tests.integration_tests.habits import refusal


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return city


class Answer(BaseModel):
    """An answer."""

    text: str


QUESTIONS = {"urgent": {"type": "noul", "instructions": "Urgent?"}}

# --- (1) a misspelt name: "Did you mean" wherever names are taken ---------------------------------------------


def _name_ways(emu: PerplexityEmulator) -> dict[str, Callable[[], Any]]:
    model = make(emu)
    return {
        "bind_tools kwargs, invoke": lambda: model.bind_tools([lookup], tool_choise="auto").invoke("hi"),
        "bind_tools kwargs, stream": lambda: list(model.bind_tools([lookup], tool_choise="auto").stream("hi")),
        "bind_tools kwargs, batch": lambda: model.bind_tools([lookup], tool_choise="auto").batch(["hi"]),
        "call kwargs": lambda: model.invoke("hi", tool_choise="auto"),
        "bind": lambda: model.bind(tool_choise="auto").invoke("hi"),
    }


@pytest.mark.parametrize(
    "way",
    [
        "bind_tools kwargs, invoke",
        "bind_tools kwargs, stream",
        "bind_tools kwargs, batch",
        "call kwargs",
        "bind",
    ],
)
def test_a_misspelt_call_kwarg_is_told_the_name_it_resembles(emu: PerplexityEmulator, way: str) -> None:
    message = refusal(emu, _name_ways(emu)[way])
    assert (
        message == "tool_choise is not a parameter of ChatPerplexityStrict (api='agent'). Did you mean 'tool_choice'?"
    )


@pytest.mark.asyncio
async def test_a_misspelt_call_kwarg_is_told_the_name_it_resembles_async(emu: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match=r"Did you mean 'tool_choice'\?$"):
        await make(emu).bind_tools([lookup], tool_choise="auto").ainvoke("hi")
    assert emu.requests == []


def test_a_misspelt_with_structured_output_argument_is_told_the_name_it_resembles(emu: PerplexityEmulator) -> None:
    model = make(emu)
    for run in (
        lambda: model.with_structured_output(Answer, methdo="json_schema"),
        lambda: model.bind(temperature=0.1).with_structured_output(Answer, methdo="json_schema"),
    ):
        message = refusal(emu, run)
        assert message == "methdo is not an argument of with_structured_output. Did you mean 'method'?"
    assert "Accepted: include_raw, method, schema, strict, tools." in refusal(
        emu, lambda: model.with_structured_output(Answer, zzz=1)
    )


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
def test_a_misspelt_extra_body_key_is_named_as_given_and_told_the_name_it_resembles(
    emu: PerplexityEmulator, api: str
) -> None:
    model = make(emu, api)
    for run in (
        lambda: model.invoke("hi", extra_body={"temprature": 0.1}),
        lambda: model.bind(extra_body={"temprature": 0.1}).invoke("hi"),
        lambda: list(model.stream("hi", extra_body={"temprature": 0.1})),
        lambda: make(emu, api, extra_body={"temprature": 0.1}),
    ):
        message = refusal(emu, run)
        assert "extra_body['temprature'] (taken as model_kwargs=...): model_kwargs['temprature'] " in message
        assert "so it would be refused or ignored. Did you mean 'temperature'?" in message


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
def test_a_misspelt_model_kwargs_key_is_told_the_name_it_resembles(emu: PerplexityEmulator, api: str) -> None:
    for run in (
        lambda: make(emu, api, model_kwargs={"temprature": 0.1}),
        lambda: make(emu, api).model_copy(update={"model_kwargs": {"temprature": 0.1}}),
    ):
        message = refusal(emu, run)
        assert "model_kwargs['temprature'] is not a field of Perplexity's published request" in message
        assert "(taken as" not in message and "refused or ignored. Did you mean 'temperature'?" in message


def test_a_misspelt_configurable_field_is_told_the_name_it_resembles(emu: PerplexityEmulator) -> None:
    field = ConfigurableField(id="t")
    for owner in (
        make(emu),
        PerplexitySearchRetriever(api_key=KEY, base_url=emu.base_url),
        PerplexitySearchResults(api_key=KEY, base_url=emu.base_url),
        PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=QUESTIONS),
    ):
        name = type(owner).__name__
        with pytest.raises(TypeError) as caught:
            owner.configurable_fields(modle=field)
        assert str(
            caught.value
        ) == f"modle is not an argument of {name}.configurable_fields. Did you mean 'model'?" or (
            str(caught.value).startswith(f"modle is not an argument of {name}.configurable_fields. Accepted: ")
        )
    with pytest.raises(TypeError, match=r"Did you mean 'temperature'\?$"):
        make(emu).configurable_fields(temprature=field)
    assert emu.requests == []


def test_a_misspelt_search_call_argument_is_told_the_name_it_resembles(emu: PerplexityEmulator) -> None:
    retriever = PerplexitySearchRetriever(api_key=KEY, base_url=emu.base_url)
    message = refusal(emu, lambda: retriever.invoke("q", serch_mode="web"))
    assert message == "serch_mode is not a Search API field. Did you mean 'search_mode'?"


@pytest.mark.parametrize("way", ["invoke", "ainvoke"])
def test_a_misspelt_decision_call_argument_is_told_the_name_it_resembles(emu: PerplexityEmulator, way: str) -> None:
    import asyncio

    decision = PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=QUESTIONS)
    run = (
        (lambda: decision.invoke("x", modle="m"))
        if way == "invoke"
        else (lambda: asyncio.run(decision.ainvoke("x", modle="m")))
    )
    with pytest.raises(TypeError) as caught:
        run()
    assert str(caught.value).endswith(
        "not a per-call setting of PerplexityDecision; accepted: questions, model. Did you mean 'model'?"
    )
    assert emu.requests == []


# --- (2) a value of a wrong type, or an empty model: refused before sending, never coerced ------------------

WRONG_TYPES = [
    ("streaming", "no", "streaming='no': expected True or False."),
    ("streaming", 1, "streaming=1: expected True or False."),
    ("raise_on_length", 1, "raise_on_length=1: expected True or False."),
    ("disable_streaming", 1, "disable_streaming=1: expected True or False or 'tool_calling'."),
    ("verbose", "yes", "verbose='yes': expected True or False."),
    ("cache", "yes", "cache='yes': expected an instance of BaseCache or True or False or None."),
    ("tags", "x", "tags='x': expected a valid list or None."),
    ("metadata", [1], "metadata=[1]: expected a valid dictionary or None."),
    ("name", 5, "name=5: expected a valid string or None."),
    ("profile", "x", "profile='x': expected a valid dictionary or None."),
    ("api", "sonar", "api='sonar': expected 'agent' or 'chat_completions'."),
    ("model", 5, "model=5 is not accepted: expected a model name, not empty nor blank ('perplexity/sonar', 'sonar')."),
    ("model", "", "model='' is not accepted: expected a model name, not empty nor blank"),
    ("model", " ", "model=' ' is not accepted: expected a model name, not empty nor blank"),
    ("max_input_tokens", "5", "max_input_tokens='5': expected an integer >= 0 (0: no compaction) or None."),
    ("rules", "x", "rules='x': expected a list or tuple of callable normalizer rules."),
    ("rules", ["x"], "rules=['x']: expected a list or tuple of callable normalizer rules."),
    ("token_counter", "x", "token_counter='x': expected a callable (text or messages -> int)"),
]


@pytest.mark.parametrize(("name", "value", "words"), WRONG_TYPES, ids=[f"{n}={v!r}" for n, v, _ in WRONG_TYPES])
def test_a_chat_model_field_of_a_wrong_type_is_refused_naming_it(
    emu: PerplexityEmulator, name: str, value: Any, words: str
) -> None:
    for run in (
        lambda: ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, **{name: value}).invoke("hi"),
        lambda: make(emu).model_copy(update={name: value}).invoke("hi"),
        lambda: (
            make(emu)
            .configurable_fields(**{name: ConfigurableField(id="f")})
            .invoke("hi", config={"configurable": {"f": value}})
        ),
    ):
        assert words in refusal(emu, run)


@pytest.mark.parametrize("model", ["", " ", 5])
@pytest.mark.parametrize("api", ["agent", "chat_completions"])
def test_an_empty_model_in_a_call_is_refused_before_sending(emu: PerplexityEmulator, api: str, model: Any) -> None:
    chat = make(emu, api)
    words = f"model={model!r} is not accepted: expected a model name, not empty nor blank"
    for run in (
        lambda: chat.invoke("hi", model=model),
        lambda: list(chat.stream("hi", model=model)),
        lambda: chat.bind(model=model).batch(["hi"]),
        *([lambda: chat.submit_batch(["hi"], model=model)] if api == "agent" else []),
    ):
        assert words in refusal(emu, run)


def test_a_decision_model_that_is_empty_is_refused(emu: PerplexityEmulator) -> None:
    decision = PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=QUESTIONS)
    for run in (
        lambda: PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=QUESTIONS, model=" "),
        lambda: decision.invoke("x", model=""),
    ):
        assert "expected a decision model name, neither empty nor blank" in refusal(emu, run)


@pytest.mark.parametrize(
    ("cls", "name", "value", "words"),
    [
        (PerplexitySearchResults, "verbose", "no", "verbose='no': expected True or False."),
        (PerplexitySearchResults, "return_direct", "no", "return_direct='no': expected True or False."),
        (PerplexitySearchResults, "content_as", "txt", "content_as='txt': expected 'text' or 'results'."),
        (PerplexitySearchRetriever, "tags", "x", "tags='x': expected a valid list or None."),
        (PerplexityEmbeddings, "chunk_size", "5", "chunk_size='5': expected a valid integer."),
    ],
)
def test_a_search_or_embeddings_field_of_a_wrong_type_is_refused_naming_it(
    emu: PerplexityEmulator, cls: type, name: str, value: Any, words: str
) -> None:
    assert words in refusal(emu, lambda: cls(api_key=KEY, base_url=emu.base_url, **{name: value}))
