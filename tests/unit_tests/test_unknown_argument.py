"""A misspelt argument is refused in one line, as Python refuses an unexpected keyword, on every class."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)

CASES = [
    (ChatPerplexityStrict, "temprature", "temperature"),
    (ChatPerplexityStrict, "presense_penalty", "presence_penalty"),
    (PerplexitySearchRetriever, "max_result", "max_results"),
    (PerplexitySearchResults, "max_result", "max_results"),
    (PerplexityEmbeddings, "dimension", "dimensions"),
    (PerplexityContextualizedEmbeddings, "dimension", "dimensions"),
]


@pytest.mark.parametrize(("cls", "typo", "name"), CASES, ids=[f"{c.__name__}-{t}" for c, t, _ in CASES])
def test_a_misspelt_argument_is_one_short_line_naming_the_argument_and_the_fix(cls: type, typo: str, name: str) -> None:
    with pytest.raises(TypeError) as caught:
        cls(api_key="k", **{typo: 3})
    error = caught.value
    assert isinstance(error, ValueError) and not isinstance(error, ValidationError)
    assert str(error) == f"{typo}=3 is not an argument of {cls.__name__}. Did you mean {name!r}?"
    assert len(str(error)) <= 300 and "\n" not in str(error)


def test_an_unknown_argument_with_no_near_name_lists_the_accepted_ones() -> None:
    with pytest.raises(TypeError, match=r"^zzz=1 is not an argument of PerplexityEmbeddings\. Accepted: .*dimensions"):
        PerplexityEmbeddings(api_key="k", zzz=1)


@pytest.mark.parametrize("way", ["call", "bind"])
def test_a_misspelt_call_argument_is_one_short_line_and_not_retryable(way: str) -> None:
    model = ChatPerplexityStrict(api_key="k", base_url="http://127.0.0.1:9")  # refused before any request
    run = (lambda: model.invoke("hi", temprature=1)) if way == "call" else model.bind(temprature=1).invoke
    with pytest.raises(ValueError) as caught:
        run("hi") if way == "bind" else run()  # type: ignore[call-arg]
    assert (
        str(caught.value)
        == "temprature=1 is not a parameter of ChatPerplexityStrict (api='agent'). Did you mean 'temperature'?"
    )
    assert caught.value.is_retryable is False  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "value"), [("timeout", 5), ("max_retries", 1), ("base_url", "http://127.0.0.1:8")])
def test_a_connection_setting_in_a_call_says_it_is_set_on_the_model(name: str, value: object) -> None:
    model = ChatPerplexityStrict(api_key="k", base_url="http://127.0.0.1:9")
    with pytest.raises(
        ValueError, match=rf"{name} is set on the model: model\.model_copy\(update=\{{'{name}': \.\.\.\}}\)"
    ):
        model.invoke("hi", **{name: value})
    assert getattr(model.model_copy(update={name: value}), name) == value  # the suggestion works as written
