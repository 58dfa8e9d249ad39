"""What Perplexity charged, totalled across calls, and a budget that stops the next call once spent.

langchain-core has no cost callback; this sums `response_metadata["cost"]` per model, as
`get_usage_metadata_callback` sums tokens. Cache hits add nothing; a failed run's reported cost counts once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.tracers.context import register_configure_hook

from langchain_perplexity_strict.errors import PerplexityBudgetExceededError


def _not_the_budget_refusal(record: logging.LogRecord) -> bool:
    """Drops langchain-core's log line for the budget's refusal (the app gets the error itself), by text only."""
    name, _, error = record.args if isinstance(record.args, tuple) and len(record.args) == 3 else (None, None, None)
    refusal = isinstance(error, str) and error.startswith(PerplexityBudgetExceededError.__name__ + "(")
    return not (isinstance(name, str) and name == "PerplexityCostCallbackHandler" and refusal)


logging.getLogger("langchain_core.callbacks.manager").addFilter(_not_the_budget_refusal)

COST_FIELDS = ("input_cost", "output_cost", "cache_creation_cost", "cache_read_cost", "tool_calls_cost", "total_cost")
"""The amounts of `ResponsesCostOutput` (USD)."""


class PerplexityCostCallbackHandler(BaseCallbackHandler):
    """Adds up Perplexity's reported cost per model and per built-in tool; refuses a call once a budget is spent.

    `costs`: per model, summed cost fields. `tool_calls`: per built-in tool, `invocation` and `cost_usd`.
    The budget is checked between calls, never cutting one in flight.
    """

    raise_error = True  # the budget's error must stop the call

    def __init__(self, budget_usd: float | None = None) -> None:
        super().__init__()
        if budget_usd is not None and budget_usd < 0:
            msg = f"budget_usd: {budget_usd!r} is not accepted; expected a cost in USD, 0 or more."
            raise ValueError(msg)
        self.budget_usd = budget_usd
        self.costs: dict[str, dict[str, float]] = {}
        self.tool_calls: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"PerplexityCostCallbackHandler(total_cost={self.total_cost}, costs={self.costs})"

    @property
    def total_cost(self) -> float:
        """Every reported `total_cost` so far, in USD."""
        with self._lock:
            return sum(c.get("total_cost", 0.0) for c in self.costs.values())

    def check_budget(self) -> None:
        """Raise `PerplexityBudgetExceededError` when the budget is spent."""
        if self.budget_usd is not None:
            spent = self.total_cost
            if spent >= self.budget_usd:
                raise PerplexityBudgetExceededError(spent, self.budget_usd)

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any) -> None:
        deferred = _DEFERRED.get()
        if deferred is not None and kwargs.get("invocation_params", {}).get("_type") == "perplexity-strict":
            if self not in deferred:  # checked when a request is sent: a cache hit sends none
                deferred.append(self)
            return
        self.check_budget()

    def on_llm_start(self, serialized: dict[str, Any], prompts: list[str], **kwargs: Any) -> None:
        self.check_budget()

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generation in (g for generations in response.generations for g in generations):
            # langchain-core marks a cache hit by `total_cost` 0 (langchain-ai/langchain#32437)
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None) or {}
            if isinstance(generation, ChatGeneration) and usage.get("total_cost") != 0:
                self._add(generation.message.response_metadata)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Count a failed run's reported cost once: from `partial`, or the streamed chunks."""
        partial = getattr(error, "partial", None)
        if isinstance(partial, AIMessage) and isinstance(partial.response_metadata.get("cost"), Mapping):
            self._add(partial.response_metadata)
        elif isinstance(kwargs.get("response"), LLMResult):
            self.on_llm_end(kwargs["response"])

    def _add(self, metadata: Mapping[str, Any]) -> None:
        cost = metadata.get("cost")
        if not isinstance(cost, Mapping):
            return
        model = str(metadata.get("model_name") or "unknown")
        with self._lock:
            totals = self.costs.setdefault(model, {})
            for name in COST_FIELDS:
                if isinstance(cost.get(name), (int, float)):
                    totals[name] = totals.get(name, 0.0) + float(cost[name])
            for tool, details in (metadata.get("tool_calls_details") or {}).items():
                summed = self.tool_calls.setdefault(str(tool), {"invocation": 0, "cost_usd": 0.0})
                summed["invocation"] += int((details or {}).get("invocation") or 0)
                summed["cost_usd"] += float((details or {}).get("cost_usd") or 0.0)


@contextmanager
def get_perplexity_cost_callback(
    budget_usd: float | None = None, name: str = "perplexity_cost_callback"
) -> Iterator[PerplexityCostCallbackHandler]:
    """Total (and cap) Perplexity's reported cost of every call in the `with` block.

    ```python
    with get_perplexity_cost_callback(budget_usd=0.50) as cb:
        agent.invoke(...)
    cb.total_cost, cb.costs, cb.tool_calls
    ```
    """
    var: ContextVar[PerplexityCostCallbackHandler | None] = ContextVar(name, default=None)
    register_configure_hook(var, inheritable=True)
    handler = PerplexityCostCallbackHandler(budget_usd)
    token = var.set(handler)
    try:
        yield handler
    finally:
        var.reset(token)


_DEFERRED: ContextVar[list[PerplexityCostCallbackHandler] | None] = ContextVar("pplx_deferred", default=None)


def requesting() -> None:
    """A request is about to be sent: check the budgets this context's `generate` call deferred."""
    for handler in _DEFERRED.get() or ():
        handler.check_budget()


@contextmanager
def deferred_budgets() -> Iterator[None]:
    """Budgets of `generate`'s runs wait for `requesting()`: a run starts before the cache lookup.

    langchain-core's `stream` calls `_stream` without the run's callbacks, so the scope says which calls wait.
    """
    token = _DEFERRED.set([])
    try:
        yield
    finally:
        _DEFERRED.reset(token)
