"""`_cost`'s billing scope: a call's runs wait on their budgets until sent; a run never sent was a cache hit."""

from __future__ import annotations

import uuid

import pytest

from langchain_perplexity_strict._cost import Billing
from langchain_perplexity_strict.errors import PerplexityBudgetExceededError


class Spent:
    """A budget already spent, counting its checks."""

    def __init__(self) -> None:
        self.checks = 0

    def check_budget(self) -> None:
        self.checks += 1
        raise PerplexityBudgetExceededError(1.0, 1.0)


def test_only_the_calls_own_runs_are_deferred() -> None:
    """A call of one prompt defers one run; a run started meanwhile (another call's) is checked at its start."""
    billing, budget = Billing(1), Spent()
    mine, other = uuid.uuid4(), uuid.uuid4()
    assert billing.defer(mine, budget) and billing.defer(mine, Spent())  # two callbacks on the same run
    assert not billing.defer(other, budget)


def test_a_run_is_checked_when_sent_and_a_run_never_sent_was_answered_without_a_request() -> None:
    billing, budget = Billing(2), Spent()
    hit, miss = uuid.uuid4(), uuid.uuid4()
    billing.defer(hit, budget)
    billing.defer(miss, budget)
    with pytest.raises(PerplexityBudgetExceededError):
        billing.requesting(miss)
    assert budget.checks == 1  # the hit's check never ran: it sends nothing
    assert billing.answered_without_request(hit) and not billing.answered_without_request(uuid.uuid4())


def test_a_send_without_a_known_run_counts_every_run_as_sent() -> None:
    """Should langchain-core stop calling `_generate_with_cache`, runs are counted rather than missed."""
    billing = Billing(2)
    runs = [uuid.uuid4(), uuid.uuid4()]

    class Open:
        def check_budget(self) -> None:
            pass

    for run in runs:
        billing.defer(run, Open())
    billing.requesting(None)
    assert not any(billing.answered_without_request(run) for run in runs)
