"""Agent API input items: the direct path for plain messages gives what the converter gives."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_openai.chat_models.base import _construct_responses_api_input

from langchain_perplexity_strict.request_rules import _agent_item, agent_input

ids = st.none() | st.text(min_size=1, max_size=8) | st.sampled_from(["msg_1", "lc_run-1", "rs_1", "fc_1"])
plain = st.builds(
    lambda cls, text, name, id_, provider: cls(text, name=name, id=id_, response_metadata=provider),
    st.sampled_from([HumanMessage, SystemMessage, AIMessage]),
    st.text(),
    st.none() | st.text(min_size=1, max_size=8),
    ids,
    st.sampled_from([{}, {"model_provider": "openai"}, {"model_provider": "anthropic"}]),
)
with_tool_call = st.builds(
    lambda text: AIMessage(text, tool_calls=[{"name": "f", "args": {}, "id": "call_1"}]), st.text()
)


def converted(message: BaseMessage) -> list[dict[str, Any]]:
    items = (_agent_item(item, 0) for item in _construct_responses_api_input([message]))
    return [item for item in items if item is not None]


@given(st.lists(plain | with_tool_call, max_size=5))
def test_plain_messages_match_the_converter(messages: list[BaseMessage]) -> None:
    assert agent_input(messages) == [item for m in messages for item in converted(m)]


def test_messages_with_extras_still_go_through_the_converter() -> None:
    developer = SystemMessage("be brief", additional_kwargs={"__openai_role__": "developer"})
    assert agent_input([developer]) == converted(developer)
    assert agent_input([developer])[0]["role"] == "developer"
