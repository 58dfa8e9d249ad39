"""Issue 18, class 6: settings as Perplexity documents them and as `ChatOpenAI` users type them.

Each setting is accepted and sent as Perplexity's published request takes it,
or refused at construction with an error naming the argument.
"""

from __future__ import annotations

import math
from typing import Any

import httpx
import openai
import pytest

from langchain_perplexity_strict import ChatPerplexityStrict, PerplexityEmbeddings, PerplexitySearchRetriever
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import KEY, make
from tests.integration_tests.habits import MODES, SURFACES, run


@pytest.mark.parametrize("suffix", ["/v1", "/v1/"])
@pytest.mark.parametrize("api", SURFACES)
def test_a_base_url_ending_in_v1(emu: PerplexityEmulator, api: str, suffix: str) -> None:
    model = ChatPerplexityStrict(api=api, api_key=KEY, base_url=emu.base_url + suffix,  # type: ignore[arg-type]
                                 model="perplexity/sonar" if api == "agent" else "sonar")  # fmt: skip
    outcome = run(model, emu, api, "invoke", "Hello")
    assert outcome.error is None, outcome.error
    assert emu.requests[-1].path in ("/v1/responses", "/chat/completions")  # not /v1/v1/...


DATES = ("search_after_date_filter", "search_before_date_filter",
         "last_updated_after_filter", "last_updated_before_filter")  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
@pytest.mark.parametrize("name", DATES)
@pytest.mark.parametrize("value", ["3/1/2025", "03/01/2025", "12/31/2025", "1/9/2025"])
def test_date_filters_in_perplexitys_documented_form(emu: PerplexityEmulator, name: str, value: str, api: str,
                                                     mode: str) -> None:  # fmt: skip
    outcome = run(make(emu, api, **{name: value}), emu, api, mode, "News?")
    assert outcome.error is None, outcome.error
    assert value in outcome.text


@pytest.mark.parametrize("value", ["2025-03-01", "13/1/2025", "3/32/2025", "yesterday"])
def test_dates_in_another_form_are_refused_naming_the_filter(emu: PerplexityEmulator, value: str) -> None:
    with pytest.raises(ValueError, match="search_after_date_filter"):
        make(emu, search_after_date_filter=value)


@pytest.mark.parametrize("mode", MODES)
def test_chat_completions_without_a_model_uses_a_sonar_model(emu: PerplexityEmulator, mode: str) -> None:
    model = ChatPerplexityStrict(api="chat_completions", api_key=KEY, base_url=emu.base_url)  # type: ignore[arg-type]
    outcome = run(model, emu, "chat_completions", mode, "Hello")
    assert outcome.error is None, outcome.error
    assert outcome.body is not None and outcome.body["model"] == "sonar"


@pytest.mark.parametrize("mode", MODES)
def test_a_fallback_chain_gets_max_output_tokens_when_a_member_needs_it(emu: PerplexityEmulator, mode: str) -> None:
    model = make(emu, models=["perplexity/sonar", "anthropic/claude-sonnet-4-5"])
    outcome = run(model, emu, "agent", mode, "Hello")
    assert outcome.error is None, outcome.error
    assert outcome.body is not None and outcome.body.get("max_output_tokens")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
def test_stream_usage_is_accepted(emu: PerplexityEmulator, api: str, mode: str) -> None:
    outcome = run(make(emu, api, stream_usage=True), emu, api, mode, "Hello")
    assert outcome.error is None, outcome.error
    assert outcome.answer.usage_metadata


BAD_VALUES: list[tuple[str, Any]] = [
    ("temperature", -0.5), ("top_p", -0.1), ("max_tokens", 0), ("max_tokens", -5), ("n", 0), ("n", -1),
    ("max_retries", -1), ("timeout", 0), ("timeout", -3), ("max_input_tokens", -1), ("max_steps", 0),
    ("search_max_tokens", 0), ("search_max_tokens_per_page", -1),
]  # fmt: skip


@pytest.mark.parametrize(("name", "value"), BAD_VALUES, ids=[f"{n}={v}" for n, v in BAD_VALUES])
def test_negative_or_zero_values_are_refused_naming_the_argument(
    emu: PerplexityEmulator, name: str, value: Any
) -> None:
    with pytest.raises(ValueError, match=name):
        make(emu, **{name: value})


TIMEOUTS: list[Any] = [3, 2.5, (5, 10), (2.0, 30.0), httpx.Timeout(10, connect=2), httpx.Timeout(None, read=5)]
BAD_TIMEOUTS: list[Any] = [(5,), (5, 10, 20, 30, 40), (0, 10), (5, -1), (5, math.inf), httpx.Timeout(10, connect=-1),
                           httpx.Timeout(math.nan), "10", True, math.inf]  # fmt: skip


@pytest.mark.parametrize("timeout", TIMEOUTS, ids=repr)
def test_every_timeout_form_chatopenai_takes_is_accepted_and_reaches_the_client(
    emu: PerplexityEmulator, timeout: Any
) -> None:
    """ChatOpenAI's `timeout: float | tuple[float, float] | Any` (an httpx.Timeout), on the chat model and
    the search and embeddings classes alike (one check)."""
    model = make(emu, timeout=timeout)
    assert model.invoke("Hello").content
    sent = model.transport.chat_openai.root_client.timeout
    if isinstance(timeout, (int, float)):
        assert sent == timeout
    else:  # the client's own library's Timeout (httpx2's from openai 3), with the same parts
        parts = httpx.Timeout(timeout)
        assert isinstance(sent, openai.Timeout)
        assert (sent.connect, sent.read, sent.write, sent.pool) == (parts.connect, parts.read, parts.write, parts.pool)
    assert PerplexitySearchRetriever(api_key="k", base_url=emu.base_url, timeout=timeout).timeout == timeout


@pytest.mark.parametrize("timeout", BAD_TIMEOUTS, ids=repr)
def test_a_bad_timeout_is_refused_naming_it_on_every_class(emu: PerplexityEmulator, timeout: Any) -> None:
    for build in (lambda: make(emu, timeout=timeout),
                  lambda: PerplexitySearchRetriever(api_key="k", base_url=emu.base_url, timeout=timeout)):  # fmt: skip
        with pytest.raises(ValueError, match=r"timeout=.*\(connect, read\) pair"):
            build()


BAD_BASE_URLS = ["not a url", "", "ftp://host", "http://", "api.perplexity.ai", "/v1"]


@pytest.mark.parametrize("base_url", BAD_BASE_URLS, ids=repr)
def test_a_base_url_that_is_not_a_url_is_refused_naming_it_on_every_class(base_url: str) -> None:
    """One check for the chat model, search and embeddings: at construction, not as a connection error later."""
    for build in (lambda: ChatPerplexityStrict(api_key="k", base_url=base_url),
                  lambda: PerplexitySearchRetriever(api_key="k", base_url=base_url),
                  lambda: PerplexityEmbeddings(api_key="k", base_url=base_url)):  # fmt: skip
        with pytest.raises(ValueError, match=r"base_url=.* is not a URL: expected http:// or https://"):
            build()


@pytest.mark.parametrize("mode", MODES)
def test_a_timeout_is_never_reported_as_invalid_json(emu: PerplexityEmulator, mode: str) -> None:
    model = make(emu, timeout=0.05, max_retries=0)
    emu.inject(Fault("delay", seconds=0.5))
    with pytest.raises(Exception) as raised:
        model.invoke("Hello") if mode == "invoke" else list(model.stream("Hello"))
    assert "not valid JSON" not in str(raised.value)
    assert "time" in str(raised.value).lower()


def test_chatopenais_argument_names_are_taken_on_every_class(emu: PerplexityEmulator) -> None:
    """An app that pointed ChatOpenAI (or OpenAIEmbeddings) at Perplexity keeps its argument names."""
    habits = {"openai_api_key": KEY, "openai_api_base": emu.base_url, "request_timeout": 7.0}
    model = ChatPerplexityStrict(model_name="perplexity/sonar", **habits)  # type: ignore[call-arg]
    assert (model.model, model.base_url, model.timeout) == ("perplexity/sonar", emu.base_url, 7.0)
    assert model.api_key is not None and model.api_key.get_secret_value() == KEY
    assert model.invoke("Hello").content
    for other in (PerplexitySearchRetriever(**habits), PerplexityEmbeddings(**habits)):  # type: ignore[call-arg]
        assert (other.base_url, other.timeout) == (emu.base_url, 7.0)
        assert other.api_key is not None and other.api_key.get_secret_value() == KEY
    assert PerplexityEmbeddings(**habits).embed_query("Hello")  # type: ignore[call-arg]
