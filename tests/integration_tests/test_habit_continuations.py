"""Issue 18, class 7: continuations stay inside the budget, and `store=False` continues as published.

With `use_previous_response_id=True` the budget bounds what the model sees:
the stored context plus what follows it. The emulator records the whole
conversation each request stands for (`RecordedRequest.conversation`: the
stored response's, then the new items), and the test counts it with the same
counter the model was given. When the whole would not fit, the call compacts
and starts a new chain (no `previous_response_id`).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:ChatPerplexityStrict compacted the conversation:UserWarning"),
]

BUDGET = 4_000


def characters(text: str) -> int:
    """A token counter that counts characters, so the test can count the server's side the same way."""
    if not isinstance(text, str):  # a text counter: the package then calls it with each message's text
        raise TypeError(text)
    return len(text)


def _text(item: dict[str, Any]) -> str:
    content = item.get("content", item.get("output", item.get("arguments", "")))
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content)
    return str(content)


def _seen(emu: PerplexityEmulator) -> int:
    conversation = emu.requests[-1].conversation or []
    return sum(len(_text(item)) for item in conversation)


@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_what_the_model_sees_never_grows_past_the_budget(emu: PerplexityEmulator, mode: str) -> None:
    model = make(emu, use_previous_response_id=True, max_input_tokens=BUDGET, token_counter=characters)
    history: list[BaseMessage] = []
    continued = restarted = 0
    for turn in range(14):
        history.append(HumanMessage(f"Turn {turn}: " + "words " * 90))
        answer: Any = model.invoke(history) if mode == "invoke" else None
        if answer is None:
            chunks = list(model.stream(history))
            answer = chunks[0]
            for chunk in chunks[1:]:
                answer += chunk
        history.append(answer)
        body = emu.requests[-1].body
        continued += "previous_response_id" in body
        restarted += turn > 0 and "previous_response_id" not in body
        assert _seen(emu) <= BUDGET, f"turn {turn}: the model saw {_seen(emu)} characters, budget {BUDGET}"
    assert continued and restarted, (continued, restarted)


def test_store_false_still_continues(emu: PerplexityEmulator) -> None:
    model = make(emu, use_previous_response_id=True, store=False)
    history: list[BaseMessage] = [HumanMessage("First question")]
    history.append(model.invoke(history))
    history.append(HumanMessage("Second question"))
    model.invoke(history)
    body = emu.requests[-1].body
    assert body.get("previous_response_id"), json.dumps(body)[:300]
    assert body["store"] is False
