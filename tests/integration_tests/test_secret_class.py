"""A credential the caller passed never shows in anything the package builds from it (issue 26, class A).

`ChatOpenAI` names an unknown argument without its value, and langchain-xai's
`tests/unit_tests/test_secrets.py` checks its key is in no str, repr or dump;
this module holds every public class and entry point to that. A canary
credential goes through each path below, and each test fails if it shows in
an error (the package's own and pydantic's `input_value`), a warning, a log
record at DEBUG, a repr, a trace (callbacks' serialized form and invocation
params, LangSmith's `_get_ls_params`) or a serialized form.

The forms:

- construction of each public class (`CLASSES`) with a credential in a refused argument (`CONSTRUCTOR_FORMS`:
  a misspelt key name, a `*_token` or `*secret*` name, `default_headers`, a key of the wrong type, a key beside
  another bad setting, a refused `base_url` with user info), directly and through `init_chat_model`;
- a call's arguments: invoke / ainvoke / stream / astream / batch / abatch with `api_key=` (`CALLS`),
  `bind(api_key=)`, `retriever.invoke(..., api_key=)`, `configurable_fields` and `init_chat_model`'s
  configurable fields given a bad key;
- accepted credentials (`api_key`, a `base_url` with user info, a secret nested in a `model_kwargs` field, via
  `extra_body`; a credential's name as a `model_kwargs` or `extra_body` entry itself is refused, never sent):
  repr, str, `model_dump`, `model_dump_json`, `dumps` / `dumpd`, `_identifying_params`, `_get_ls_params`,
  `model_copy`, and what callbacks see of a call;
- an MCP tool's `authorization` and `headers` bound with `bind_tools`: the binding's repr and dump, traces,
  and the error of an invalid setting after it; an MCP `server_url` with user info, refused;
- a server's error that repeats a key-shaped value, and its 401 to a wrong key;
- the cost callback's constructor given a key, and the normalization report of a history whose tool call
  carries one (the report's changes; its `messages` are the conversation itself, sent as it is);
- the CLI, with a key in argv and a key in the environment.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain.chat_models import init_chat_model
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.load import dumpd, dumps
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import ConfigurableField
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityCostCallbackHandler,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict.cli import main
from langchain_perplexity_strict.testing import PerplexityEmulator

CANARY = "canary-7f3a91c2"
"""Shaped like no key: a test passes only if the value is hidden for its name or place, not for its look."""
KEY = "pplx-canary0123456789abcdef"
"""Shaped like a Perplexity key, for places where nothing but its look says it is one."""

CLASSES = [
    ChatPerplexityStrict,
    PerplexitySearchRetriever,
    PerplexitySearchResults,
    PerplexityEmbeddings,
    PerplexityContextualizedEmbeddings,
]

CONSTRUCTOR_FORMS: dict[str, dict[str, Any]] = {
    "a misspelt key name": {"api_kye": CANARY},
    "a misspelt key name, key-shaped": {"apikey": KEY},
    "an unknown *_token argument": {"access_token": CANARY},
    "an unknown *secret* argument": {"client_secret": CANARY},
    "an unknown argument holding a key-shaped string": {"extra": KEY},
    "default_headers, not taken": {"default_headers": {"Authorization": f"Bearer {CANARY}"}},
    "default_query, not taken": {"default_query": {"key": CANARY}},
    "an unknown argument under a plain name": {"x_pplx": CANARY},
    "a key of the wrong type": {"api_key": [CANARY]},
    "openai_api_key of the wrong type": {"openai_api_key": {"key": CANARY}},
    "a key beside a bad timeout": {"api_key": CANARY, "timeout": -1},
    "a key beside bad max_retries": {"api_key": CANARY, "max_retries": -1},
    "a refused base_url with user info": {"base_url": f"ftp://user:{CANARY}@example.com"},
    "a base_url with user info, no scheme": {"base_url": f"user:{CANARY}@example.com"},
}


class Recorder(BaseCallbackHandler):
    """Everything a callback handler (a tracer, LangSmith) is given: serialized forms, params, errors."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.seen.append(json.dumps(serialized, default=repr) + repr(kwargs))

    def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
        self.seen.append(json.dumps(serialized, default=repr) + repr(kwargs))

    def on_retriever_start(self, serialized: Any, query: str, **kwargs: Any) -> None:
        self.seen.append(json.dumps(serialized, default=repr) + repr(kwargs))

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self.seen.append(f"{error} {error!r} {kwargs!r}")

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        self.seen.append(f"{error} {error!r}")

    def on_retriever_error(self, error: BaseException, **kwargs: Any) -> None:
        self.seen.append(f"{error} {error!r}")


@pytest.fixture
def seen(caplog: pytest.LogCaptureFixture) -> Iterator[list[str]]:
    """What a test collects, plus every log record (at DEBUG) and warning; none may hold a canary."""
    caplog.set_level(logging.DEBUG)
    texts: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield texts
    texts += [str(w.message) for w in caught]
    texts += [caplog.text, *(str(r.__dict__) for r in caplog.records)]
    assert_hidden(texts)


def assert_hidden(texts: list[str]) -> None:
    leaks = [text[max(0, text.find(CANARY) - 300) :][:400] for text in texts if CANARY in text or KEY in text]
    assert not leaks, leaks


def failure(call: Callable[[], Any]) -> list[str]:
    """The texts of the error `call` raises: str, repr, and its cause's and context's."""
    with pytest.raises(Exception) as info:
        result = call()
        if asyncio.iscoroutine(result):
            asyncio.run(result)
    error = info.value
    texts = [str(error), repr(error), str(error.__cause__), str(error.__context__), str(error.args)]
    if isinstance(error, ValidationError):  # what FastAPI and structured loggers serialize
        texts += [repr(error.errors()), error.json()]
    return texts


def reprs(obj: Any) -> list[str]:
    """Every form an object shows itself in: str, repr, its dumps and dumpd, model_dump and its JSON."""
    texts = [str(obj), repr(obj), dumps(obj), json.dumps(dumpd(obj), default=repr), str(obj.model_dump())]
    with contextlib.suppress(PydanticSerializationError):  # the search tool's args_schema is a class
        texts.append(obj.model_dump_json())
    return texts


@pytest.mark.parametrize("form", list(CONSTRUCTOR_FORMS))
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_refused_constructor_argument_never_shows_a_credential(
    cls: type, form: str, emu: PerplexityEmulator, seen: list[str]
) -> None:
    arguments = {"api_key": "test-key", "base_url": emu.base_url, **CONSTRUCTOR_FORMS[form]}
    texts = failure(lambda: cls(**arguments))
    assert "api_key" in texts[0] or any(name in texts[0] for name in CONSTRUCTOR_FORMS[form])  # names the field
    seen += texts


@pytest.mark.parametrize("form", list(CONSTRUCTOR_FORMS))
def test_init_chat_model_never_shows_a_refused_credential(form: str, emu: PerplexityEmulator, seen: list[str]) -> None:
    arguments = {"api_key": "test-key", "base_url": emu.base_url, **CONSTRUCTOR_FORMS[form]}
    seen += failure(lambda: init_chat_model("perplexity_strict:perplexity/sonar", **arguments))


def test_a_refused_argument_still_names_itself_and_a_safe_value() -> None:
    """The fix hides values, not the help: the field is named, and a number under a plain name still shows."""
    with pytest.raises(
        ValueError, match=r"api_kye is not an argument of ChatPerplexityStrict\. Did you mean 'api_key'"
    ):
        ChatPerplexityStrict(api_key="k", api_kye=CANARY)
    with pytest.raises(ValueError, match=r"temprature=0\.5 is not an argument of ChatPerplexityStrict"):
        ChatPerplexityStrict(api_key="k", temprature=0.5)
    with pytest.raises(ValueError, match=r"api_kye is not a parameter of ChatPerplexityStrict"):
        ChatPerplexityStrict(api_key="k").invoke("hi", api_kye=7)  # a number, but under a key's name


def _invoke(model: Any, **kw: Any) -> Any:
    return model.invoke("hi", **kw)


def _ainvoke(model: Any, **kw: Any) -> Any:
    return model.ainvoke("hi", **kw)


def _stream(model: Any, **kw: Any) -> Any:
    return list(model.stream("hi", **kw))


async def _astream(model: Any, **kw: Any) -> Any:
    return [c async for c in model.astream("hi", **kw)]


def _batch(model: Any, **kw: Any) -> Any:
    return model.batch(["hi", "ho"], **kw)


def _abatch(model: Any, **kw: Any) -> Any:
    return model.abatch(["hi", "ho"], **kw)


CALLS = {
    "invoke": _invoke,
    "ainvoke": _ainvoke,
    "stream": _stream,
    "astream": _astream,
    "batch": _batch,
    "abatch": _abatch,
}
CALL_FORMS: dict[str, dict[str, Any]] = {
    "api_key": {"api_key": CANARY},
    "a misspelt key": {"api_kye": CANARY},
    "headers": {"headers": {"Authorization": CANARY}},
    "model_kwargs holding a key": {"model_kwargs": {"api_key": CANARY}},
}


@pytest.mark.parametrize("form", list(CALL_FORMS))
@pytest.mark.parametrize("how", list(CALLS))
def test_a_call_argument_never_shows_a_credential(
    how: str, form: str, emu: PerplexityEmulator, seen: list[str]
) -> None:
    recorder = Recorder()
    model = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, max_retries=0, callbacks=[recorder])
    texts = failure(lambda: CALLS[how](model, **CALL_FORMS[form]))
    assert "is not a parameter of ChatPerplexityStrict" in texts[0]
    seen += texts + recorder.seen
    assert emu.requests == []  # refused before anything is sent


@pytest.mark.parametrize("how", list(CALLS))
def test_a_bound_key_never_shows(how: str, emu: PerplexityEmulator, seen: list[str]) -> None:
    recorder = Recorder()
    model = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, max_retries=0, callbacks=[recorder])
    bound = model.bind(api_key=CANARY)
    seen += reprs(bound)
    seen += failure(lambda: CALLS[how](bound)) + recorder.seen


def test_configurable_fields_never_show_a_refused_key(emu: PerplexityEmulator, seen: list[str]) -> None:
    model = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url)
    configurable = model.configurable_fields(api_key=ConfigurableField(id="key"))
    seen += failure(lambda: configurable.invoke("hi", config={"configurable": {"key": [CANARY]}}))
    chosen = init_chat_model(
        "perplexity_strict:perplexity/sonar", api_key="test-key", base_url=emu.base_url, configurable_fields="any"
    )
    seen += failure(lambda: chosen.invoke("hi", config={"configurable": {"api_kye": CANARY}}))
    seen += failure(lambda: chosen.invoke("hi", config={"configurable": {"api_key": {"k": CANARY}}}))


@pytest.mark.parametrize("retriever_class", [PerplexitySearchRetriever])
def test_a_retriever_call_never_shows_a_credential(
    retriever_class: type, emu: PerplexityEmulator, seen: list[str]
) -> None:
    recorder = Recorder()
    retriever = retriever_class(api_key="test-key", base_url=emu.base_url)
    traced = {"callbacks": [recorder]}
    for arguments in ({"api_key": CANARY}, {"api_kye": CANARY}, {"client_secret": CANARY}, {"token": 3}):
        texts = failure(lambda arguments=arguments: retriever.invoke("q", traced, **arguments))
        assert "is not a Search API field" in texts[0]
        seen += texts
    seen += failure(lambda: retriever.ainvoke("q", traced, api_key=CANARY))
    seen += recorder.seen


def _chat_with_secrets(emu: PerplexityEmulator, **kw: Any) -> ChatPerplexityStrict:
    secrets = {"extra_body": {"profile": {"password": CANARY}}}  # a published field (no parameter), nested
    return ChatPerplexityStrict(api_key=CANARY, base_url=emu.base_url, model_kwargs=secrets, **kw)


def test_accepted_credentials_never_show_in_reprs_dumps_or_traces(emu: PerplexityEmulator, seen: list[str]) -> None:
    recorder = Recorder()
    model = _chat_with_secrets(emu, callbacks=[recorder])
    seen += [*reprs(model), repr(model._identifying_params), repr(model._get_ls_params())]
    seen.append(repr(model._get_invocation_params()))
    seen += reprs(model.model_copy(update={"temperature": 0.5}))
    seen += failure(lambda: model.invoke("hi"))  # the emulator refuses the unknown body fields
    seen += recorder.seen
    assert any("model_kwargs" in text for text in recorder.seen)  # the trace was recorded, with the field
    assert model.model_kwargs["profile"]["password"] == CANARY  # extra_body unpacked; hidden from view only
    for refused in ({"api_key": CANARY}, {"extra_body": {"x_token": CANARY}}):  # a credential's entry: refused
        seen += failure(lambda refused=refused: ChatPerplexityStrict(api_key=CANARY, model_kwargs=refused))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_base_url_with_user_info_never_shows(cls: type, seen: list[str]) -> None:
    instance = cls(api_key=CANARY, base_url=f"http://user:{CANARY}@127.0.0.1:9", max_retries=0)
    seen += [*reprs(instance), repr(instance.transport.chat_openai), str(instance.transport.chat_openai)]
    assert instance.base_url == f"http://user:{CANARY}@127.0.0.1:9"  # kept as given
    if cls is ChatPerplexityStrict:  # serializable; the others dump as their (redacted) repr
        assert dumpd(instance)["kwargs"]["base_url"] == {"lc": 1, "type": "secret", "id": ["PPLX_BASE_URL"]}


def test_a_connection_error_never_shows_user_info(seen: list[str]) -> None:
    model = ChatPerplexityStrict(api_key=CANARY, base_url=f"http://user:{CANARY}@127.0.0.1:9", max_retries=0)
    seen += failure(lambda: model.invoke("hi"))
    retriever = PerplexitySearchRetriever(api_key=CANARY, base_url=f"http://user:{CANARY}@127.0.0.1:9", max_retries=0)
    seen += failure(lambda: retriever.invoke("q"))


MCP = {
    "type": "mcp",
    "server_label": "docs",
    "server_url": "https://mcp.example.com/sse",
    "authorization": CANARY,
    "headers": {"X-Custom": CANARY},
}


def test_an_mcp_tools_authorization_never_shows(emu: PerplexityEmulator, seen: list[str]) -> None:
    recorder = Recorder()
    model = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, callbacks=[recorder])
    bound = model.bind_tools([MCP])
    seen += reprs(bound)
    bound.invoke("hi")
    list(bound.stream("hi"))
    sent = emu.requests[-1].body["tools"]
    assert any(t.get("authorization") == CANARY for t in sent)  # sent to the server, and only there
    seen += failure(lambda: bound.invoke("hi", temperature=9))
    seen += failure(lambda: bound.invoke("hi", api_kye=CANARY))
    seen += failure(lambda: model.bind_tools([{**MCP, "headers": {"X-Custom": 5}}]))
    seen += failure(lambda: model.bind_tools([{**MCP, "authorization": 5, "headers": [CANARY]}]))
    seen += failure(lambda: model.bind_tools([{**MCP, "server_url": f"http://user:{CANARY}@mcp.example.com"}]))
    seen += failure(lambda: model.bind_tools([MCP, MCP]))  # the same label twice
    seen += recorder.seen
    assert recorder.seen  # the calls were traced


def test_a_server_error_repeating_a_key_never_shows_it(emu: PerplexityEmulator, seen: list[str]) -> None:
    """The emulator names an unknown model in its 400 (as Perplexity does); a key-shaped one is hidden."""
    model = ChatPerplexityStrict(api_key="test-key", base_url=emu.base_url, model=KEY, max_retries=0)
    texts = failure(lambda: model.invoke("hi"))
    assert "HTTP 400" in texts[0] and "***" in texts[0]
    seen += texts


def test_a_refused_key_never_shows(seen: list[str]) -> None:
    with PerplexityEmulator(api_key="another-key") as emu:
        for cls in CLASSES:
            instance = cls(api_key=CANARY, base_url=emu.base_url, max_retries=0)
            call: Callable[[], Any] = {
                ChatPerplexityStrict: lambda i=instance: i.invoke("hi"),
                PerplexitySearchRetriever: lambda i=instance: i.invoke("q"),
                PerplexitySearchResults: lambda i=instance: i.invoke({"query": "q"}),
                PerplexityEmbeddings: lambda i=instance: i.embed_documents(["x"]),
                PerplexityContextualizedEmbeddings: lambda i=instance: i.embed_contexts([["x"]]),
            }[cls]
            texts = failure(call)
            assert "401" in texts[0]
            seen += texts


def test_the_cost_callback_and_the_normalization_report_never_show_a_credential(seen: list[str]) -> None:
    seen += failure(lambda: PerplexityCostCallbackHandler(api_key=CANARY))  # type: ignore[call-arg]
    seen += failure(lambda: PerplexityCostCallbackHandler(budget_usd=-1, api_kye=CANARY))  # type: ignore[call-arg]
    handler = PerplexityCostCallbackHandler(budget_usd=1.0)
    seen += [repr(handler), str(handler)]
    model = ChatPerplexityStrict(api_key=CANARY, callbacks=[handler])
    history = [
        HumanMessage("log in"),
        AIMessage("", tool_calls=[{"name": "login", "args": {"api_key": CANARY}, "id": "c1"}]),
        HumanMessage("and then?"),
        ToolMessage("ok", tool_call_id="unknown"),
        SystemMessage("late"),
    ]
    report = model.normalize(history)
    assert len(report.changes) >= 3  # the rules ran and said what they changed
    seen += [str(change) for change in report.changes] + [repr(change) for change in report.changes]


def _cli(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit_:  # argparse's own errors
            status = int(exit_.code or 0)
    return status, out.getvalue() + err.getvalue()


def test_the_cli_never_shows_a_key_from_argv_or_the_environment(
    monkeypatch: pytest.MonkeyPatch, seen: list[str]
) -> None:
    for argv in (["chat", "hi", "--api-key", CANARY], ["chat", "hi", f"--api_key={CANARY}"], ["chat", "hi", KEY]):
        status, text = _cli(argv)
        assert status == 2 and "unrecognized arguments" in text
        seen.append(text)
    with PerplexityEmulator(api_key="another-key") as emu:
        monkeypatch.setenv("PPLX_API_KEY", CANARY)
        monkeypatch.setenv("PPLX_BASE_URL", emu.base_url)
        status, text = _cli(["chat", "hi"])
        assert status == 1 and "401" in text
        seen.append(text)
        status, text = _cli(["chat", "hi", "--bogus", CANARY])
        assert status == 2
        seen.append(text)
    monkeypatch.setenv("PPLX_BASE_URL", f"http://user:{CANARY}@127.0.0.1:9")
    status, text = _cli(["chat", "hi"])
    assert status == 1
    seen.append(text)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_credential_in_a_base_urls_query_is_never_shown(cls: type, seen: list[str]) -> None:
    obj = cls(api_key="test-key", base_url=f"http://127.0.0.1:1/v1?token={CANARY}&x=1")
    seen += [str(obj), repr(obj), str(obj.model_dump())]


def test_model_copy_refusing_a_credential_never_shows_it(seen: list[str]) -> None:
    model = ChatPerplexityStrict(api_key="test-key")
    seen += failure(lambda: model.model_copy(update={"api_key": [CANARY]}))
    seen += failure(lambda: model.model_copy(update={"default_headers": {"Authorization": CANARY}}))
