"""What Perplexity charged, totalled across calls, and a budget that stops the next call once spent.

Every Agent API answer reports its cost (`usage.cost`: input, output, cache
and tool-call costs, and `total_cost`) and, per built-in tool, its
invocations and cost (`usage.tool_calls_details`); the chat model puts them
in `response_metadata["cost"]` and `response_metadata["tool_calls_details"]`.
This handler adds them up per served model, the way langchain-core's
`get_usage_metadata_callback` adds up tokens, so an application can see and
cap what a run of an agent costs.

Only what reached Perplexity is counted. An answer langchain-core took from its
cache (`set_llm_cache`, a model's `cache=`) was not billed: it adds nothing, and
a spent budget does not refuse it, since the budget is checked when a request
is about to be sent (`RequestScope` below), not when a call starts. A run that failed
after Perplexity reported its cost (a `failed` status, an answer cut at the
output limit, a stream left after its usage arrived) was billed: its cost is
counted once, from the error's `partial` answer or the chunks received.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.tracers.context import register_configure_hook

from langchain_perplexity_strict.errors import PerplexityBudgetExceededError


class _BudgetRefusalFilter(logging.Filter):
    """Drops langchain-core's "Error in PerplexityCostCallbackHandler..." line for the budget's refusal.

    langchain-core logs every error a callback raises, then re-raises it when the handler's
    `raise_error` is set; the refusal is the call's own error, raised to the app, so the log
    line would only repeat it on stderr. Any other error of the handler is still logged. It sees every
    record of that logger, whatever its arguments, so it compares text only (an array's `==` raises).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        name, _, error = args if len(args) == 3 else (None, None, None)
        return not (
            isinstance(name, str)
            and isinstance(error, str)
            and name == "PerplexityCostCallbackHandler"
            and error.startswith(PerplexityBudgetExceededError.__name__ + "(")
        )


logging.getLogger("langchain_core.callbacks.manager").addFilter(_BudgetRefusalFilter())

COST_FIELDS = ("input_cost", "output_cost", "cache_creation_cost", "cache_read_cost", "tool_calls_cost", "total_cost")
"""The amounts of `ResponsesCostOutput` (USD), each added up."""


class PerplexityCostCallbackHandler(BaseCallbackHandler):
    """Adds up Perplexity's reported cost per model, and per built-in tool; refuses a call once a budget is spent.

    `costs` maps the served model to its summed cost fields (`total_cost`
    includes the tools'); `tool_calls` maps a built-in tool's name to its
    summed `invocation` and `cost_usd`; `total_cost` is the sum over models.
    With `budget_usd`, a chat model call that would send a request when
    `total_cost` has reached it raises `PerplexityBudgetExceededError` before
    anything is sent; a call langchain-core answers from its cache is neither
    refused nor counted. A call in flight is never cut: the budget is checked
    between calls.
    """

    raise_error = True  # the budget's error must stop the call, not be logged and ignored

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

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        billing = current()
        if billing is not None and billing.defer(run_id, self):
            return  # ChatPerplexityStrict checks when it sends a request: a cache hit sends none
        self.check_budget()  # any other model: checked as the call starts

    def on_llm_start(self, serialized: dict[str, Any], prompts: list[str], **kwargs: Any) -> None:
        self.check_budget()

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        billing = current()
        if billing is not None and billing.answered_without_request(run_id):
            return  # a ChatPerplexityStrict answer from langchain-core's cache: nothing was billed
        for generations in response.generations:
            for generation in generations:
                if isinstance(generation, ChatGeneration) and not _cached(generation):
                    self._add(generation.message.response_metadata)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A failed run: what Perplexity reported before it failed was billed, so it is counted, once.

        The reported cost is on the error's `partial` answer (a `failed` status, a cut answer with
        `raise_on_length`), or, for a stream, in the chunks received before it failed (langchain-core
        passes them merged as `response`); a run that failed before any answer adds nothing.
        """
        partial = getattr(error, "partial", None)
        if isinstance(partial, AIMessage) and isinstance(partial.response_metadata.get("cost"), Mapping):
            self._add(partial.response_metadata)
            return
        response = kwargs.get("response")
        for generations in response.generations if isinstance(response, LLMResult) else []:
            for generation in generations:
                if isinstance(generation, ChatGeneration) and not _cached(generation):
                    self._add(generation.message.response_metadata)

    def _add(self, metadata: Mapping[str, Any]) -> None:
        cost = metadata.get("cost")
        if not isinstance(cost, Mapping):
            return  # not a Perplexity answer, or one without a reported cost
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


def _cached(generation: ChatGeneration) -> bool:
    """Whether langchain-core marked `generation` as a cache hit (it zeroes `usage_metadata["total_cost"]`,
    langchain-ai/langchain#32437): how another model's cached answer is told apart."""
    usage = getattr(generation.message, "usage_metadata", None) or {}
    return usage.get("total_cost") == 0


@contextmanager
def get_perplexity_cost_callback(
    budget_usd: float | None = None, name: str = "perplexity_cost_callback"
) -> Iterator[PerplexityCostCallbackHandler]:
    """Total Perplexity's reported cost of every chat model call inside the `with` block (and cap it).

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
