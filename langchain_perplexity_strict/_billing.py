"""Which runs of a chat model call reached Perplexity, so only those are counted as spent, or refused by a budget.

langchain-core answers a call from its cache (`set_llm_cache`, or the
model's `cache=`) inside `generate`, after `on_chat_model_start` and without
calling the model: a callback cannot tell a cached answer from a billed one,
nor refuse a call that the cache will answer. So the chat model says so:
`generate` / `agenerate` open a `Billing` (`RequestScope` below), a cost
callback's `on_chat_model_start` defers its budget check to it
(`Billing.defer`), and the model calls `requesting()` just before it sends
a request, which runs the deferred checks and marks the run as sent. A run
never marked was answered without a request. `stream` / `astream` never
consult the cache (langchain-core), so they open no scope: their runs are
always sent, and a callback checks at the start as before.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol


class Budget(Protocol):
    """A callback with a budget, checked before a request is sent (`PerplexityCostCallbackHandler`)."""

    def check_budget(self) -> None: ...


class Billing:
    """The runs of one `generate` call: whose budget each waits on, which were sent."""

    def __init__(self, runs: int) -> None:
        self.expected = runs  # generate's prompts: only its own runs are deferred here, not a nested call's
        self.budgets: dict[uuid.UUID, list[Budget]] = {}
        self.sent: set[uuid.UUID] = set()
        self._lock = threading.Lock()

    def defer(self, run_id: uuid.UUID, budget: Budget) -> bool:
        """Whether `budget`'s check for `run_id` waits for `requesting()` (the run is this call's)."""
        with self._lock:
            if run_id not in self.budgets and len(self.budgets) >= self.expected:
                return False
            self.budgets.setdefault(run_id, []).append(budget)
            return True

    def requesting(self, run_id: uuid.UUID | None) -> None:
        """Run `run_id` is about to be sent: check its budgets (raising if spent), then count it as sent."""
        with self._lock:
            # Without a run (a langchain-core that no longer calls `_generate_with_cache`),
            # every run of the call is taken as sent: counted rather than missed.
            runs = [run_id] if run_id is not None else list(self.budgets)
            budgets = [b for run in runs for b in self.budgets.get(run, [])] if runs else []
        for budget in budgets:
            budget.check_budget()
        with self._lock:
            self.sent.update(run for run in runs if run is not None)

    def answered_without_request(self, run_id: uuid.UUID) -> bool:
        """Whether `run_id` is this call's and ended with no request sent (a cache answered it)."""
        with self._lock:
            return run_id in self.budgets and run_id not in self.sent


_BILLING: ContextVar[Billing | None] = ContextVar("perplexity_strict_billing", default=None)
_RUN: ContextVar[uuid.UUID | None] = ContextVar("perplexity_strict_run", default=None)
"""The run `_generate_with_cache` serves: per context, as `agenerate` serves its prompts in concurrent tasks."""


def current() -> Billing | None:
    """The `generate` call being made in this context, if any."""
    return _BILLING.get()


def requesting() -> None:
    """A request is about to be sent for the call in this context (nothing to do outside `generate`)."""
    billing = _BILLING.get()
    if billing is not None:
        billing.requesting(_RUN.get())


@contextmanager
def _scope(runs: int) -> Iterator[Billing]:
    billing = Billing(runs)
    token = _BILLING.set(billing)
    try:
        yield billing
    finally:
        _BILLING.reset(token)


class RequestScope:
    """Mixin for a chat model: its `generate` / `agenerate` say which runs reached the network.

    It wraps langchain-core's entry points (every invoke, batch and `streaming=True` call goes through
    `generate` or `agenerate`) and notes the run each `_generate_with_cache` serves, so `requesting()`
    knows which run is sent; the model calls `requesting()` before each request.
    """

    def generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        with _scope(len(messages)):
            return super().generate(messages, *args, **kwargs)  # type: ignore[misc]

    async def agenerate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        with _scope(len(messages)):
            return await super().agenerate(messages, *args, **kwargs)  # type: ignore[misc]

    def _generate_with_cache(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        token = _RUN.set(getattr(run_manager, "run_id", None))
        try:
            return super()._generate_with_cache(messages, stop, run_manager, **kwargs)  # type: ignore[misc]
        finally:
            _RUN.reset(token)

    async def _agenerate_with_cache(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        token = _RUN.set(getattr(run_manager, "run_id", None))
        try:
            return await super()._agenerate_with_cache(messages, stop, run_manager, **kwargs)  # type: ignore[misc]
        finally:
            _RUN.reset(token)
