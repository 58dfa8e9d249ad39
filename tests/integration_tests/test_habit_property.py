"""Stream equals invoke, for every valid response (issue 18, class 4, as a property).

Responses are drawn from Perplexity's published models
(`tests.schema_strategies`): Agent API responses (`ResponsesResponseOutput`)
with a stream of events consistent with each (`ResponseStreamEventOutput`,
every event checked), and chat completions (`CompletionResponseOutput`) with
their chunks. A loopback server replays them to the public model, invoked and
streamed (in-process: the replayed bytes go straight to the readers, as
`tests.replay.ReplayTransport` says why). For each: the readers never crash (a run that did not finish is the
package's own error, the same on both paths), the streamed message equals the
invoked one (text, tool calls, usage, citations, metadata), and nothing in the
response is lost (every text, call, source and item is in the message).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.errors import PerplexityResponseError
from tests import published_schema
from tests.cheap_strategies import int_lists
from tests.integration_tests.habits import message_view, streamed_message
from tests.replay import Replay, in_process, replay_server
from tests.schema_strategies import from_model

FINISHED = ("completed", "requires_action")  # the statuses that are answers; the others are the package's error


@pytest.fixture(scope="module")
def replay() -> Iterator[Replay]:
    with replay_server() as server:
        yield server


@pytest.fixture(scope="module")
def models(replay: Replay) -> dict[str, ChatPerplexityStrict]:
    """One model per surface for every example (building a model and its client cost more than a replay)."""
    return {api: _model(replay, api) for api in ("agent", "chat_completions")}


def _model(replay: Replay, api: str) -> ChatPerplexityStrict:
    model = ChatPerplexityStrict(api=api, api_key="k", base_url=replay.base_url, max_retries=0,  # type: ignore[arg-type]
                                 model="perplexity/sonar" if api == "agent" else "sonar")  # fmt: skip
    return in_process(model, replay)


# --- streams consistent with a response ------------------------------------------------------------


def agent_events(response: dict[str, Any], cuts: list[int], deltas: bool) -> list[dict[str, Any]]:
    """The events Perplexity streams for `response`: created, items (text as deltas cut at `cuts`, or only in
    `.done`), then the terminal event. Every event is a valid `ResponseStreamEventOutput`."""
    opening = {**response, "status": "in_progress", "output": [], "usage": None}
    events: list[dict[str, Any]] = [{"type": "response.created", "response": opening},
                                    {"type": "response.in_progress", "response": opening}]  # fmt: skip
    for index, item in enumerate(response["output"]):
        if item["type"] == "search_results":  # the search's step, with the thought only a stream carries
            queries = item.get("queries") or []
            events.append({"type": "response.reasoning.search_queries", "queries": queries,
                           "thought": f"Searching the web for: {'; '.join(queries)}"})  # fmt: skip
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        if item["type"] == "message":
            for part_index, part in enumerate(item["content"]):
                text = part["text"]
                if deltas:
                    at = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
                    where = {"item_id": item["id"], "output_index": index, "content_index": part_index}
                    events += [{"type": "response.output_text.delta", "delta": text[a:b], **where}
                               for a, b in itertools.pairwise(at)]  # fmt: skip
                events.append({"type": "response.output_text.done", "item_id": item["id"], "output_index": index,
                               "content_index": part_index, "text": text})  # fmt: skip
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    if response["status"] == "failed":
        events.append({"type": "response.failed", "error": response.get("error") or {"message": "failed"}})
    else:
        events.append({"type": "response.completed", "response": response})
    for number, event in enumerate(events):
        event["sequence_number"] = number
        published_schema.agent_event(event)
    return events


def chat_chunks(completion: dict[str, Any], cut: int) -> list[dict[str, Any]]:
    """Sonar's chunks for `completion`'s first choice: content cut in two, each tool call whole in its own chunk
    (the published `ToolCallOutput` has no `index`), then the last chunk with the finish reason, usage,
    sources and the message's `reasoning_steps` (every chunk repeats the citations, as Sonar's do)."""
    head = {k: completion[k] for k in ("id", "model", "created") if k in completion}
    head["citations"] = completion.get("citations")
    choice = (completion["choices"] or [{"index": 0, "message": {"role": "assistant"}}])[0]
    message = choice["message"]
    content = message.get("content")
    pieces = [content[:cut], content[cut:]] if isinstance(content, str) else [[p] for p in content or []]
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": p} for p in pieces if p]
    deltas += [{"role": "assistant", "tool_calls": [call]} for call in message.get("tool_calls") or []]
    chunks = [{**head, "choices": [{"index": 0, "delta": d, "message": {"role": "assistant"}, "finish_reason": None}]}
              for d in deltas]  # fmt: skip
    steps = {"reasoning_steps": message["reasoning_steps"]} if message.get("reasoning_steps") else {}
    last = {**head, "choices": [{"index": 0, "delta": {"role": "assistant", **steps}, "message": {"role": "assistant"},
                                 "finish_reason": choice.get("finish_reason")}]}  # fmt: skip
    for key in ("usage", "search_results"):
        if completion.get(key) is not None:
            last[key] = completion[key]
    chunks.append(last)
    for chunk in chunks:
        published_schema.validate("CompletionResponseOutput", chunk)
    return chunks


# --- what the two paths give ------------------------------------------------------------------


def _outcome(call: Any) -> AIMessage | type[BaseException]:
    try:
        return call()
    except PerplexityResponseError as error:
        return type(error)


def _calls(message: AIMessage) -> dict[str, tuple[Any, Any]]:
    calls = {c["id"]: (c["name"], json.dumps(c["args"])) for c in message.tool_calls}
    calls.update({c["id"]: (c["name"], c["args"]) for c in message.invalid_tool_calls})
    return calls


def _answer_texts(texts: list[str], message: AIMessage) -> list[str]:
    """The texts the answer keeps: a leading think block is reasoning, never answer (docs/responses.md)."""
    joined = "".join(texts).lstrip()
    if not joined.startswith("<think>"):
        return texts
    thought, _, answer = joined.removeprefix("<think>").partition("</think>")
    assert thought in message.additional_kwargs.get("reasoning_content", "")
    return [answer.lstrip("\n")]


def _nothing_lost_agent(message: AIMessage, response: dict[str, Any]) -> None:
    cut = "stop_sequence" in message.response_metadata  # the text after the stop, and the calls after it, are not
    texts = []
    for item in response["output"]:
        kind = item["type"]
        if cut and kind in ("message", "function_call"):
            continue
        if kind == "message":
            for part in item["content"]:
                texts.append(part["text"])
                urls = [a.get("url") for a in part.get("annotations") or [] if a.get("type") == "url_citation"]
                assert set(filter(None, urls)) <= set(message.additional_kwargs.get("citations", []))
        elif kind == "search_results":  # a record is kept once per URL (Perplexity repeats them)
            kept = {r.get("url") for r in message.additional_kwargs.get("search_results", [])}
            assert all(r.get("url") in kept for r in item["results"])
        elif kind == "function_call":  # a call without an id gets one by its position
            calls = _calls(message)
            assert item["call_id"] in calls or (
                not item["call_id"] and any(i.startswith("call_without_id_") for i in calls)
            )
        else:
            assert item in message.additional_kwargs.get(kind, []), kind
    assert all(t in message.text for t in _answer_texts(texts, message))
    usage = response.get("usage")
    if usage:
        assert message.usage_metadata is not None
        assert message.usage_metadata["input_tokens"] == usage["input_tokens"]
        assert message.usage_metadata["output_tokens"] == usage["output_tokens"]
        if usage.get("cost"):
            assert message.response_metadata["cost"] == usage["cost"]
    assert message.response_metadata["id"] == response["id"]
    assert message.response_metadata["model_name"] == response["model"]


def _nothing_lost_chat(message: AIMessage, completion: dict[str, Any]) -> None:
    if not completion["choices"]:
        return
    if "stop_sequence" in message.response_metadata:  # cut: the text after the stop, and the calls, are not
        completion = {**completion, "choices": [{"message": {}}]}
    content = completion["choices"][0]["message"].get("content")
    texts = [content] if isinstance(content, str) else [p["text"] for p in content or [] if p["type"] == "text"]
    assert all(t in message.text for t in _answer_texts(texts, message))
    calls = completion["choices"][0]["message"].get("tool_calls") or []
    distinct = {c.get("id") or f"without id {i}" for i, c in enumerate(calls)}  # a call is kept once per id
    assert len(message.tool_calls) + len(message.invalid_tool_calls) == len(distinct)
    assert set(completion.get("citations") or []) <= set(message.additional_kwargs.get("citations", []))
    if completion.get("usage"):
        assert message.usage_metadata is not None
        assert message.usage_metadata["input_tokens"] == completion["usage"]["prompt_tokens"]
        assert message.response_metadata["cost"] == completion["usage"]["cost"]


def _object_arguments(value: Any) -> Any:
    """Function-call arguments as JSON objects, which is what they are (`arguments`: the call's JSON).

    The published type is any string; for one that is not a JSON object, langchain-core's stream
    merge (partial-JSON parsing of chunks) and its whole-message parser disagree, upstream of this package.
    """
    if isinstance(value, dict):
        return {k: json.dumps({"value": v}) if k == "arguments" and isinstance(v, str) else _object_arguments(v)
                for k, v in value.items()}  # fmt: skip
    if isinstance(value, list):
        return [_object_arguments(v) for v in value]
    return value


def _texts(api: str, response: dict[str, Any]) -> list[str]:
    if api == "agent":
        return [p["text"] for i in response["output"] if i["type"] == "message" for p in i["content"] if p["text"]]
    content = (response["choices"] or [{"message": {}}])[0]["message"].get("content")
    return [content] if isinstance(content, str) else [p["text"] for p in content or [] if p["type"] == "text"]


def _stop(api: str, response: dict[str, Any], where: tuple[int, float, int] | None) -> list[str] | None:
    """A stop sequence taken from the answer's text at `where` (which text, where in it, how long), so it matches."""
    texts = [t for t in _texts(api, response) if t.strip()]
    if where is None or not texts:
        return None
    which, at, length = where
    text = texts[which % len(texts)]
    start = int(at * (len(text) - 1))
    stop = text[start : start + length]
    return [stop] if stop.strip() else None


def _view(message: AIMessage) -> dict[str, Any]:
    """What a user reads, but the search steps' thoughts: an Agent API stream carries them as reasoning, a
    response has no reasoning item to hold them (docs/responses.md)."""
    view = message_view(message)
    view["additional_kwargs"] = {k: v for k, v in view["additional_kwargs"].items() if k != "reasoning_content"}
    if isinstance(view["content"], list):
        view["content"] = [b for b in view["content"] if not (isinstance(b, dict) and b.get("type") == "reasoning")]
    return view


STOPS = st.none() | st.tuples(st.integers(0, 3), st.floats(0, 1), st.integers(1, 4))
# The cuts as `st.lists(st.integers(0, 12), max_size=3)`, in one choice (`int_lists` says why the same lists).
AGENT_CASES = st.tuples(
    from_model("ResponsesResponseOutput").map(_object_arguments), int_lists(0, 12, 3), st.booleans()
)
CHAT_CASES = st.tuples(from_model("CompletionResponseOutput").map(_object_arguments), st.integers(0, 12))
# Texts that open a think block, which hypothesis seldom draws: the block is reasoning, in both surfaces.
_THINK_MESSAGE = {
    "type": "message",
    "id": "m",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "<think>why</think>\n\nanswer", "annotations": []}],
}
THINK_AGENT = {
    "id": "r",
    "model": "m",
    "status": "completed",
    "object": "response",
    "created_at": 0,
    "output": [_THINK_MESSAGE],
}
THINK_CHAT = {
    "id": "",
    "model": "",
    "created": 0,
    "choices": [
        {
            "index": 0,
            "message": {"content": "<think>", "role": "system"},
            "delta": {"content": [{"text": "", "type": "text"}] * 2, "role": "system"},
        }
    ],
}


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    case=st.one_of(AGENT_CASES.map(lambda c: ("agent", c)), CHAT_CASES.map(lambda c: ("chat_completions", c))),
    where=STOPS,
    split_reads=st.booleans(),
)
@example(case=("agent", (THINK_AGENT, [3, 9], True)), where=None, split_reads=False)
@example(case=("chat_completions", (THINK_CHAT, 0)), where=None, split_reads=False)
def test_stream_equals_invoke_for_every_valid_response(
    replay: Replay,
    models: dict[str, ChatPerplexityStrict],
    case: tuple[str, Any],
    where: tuple[int, float, int] | None,
    split_reads: bool,
) -> None:
    """With and without a stop sequence, the stream read in one network read or one per event (a stop that
    matches before the last read must not lose the usage, sources or metadata that come after it)."""
    api, drawn = case
    model = models[api]
    replay.split_reads = split_reads
    if api == "agent":
        response, cuts, deltas = drawn
        replay.events, replay.done_marker = agent_events(response, cuts, deltas), False
    else:
        response, cut = drawn
        replay.events, replay.done_marker = chat_chunks(response, cut), True
    replay.response = response
    stop = _stop(api, response, where)
    invoked = _outcome(lambda: model.invoke("question", stop=stop))
    streamed = _outcome(lambda: streamed_message(model, "question", stop=stop))
    if api == "agent" and response["status"] in FINISHED:
        assert isinstance(invoked, AIMessage), invoked
    if not isinstance(invoked, AIMessage):
        assert streamed == invoked
        return
    assert isinstance(streamed, AIMessage), streamed
    assert _view(streamed) == _view(invoked)
    if api == "agent":
        _nothing_lost_agent(invoked, response)
    else:
        _nothing_lost_chat(invoked, response)
