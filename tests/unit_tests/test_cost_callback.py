"""The cost callback totals Perplexity's reported cost per model and per tool, and stops calls past a budget."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from langchain_perplexity_strict import PerplexityCostCallbackHandler, get_perplexity_cost_callback
from langchain_perplexity_strict.errors import PerplexityBudgetExceededError, PerplexityResponseError


def answer(model: str, total: float, tools: float = 0.0, searches: int = 0) -> AIMessage:
    metadata: dict[str, Any] = {
        "model_provider": "perplexity",
        "model_name": model,
        "cost": {"currency": "USD", "input_cost": total - tools - 0.001, "output_cost": 0.001,
                 "tool_calls_cost": tools, "total_cost": total},
    }  # fmt: skip
    if searches:
        metadata["tool_calls_details"] = {"web_search": {"invocation": searches, "cost_usd": tools}}
    return AIMessage("ok", response_metadata=metadata)


def fake(*messages: AIMessage) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(messages))


def test_costs_add_up_per_model_and_per_tool() -> None:
    llm = fake(answer("perplexity/sonar", 0.01, 0.005, 1), answer("openai/gpt-5.1", 0.02),
               answer("perplexity/sonar", 0.03, 0.01, 2))  # fmt: skip
    with get_perplexity_cost_callback() as cb:
        for _ in range(3):
            llm.invoke("q")
    assert cb.costs["perplexity/sonar"]["total_cost"] == pytest.approx(0.04)
    assert cb.costs["perplexity/sonar"]["tool_calls_cost"] == pytest.approx(0.015)
    assert cb.costs["openai/gpt-5.1"]["total_cost"] == pytest.approx(0.02)
    assert cb.total_cost == pytest.approx(0.06)
    assert cb.tool_calls == {"web_search": {"invocation": 3, "cost_usd": pytest.approx(0.015)}}


def test_calls_outside_the_block_are_not_counted() -> None:
    llm = fake(answer("m", 0.01), answer("m", 0.02))
    with get_perplexity_cost_callback() as cb:
        llm.invoke("q")
    llm.invoke("q")
    assert cb.total_cost == pytest.approx(0.01)


def test_an_answer_without_a_cost_adds_nothing() -> None:
    with get_perplexity_cost_callback() as cb:
        fake(AIMessage("no cost")).invoke("q")
    assert cb.costs == {} and cb.total_cost == 0


def test_a_spent_budget_stops_the_next_call_before_it_is_made() -> None:
    llm = fake(answer("m", 0.02), answer("m", 0.02), answer("m", 0.02))
    with get_perplexity_cost_callback(budget_usd=0.03) as cb:
        llm.invoke("q")  # 0.02 spent: under budget
        llm.invoke("q")  # starts under budget; 0.04 spent after it
        with pytest.raises(PerplexityBudgetExceededError) as error:
            llm.invoke("q")
    assert error.value.spent_usd == pytest.approx(0.04) and error.value.budget_usd == 0.03
    assert "0.040000 USD" in str(error.value) and "budget 0.030000 USD" in str(error.value)
    assert cb.total_cost == pytest.approx(0.04)  # the refused call cost nothing


async def test_the_budget_holds_for_async_calls_and_streams() -> None:
    llm = fake(answer("m", 0.05), answer("m", 0.05))
    handler = PerplexityCostCallbackHandler(budget_usd=0.05)
    await llm.ainvoke("q", config={"callbacks": [handler]})
    with pytest.raises(PerplexityBudgetExceededError):
        async for _ in llm.astream("q", config={"callbacks": [handler]}):
            pass


def test_a_negative_budget_is_refused() -> None:
    with pytest.raises(ValueError, match="budget_usd: -1"):
        PerplexityCostCallbackHandler(budget_usd=-1)


def test_another_models_cached_answer_is_not_counted() -> None:
    """A model other than ChatPerplexityStrict cannot say when it sends; its cache hits are told apart by the
    mark langchain-core puts on them (`usage_metadata["total_cost"] = 0`, langchain-ai/langchain#32437)."""
    priced = answer("m", 0.02)
    priced.usage_metadata = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    llm = GenericFakeChatModel(messages=iter([priced]), cache=InMemoryCache())
    with get_perplexity_cost_callback() as cb:
        first = llm.invoke("q")
        for _ in range(3):
            assert llm.invoke("q").content == first.content  # from the cache: the fake has no second answer
    assert cb.total_cost == pytest.approx(0.02)


def test_a_failed_runs_partial_answer_is_counted_once() -> None:
    """A `PerplexityResponseError` carries what the failed run reported on `.partial`: it was billed."""
    handler = PerplexityCostCallbackHandler()
    error = PerplexityResponseError("failed", partial=answer("m", 0.03))
    handler.on_llm_error(error, run_id=uuid.uuid4())
    handler.on_llm_error(PerplexityResponseError("failed before any answer"), run_id=uuid.uuid4())
    assert handler.total_cost == pytest.approx(0.03)
