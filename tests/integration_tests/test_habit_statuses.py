"""Issue 18, class 5: statuses as LangChain expects them, invoked and streamed.

- `requires_action` with an MCP approval request is an answer: an `AIMessage`
  carrying the request (`additional_kwargs["mcp_approval_request"]`).
- An answer cut at the output limit returns its text with `finish_reason:
  "length"`, as `ChatOpenAI` does, on both surfaces; `raise_on_length=True`
  raises `PerplexityIncompleteError` instead (the partial answer on `.partial`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.errors import PerplexityIncompleteError
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import make
from tests.integration_tests.habits import MODES, SURFACES, message_view, streamed_message
from tests.replay import Replay, replay_server

APPROVAL = {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete_file", "server_label": "files",
            "arguments": "{\"path\": \"/tmp/x\"}"}  # fmt: skip


@pytest.fixture(scope="module")
def replay() -> Iterator[Replay]:
    with replay_server() as server:
        yield server


def _answer(model: ChatPerplexityStrict, mode: str) -> Any:
    return model.invoke("Delete /tmp/x") if mode == "invoke" else streamed_message(model, "Delete /tmp/x")


@pytest.mark.parametrize("mode", MODES)
def test_requires_action_with_an_mcp_approval_request_is_an_answer(replay: Replay, mode: str) -> None:
    message = {"type": "message", "id": "m1", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "I need your approval."}]}  # fmt: skip
    response = {"id": "resp_1", "object": "response", "created_at": 1, "status": "requires_action",
                "model": "perplexity/sonar", "output": [message, APPROVAL]}  # fmt: skip
    published_schema.agent_response(response)
    events = [{"type": "response.output_item.done", "output_index": 0, "item": message},
              {"type": "response.output_item.done", "output_index": 1, "item": APPROVAL},
              {"type": "response.completed", "response": response}]  # fmt: skip
    for n, event in enumerate(events):
        event["sequence_number"] = n
    replay.response, replay.events, replay.done_marker = response, events, False
    model = ChatPerplexityStrict(api_key="k", base_url=replay.base_url, max_retries=0)  # type: ignore[arg-type]
    answer = _answer(model, mode)
    assert answer.additional_kwargs["mcp_approval_request"] == [APPROVAL]
    assert answer.response_metadata["status"] == "requires_action"
    assert "approval" in answer.text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
def test_an_answer_cut_at_the_output_limit_returns_its_text(emu: PerplexityEmulator, api: str, mode: str) -> None:
    model = make(emu, api, max_tokens=50)
    emu.inject(Fault("incomplete"))
    answer = _answer(model, mode)
    assert answer.response_metadata["finish_reason"] == "length"
    emu.inject(Fault("incomplete"))
    other = streamed_message(model, "Delete /tmp/x") if mode == "invoke" else model.invoke("Delete /tmp/x")
    assert message_view(other)["content"] == message_view(answer)["content"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
def test_raising_at_the_output_limit_is_an_opt_in_setting(emu: PerplexityEmulator, api: str, mode: str) -> None:
    model = make(emu, api, max_tokens=50, raise_on_length=True)
    emu.inject(Fault("incomplete"))
    with pytest.raises(PerplexityIncompleteError) as raised:
        _answer(model, mode)
    assert raised.value.partial is not None
