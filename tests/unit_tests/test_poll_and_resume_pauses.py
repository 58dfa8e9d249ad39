"""The client's own pauses on a long run: between polls of a background run, and before resumes in a row.

Integration tests on an emulator clock the test moves cut these pauses (`quick_client_waits` in
tests/integration_tests/conftest.py), as they check what is polled or resumed, not when: the pauses
themselves are pinned here.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from langchain_perplexity_strict._transport import _poll, _resume


def test_polls_wait_longer_each_time_up_to_a_bound() -> None:
    poll = _poll.Poll({"id": "resp_1"}, timeout=None, max_resumes=2)
    pauses = [poll.next_pause() for _ in range(12)]
    assert pauses[:4] == pytest.approx([0.2, 0.3, 0.45, 0.675])
    assert pauses[-1] == _poll.MAX_POLL == 5.0 and pauses == sorted(pauses)


def test_a_resume_after_idle_ones_waits_longer_each_time_and_the_first_not_at_all() -> None:
    runs: Any = SimpleNamespace(states=SimpleNamespace(terminal=lambda event: False))
    follower = _resume._Follower(runs, None, background=True, max_resumes=2)
    follower.cursor.response_id, follower.cursor.after = "resp_1", 4
    # An idle resume (no new event) raises `cursor.idle`; failures in a row are bounded by max_resumes, idle ones not.
    delays = [follower.note("ended before the terminal event") for _ in range(8)]
    assert delays == [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    assert _resume.RESUME_BACKOFF_MAX == 4.0
