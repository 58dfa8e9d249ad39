"""A key no HTTP header carries is refused when it is set; a server's echo of a sent value is never chained.

The stranger's report: `ChatPerplexityStrict(api_key=KEY + "\\n").invoke("hi")` (a key read from a file) reached
h11, whose `Illegal header value b'Bearer <key>\\n'` showed the key in the chained cause, in any traceback and in
httpcore's DEBUG log; a non-ASCII key was reported as "Perplexity sent a body that is not valid JSON" though nothing
was sent; and `model=<key>`'s HTTP 400, whose message hid it, chained openai's own error, which repeats the body.

The forms:

- every public class that takes `api_key` (the chat model, the search retriever and tool, both embeddings classes,
  `PerplexityDecision`, `list_models` / `alist_models`), given a key h11 or httpx refuse (a trailing newline, CRLF,
  spaces or a tab at either end, a control character inside, non-ASCII) as `api_key`, each alias, a `SecretStr`,
  and `PPLX_API_KEY` / `PERPLEXITY_API_KEY`: refused when built, naming `api_key` and what is wrong, sending
  nothing; `model_copy`, `configurable_fields`, `init_chat_model` and assignment are in
  tests/unit_tests/test_connection_settings_every_path.py;
- the batch entry points (`submit_batch`, `asubmit_batch`, `get_batch`, `aget_batch`) of a model whose key was
  assigned after construction: refused before sending;
- a key-shaped `model` the server names in its 400: the chat model on both surfaces (invoke, ainvoke, stream,
  astream, batch, abatch, a background run's create), `PerplexityDecision`, `submit_batch`, and the embeddings
  classes' own refusal;
- a run's create answered 5xx with a body repeating the model, and a batch's error lines and validation errors
  repeating it: tests/unit_tests/test_transport_create.py and test_batches_results.py.

Each checks the error's text, every exception reachable through `__cause__` and `__context__` (str, repr, args),
the printed traceback, every log record at DEBUG and every warning.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityDecision,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
    alist_models,
    list_models,
)
from langchain_perplexity_strict.testing import PerplexityEmulator

KEY = "pplx-canary0123456789abcdef"
"""Shaped like a Perplexity key: where only its look says it is one (a model name), it is hidden by its look."""

BAD_KEYS: dict[str, tuple[str, str]] = {
    "a trailing newline": (KEY + "\n", "ends with a newline; strip it"),
    "a trailing CRLF": (KEY + "\r\n", "ends with a newline; strip it"),
    "a trailing space": (KEY + " ", "starts or ends with whitespace; strip it"),
    "a leading tab": ("\t" + KEY, "starts or ends with whitespace; strip it"),
    "a newline inside": (KEY[:5] + "\n" + KEY[5:], "holds a non-ASCII or control character"),
    "a NUL inside": (KEY[:5] + "\x00" + KEY[5:], "holds a non-ASCII or control character"),
    "a non-ASCII letter": (KEY + "\u00e9", "holds a non-ASCII or control character"),
    "a curly quote": ("\u201c" + KEY, "holds a non-ASCII or control character"),
}


QUESTIONS = {"ok": {"type": "noul", "criteria": {"true": "yes"}}}


def _decide(**settings: Any) -> Any:
    return PerplexityDecision(questions=QUESTIONS, **settings)


def _alist_models(**settings: Any) -> Any:
    return asyncio.run(alist_models(**settings))


BUILDERS: dict[str, Callable[..., Any]] = {
    "ChatPerplexityStrict": ChatPerplexityStrict,
    "PerplexitySearchRetriever": PerplexitySearchRetriever,
    "PerplexitySearchResults": PerplexitySearchResults,
    "PerplexityEmbeddings": PerplexityEmbeddings,
    "PerplexityContextualizedEmbeddings": PerplexityContextualizedEmbeddings,
    "PerplexityDecision": _decide,
    "list_models": list_models,
    "alist_models": _alist_models,
}
WAYS = [
    "api_key",
    "pplx_api_key",
    "perplexity_api_key",
    "openai_api_key",
    "SecretStr",
    "PPLX_API_KEY",
    "PERPLEXITY_API_KEY",
]


@pytest.fixture
def seen(caplog: pytest.LogCaptureFixture) -> Iterator[list[str]]:
    """What a test collects, plus every log record at DEBUG and every warning; none may hold the key."""
    caplog.set_level(logging.DEBUG)
    texts: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield texts
    texts += [str(w.message) for w in caught] + [caplog.text] + [str(r.__dict__) for r in caplog.records]
    leaks = [text[max(0, text.find(KEY[5:]) - 200) :][:300] for text in texts if KEY[5:] in text]
    assert not leaks, leaks


def chained(error: BaseException) -> list[str]:
    """The traceback as printed, and every exception under `error` (by `__cause__` or `__context__`) as text."""
    texts, todo, met = ["".join(traceback.format_exception(error))], [error], set()
    while todo:
        each = todo.pop()
        if each is None or id(each) in met:
            continue
        met.add(id(each))
        texts += [str(each), repr(each), repr(each.args)]
        todo += [each.__cause__, each.__context__]
    return texts


def failure(call: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as caught:
        result = call()
        if asyncio.iscoroutine(result):
            asyncio.run(result)
    return caught.value


CASES = [(bad, way) for bad, (key, _) in BAD_KEYS.items() for way in WAYS if not (way.isupper() and "\x00" in key)]
"""Each bad key each way (an environment variable cannot hold a NUL)."""


@pytest.mark.parametrize(("bad", "way"), CASES)
def test_a_key_no_header_carries_is_refused_when_set_whichever_way_it_comes(
    bad: str, way: str, emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch, seen: list[str]
) -> None:
    key, why = BAD_KEYS[bad]
    monkeypatch.delenv("PPLX_API_KEY", raising=False)
    monkeypatch.delenv("PERPLEXITY_API_KEY", raising=False)
    settings: dict[str, Any] = {"base_url": emu.base_url, "max_retries": 0}
    if way.isupper():
        monkeypatch.setenv(way, key)
    else:
        settings["api_key" if way == "SecretStr" else way] = SecretStr(key) if way == "SecretStr" else key
    for name, build in BUILDERS.items():
        error = failure(lambda build=build: build(**settings))
        assert isinstance(error, ValueError), (name, error)
        assert "api_key=" in str(error) and f"({why}" in str(error), (name, str(error))
        assert "printable ASCII" in str(error)  # what is accepted
        seen += chained(error)
    assert emu.requests == []  # nothing was sent


@pytest.mark.parametrize("entry", ["submit_batch", "asubmit_batch", "get_batch", "aget_batch"])
def test_a_key_assigned_later_is_refused_before_a_batch_is_sent(
    entry: str, emu: PerplexityEmulator, seen: list[str]
) -> None:
    model = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, max_retries=0)
    model.api_key = KEY + "\n"  # type: ignore[assignment]
    argument: Any = "batch_1" if entry.endswith("get_batch") else ["hi"]
    error = failure(lambda: getattr(model, entry)(argument))
    assert isinstance(error, ValueError) and "(ends with a newline; strip it)" in str(error)
    seen += chained(error)
    assert emu.requests == []


def test_the_strangers_call_is_refused_at_construction(seen: list[str]) -> None:
    with PerplexityEmulator() as emu:  # takes any key
        error = failure(lambda: ChatPerplexityStrict(api_key=KEY + "\n", base_url=emu.base_url).invoke("hi"))
        assert "api_key='***'" in str(error) and "(ends with a newline; strip it)" in str(error)
        error = failure(lambda: ChatPerplexityStrict(api_key="pplx-\u00e9", base_url=emu.base_url).invoke("hi"))
        assert "not valid JSON" not in str(error) and "holds a non-ASCII" in str(error)
        assert emu.requests == []
    seen += chained(error)


async def _astream(model: Any) -> Any:
    return [chunk async for chunk in model.astream("hi")]


CALLS: dict[str, Callable[[Any], Any]] = {
    "invoke": lambda m: m.invoke("hi"),
    "ainvoke": lambda m: m.ainvoke("hi"),
    "stream": lambda m: list(m.stream("hi")),
    "astream": _astream,
    "batch": lambda m: m.batch(["hi"]),
    "abatch": lambda m: m.abatch(["hi"]),
}


@pytest.mark.parametrize("how", list(CALLS))
@pytest.mark.parametrize("settings", [{}, {"api": "chat_completions"}, {"background": True}], ids=str)
def test_a_key_shaped_model_the_server_names_is_in_no_chained_error(
    settings: dict[str, Any], how: str, emu: PerplexityEmulator, seen: list[str]
) -> None:
    model = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, model=KEY, max_retries=0, **settings)
    error = failure(lambda: CALLS[how](model))
    assert "HTTP 400" in str(error) and "***" in str(error), str(error)
    seen += chained(error)


def test_a_key_shaped_model_of_the_other_classes_is_in_no_chained_error(
    emu: PerplexityEmulator, seen: list[str]
) -> None:
    decision = PerplexityDecision(api_key="test-key", base_url=emu.base_url, questions=QUESTIONS, model=KEY)
    chat = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, model=KEY, max_retries=0)
    for call in (lambda: decision.invoke("a state"), lambda: chat.submit_batch(["hi"])):
        error = failure(call)
        assert "HTTP 400" in str(error) and "***" in str(error), str(error)
        seen += chained(error)
    for cls in (PerplexityEmbeddings, PerplexityContextualizedEmbeddings):  # refused before sending, by name
        error = failure(lambda cls=cls: cls(api_key="test-key", base_url=emu.base_url, model=KEY))
        assert "model='***' is not accepted" in str(error)
        seen += chained(error)
