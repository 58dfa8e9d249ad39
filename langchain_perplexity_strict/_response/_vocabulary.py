"""The Agent API's run vocabulary: which statuses a run passes through and which events end its stream.

The reader owns these words; the transport, which polls, follows and cancels runs, is handed them as
predicates (`_transport.RunStates`, built by `_surfaces.py`), so each list exists once, here.

Statuses are `StatusOutput` in `perplexity.generated.api` (`queued`, `in_progress`, `completed`,
`requires_action`, `failed`, `cancelled`), plus OpenAI's `incomplete`, should a gateway send it. Terminal
events are `ResponseCompletedEvent` and `ResponseFailedEvent` (`response.completed`, `response.failed`),
the stream's `error` event, and OpenAI's `response.incomplete` and `response.cancelled`, read the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PENDING_STATUSES = frozenset({"queued", "in_progress"})
"""A run with these is still going: polled on, and cancelled when its caller leaves."""
ANSWERED_STATUSES = frozenset({"completed", "requires_action"})
"""A run with these answered: `requires_action` is an answer too (function calls or approvals for the app)."""
FINAL_STATUSES = frozenset({"completed", "failed", "cancelled", "requires_action", "incomplete"})
"""A run with these is over (`requires_action`: it waits for the application's function calls or approvals)."""
TERMINAL_EVENTS = frozenset(
    {"response.completed", "response.failed", "response.incomplete", "response.cancelled", "error"}
)
"""Stream events after which the run sends nothing more."""
COMPLETED_EVENT = "response.completed"
"""The event that carries a whole response; a run found over is read from it as from the stream's own."""


def pending(response: Mapping[str, Any]) -> bool:
    """Whether a retrieved run is still going. A status outside the schema counts as not pending, so an
    unexpected answer is read (and reported) instead of polled forever."""
    return response.get("status") in PENDING_STATUSES


def over(response: Mapping[str, Any]) -> bool:
    """Whether a retrieved run has ended: its last events can be read from it."""
    return response.get("status") in FINAL_STATUSES


def terminal(event: Mapping[str, Any]) -> bool:
    """Whether a stream event ends the run's stream."""
    return event.get("type") in TERMINAL_EVENTS


def as_terminal_event(response: dict[str, Any]) -> dict[str, Any]:
    """A retrieved run that is over, as the stream event the reader reads a whole response from."""
    return {"type": COMPLETED_EVENT, "response": response}
