"""Every error tells LangChain's machinery the right kind, the right retry flag and the server's words.

Middleware reads two things: the langchain-core kind (`SummarizationMiddleware` cuts the summary prompt on
`ContextOverflowError`) and `is_retryable` (`ModelRetryMiddleware` and `with_retry` with `default_retry_on`
retry a `ModelError` only when it is true, and any other exception always). Forms, each against the emulator:

HTTP errors (the status, narrowed by the body's type on a plain 4xx: `errors.kind_of`), on both surfaces,
each by invoke, stream, ainvoke, astream:
- Sonar's recorded 400 `too_many_prompt_tokens` → `ContextOverflowError`, not retryable (both surfaces:
  the Agent API's own overflow is unrecorded; the same type means the same there).
- bodies in every form: JSON envelope (400, 413), FastAPI `{"detail": [...]}` (422), an HTML gateway page
  (401, 502), plain text (503, 424), an empty body (500) → auth / invalid request (not retryable) or server
  (retryable), the message carrying the body's words; on an Agent API stream a 5xx after sending is
  `PerplexityRunUnknownError`, not retryable (the package refuses to re-post it).
- the same HTTP errors from search (retriever), embeddings and decisions.

Errors reported inside an answer (Agent API): a failed run (`status: failed`, `response.failed`) and a stream's
`error` event, with code `too_many_prompt_tokens` → `ContextOverflowError` (also `PerplexityResponseError`),
not retryable; with `server_error` → retryable; an answer cut at the limit (`raise_on_length`) → not retryable.

The package's own errors: a refusal before sending (`PerplexityRequestError`, still a `ValueError`), a spent
budget, an unknown or unresumable run, a run or batch timeout, a batch line → not retryable.

LangChain's own machinery, requests counted at the emulator: `create_agent` with `SummarizationMiddleware`
summarizes again with a shorter prompt when the summary call overflows; `ModelRetryMiddleware` and
`Runnable.with_retry(retry_if_exception_type=default_retry_on)` retry exactly the retryable errors.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import ModelRetryMiddleware, SummarizationMiddleware
from langchain.agents.middleware._retry import default_retry_on
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.exceptions import (
    ContextOverflowError,
    ModelAPIError,
    ModelAuthenticationError,
    ModelError,
    ModelInvalidRequestError,
)
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from langchain_perplexity_strict import (
    PerplexityBatchError,
    PerplexityBatchTimeoutError,
    PerplexityDecision,
    PerplexityEmbeddings,
    PerplexitySearchRetriever,
    get_perplexity_cost_callback,
)
from langchain_perplexity_strict.errors import (
    PerplexityBudgetExceededError,
    PerplexityIncompleteError,
    PerplexityRequestError,
    PerplexityResponseError,
    PerplexityResumeError,
    PerplexityRunTimeoutError,
    PerplexityRunUnknownError,
)
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import KEY, make
from tests.integration_tests.test_faults import run

MODES = ["invoke", "stream", "ainvoke", "astream"]
APIS = ["agent", "chat_completions"]
OVERFLOW_WORDS = "The total length of all messages is too long."


def check(error: BaseException, kind: type[BaseException], retryable: bool, *words: str) -> None:
    """`error` is of `kind`, says whether a retry may succeed as `retryable`, and carries `words`."""
    assert isinstance(error, kind), f"{type(error).__mro__} is not a {kind.__name__}"
    assert isinstance(error, ModelError)
    assert error.is_retryable is retryable
    assert default_retry_on(error) is retryable
    for said in words:
        assert said in str(error), str(error)


# -- HTTP errors ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("mode", MODES)
async def test_context_overflow_is_context_overflow_error(emu: PerplexityEmulator, api: str, mode: str) -> None:
    emu.inject(Fault("context_overflow"))
    with pytest.raises(ContextOverflowError) as info:
        await run(make(emu, api, max_retries=0), mode)
    check(info.value, ContextOverflowError, False, OVERFLOW_WORDS, "too_many_prompt_tokens", "HTTP 400")
    assert len(emu.requests) == 1


BODIES = [  # (status, form) → kind, retryable, the words the message carries
    (400, "json", ModelInvalidRequestError, False, "upstream answered 400 Bad Request"),
    (413, "json", ModelInvalidRequestError, False, "upstream answered 413"),
    (422, "detail", ModelInvalidRequestError, False, "body.input: Field required"),
    (401, "html", ModelAuthenticationError, False, "401 Unauthorized 401 Unauthorized openresty"),
    (502, "html", ModelAPIError, True, "502 Bad Gateway 502 Bad Gateway openresty"),
    (503, "text", ModelAPIError, True, "upstream answered 503 Service Unavailable"),
    (424, "text", ModelAPIError, True, "upstream answered 424 Failed Dependency"),
    (500, "empty", ModelAPIError, True, "HTTP 500: Internal Server Error, with no body"),
]


@pytest.mark.parametrize(("status", "form", "kind", "retryable", "words"), BODIES)
@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("mode", MODES)
async def test_http_error_bodies(
    emu: PerplexityEmulator, api: str, mode: str, status: int, form: str, kind: Any, retryable: bool, words: str
) -> None:
    emu.inject(Fault("error_body", status=status, form=form))  # type: ignore[arg-type]
    with pytest.raises(ModelError) as info:
        await run(make(emu, api, max_retries=0), mode)
    if api == "agent" and "stream" in mode and status >= 500:  # the run may have started: not posted again
        check(info.value, PerplexityRunUnknownError, False, f"HTTP {status}")
    else:
        check(info.value, kind, retryable, words)
    assert "<html" not in str(info.value)
    assert len(emu.requests) == 1


def _search(emu: PerplexityEmulator) -> Any:
    return PerplexitySearchRetriever(api_key=KEY, base_url=emu.base_url, max_retries=0).invoke("q")  # type: ignore[arg-type]


def _embed(emu: PerplexityEmulator) -> Any:
    return PerplexityEmbeddings(api_key=KEY, base_url=emu.base_url, max_retries=0).embed_query("q")  # type: ignore[arg-type]


def _decide(emu: PerplexityEmulator) -> Any:
    from tests.integration_tests.test_decisions import QUESTIONS

    decide = PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=QUESTIONS, max_retries=0)  # type: ignore[arg-type]
    return decide.invoke("x")


@pytest.mark.parametrize("call", [_search, _embed, _decide])
@pytest.mark.parametrize(("status", "form", "kind", "retryable", "words"), [BODIES[2], BODIES[3], BODIES[5]])
def test_other_entry_points(
    emu: PerplexityEmulator, call: Any, status: int, form: str, kind: Any, retryable: bool, words: str
) -> None:
    emu.inject(Fault("error_body", status=status, form=form))  # type: ignore[arg-type]
    with pytest.raises(ModelError) as info:
        call(emu)
    check(info.value, kind, retryable, words)


# -- errors inside an answer (Agent API) ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("fault", "kind", "retryable", "words"),
    [
        (Fault("failed", code="too_many_prompt_tokens"), ContextOverflowError, False, OVERFLOW_WORDS),
        (Fault("failed"), PerplexityResponseError, True, "emulated failure: the run failed"),
    ],
)
async def test_failed_run(
    emu: PerplexityEmulator, mode: str, fault: Fault, kind: Any, retryable: bool, words: str
) -> None:
    emu.inject(fault)
    with pytest.raises(PerplexityResponseError) as info:
        await run(make(emu, "agent"), mode)
    check(info.value, kind, retryable, words, fault.code)


@pytest.mark.parametrize("mode", ["stream", "astream"])
@pytest.mark.parametrize(
    ("code", "kind", "retryable", "words"),
    [
        ("too_many_prompt_tokens", ContextOverflowError, False, OVERFLOW_WORDS),
        ("server_error", PerplexityResponseError, True, "emulated failure: the run failed"),
    ],
)
async def test_stream_error_event(
    emu: PerplexityEmulator, mode: str, code: str, kind: Any, retryable: bool, words: str
) -> None:
    emu.inject(Fault("error_event", code=code, after_events=2))
    with pytest.raises(PerplexityResponseError) as info:
        await run(make(emu, "agent"), mode)
    check(info.value, kind, retryable, words, code)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("mode", MODES)
async def test_cut_answer_is_not_retryable(emu: PerplexityEmulator, api: str, mode: str) -> None:
    emu.inject(Fault("incomplete"))
    with pytest.raises(PerplexityIncompleteError) as info:
        await run(make(emu, api, raise_on_length=True), mode)
    check(info.value, PerplexityIncompleteError, False)


# -- the package's own errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("mode", MODES)
async def test_refusal_before_sending_is_not_retryable(emu: PerplexityEmulator, api: str, mode: str) -> None:
    with pytest.raises(ValueError, match="temperature") as info:
        await run(make(emu, api).bind(temperature=7), mode)  # type: ignore[arg-type]
    check(info.value, PerplexityRequestError, False, "temperature", "7")
    check(info.value, ModelInvalidRequestError, False)
    assert emu.requests == []


def test_spent_budget_is_not_retryable(emu: PerplexityEmulator) -> None:
    with get_perplexity_cost_callback(budget_usd=0.0), pytest.raises(PerplexityBudgetExceededError) as info:
        make(emu).invoke("x")
    check(info.value, PerplexityBudgetExceededError, False, "budget")
    assert emu.requests == []


@pytest.mark.parametrize(
    "kind",
    [
        PerplexityRunUnknownError,
        PerplexityResumeError,
        PerplexityRunTimeoutError,
        PerplexityBatchTimeoutError,
        PerplexityIncompleteError,
    ],
)
def test_errors_the_package_refuses_to_retry(kind: type[PerplexityResponseError]) -> None:
    """Each says a retry is not wanted: the run may still be going on, the batch goes on, the limit repeats."""
    error = kind("m") if kind is not PerplexityBatchTimeoutError else kind("m", "batch_1", "in_progress")  # type: ignore[call-arg]
    check(error, PerplexityResponseError, False, "m")


def test_batch_line_error_is_not_retryable() -> None:
    error = PerplexityBatchError("line", index=0, custom_id="input-0", batch_id="b", code="server_error")
    check(error, PerplexityResponseError, False, "line")


# -- LangChain's own machinery -------------------------------------------------------------------------------


class CountStarts(BaseCallbackHandler):
    """How many model calls started (a refusal before sending reaches no server)."""

    def __init__(self) -> None:
        self.starts = 0

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.starts += 1


RETRY_CASES = [  # a fault on the first request (None: a refusal before sending), retryable
    (Fault("rate_limit", seconds=0), True),
    (Fault("server_error", status=502), True),
    (Fault("failed"), True),
    (Fault("context_overflow"), False),
    (Fault("failed", code="too_many_prompt_tokens"), False),
    (Fault("error_body", status=422, form="detail"), False),
    (None, False),
]


def _first_call(emu: PerplexityEmulator, fault: Fault | None) -> list[Any]:
    """The messages of a first call that fails with `fault` (refused before sending when None: nothing but
    system messages)."""
    if fault is None:
        return [SystemMessage("only rules")]
    emu.inject(fault)
    return [HumanMessage("hello")]


def _calls(emu: PerplexityEmulator, counter: CountStarts, fault: Fault | None) -> int:
    return counter.starts if fault is None else len(emu.requests)


@pytest.mark.parametrize(("fault", "retryable"), RETRY_CASES)
def test_model_retry_middleware_retries_exactly_the_retryable(
    emu: PerplexityEmulator, fault: Fault | None, retryable: bool
) -> None:
    counter = CountStarts()
    messages = _first_call(emu, fault)
    agent = create_agent(
        make(emu, max_retries=0),
        middleware=[ModelRetryMiddleware(max_retries=2, initial_delay=0.0, jitter=False, on_failure="error")],
    )
    config: Any = {"callbacks": [counter]}
    if retryable:
        result = agent.invoke({"messages": messages}, config)
        assert isinstance(result["messages"][-1], AIMessage)
    else:
        with pytest.raises(ModelError):
            agent.invoke({"messages": messages}, config)
    assert _calls(emu, counter, fault) == (2 if retryable else 1)


@pytest.mark.parametrize(("fault", "retryable"), RETRY_CASES)
async def test_with_retry_retries_exactly_the_retryable(
    emu: PerplexityEmulator, fault: Fault | None, retryable: bool
) -> None:
    counter = CountStarts()
    messages = _first_call(emu, fault)
    model = make(emu, max_retries=0).with_retry(
        retry_if_exception_type=default_retry_on, wait_exponential_jitter=False, stop_after_attempt=3
    )
    config: Any = {"callbacks": [counter]}
    if retryable:
        assert isinstance(await model.ainvoke(messages, config), AIMessage)
    else:
        with pytest.raises(ModelError):
            await model.ainvoke(messages, config)
    assert _calls(emu, counter, fault) == (2 if retryable else 1)


@pytest.mark.parametrize("api", APIS)
def test_summarization_middleware_cuts_the_summary_prompt_on_overflow(emu: PerplexityEmulator, api: str) -> None:
    """The summary call overflows (the first request): the middleware asks again with the middle of the history
    cut out (the second), then the agent's model answers (the third)."""
    summarize = SummarizationMiddleware(make(emu, api, max_retries=0), trigger=("messages", 4), keep=("messages", 1))
    agent = create_agent(make(emu, api, max_retries=0), middleware=[summarize])
    history = [HumanMessage(f"question {i} " * 40) if i % 2 == 0 else AIMessage(f"answer {i} " * 40) for i in range(5)]
    emu.inject(Fault("context_overflow"))
    result = agent.invoke({"messages": history})
    assert isinstance(result["messages"][-1], AIMessage)
    assert len(emu.requests) == 3
    first, second = (str(r.body) for r in emu.requests[:2])
    assert "middle of conversation omitted" in second
    assert len(second) < len(first)
