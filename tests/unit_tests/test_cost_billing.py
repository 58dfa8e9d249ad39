"""The budget waits for a request: a chat model call's own runs are checked when sent, a cache hit never."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.globals import set_llm_cache
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityCostCallbackHandler,
    get_perplexity_cost_callback,
)
from langchain_perplexity_strict.errors import PerplexityBudgetExceededError
from langchain_perplexity_strict.testing import PerplexityEmulator

KEY = "test-key"


class Counting(PerplexityCostCallbackHandler):
    """A cost callback counting its budget checks."""

    checks = 0

    def check_budget(self) -> None:
        self.checks += 1
        super().check_budget()


@pytest.fixture
def llm() -> Iterator[ChatPerplexityStrict]:
    set_llm_cache(InMemoryCache())
    with PerplexityEmulator(api_key=KEY) as emu:
        yield ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url)  # type: ignore[arg-type]
    set_llm_cache(None)


def cost(message: Any) -> float:
    return float(message.response_metadata["cost"]["total_cost"])


def test_only_the_calls_own_runs_are_deferred(llm: ChatPerplexityStrict) -> None:
    """Another model's run started during the call (here by its end callback) is checked at its start."""
    llm.invoke("asked before")
    refused: list[BaseException] = []

    class Nested(BaseCallbackHandler):
        def on_llm_end(self, *args: Any, **kwargs: Any) -> None:
            try:
                GenericFakeChatModel(messages=iter([AIMessage("never")])).invoke("nested")
            except PerplexityBudgetExceededError as error:
                refused.append(error)

    with get_perplexity_cost_callback(budget_usd=0.0):
        answer = llm.invoke("asked before", config={"callbacks": [Nested()]})  # a cache hit: let through
    assert answer.content and len(refused) == 1


def test_a_run_is_checked_when_sent_and_a_run_never_sent_was_answered_without_a_request(
    llm: ChatPerplexityStrict,
) -> None:
    llm.invoke("asked before")
    budget = Counting()
    result = llm.generate([[HumanMessage("asked before")], [HumanMessage("not yet")]], callbacks=[budget])
    assert budget.checks == 1  # the hit's check never ran: it sends nothing
    assert budget.total_cost == pytest.approx(cost(result.generations[1][0].message))
    with pytest.raises(PerplexityBudgetExceededError):
        llm.generate([[HumanMessage("asked before")], [HumanMessage("nor this")]], callbacks=[Counting(0.0)])


def test_a_send_without_the_run_manager_is_checked_and_counted() -> None:
    """langchain-core's streaming path in `invoke` calls `_stream` without the run's callbacks."""
    with PerplexityEmulator(api_key=KEY) as emu:
        llm = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, streaming=True)  # type: ignore[arg-type]
        budget = Counting(1e-9)
        answer = llm.invoke("streamed", config={"callbacks": [budget]})
        with pytest.raises(PerplexityBudgetExceededError):
            llm.invoke("streamed again", config={"callbacks": [budget]})
    assert budget.checks == 2 and budget.total_cost == pytest.approx(cost(answer))
