"""What the package says on the side of a call (warnings, log records, callback events) never raises into it.

The forms, from grepping the sources for `warnings.warn`, `OncePerOwner` and `logger`:

Warnings given once per model instance (`_once.OncePerOwner`): a Sonar name mapped on the Agent API, a
deprecated `preset`, compaction (each from invoke, stream, batch, ainvoke, astream, abatch); an unread
`OPENAI_BASE_URL` at construction (the chat model, and `PerplexityConnection`: the search retriever and
tool, both embeddings classes, `PerplexityDecision`, the model list); a search tool called directly.
Warnings by `warnings.warn`: `init_chat_model("perplexity:...")` served without langchain-perplexity,
`with_structured_output(method="function_calling")` on chat completions, a newest message that loses a
block (normalization), ambiguous prepared chunks (contextualized embeddings), the deprecated module
`testing.background`; the CLI prints each as a one-line note.
Log records: a cancel that fails (sync `Runs.cancel`, async `_settled`), a batch that could not be cancelled,
Ctrl-C waiting for the run's id (`_guard`), and the filter the cost callback adds to langchain-core's
callback logger. Callback events: `on_llm_new_token` goes through langchain-core's manager, whose
`raise_error` decides.

Where the calling code lives: `-c` (with threads, and `exec`/`eval` under odd globals), stdin, `-m`, a
script run as a frozen app whose source is gone, the CLI under `-m`, a notebook kernel, and in this process
`exec`/`eval` with globals lacking `__name__`/`__loader__`/`__spec__` or holding odd values. Configuration:
Python's default filters, `-W ignore`, `-W error` (warnings-as-errors raise the warning, on every call, as
Python's own `warnings.warn` does: that is Python's contract, and the one exception), a logging handler or
filter that raises, `logging.raiseExceptions` either way.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from importlib.machinery import SourceFileLoader
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator

KEY = "side-key"
SONAR = "is a Sonar chat-completions name"

COMMON = """
import asyncio, os, sys, threading, warnings
from langchain_perplexity_strict import ChatPerplexityStrict

def form(name, call):
    try:
        call()
        print("ok", name, flush=True)
    except BaseException as error:
        print("raised", name, type(error).__name__, flush=True)

def sonar():
    return ChatPerplexityStrict(model="sonar-pro")

def unread_openai_base_url():
    from langchain_perplexity_strict import PerplexityEmbeddings, PerplexitySearchRetriever
    root = os.environ.pop("PPLX_BASE_URL")
    os.environ["OPENAI_BASE_URL"] = "https://gateway.example/v1"
    try:
        ChatPerplexityStrict(), PerplexitySearchRetriever(), PerplexityEmbeddings()
    finally:
        os.environ["PPLX_BASE_URL"] = root
        del os.environ["OPENAI_BASE_URL"]

model = sonar()
form("invoke", lambda: model.invoke("hi"))
form("invoke again", lambda: model.invoke("hi"))
form("stream", lambda: list(sonar().stream("hi")))
form("construct", unread_openai_base_url)
"""
"""The forms every place runs: invoke twice on one model (it warns once), stream, and construction."""

MORE = """
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

class Answer(BaseModel):
    text: str

async def each_async():
    await sonar().ainvoke("hi")
    [chunk async for chunk in sonar().astream("hi")]
    await sonar().abatch(["a", "b"])

def deprecated_names():
    from langchain.chat_models import init_chat_model
    from langchain_perplexity_strict.testing import background
    init_chat_model("perplexity:sonar-pro", api="chat_completions").invoke("hi")
    background.RunRoutes

def in_a_thread():
    errors = []
    def call():
        try:
            sonar().invoke("hi")
        except BaseException as error:
            errors.append(error)
    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]

class Loader:
    def get_source(self, name):
        raise ImportError(name)

ODD = {"none": {}, "name 42": {"__name__": 42, "__spec__": "odd", "__file__": 3},
       "raising loader": {"__name__": "app", "__loader__": Loader()}}
video = {"type": "video", "url": "https://v.example/c.mp4", "mime_type": "video/mp4"}
long = [HumanMessage("word " * 400), AIMessage("reply " * 400), HumanMessage("last")]
form("batch", lambda: sonar().batch(["a", "b"]))
form("async", lambda: asyncio.run(each_async()))
form("preset", lambda: ChatPerplexityStrict(preset="medium").invoke("hi"))
form("compaction", lambda: ChatPerplexityStrict(max_input_tokens=200).invoke(long))
form("lost block", lambda: ChatPerplexityStrict().invoke([HumanMessage([{"type": "text", "text": "hi"}, video])]))
form("structured", lambda: ChatPerplexityStrict(api="chat_completions").with_structured_output(
    Answer, method="function_calling"))
form("search tool", lambda: __import__("langchain_perplexity_strict").PerplexitySearchResults().invoke("q"))
form("deprecated names", deprecated_names)
form("thread", in_a_thread)
for name, odd in ODD.items():
    form("exec " + name, lambda: exec(compile("sonar().invoke('hi')", "<odd>", "exec"), {**odd, "sonar": sonar}))
    form("eval " + name, lambda: eval(compile("sonar().invoke('hi')", "<odd>", "eval"), {**odd, "sonar": sonar}))
"""
"""The rest of the forms, run under `-c`."""

WARNINGS = {
    "sonar": SONAR,
    "preset": "is deprecated by Perplexity",
    "compaction": "compacted the conversation",
    "lost block": "The newest user message lost content block(s)",
    "structured": "the schema is sent as a json_schema",
    "search tool": "content_as='results'",
    "legacy provider": "Write 'perplexity_strict:sonar-pro'",
    "unread": "OPENAI_BASE_URL is set but not read",
}


@pytest.fixture(scope="module")
def module_server() -> Iterator[PerplexityEmulator]:
    with PerplexityEmulator(api_key=KEY) as emu:
        yield emu


@pytest.fixture
def server(module_server: PerplexityEmulator) -> Iterator[PerplexityEmulator]:
    """The module's emulator with an empty log and no pending faults (a failed test's are not the next one's)."""
    module_server.clear()
    yield module_server
    module_server.clear()


def child_env(server: PerplexityEmulator) -> dict[str, str]:
    """The emulator by the package's own variables, this worktree first on the path, no OpenAI root."""
    root = str(Path(__file__).resolve().parents[2])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PERPLEXITY_", "PPLX_", "PYTHON"))}
    return {**env, "PPLX_BASE_URL": server.base_url, "PPLX_API_KEY": KEY, "PYTHONPATH": root}


def run(server: PerplexityEmulator, *args: str, stdin: str | None = None, cwd: Path | None = None) -> Any:
    return subprocess.run(
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=child_env(server),
        cwd=cwd,
        timeout=120,
    )


def outcomes(out: str) -> dict[str, str]:
    """Each form's outcome as the child printed it: `ok`, or `raised <type>`."""
    found = {}
    for line in out.splitlines():
        status, _, rest = line.partition(" ")
        if status == "ok":
            found[rest] = "ok"
        elif status == "raised":
            name, _, kind = rest.rpartition(" ")
            found[name] = f"raised {kind}"
    return found


COMMON_FORMS = ["invoke", "invoke again", "stream", "construct"]


def test_minus_c_every_form_answers_and_warns_at_the_callers_line(server: PerplexityEmulator) -> None:
    result = run(server, "-c", COMMON + MORE)
    odd = [f"{how} {name}" for name in ("none", "name 42", "raising loader") for how in ("exec", "eval")]
    forms = [*COMMON_FORMS, "batch", "async", "preset", "compaction", "lost block", "structured", "search tool"]
    assert outcomes(result.stdout) == dict.fromkeys([*forms, "deprecated names", "thread", *odd], "ok"), result.stderr
    for what, text in WARNINGS.items():
        assert text in result.stderr, what
    # One per model: invoke (once for two calls), stream, batch, ainvoke, astream, abatch, thread, six exec/eval.
    assert result.stderr.count(SONAR) == 13
    # At the caller's line: the `-c` code's (invoke, stream, batch, ainvoke, astream, abatch, the thread's call),
    # the exec'd or eval'd code's; batch's from its executor thread too.
    blamed = re.findall(rf"^(\S+):\d+: UserWarning: model 'sonar-pro' {SONAR}", result.stderr, re.MULTILINE)
    assert blamed.count("<string>") == 7 and blamed.count("<odd>") == 6


def test_stdin_with_warnings_ignored_answers_and_says_nothing(server: PerplexityEmulator) -> None:
    result = run(server, "-W", "ignore", "-", stdin=COMMON)
    assert outcomes(result.stdout) == dict.fromkeys(COMMON_FORMS, "ok"), result.stderr
    assert result.stderr == ""


def test_minus_m_with_warnings_as_errors_raises_the_warning_on_every_call(
    server: PerplexityEmulator, tmp_path: Path
) -> None:
    """`-W error`: the user asked for warnings as errors, so each call that warns raises it (Python's contract)."""
    (tmp_path / "app_forms.py").write_text(COMMON)
    result = run(server, "-W", "error::UserWarning", "-m", "app_forms", cwd=tmp_path)
    assert outcomes(result.stdout) == dict.fromkeys(COMMON_FORMS, "raised UserWarning"), result.stderr


def test_a_frozen_app_without_its_source_answers_and_warns(server: PerplexityEmulator, tmp_path: Path) -> None:
    script = tmp_path / "frozen_app.py"
    script.write_text("import os, sys\nsys.frozen = True\nos.remove(__file__)\n" + COMMON)
    result = run(server, str(script))
    assert outcomes(result.stdout) == dict.fromkeys(COMMON_FORMS, "ok"), result.stderr
    assert result.stderr.count(SONAR) == 2 and WARNINGS["unread"] in result.stderr
    assert f"{script}:" in result.stderr  # the caller's line, its text unavailable


def test_the_cli_under_minus_m_answers_with_a_note(server: PerplexityEmulator) -> None:
    result = run(server, "-m", "langchain_perplexity_strict", "chat", "hi", "--model", "sonar-pro")
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("perplexity-strict chat: note: model 'sonar-pro' " + SONAR)
    assert "On hi" in result.stdout


def test_a_notebook_kernel_answers_and_warns(server: PerplexityEmulator) -> None:
    """One kernel (ipykernel), one cell: the forms run in the kernel's `__main__` namespace."""
    manager = pytest.importorskip("jupyter_client.manager")
    kernel, client = manager.start_new_kernel(kernel_name="python3", env=child_env(server), startup_timeout=60)
    streams: dict[str, str] = {"stdout": "", "stderr": ""}

    def output(message: dict[str, Any]) -> None:
        if message["msg_type"] == "stream":
            streams[message["content"]["name"]] += message["content"]["text"]

    try:
        reply = client.execute_interactive(COMMON, timeout=60, output_hook=output)
    finally:
        client.stop_channels()
        kernel.shutdown_kernel(now=True)
    assert reply["content"]["status"] == "ok"
    assert outcomes(streams["stdout"]) == dict.fromkeys(COMMON_FORMS, "ok"), streams["stderr"]
    assert streams["stderr"].count(SONAR) == 2 and WARNINGS["unread"] in streams["stderr"]


# -- in this process ---------------------------------------------------------------------------------------------


class _RaisingLoader:
    def get_source(self, name: str) -> str:
        raise ImportError(name)


class _Globals(dict):  # type: ignore[type-arg]
    """`exec` globals of a dict subclass whose `get` raises: Python reads the dict itself."""

    def get(self, *args: Any) -> Any:
        raise RuntimeError("get")


ODD_GLOBALS: dict[str, dict[str, Any]] = {
    "none": {},
    "odd values": {"__name__": 42, "__loader__": 1, "__spec__": "odd", "__file__": None},
    "raising loader": {"__name__": "app", "__loader__": _RaisingLoader()},
    "a module run by -m": {"__name__": "__main__", "__loader__": SourceFileLoader("app", __file__)},
    "dict subclass": _Globals(__name__="app"),
}


@pytest.mark.parametrize("how", ["exec", "eval"])
@pytest.mark.parametrize("odd", ODD_GLOBALS, ids=list(ODD_GLOBALS))
def test_code_run_with_odd_globals_is_answered_and_warned_at_its_line(
    server: PerplexityEmulator, odd: str, how: str
) -> None:
    scope = type(ODD_GLOBALS[odd])(ODD_GLOBALS[odd])  # a copy of the same class
    scope["model"] = ChatPerplexityStrict(model="sonar-pro", api_key=KEY, base_url=server.base_url)  # type: ignore[arg-type]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        code = compile("\n\nmodel.invoke('hi')", "<app>", how if how == "exec" else "eval")
        exec(code, scope) if how == "exec" else eval(code, scope)
    assert [(str(w.message).split(";")[0], w.filename, w.lineno) for w in caught] == [
        (f"model 'sonar-pro' {SONAR}", "<app>", 3)
    ]


def test_warnings_as_errors_raise_on_each_call_of_the_same_model(server: PerplexityEmulator) -> None:
    model = ChatPerplexityStrict(model="sonar-pro", api_key=KEY, base_url=server.base_url)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            with pytest.raises(UserWarning, match=SONAR):
                model.invoke("hi")
    with pytest.warns(UserWarning, match=SONAR):
        model.invoke("hi")  # said now, and once only
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.invoke("hi")


class _Broken(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        raise RuntimeError("a broken handler")


class _BrokenFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        raise RuntimeError("a broken filter")


@pytest.fixture(params=[True, False], ids=["raiseExceptions", "no raiseExceptions"])
def broken_logging(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The package's logger with a handler and a filter that raise; `logging.raiseExceptions` either way."""
    monkeypatch.setattr(logging, "raiseExceptions", request.param)
    logger = logging.getLogger("langchain_perplexity_strict")
    runs = logging.getLogger("langchain_perplexity_strict._transport._runs")
    handler, broken = _Broken(), _BrokenFilter()
    logger.addHandler(handler)
    runs.addFilter(broken)
    yield
    logger.removeHandler(handler)
    runs.removeFilter(broken)


@pytest.mark.usefixtures("broken_logging", "quick_client_retries")
def test_a_batch_not_cancelled_raises_the_creates_error_not_the_loggers(server: PerplexityEmulator) -> None:
    from langchain_perplexity_strict._batches import _lines

    model = ChatPerplexityStrict(api_key=KEY, base_url=server.base_url)  # type: ignore[arg-type]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lines, "MAX_LINES", 1)
        server.inject(*[Fault("delay", seconds=0)] * 3, *[Fault("server_error", status=500)] * 6)
        with pytest.raises(Exception, match="500"):
            model.submit_batch(["a", "b"])


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler (a shell running the tests in the background ignores SIGINT)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("broken_logging", "ctrl_c")
def test_ctrl_c_is_said_without_raising_and_the_run_is_still_cancelled(server: PerplexityEmulator) -> None:
    """The wait for the run's id is logged from the signal handler, and the cancel that fails from the call:
    a raising handler ends neither early."""
    # The create's answer, naming the run, held until Ctrl-C is pressed; then the cancel fails.
    server.inject(Fault("hold"), Fault("server_error", status=500))
    model = ChatPerplexityStrict(api_key=KEY, base_url=server.base_url, background=True)  # type: ignore[arg-type]
    main = threading.main_thread().ident
    assert main is not None

    def press() -> None:
        assert server.wait_holding(1, 30.0)
        signal.pthread_kill(main, signal.SIGINT)
        server.release()

    presser = threading.Thread(target=press)
    presser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            model.invoke("hi")
    finally:
        presser.join()
    assert [r.kind for r in server.requests] == ["create", "cancel"]


class _Odd:
    """A log argument whose comparison raises (as an array's truth value does)."""

    def __eq__(self, other: object) -> bool:
        raise ValueError("ambiguous")

    __hash__ = object.__hash__


def test_the_cost_callbacks_log_filter_takes_any_record() -> None:
    from langchain_perplexity_strict import get_perplexity_cost_callback  # noqa: F401  # adds the filter

    logging.getLogger("langchain_core.callbacks.manager").warning("%s %s %s", _Odd(), "x", "y")


@pytest.mark.parametrize("raise_error", [False, True])
def test_a_callback_that_raises_follows_langchain_cores_raise_error(
    server: PerplexityEmulator, raise_error: bool
) -> None:
    class Raising(BaseCallbackHandler):
        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            raise RuntimeError("a broken callback")

    handler = Raising()
    handler.raise_error = raise_error
    model = ChatPerplexityStrict(api_key=KEY, base_url=server.base_url)  # type: ignore[arg-type]
    stream = lambda: list(model.stream("hi", config={"callbacks": [handler]}))  # noqa: E731
    if raise_error:
        with pytest.raises(RuntimeError, match="a broken callback"):
            stream()
    else:
        assert "".join(str(c.content) for c in stream())
        assert asyncio.run(model.ainvoke("hi", config={"callbacks": [handler]})).content


def _warned_lines(call: Any) -> list[tuple[str, int]]:
    """Where each warning `call` gives points: the file and line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.filename, w.lineno) for w in caught]


def test_every_warning_points_at_the_callers_line(server: PerplexityEmulator) -> None:
    """Whatever the depth of the package code that warns: the normalizer, structured output, embeddings."""
    from langchain_core.messages import HumanMessage
    from pydantic import BaseModel

    class Answer(BaseModel):
        text: str

    video = {"type": "video", "url": "https://v.example/c.mp4", "mime_type": "video/mp4"}
    agent = ChatPerplexityStrict(api_key=KEY, base_url=server.base_url)  # type: ignore[arg-type]
    sonar = ChatPerplexityStrict(api="chat_completions", model="sonar", api_key=KEY, base_url=server.base_url)  # type: ignore[arg-type]
    here = __file__
    forms = {
        "lost block, invoke": lambda: agent.invoke([HumanMessage([{"type": "text", "text": "hi"}, video])]),
        "lost block, stream": lambda: list(agent.stream([HumanMessage([{"type": "text", "text": "hi"}, video])])),
        "lost block, ainvoke": lambda: asyncio.run(
            agent.ainvoke([HumanMessage([{"type": "text", "text": "hi"}, video])])
        ),
        "structured output": lambda: sonar.with_structured_output(Answer, method="function_calling"),
    }
    for name, call in forms.items():
        lines = _warned_lines(call)
        assert lines, name
        assert all(file == here for file, _ in lines), (name, lines)
