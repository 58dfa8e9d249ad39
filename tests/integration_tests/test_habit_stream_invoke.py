"""Issue 18, class 4: stream equals invoke in the cases the issue names, on both surfaces, with and without stops.

Each case is a response (and its stream) replayed on loopback; the streamed
message must equal the invoked one (text, tool calls, usage, citations,
metadata). The property over every valid response is
`test_habit_property.py`; these are the named shapes, kept as examples.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import operator
from collections.abc import Iterator
from typing import Any

import pytest

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import make
from tests.integration_tests.habits import message_view, streamed_message
from tests.replay import Replay, replay_server

USAGE = {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18,
         "cost": {"currency": "USD", "input_cost": 0.1, "output_cost": 0.2, "total_cost": 0.3}}  # fmt: skip
CHAT_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18,
              "cost": {"input_tokens_cost": 0.1, "output_tokens_cost": 0.2, "total_cost": 0.3}}  # fmt: skip
SOURCE = {"id": 1, "url": "https://a.example.com", "title": "A", "snippet": "a", "source": "web"}
CHAT_SOURCE = {"url": "https://a.example.com", "title": "A", "snippet": "a", "source": "web"}


@pytest.fixture(scope="module")
def replay() -> Iterator[Replay]:
    with replay_server() as server:
        yield server


def _response(output: list[dict[str, Any]]) -> dict[str, Any]:
    response = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
                "model": "perplexity/sonar", "output": output, "usage": USAGE}  # fmt: skip
    published_schema.agent_response(response)
    return response


def _message(*texts: str, annotations: list[list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    parts = [{"type": "output_text", "text": t, "annotations": (annotations or [[]] * len(texts))[i]}
             for i, t in enumerate(texts)]  # fmt: skip
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": parts}


CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "lookup",
        "arguments": "{\"q\": \"x\"}", "status": "completed"}  # fmt: skip


def _events(response: dict[str, Any], *, deltas: bool, done: bool, items: bool) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "response.created"}]
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            for c, part in enumerate(item["content"]):
                where = {"item_id": item["id"], "output_index": index, "content_index": c}
                if deltas:
                    half = len(part["text"]) // 2
                    for piece in (part["text"][:half], part["text"][half:]):
                        events.append({"type": "response.output_text.delta", "delta": piece, **where})
                if done:
                    events.append({"type": "response.output_text.done", "text": part["text"], **where})
        if items:
            events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": response})
    for number, event in enumerate(events):
        event["sequence_number"] = number
        published_schema.agent_event(event)
    return events


AGENT_CASES: list[tuple[str, dict[str, Any], dict[str, bool]]] = [
    ("text as deltas", _response([_message("Hello world.")]), {"deltas": True, "done": True, "items": True}),
    ("text only in output_text.done", _response([_message("Hello world.")]),
     {"deltas": False, "done": True, "items": True}),
    ("text only in output_item.done", _response([_message("Hello world.")]),
     {"deltas": False, "done": False, "items": True}),
    ("text only in the terminal event", _response([_message("Hello world.")]),
     {"deltas": False, "done": False, "items": False}),
    ("several text parts with citations", _response([{"type": "search_results", "queries": ["q"], "results": [SOURCE]},
        _message("First part [1].", "Second part [1].", annotations=[
            [{"type": "url_citation", "url": SOURCE["url"], "title": "A", "start_index": 11, "end_index": 14}],
            [{"type": "url_citation", "url": SOURCE["url"], "title": "A", "start_index": 12, "end_index": 15}]])]),
     {"deltas": True, "done": True, "items": True}),
    ("text then a tool call", _response([_message("Let me check. STOP here"), CALL]),
     {"deltas": True, "done": True, "items": True}),
]  # fmt: skip


def _model(replay: Replay, api: str, **kwargs: Any) -> ChatPerplexityStrict:
    return ChatPerplexityStrict(api=api, api_key="k", base_url=replay.base_url, max_retries=0,  # type: ignore[arg-type]
                                model="perplexity/sonar" if api == "agent" else "sonar", **kwargs)  # fmt: skip


@pytest.mark.parametrize("stop", [None, ["STOP"]])
@pytest.mark.parametrize(("name", "response", "shape"), AGENT_CASES, ids=[c[0] for c in AGENT_CASES])
def test_agent_stream_equals_invoke(replay: Replay, name: str, response: dict[str, Any], shape: dict[str, bool],
                                    stop: list[str] | None) -> None:  # fmt: skip
    replay.response, replay.events, replay.done_marker = response, _events(response, **shape), False
    model = _model(replay, "agent", output_version="v1")
    invoked, streamed = model.invoke("q", stop=stop), streamed_message(model, "q", stop=stop)
    assert message_view(streamed) == message_view(invoked)
    if "several text parts" in name:
        block = next(b for b in invoked.content if b.get("type") == "text")  # beside the search's own blocks
        text = block["text"]
        for citation in block["annotations"]:
            assert text[citation["start_index"] : citation["end_index"]] == "[1]"
    if stop is None:
        for item in response["output"]:
            for part in item.get("content") or []:
                assert part["text"] in invoked.text
        assert invoked.tool_calls or CALL not in response["output"]


def _completion(content: Any, tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    choice = {"index": 0, "finish_reason": "stop", "message": message, "delta": {"role": "assistant"}}
    completion = {"id": "c1", "model": "sonar", "created": 1, "object": "chat.completion", "choices": [choice],
                  "citations": [SOURCE["url"]], "search_results": [CHAT_SOURCE], "usage": CHAT_USAGE}  # fmt: skip
    published_schema.validate("CompletionResponseOutput", completion)
    return completion


def _chunks(completion: dict[str, Any]) -> list[dict[str, Any]]:
    message = completion["choices"][0]["message"]
    head = {"id": "c1", "model": "sonar", "created": 1, "object": "chat.completion.chunk",
            "citations": completion["citations"]}  # fmt: skip
    content = message["content"]
    deltas = ([{"content": content[: len(content) // 2]}, {"content": content[len(content) // 2 :]}]
              if isinstance(content, str) else [{"content": [part]} for part in content])  # fmt: skip
    deltas += [{"tool_calls": [c]} for c in message.get("tool_calls") or []]  # no `index`: not in ToolCallOutput
    chunks = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", **d}, "message": {"role": "assistant"},
                                    "finish_reason": None}]} for d in deltas]  # fmt: skip
    chunks.append({**head, "choices": [{"index": 0, "delta": {"role": "assistant"}, "message": {"role": "assistant"},
                                        "finish_reason": "stop"}],
                   "search_results": completion["search_results"], "usage": completion["usage"]})  # fmt: skip
    return chunks


CHAT_CALL = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"q": "x"})}}
CHAT_CASES: list[tuple[str, dict[str, Any]]] = [
    ("string content", _completion("Hello world [1]. STOP then more")),
    ("content as a list of parts", _completion([{"type": "text", "text": "Hello "},
                                                {"type": "text", "text": "world [1]. STOP then more"}])),
    ("text then a tool call", _completion("Let me check. STOP here", [CHAT_CALL])),
]  # fmt: skip


@pytest.mark.parametrize("stop", [None, ["STOP"]])
@pytest.mark.parametrize(("name", "completion"), CHAT_CASES, ids=[c[0] for c in CHAT_CASES])
def test_chat_completions_stream_equals_invoke(replay: Replay, name: str, completion: dict[str, Any],
                                               stop: list[str] | None) -> None:  # fmt: skip
    replay.response, replay.events, replay.done_marker = completion, _chunks(completion), True
    model = _model(replay, "chat_completions")
    invoked, streamed = model.invoke("q", stop=stop), streamed_message(model, "q", stop=stop)
    assert message_view(streamed) == message_view(invoked)
    assert invoked.usage_metadata is not None and invoked.usage_metadata["input_tokens"] == 11
    assert "Hello" in invoked.text or "Let me check" in invoked.text


def _without_thoughts(view: dict[str, Any]) -> dict[str, Any]:
    """The view but the response id (each call is its own run) and the search thought only a stream carries."""
    kwargs = {k: v for k, v in view["additional_kwargs"].items() if k != "reasoning_content"}
    metadata = {k: v for k, v in view["response_metadata"].items() if k != "id"}
    return {**view, "additional_kwargs": kwargs, "response_metadata": metadata}


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
def test_a_stop_before_the_last_read_keeps_usage_sources_and_metadata(emu: PerplexityEmulator, api: str) -> None:
    """The stop matches early (in an event before the last: chunks follow events, however the socket is read):
    the stream reads on to the end."""
    model = make(emu, api, "perplexity/sonar" if api == "agent" else "sonar")
    question = "Do experts agree on coffee?"
    invoked = model.invoke(question, stop=["agree"])
    streamed = streamed_message(model, question, stop=["agree"])

    async def astreamed() -> Any:
        return functools.reduce(operator.add, [c async for c in model.astream(question, stop=["agree"])])

    asynced = asyncio.run(astreamed())
    assert invoked.response_metadata["stop_sequence"] == "agree" and invoked.usage_metadata is not None
    assert invoked.additional_kwargs["search_results"]
    for other in (streamed, asynced):
        assert _without_thoughts(message_view(other)) == _without_thoughts(message_view(invoked))


@pytest.mark.parametrize("background", [False, True])
def test_a_stopped_astream_closes_its_events_itself(emu: PerplexityEmulator, background: bool) -> None:
    """The follower's `events()` async generator is closed by the stream when a stop ends it, not left to
    the garbage collector, whose close is a task the loop may destroy pending ("Task was destroyed but it is
    pending!")."""
    left_to_the_collector: list[str] = []

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        if type(coro).__name__ == "async_generator_athrow":  # what the loop's finalizer hook schedules
            left_to_the_collector.extend(g.__qualname__ for g in gc.get_referents(coro) if hasattr(g, "ag_frame"))
        return asyncio.Task(coro, loop=loop, **kwargs)

    question = "Do experts agree on coffee?"
    model = make(emu, background=background)
    # The stop matches in an event before the terminal one, however the socket is read.

    async def calls() -> list[Any]:
        asyncio.get_running_loop().set_task_factory(factory)
        chunks = [c async for c in model.astream(question, stop=["agree"])]
        gc.collect()
        await asyncio.sleep(0)
        return chunks

    chunks = asyncio.run(calls())
    assert functools.reduce(operator.add, chunks).response_metadata["stop_sequence"] == "agree"
    assert [name for name in left_to_the_collector if name.endswith("Follower.events")] == []
