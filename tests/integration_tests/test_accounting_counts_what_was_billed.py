"""The cost callback counts what Perplexity billed, once, and its budget refuses only calls that would be billed.

What is billed (docs.perplexity.ai, `usage.cost` of `ResponsesUsageOutput`): a run that reached the
server, whatever its end; its reported cost is spent. An answer from langchain-core's cache
(`set_llm_cache`, a model's `cache=`) never reached it: it is not counted, and a spent budget lets it
through. The forms, each tested below against the emulator (which reports usage and cost):

Cache hits (not counted; not refused over budget; the miss counted once)
- invoke, ainvoke, batch, abatch, on the global cache, both surfaces
- a model-level `cache=InMemoryCache()`
- `streaming=True` invoke (the answer read from a stream after the cache missed)
- `generate` / `agenerate` with several prompts, some hits and some misses (counted per run)
- the wrappers: `bind`, `bind_tools`, `with_structured_output`, `configurable_fields`, `model_copy`,
  `init_chat_model("perplexity_strict:...")`
- `stream` / `astream`: langchain-core never consults the cache there, so every stream is sent,
  counted, and refused once the budget is spent
- the handler in a call's `config={"callbacks": [...]}` as in a `get_perplexity_cost_callback()` block:
  every call form, `streaming=True` too; its cache hits free and let through
- another provider's model in the same block: refused once the budget is spent (its cache cannot be told)
- a tool that calls another model inside an agent: each request counted, the nested one refused once spent
Runs that failed (what the server reported is counted, once; nothing when it reported nothing)
- a 4xx, a 5xx after the client's retries: nothing
- a `failed` status answer carrying usage (invoke, ainvoke, a background run polled to `failed`): its cost
- an answer cut at the output limit: returned (counted), or raised with `raise_on_length` (counted from `.partial`)
- a stream's `response.failed` event (`ResponseFailedEventOutput` carries no usage): nothing
- a stream left after its usage arrived: its cost; left before: nothing (none was reported)
- `with_fallbacks`: a first model refused before billing adds nothing, one that failed after billing adds its cost
- `with_fallbacks` once the budget is spent: the first model and its fallback are refused alike
- a background run cancelled at its `timeout`: the cancel reports no usage, so nothing
- `batch` / `abatch` with `return_exceptions=True`: the billed runs, the failed ones by the rules above
Retries and streams (counted once)
- a request retried after a 5xx; a stream resumed after a reset; a stream's usage (in one chunk, not per chunk)
- `n=2`: two requests, both billed; answered from the cache, free
- a stream's usage totalled once (`get_usage_metadata_callback` too), as invoke reports it, both surfaces

Usage totals beside the chat model
- `PerplexityEmbeddings.embed` / `aembed`, `PerplexityContextualizedEmbeddings.embed_contexts` /
  `aembed_contexts`: each request's usage summed once, a retried request once

Outside the class: search (`PerplexitySearchRetriever`, `PerplexitySearchResults`; the Search API
reports no usage or cost), the embeddings and the CLI fire no chat model callbacks, so the cost
callback sees none of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from typing import Any

import openai
import pytest
from langchain.chat_models import init_chat_model
from langchain_core.caches import InMemoryCache
from langchain_core.callbacks import get_usage_metadata_callback
from langchain_core.globals import set_llm_cache
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import ConfigurableField, Runnable, RunnableConfig
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityCostCallbackHandler,
    PerplexityEmbeddings,
    get_perplexity_cost_callback,
)
from langchain_perplexity_strict.errors import (
    PerplexityBudgetExceededError,
    PerplexityIncompleteError,
    PerplexityResponseError,
    PerplexityRunTimeoutError,
)
from langchain_perplexity_strict.testing import Fault, ManualClock, PerplexityEmulator
from tests.integration_tests.factory import KEY, make

pytestmark = pytest.mark.usefixtures("quick_client_retries")


@pytest.fixture
def cache() -> Iterator[InMemoryCache]:
    """langchain-core's global cache, for one test."""
    cache = InMemoryCache()
    set_llm_cache(cache)
    yield cache
    set_llm_cache(None)


def cost(message: AIMessage) -> float:
    return float(message.response_metadata["cost"]["total_cost"])


def sent(emu: PerplexityEmulator) -> int:
    """Requests that start a run (a retry, a resume or a poll is none)."""
    return sum(r.kind in ("create", "chat") for r in emu.requests)


async def call(llm: Runnable[Any, Any], mode: str, text: str, config: RunnableConfig | None = None) -> Any:
    if mode == "invoke":
        return llm.invoke(text, config)
    if mode == "ainvoke":
        return await llm.ainvoke(text, config)
    if mode == "batch":
        return llm.batch([text], config)[0]
    if mode == "stream":
        return list(llm.stream(text, config))
    if mode == "astream":
        return [c async for c in llm.astream(text, config)]
    return (await llm.abatch([text], config))[0]


MODES = ["invoke", "ainvoke", "batch", "abatch"]

# --- cache hits -----------------------------------------------------------------------------------


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_cached_answer_is_not_counted_as_spent(
    emu: PerplexityEmulator, cache: InMemoryCache, mode: str, api: str
) -> None:
    """The issue's example: four calls, three of them cache hits, cost what one request cost."""
    llm = make(emu, api)
    with get_perplexity_cost_callback() as cb:
        answers = [await call(llm, mode, "cached question") for _ in range(4)]
    assert sent(emu) == 1
    assert cb.total_cost == pytest.approx(cost(answers[0])) and cb.total_cost > 0


@pytest.mark.parametrize("mode", MODES)
async def test_a_spent_budget_lets_a_cache_hit_through_and_refuses_a_request(
    emu: PerplexityEmulator, cache: InMemoryCache, mode: str
) -> None:
    llm = make(emu)
    first = await call(llm, mode, "asked before")
    with get_perplexity_cost_callback(budget_usd=cost(first)) as cb:
        await call(llm, mode, "a new question")  # under budget: sent
        spent = cb.total_cost
        again = await call(llm, mode, "asked before")  # over budget, but the cache answers: nothing is sent
        assert again.content == first.content
        with pytest.raises(PerplexityBudgetExceededError):
            await call(llm, mode, "another new question")
    assert sent(emu) == 2 and cb.total_cost == spent  # the refused call and the cache hit cost nothing


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_a_model_level_cache_is_honoured_like_the_global_one(emu: PerplexityEmulator, mode: str) -> None:
    llm = make(emu, cache=InMemoryCache())
    with get_perplexity_cost_callback(budget_usd=1e-9) as cb:
        first = await call(llm, mode, "model cache")  # the budget is not spent yet: sent
        for _ in range(3):
            await call(llm, mode, "model cache")  # spent, but answered from the model's cache
    assert sent(emu) == 1 and cb.total_cost == pytest.approx(cost(first))


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_a_streaming_model_counts_its_miss_once_and_its_hits_never(
    emu: PerplexityEmulator, cache: InMemoryCache, mode: str
) -> None:
    llm = make(emu, streaming=True)
    with get_perplexity_cost_callback(budget_usd=1e-9) as cb:
        answers = [await call(llm, mode, "streamed and cached") for _ in range(3)]
    assert sent(emu) == 1 and cb.total_cost == pytest.approx(cost(answers[0]))


@pytest.mark.parametrize("sync", [True, False])
async def test_generate_with_hits_and_misses_counts_each_run_by_its_own_request(
    emu: PerplexityEmulator, cache: InMemoryCache, sync: bool
) -> None:
    llm = make(emu)
    hit = llm.invoke("already asked")
    prompts = [[HumanMessage("already asked")], [HumanMessage("not yet asked")], [HumanMessage("nor this")]]
    with get_perplexity_cost_callback() as cb:
        result = llm.generate(prompts) if sync else await llm.agenerate(prompts)
    misses = [g[0].message for g in result.generations[1:]]
    assert result.generations[0][0].message.content == hit.content
    assert sent(emu) == 3 and cb.total_cost == pytest.approx(sum(cost(m) for m in misses))  # type: ignore[arg-type]


class Topic(BaseModel):
    topic: str


WRAPPERS: dict[str, Callable[[PerplexityEmulator], Runnable[Any, Any]]] = {
    "bind": lambda emu: make(emu).bind(temperature=0.3),
    "bind_tools": lambda emu: make(emu).bind_tools([{"type": "web_search"}]),
    "with_structured_output": lambda emu: make(emu).with_structured_output(Topic, include_raw=True),
    "configurable_fields": lambda emu: (
        make(emu)
        .configurable_fields(temperature=ConfigurableField(id="temperature"))
        .with_config(configurable={"temperature": 0.4})
    ),
    "model_copy": lambda emu: make(emu).model_copy(update={"temperature": 0.2}),
    "init_chat_model": lambda emu: init_chat_model(
        "perplexity_strict:perplexity/sonar", api_key=KEY, base_url=emu.base_url
    ),
}


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("mode", ["invoke", "abatch"])
async def test_every_wrapper_counts_a_cache_hit_as_free(
    emu: PerplexityEmulator, cache: InMemoryCache, wrapper: str, mode: str
) -> None:
    runnable = WRAPPERS[wrapper](emu)
    with get_perplexity_cost_callback(budget_usd=1e-9) as cb:
        answers = [await call(runnable, mode, "wrapped and cached") for _ in range(3)]
    first = answers[0]["raw"] if wrapper == "with_structured_output" else answers[0]
    assert sent(emu) == 1 and cb.total_cost == pytest.approx(cost(first))


@pytest.mark.parametrize("sync", [True, False])
async def test_streams_are_always_sent_so_always_counted_and_refused_once_spent(
    emu: PerplexityEmulator, cache: InMemoryCache, sync: bool
) -> None:
    """langchain-core's `stream` / `astream` never look in the cache: each stream is a billed request."""
    llm = make(emu)

    async def stream() -> list[Any]:
        return list(llm.stream("streamed twice")) if sync else [c async for c in llm.astream("streamed twice")]

    with get_perplexity_cost_callback(budget_usd=1e-9) as cb:
        chunks = await stream()
        with pytest.raises(PerplexityBudgetExceededError):
            await stream()
    usage_chunks = [c for c in chunks if c.response_metadata.get("cost")]
    assert len(usage_chunks) == 1  # the cost comes once, and is counted once
    assert sent(emu) == 1 and cb.total_cost == pytest.approx(usage_chunks[0].response_metadata["cost"]["total_cost"])


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("where", ["config", "context"])
@pytest.mark.parametrize("mode", [*MODES, "stream", "astream"])
async def test_a_handler_in_the_config_refuses_as_one_in_the_block_does(
    emu: PerplexityEmulator, mode: str, where: str, streaming: bool
) -> None:
    handler = PerplexityCostCallbackHandler(budget_usd=1e-9)
    config: RunnableConfig | None = {"callbacks": [handler]} if where == "config" else None
    block = get_perplexity_cost_callback(budget_usd=1e-9) if where == "context" else nullcontext(handler)
    llm = make(emu, **({"streaming": True} if streaming else {}))  # streaming=False: `stream` calls `invoke`
    with block as cb:
        await call(llm, mode, "first", config)  # nothing spent yet: sent
        with pytest.raises(PerplexityBudgetExceededError):
            await call(llm, mode, "second", config)
    assert sent(emu) == 1 and cb.total_cost > 0


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("mode", MODES)
async def test_a_handler_in_the_config_lets_a_cache_hit_through_free(
    emu: PerplexityEmulator, cache: InMemoryCache, mode: str, streaming: bool
) -> None:
    handler = PerplexityCostCallbackHandler(budget_usd=1e-9)
    llm = make(emu, **({"streaming": True} if streaming else {}))  # streaming=False: `stream` calls `invoke`
    answers = [await call(llm, mode, "cached, handler in the config", {"callbacks": [handler]}) for _ in range(3)]
    assert sent(emu) == 1 and handler.total_cost == pytest.approx(cost(answers[0]))


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
async def test_another_providers_model_in_the_block_is_refused_once_spent(emu: PerplexityEmulator, mode: str) -> None:
    other = GenericFakeChatModel(messages=iter([AIMessage("never sent")]))
    with get_perplexity_cost_callback(budget_usd=1e-9) as cb:
        make(emu).invoke("spend the budget")
        with pytest.raises(PerplexityBudgetExceededError):
            await call(other, mode, "another provider")
    assert sent(emu) == 1 and cb.total_cost > 0


@pytest.mark.parametrize("sync", [True, False])
async def test_a_tool_calling_a_model_inside_an_agent_is_counted_and_refused_once_spent(
    emu: PerplexityEmulator, sync: bool
) -> None:
    from langchain.agents import create_agent

    inner: list[AIMessage] = []

    @tool
    def ask(question: str) -> str:
        """Ask another model."""
        inner.append(make(emu).invoke(question))
        return str(inner[-1].text)

    @tool
    async def aask(question: str) -> str:
        """Ask another model."""
        inner.append(await make(emu).ainvoke(question))
        return str(inner[-1].text)

    agent = create_agent(make(emu), tools=[ask if sync else aask])
    state = {"messages": [("human", f"call {'ask' if sync else 'aask'} with what is the sky")]}

    async def run() -> Any:
        return agent.invoke(state) if sync else await agent.ainvoke(state)

    with get_perplexity_cost_callback() as cb:
        result = await run()
    answers = [m for m in result["messages"] if isinstance(m, AIMessage)]
    assert len(inner) == 1 and len(answers) == 2 and sent(emu) == 3
    assert cb.total_cost == pytest.approx(sum(cost(m) for m in answers + inner))
    emu.clear()
    with get_perplexity_cost_callback(budget_usd=1e-9), pytest.raises(PerplexityBudgetExceededError):
        await run()  # the agent's first call spends the budget: the tool's call is refused
    assert sent(emu) == 1 and len(inner) == 1


# --- failed runs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "faults", [[Fault("rate_limit")], [Fault("server_error", status=500)] * 2], ids=["4xx", "5xx_after_retries"]
)
async def test_a_refused_request_adds_nothing(emu: PerplexityEmulator, mode: str, faults: list[Fault]) -> None:
    emu.inject(*faults)
    with get_perplexity_cost_callback() as cb, pytest.raises(openai.APIStatusError, match=r"429|500"):
        await call(make(emu, max_retries=1 if len(faults) > 1 else 0), mode, "refused")
    assert cb.total_cost == 0 and cb.costs == {}


@pytest.mark.parametrize("mode", MODES)
async def test_a_failed_run_that_reported_its_cost_is_counted_once(emu: PerplexityEmulator, mode: str) -> None:
    expected = cost(make(emu).invoke("failing run"))  # the same run, completed: the emulator bills it alike
    emu.inject(Fault("failed"))
    with get_perplexity_cost_callback() as cb, pytest.raises(PerplexityResponseError, match="'failed'") as raised:
        await call(make(emu), mode, "failing run")
    assert raised.value.partial is not None and cost(raised.value.partial) == pytest.approx(expected)
    assert cb.total_cost == pytest.approx(expected)


async def test_a_background_run_polled_to_failed_is_counted_once(emu: PerplexityEmulator) -> None:
    expected = cost(make(emu).invoke("failing in the background"))
    emu.inject(Fault("failed"))
    with get_perplexity_cost_callback() as cb, pytest.raises(PerplexityResponseError, match="'failed'"):
        await make(emu, background=True).ainvoke("failing in the background")
    assert cb.total_cost == pytest.approx(expected)


@pytest.mark.parametrize("raise_on_length", [False, True])
@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_an_answer_cut_at_the_limit_is_counted_once_returned_or_raised(
    emu: PerplexityEmulator, mode: str, raise_on_length: bool
) -> None:
    expected = cost(make(emu).invoke("cut short"))
    emu.inject(Fault("incomplete"))
    llm = make(emu, raise_on_length=raise_on_length)
    with get_perplexity_cost_callback() as cb:
        if raise_on_length:
            with pytest.raises(PerplexityIncompleteError):
                await call(llm, mode, "cut short")
        else:
            assert (await call(llm, mode, "cut short")).response_metadata["finish_reason"] == "length"
    assert cb.total_cost == pytest.approx(expected)


@pytest.mark.parametrize("sync", [True, False])
async def test_a_stream_failed_event_reports_no_cost_so_adds_nothing(emu: PerplexityEmulator, sync: bool) -> None:
    emu.inject(Fault("failed"))
    llm = make(emu)
    with get_perplexity_cost_callback() as cb, pytest.raises(PerplexityResponseError, match="'failed'"):
        if sync:
            list(llm.stream("fails streaming"))
        else:
            [c async for c in llm.astream("fails streaming")]
    assert cb.total_cost == 0


@pytest.mark.parametrize("sync", [True, False])
async def test_a_stream_left_after_its_usage_counts_it_and_one_left_before_adds_nothing(sync: bool) -> None:
    """The answer comes in two network reads (the first connection is reset after 5 events and the stream
    resumed), so the stream can be left before its usage arrives, whatever the machine's speed."""

    async def leave(emu: PerplexityEmulator, when: Callable[[Any], bool]) -> list[Any]:
        emu.inject(Fault("reset", after_events=5))
        llm, taken = make(emu), []
        if sync:
            stream = llm.stream("left early")
            for chunk in stream:
                taken.append(chunk)
                if when(chunk):
                    stream.close()
                    break
        else:
            astream = llm.astream("left early")
            async for chunk in astream:
                taken.append(chunk)
                if when(chunk):
                    await astream.aclose()
                    break
        return taken

    # A 0.6 s run on a clock that jumps to each moment its stream waits for: through in no time.
    with PerplexityEmulator(api_key=KEY, run_duration=0.6, clock=ManualClock(autojump=True)) as emu:
        with get_perplexity_cost_callback() as cb:
            taken = await leave(emu, lambda c: bool(c.response_metadata.get("cost")))
        assert cb.total_cost == pytest.approx(taken[-1].response_metadata["cost"]["total_cost"]) and cb.total_cost > 0
        with get_perplexity_cost_callback() as cb:
            taken = await leave(emu, lambda c: True)  # the first chunk: no usage has come
        assert len(taken) == 1 and not taken[0].response_metadata.get("cost") and cb.total_cost == 0


async def test_fallbacks_count_a_first_model_only_when_it_was_billed(emu: PerplexityEmulator) -> None:
    expected = cost(make(emu).invoke("fallback"))
    chain = make(emu, max_retries=0).with_fallbacks([make(emu)])
    emu.inject(Fault("rate_limit"))  # the first is refused: not billed
    with get_perplexity_cost_callback() as cb:
        chain.invoke("fallback")
    assert cb.total_cost == pytest.approx(expected)
    emu.inject(Fault("failed"))  # the first ran and failed: billed, then the fallback is billed too
    with get_perplexity_cost_callback() as cb:
        chain.invoke("fallback")
    assert cb.total_cost == pytest.approx(2 * expected)


async def test_fallbacks_are_refused_alike_once_the_budget_is_spent(emu: PerplexityEmulator) -> None:
    """`with_fallbacks` catches the first model's refusal and tries the next, which the budget refuses too."""
    llm = make(emu)
    expected = cost(llm.invoke("fallback budget"))
    with get_perplexity_cost_callback(budget_usd=expected) as cb:
        llm.invoke("fallback budget")
        with pytest.raises(PerplexityBudgetExceededError):
            llm.with_fallbacks([make(emu)]).invoke("fallback budget")
    assert sent(emu) == 2 and cb.total_cost == pytest.approx(expected)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_a_background_run_cancelled_at_its_timeout_reported_no_cost_so_adds_nothing(mode: str) -> None:
    """The cancel answers `ResponsesCancelResponseOutput` (an id and `cancelling`), with no usage: nothing
    was reported, so nothing is counted. The run lasts 2 s, the call waits 0.3 s."""
    with PerplexityEmulator(api_key=KEY, run_duration=2.0) as emu:
        llm = make(emu, background=True, timeout=0.3)
        with get_perplexity_cost_callback() as cb, pytest.raises(PerplexityRunTimeoutError):
            await call(llm, mode, "cancelled at its timeout")
        assert "cancel" in [r.kind for r in emu.requests]
    assert cb.total_cost == 0


@pytest.mark.parametrize("sync", [True, False])
async def test_a_batch_returning_exceptions_counts_the_billed_runs(emu: PerplexityEmulator, sync: bool) -> None:
    llm = make(emu, max_retries=0)
    expected = cost(llm.invoke("in a batch"))
    emu.inject(Fault("failed"), Fault("rate_limit"))  # billed then failed; refused; the third completes
    inputs = ["in a batch"] * 3
    with get_perplexity_cost_callback() as cb:
        if sync:
            results = llm.batch(inputs, config={"max_concurrency": 1}, return_exceptions=True)
        else:
            results = await llm.abatch(inputs, config={"max_concurrency": 1}, return_exceptions=True)
    assert [type(r).__name__ for r in results] == ["PerplexityResponseError", "OpenAIRateLimitError", "AIMessage"]
    assert cb.total_cost == pytest.approx(2 * expected)


# --- retries, resumes, streams, n ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_retried_request_is_counted_once(emu: PerplexityEmulator, mode: str) -> None:
    emu.inject(Fault("server_error", status=503))
    with get_perplexity_cost_callback() as cb:
        answer = await call(make(emu), mode, "retried")
    assert len(emu.requests) == 2 and cb.total_cost == pytest.approx(cost(answer))


@pytest.mark.parametrize("sync", [True, False])
async def test_a_resumed_stream_is_counted_once(sync: bool) -> None:
    with PerplexityEmulator(api_key=KEY, run_duration=0.6, clock=ManualClock(autojump=True)) as emu:
        emu.inject(Fault("reset", after_events=5))
        llm = make(emu)
        with get_perplexity_cost_callback() as cb:
            chunks = list(llm.stream("resumed")) if sync else [c async for c in llm.astream("resumed")]
        assert [r.kind for r in emu.requests] == ["create", "resume"]
    priced = [c.response_metadata["cost"]["total_cost"] for c in chunks if c.response_metadata.get("cost")]
    assert len(priced) == 1 and cb.total_cost == pytest.approx(priced[0])


async def test_n_answers_are_n_billed_requests(emu: PerplexityEmulator) -> None:
    with get_perplexity_cost_callback() as cb:
        result = await asyncio.to_thread(make(emu, n=2).generate, [[HumanMessage("twice")]])
    answers = [g.message for g in result.generations[0]]
    assert sent(emu) == 2 and cb.total_cost == pytest.approx(sum(cost(m) for m in answers))  # type: ignore[arg-type]


async def test_n_cached_answers_are_free_as_one_call(emu: PerplexityEmulator, cache: InMemoryCache) -> None:
    llm = make(emu, n=2)
    with get_perplexity_cost_callback(budget_usd=1e-9) as cb:
        first = await asyncio.to_thread(llm.generate, [[HumanMessage("twice, cached")]])
        for _ in range(2):
            await llm.agenerate([[HumanMessage("twice, cached")]])
    answers = [g.message for g in first.generations[0]]
    assert sent(emu) == 2 and cb.total_cost == pytest.approx(sum(cost(m) for m in answers))  # type: ignore[arg-type]


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
@pytest.mark.parametrize("sync", [True, False])
async def test_a_streams_usage_is_totalled_once_as_invoke_reports_it(
    emu: PerplexityEmulator, api: str, sync: bool
) -> None:
    """langchain-core's `get_usage_metadata_callback` and the cost callback see a stream's usage once."""
    llm = make(emu, api)
    invoked = llm.invoke("usage once")
    with get_usage_metadata_callback() as usage, get_perplexity_cost_callback() as cb:
        chunks = list(llm.stream("usage once")) if sync else [c async for c in llm.astream("usage once")]
    assert sum(1 for c in chunks if c.usage_metadata) == 1
    assert usage.usage_metadata == {invoked.response_metadata["model_name"]: invoked.usage_metadata}
    assert cb.total_cost == pytest.approx(cost(invoked))


def test_a_model_built_without_the_callback_sends_as_before(emu: PerplexityEmulator, cache: InMemoryCache) -> None:
    """Outside a cost callback nothing changes: the cache answers, misses are sent."""
    llm = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url)  # type: ignore[arg-type]
    assert llm.invoke("plain").content == llm.invoke("plain").content
    assert sent(emu) == 1


# --- usage totals beside the chat model ----------------------------------------------------------


@pytest.mark.parametrize("sync", [True, False])
@pytest.mark.parametrize("contextualized", [False, True])
async def test_embeddings_usage_counts_a_retried_request_once(
    emu: PerplexityEmulator, sync: bool, contextualized: bool
) -> None:
    """`embed` / `embed_contexts` sum each request's usage; a request retried after a 5xx answered once."""
    cls = PerplexityContextualizedEmbeddings if contextualized else PerplexityEmbeddings
    model: Any = cls(api_key=KEY, base_url=emu.base_url)  # type: ignore[call-arg]
    texts: Any = [["a chunk", "another chunk"]] if contextualized else ["a text", "another text"]

    async def embed() -> Any:
        if contextualized:
            return model.embed_contexts(texts) if sync else await model.aembed_contexts(texts)
        return model.embed(texts) if sync else await model.aembed(texts)

    expected = (await embed()).usage
    emu.clear()
    emu.inject(Fault("server_error", status=502))
    assert (await embed()).usage == expected and len(emu.requests) == 2
