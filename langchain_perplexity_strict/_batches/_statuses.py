"""What each published batch status means for `results()`: wait, or collect (rules as data).

Source: `BatchOutput.status` in Perplexity's SDK (`perplexity.generated.api`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Status:
    """One batch status: whether it is over, and why an unanswered input failed."""

    name: str
    over: bool
    unanswered: str


STATUSES: dict[str, Status] = {
    s.name: s
    for s in (
        Status("validating", False, ""),
        Status("in_progress", False, ""),
        Status("finalizing", False, ""),
        Status("cancelling", False, ""),
        Status("completed", True, "the batch completed without a line for this input"),
        Status("expired", True, "the batch expired (its 24h completion window ended) before this input ran"),
        Status("cancelled", True, "the batch was cancelled before this input ran"),
        Status("failed", True, "the batch failed"),
    )
}
ORDER = tuple(STATUSES)
"""Earliest to last."""
SEVERITY = ("failed", "expired", "cancelled", "completed")


def status_of(name: str) -> Status:
    """The status `name`; an unpublished one is over, so nothing waits forever."""
    return STATUSES.get(name) or Status(name, True, f"the batch ended with status {name!r}, which is not published")


def job_status(names: list[str]) -> str:
    """A job's status: the earliest pending, else the most severe."""
    pending = [n for n in names if not status_of(n).over]
    if pending:
        return min(pending, key=ORDER.index)
    known = [n for n in names if n in SEVERITY]
    unknown = [n for n in names if n not in SEVERITY]
    return unknown[0] if unknown else min(known, key=SEVERITY.index)
