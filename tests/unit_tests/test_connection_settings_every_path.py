"""Issue 27, item 1: the connection settings are checked by one rule each, on every class and every path.

`api_key`, `base_url`, `timeout` and `max_retries` had four mechanisms (a key check in the chat model
and another in the search/embeddings base, `check_base_url` in the transport, `check_timeout`, and
`max_retries` twice). Now each has one rule (`_accepts.CONNECTION`) and one validator every class
inherits (`_connection_settings.PerplexitySettings`). The forms covered, for each bad value:

- every public class: `ChatPerplexityStrict`, `PerplexitySearchRetriever`, `PerplexitySearchResults`,
  `PerplexityEmbeddings`, `PerplexityContextualizedEmbeddings`;
- every way a setting reaches one: the constructor, `model_copy(update=...)` (pydantic's own skips
  validation: the search and embeddings classes took `timeout=-1` and `api_key=5` that way),
  `configurable_fields` (the chat model, the retriever and the search tool are runnables),
  `init_chat_model` (with `configurable_fields="any"` too), the environment (`PPLX_BASE_URL`, an
  empty `PPLX_API_KEY`), and an attribute set after construction (checked when the transport is rebuilt
  from it, by the same rules);
- a call or `.bind` of the chat model, and a retriever's call, which refuse a connection setting by name
  as no call-time argument.

Each refusal has the same message on every path and class (the missing key's names its class), and
never shows the credential: neither a key, nor a URL's user info or `?token=`, in the message, in
pydantic's `errors()`/`json()`, or in a chained exception.
"""

from __future__ import annotations

import functools
import re
import traceback
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from langchain.chat_models import init_chat_model
from langchain_core.runnables import ConfigurableField
from pydantic import SecretStr, ValidationError

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)

CANARY = "pplx-canary-5e1d0b77"
"""A credential that must never show in a refusal."""
URL = "http://127.0.0.1:9"  # never reached: every refusal comes before a request
GOOD = {"api_key": "pplx-test", "base_url": URL}
KEY_ACCEPTED = (
    "a string or SecretStr of printable ASCII characters, no whitespace at either end (the Perplexity API key: "
    "api_key=..., else PPLX_API_KEY or PERPLEXITY_API_KEY; sent in an HTTP header)"
)

CLASSES: dict[str, type] = {
    "chat": ChatPerplexityStrict,
    "retriever": PerplexitySearchRetriever,
    "search_tool": PerplexitySearchResults,
    "embeddings": PerplexityEmbeddings,
    "contextualized": PerplexityContextualizedEmbeddings,
}
RUNNABLES = ("chat", "retriever", "search_tool")

# (setting, bad value, what the refusal says): each moved setting, including values pydantic coerced.
BAD: list[tuple[str, Any, str]] = [
    ("base_url", "not a url", "base_url='not a url' is not a URL: expected http:// or https://, a host"),
    ("base_url", "api.perplexity.ai", "base_url='api.perplexity.ai' is not a URL: expected http:// or https://"),
    ("base_url", 8080, "base_url=8080 is not a URL: expected http:// or https://"),
    ("base_url", f"ftp://user:{CANARY}@host", "is not a URL: expected http:// or https://"),
    ("base_url", "http://localhost:80a", "base_url='http://localhost:80a' is not a URL: expected http://"),
    ("base_url", "http://localhost:99999", "base_url='http://localhost:99999' is not a URL: expected http://"),
    ("base_url", f"ht!tp://{CANARY}", "base_url='ht!tp://***' is not a URL: expected http://"),
    ("timeout", -1, "timeout=-1: expected seconds > 0 (finite), a (connect, read) pair of them"),
    ("timeout", "5", "timeout='5': expected seconds > 0 (finite)"),
    ("timeout", True, "timeout=True: expected seconds > 0 (finite)"),
    ("timeout", (1, 2, 3, 4, 5), "timeout=(1, 2, 3, 4, 5): expected seconds > 0 (finite)"),
    ("timeout", [1, 2], "timeout=[1, 2]: expected seconds > 0"),
    ("timeout", float("inf"), "timeout=inf: expected seconds > 0 (finite)"),
    ("timeout", httpx.Timeout(-1), "timeout=Timeout(timeout=-1): expected seconds > 0"),
    ("max_retries", "3", "max_retries='3': expected an integer >= 0."),
    ("max_retries", True, "max_retries=True: expected an integer >= 0."),
    ("api_key", 5, f"api_key='***': expected {KEY_ACCEPTED}."),
    ("api_key", [CANARY], f"expected {KEY_ACCEPTED}."),
    # What an HTTP header cannot carry (h11 refused it mid-request, its error showing the key): refused when set.
    ("api_key", CANARY + "\n", f"api_key='***': expected {KEY_ACCEPTED} (ends with a newline; strip it)."),
    ("api_key", SecretStr(CANARY + "\r\n"), "api_key=SecretStr('**********'): expected a string or SecretStr of"),
    ("api_key", SecretStr(CANARY + "\r\n"), "(ends with a newline; strip it)."),
    ("api_key", CANARY + " ", "(starts or ends with whitespace; strip it)."),
    ("api_key", "\t" + CANARY, "(starts or ends with whitespace; strip it)."),
    ("api_key", CANARY + "\u00e9", "(holds a non-ASCII or control character (a tab, a newline))."),
    ("api_key", CANARY + "\u201d", "(holds a non-ASCII or control character"),
    ("api_key", CANARY[:5] + "\n" + CANARY[5:], "(holds a non-ASCII or control character"),
    ("api_key", CANARY[:5] + "\x00" + CANARY[5:], "(holds a non-ASCII or control character"),
    ("api_key", CANARY[:5] + "\x7f" + CANARY[5:], "(holds a non-ASCII or control character"),
    ("api_key", "", "api_key: no key given to {cls}, and neither PPLX_API_KEY nor PERPLEXITY_API_KEY is set."),
    ("api_key", None, "api_key: no key given to {cls}, and neither PPLX_API_KEY nor PERPLEXITY_API_KEY is set."),
    ("api_key", SecretStr(""), "api_key: no key given to {cls}"),
]


@functools.cache
def _built(kind: str) -> Any:
    """One instance per class for the module: what a copy or a configuration starts from."""
    return CLASSES[kind](**GOOD)


def _configured(kind: str, name: str, value: Any) -> Any:
    runnable = _built(kind).configurable_fields(**{name: ConfigurableField(id="the_setting")})
    config: Any = {"configurable": {"the_setting": value}}
    if kind == "chat":
        return runnable.invoke("hi", config=config)
    return runnable.invoke("q", config=config)


def _initialised(kind: str, name: str, value: Any) -> Any:
    assert kind == "chat"
    return init_chat_model("perplexity_strict:perplexity/sonar", **{**GOOD, name: value})


def _initialised_configurable(kind: str, name: str, value: Any) -> Any:
    assert kind == "chat"
    model = init_chat_model("perplexity_strict:perplexity/sonar", **GOOD, configurable_fields="any")
    return model.invoke("hi", config={"configurable": {name: value}})


def _assigned(kind: str, name: str, value: Any) -> Any:
    copy = _built(kind).model_copy()  # pydantic's shallow copy: the same transport until a setting changes
    setattr(copy, name, value)
    return copy.transport


PATHS: dict[str, Callable[[str, str, Any], Any]] = {
    "constructor": lambda kind, name, value: CLASSES[kind](**{**GOOD, name: value}),
    "model_copy": lambda kind, name, value: _built(kind).model_copy(update={name: value}),
    "configurable_fields": _configured,
    "init_chat_model": _initialised,
    "init_chat_model configurable": _initialised_configurable,
    "assignment": _assigned,
}


def _paths(kind: str) -> list[str]:
    return [
        p
        for p in PATHS
        if (p != "configurable_fields" or kind in RUNNABLES) and (not p.startswith("init_chat_model") or kind == "chat")
    ]


def _refusal(build: Callable[[], Any]) -> BaseException:
    with pytest.raises(ValueError) as caught:
        build()
    return caught.value


def _assert_hidden(error: BaseException) -> None:
    """No trace of the canary anywhere an app or a log could read it."""
    texts = ["".join(traceback.format_exception(error)), repr(error)]
    if isinstance(error, ValidationError):
        texts += [repr(error.errors()), error.json()]
    for text in texts:
        assert CANARY not in text, text


def _message(error: BaseException) -> str:
    """The refusal's own words: pydantic's one error's message, else the error's text."""
    if isinstance(error, ValidationError):
        (record,) = error.errors()
        return str(record["msg"]).removeprefix("Value error, ")
    return str(error)


@pytest.mark.parametrize(("name", "value", "words"), BAD, ids=lambda v: repr(v)[:30])
def test_a_bad_connection_setting_is_refused_alike_on_every_class_and_path(name: str, value: Any, words: str) -> None:
    messages = {}
    for kind, cls in CLASSES.items():
        for path in _paths(kind):
            error = _refusal(lambda: PATHS[path](kind, name, value))  # noqa: B023 - called at once
            _assert_hidden(error)
            message = _message(error)
            assert words.format(cls=cls.__name__) in message, (kind, path, message)
            messages[kind, path] = message.replace(cls.__name__, "{cls}")
    assert len(set(messages.values())) == 1, messages


@pytest.mark.parametrize("kind", CLASSES)
def test_a_setting_from_the_environment_is_checked_as_a_given_one(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PPLX_BASE_URL", f"https://user:{CANARY}@")
    error = _refusal(lambda: CLASSES[kind](api_key="pplx-test"))
    assert re.search(r"base_url=.* is not a URL: expected http:// or https://", _message(error))
    _assert_hidden(error)
    monkeypatch.delenv("PPLX_BASE_URL")
    monkeypatch.setenv("PPLX_API_KEY", "")
    monkeypatch.delenv("PERPLEXITY_API_KEY", raising=False)
    error = _refusal(lambda: CLASSES[kind](base_url=URL))
    assert f"api_key: no key given to {CLASSES[kind].__name__}" in _message(error)


@pytest.mark.parametrize("way", ["call", "bind", "retriever call"])
@pytest.mark.parametrize("name", ["api_key", "base_url", "timeout", "max_retries"])
def test_a_connection_setting_in_a_call_is_refused_naming_it_and_never_showing_it(name: str, way: str) -> None:
    value = CANARY if name != "max_retries" else 3
    if way == "retriever call":
        error = _refusal(lambda: _built("retriever").invoke("q", **{name: value}))
        assert str(error).startswith(f"{name}") and "is not a Search API field" in str(error)
    else:
        model = _built("chat")
        run = model.invoke if way == "call" else model.bind(**{name: value}).invoke
        error = _refusal(lambda: run("hi", **({name: value} if way == "call" else {})))
        assert f"{name}" in str(error) and "is not a parameter of ChatPerplexityStrict" in str(error)
    _assert_hidden(error)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("timeout", (1, 2.5)),
        ("max_retries", 0),
        ("base_url", "https://api.perplexity.ai/v1"),
        ("api_key", SecretStr("pplx-x")),
    ],
)
@pytest.mark.parametrize("kind", CLASSES)
def test_a_good_connection_setting_is_kept_as_given_on_every_path(kind: str, name: str, value: Any) -> None:
    for path in ("constructor", "model_copy"):
        built = PATHS[path](kind, name, value)
        kept = getattr(built, name)
        assert kept == value, (path, kept)  # a SecretStr equals one with the same secret
    assert CLASSES[kind](**{**GOOD, "api_key": "pplx-y"}).api_key.get_secret_value() == "pplx-y"  # converted once
