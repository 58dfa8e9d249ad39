"""The Agent API's run vocabulary: which statuses a run passes through and which events end its stream.

Sources: `StatusOutput`, `ResponseCompletedEvent`, `ResponseFailedEvent` (`perplexity.generated.api`),
plus OpenAI's `incomplete` and `cancelled`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PENDING_STATUSES = frozenset({"queued", "in_progress"})
ANSWERED_STATUSES = frozenset({"completed", "requires_action"})  # the latter with function calls or approvals
FINAL_STATUSES = frozenset({"completed", "failed", "cancelled", "requires_action", "incomplete"})
TERMINAL_EVENTS = frozenset(
    {"response.completed", "response.failed", "response.incomplete", "response.cancelled", "error"}
)
COMPLETED_EVENT = "response.completed"


def pending(response: Mapping[str, Any]) -> bool:
    """Whether a run is still going; an unknown status is read, not polled forever."""
    return response.get("status") in PENDING_STATUSES


def over(response: Mapping[str, Any]) -> bool:
    return response.get("status") in FINAL_STATUSES


def terminal(event: Mapping[str, Any]) -> bool:
    return event.get("type") in TERMINAL_EVENTS


def as_terminal_event(response: dict[str, Any]) -> dict[str, Any]:
    return {"type": COMPLETED_EVENT, "response": response}
