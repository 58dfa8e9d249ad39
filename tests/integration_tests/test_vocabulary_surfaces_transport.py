"""The surfaces own their vocabulary; the transport is handed it (issue 27, item 5).

The forms of the class, each tested here:

- run statuses (`StatusOutput`): pending (polling a background run, cancelling a run its caller leaves),
  over (a followed stream that went quiet), answered (the reader's `raise_for_status`): each list once,
  in `_response/_vocabulary.py`, and the transport holds none of them;
- terminal stream events (`response.completed`, `response.failed`, ...) and the event a finished run is read
  from: in the vocabulary, handed to the follower (`RunStates`);
- the retired surface's hint (`chat_completions_not_available`): the chat-completions surface's
  (`_surfaces.ERROR_HINTS`), handed to the chat model's transport, on every call path (invoke, ainvoke,
  stream, astream, batch, abatch) and left out of the search and embeddings transports, which never meet it;
- the transport obeys the vocabulary it is handed, not one of its own (a poll on a status only the test knows).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from langchain_perplexity_strict import PerplexitySearchRetriever
from langchain_perplexity_strict._response import _vocabulary
from langchain_perplexity_strict._surfaces import ERROR_HINTS, RUN_STATES
from langchain_perplexity_strict._transport import RunSettings, RunStates, wait
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make

PACKAGE = Path(__file__).parents[2] / "langchain_perplexity_strict"
STATUSES = _vocabulary.PENDING_STATUSES | _vocabulary.FINAL_STATUSES | _vocabulary.ANSWERED_STATUSES
# "error" is also the error envelope's key, which the transport reads (`body["error"]`): not vocabulary there.
WORDS = STATUSES | _vocabulary.TERMINAL_EVENTS - {"error"} | {_vocabulary.COMPLETED_EVENT} | set(ERROR_HINTS)


def _constants(path: Path) -> list[str]:
    """The string constants of a module's code (its docstrings are prose and may name what they document)."""
    tree = ast.parse(path.read_text())
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    strings = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return [n.value for n in strings if id(n) not in docs]


def test_the_transport_holds_no_status_event_type_or_error_type() -> None:
    found = {
        f"{path.name}: {word!r}"
        for path in sorted((PACKAGE / "_transport").glob("*.py"))
        for text in _constants(path)
        for word in WORDS
        if word == text or (word in ERROR_HINTS and word in text)
    }
    texts = [text for path in (PACKAGE / "_transport").glob("*.py") for text in _constants(path)]
    assert not found, found
    assert not [hint for hint in ERROR_HINTS.values() for text in texts if hint[:40] in text]


def _status_lists(path: Path) -> list[int]:
    """Lines of set, tuple and list literals of two or more run statuses and nothing else but None."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
            elts = [e for e in node.elts if not (isinstance(e, ast.Constant) and e.value is None)]
            values = [e.value for e in elts if isinstance(e, ast.Constant)]
            if len(values) >= 2 and len(values) == len(elts) and set(values) <= STATUSES:
                lines.append(node.lineno)
    return lines


def test_each_run_status_list_exists_once_in_the_vocabulary() -> None:
    """An output item's statuses (`_server_item_blocks`, with `timed_out`) are another vocabulary and not counted."""
    found = {
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "testing" not in path.parts and path.name != "_vocabulary.py"
        for line in _status_lists(path)
    }
    assert not found, found


def test_the_surfaces_hand_the_readers_vocabulary_to_the_transport() -> None:
    assert RUN_STATES.pending({"status": "queued"}) and not RUN_STATES.pending({"status": "completed"})
    assert RUN_STATES.over({"status": "requires_action"}) and not RUN_STATES.over({"status": "in_progress"})
    assert RUN_STATES.terminal({"type": "response.failed"}) and not RUN_STATES.terminal({"type": "response.created"})
    assert RUN_STATES.as_event({"id": "r"}) == {"type": "response.completed", "response": {"id": "r"}}


class _Runs:
    """Just what `wait` uses of `Runs`: the vocabulary it was handed, and the run's answers in turn."""

    def __init__(self, states: RunStates, answers: list[dict[str, Any]]) -> None:
        self.states, self.answers, self.retrieved = states, answers, 0

    def retrieve(self, response_id: str) -> dict[str, Any]:
        self.retrieved += 1
        return self.answers.pop(0)

    def cancel(self, response_id: str) -> bool:
        return True


def test_a_background_run_is_polled_by_the_vocabulary_the_transport_is_handed() -> None:
    """ "brewing" is no Perplexity status: the transport polls while the handed `pending` says so, and stops
    at "queued", which its own list would have polled on, had it one."""
    states = RunStates(
        pending=lambda r: r.get("status") == "brewing", over=lambda r: True, terminal=lambda e: False, as_event=dict
    )
    runs = _Runs(states, [{"id": "r", "status": "brewing"}, {"id": "r", "status": "queued"}])
    settings = RunSettings(stall=None, max_resumes=0, timeout=None)
    done = wait(runs, {"id": "r", "status": "brewing"}, settings)  # type: ignore[arg-type]
    assert done["status"] == "queued" and runs.retrieved == 2


HINT = ERROR_HINTS["chat_completions_not_available"]


async def _call(model: Any, mode: str) -> Any:
    if mode == "invoke":
        return model.invoke("x")
    if mode == "ainvoke":
        return await model.ainvoke("x")
    if mode == "stream":
        return list(model.stream("x"))
    if mode == "astream":
        return [chunk async for chunk in model.astream("x")]
    if mode == "batch":
        return model.batch(["x"])
    return await model.abatch(["x"])


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream", "batch", "abatch"])
async def test_the_retired_surface_says_what_to_do_on_every_call_path(emu: PerplexityEmulator, mode: str) -> None:
    emu.sonar_retired = True
    with pytest.raises(Exception, match="chat_completions_not_available") as info:
        await _call(make(emu, "chat_completions", "sonar"), mode)
    assert str(info.value).endswith(HINT)


def test_only_the_chat_models_transport_carries_the_surfaces_hints(emu: PerplexityEmulator) -> None:
    assert make(emu).transport.hints == ERROR_HINTS
    assert PerplexitySearchRetriever(api_key="k", base_url=emu.base_url).transport.hints == {}
