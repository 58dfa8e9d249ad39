"""The Agent API's stream for one response, and a response's output as the input a continuation starts from.

Events are in `ResponseStreamEventOutput`'s vocabulary only (`perplexity.generated.api`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_perplexity_strict.testing.answers import EmulatedAnswer, words

_SEARCH_THOUGHTS = {
    "web_search": "Searching the web for: {}",
    "people_search": "Looking up people for: {}",
    "finance_search": "Looking up financial data for: {}",
}


def stream_events(
    response: dict[str, Any], answer: EmulatedAnswer, *, openai_events: bool = False
) -> Iterator[dict[str, Any]]:
    """The stream, with a `sequence_number` counting from 1 (so `starting_after=0` replays it all).

    Skills first (`response.skill.loaded`); then reasoning and search
    (`response.reasoning.*`: `started` with the model's `thought`, each
    search's queries then results, each with a `thought`, `stopped`), people
    and finance searches as search events; then each output item as
    `output_item.added` / `.done` (a message's text as `output_text.delta`
    events between them; a function call, and a sandbox run, whole in `.done`);
    then one terminal event: `response.failed` with the error, else
    `response.completed` with the response, whatever its status
    (`completed`, `requires_action` awaiting an MCP approval, `cancelled`).
    No `[DONE]`. `openai_events` adds events Perplexity does not send (OpenAI's
    `response.content_part.*` and friends), to show a client ignores them.
    """
    seq = 0

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal seq
        seq += 1
        return {"type": kind, "sequence_number": seq, **fields}

    shell = {**response, "status": "in_progress", "output": [], "usage": None}
    shell.pop("error", None)
    # A background response is created queued; its run then starts (`.runs` times the gap).
    yield event("response.created", response={**shell, "status": "queued"} if response.get("background") else shell)
    yield event("response.in_progress", response=shell)
    for name in answer.skills:
        yield event("response.skill.loaded", name=name)
    thought = answer.reasoning or None
    searches = [("web_search", answer.queries, answer.search_results)] if answer.queries else []
    searches += answer.verticals
    if searches or answer.fetched or answer.images or thought:
        yield event("response.reasoning.started", thought=thought)
        for kind, queries, results in searches:
            said = _SEARCH_THOUGHTS[kind].format("; ".join(queries))
            yield event("response.reasoning.search_queries", queries=queries, thought=said)
            yield event("response.reasoning.search_results", results=results, thought=None)
        if answer.fetched:
            urls = [p["url"] for p in answer.fetched]
            yield event("response.reasoning.fetch_url_queries", urls=urls, thought="Reading " + ", ".join(urls))
            yield event("response.reasoning.fetch_url_results", contents=answer.fetched)
        if answer.images:
            yield event(
                "response.reasoning.image_search_queries",
                call_id="img_1",
                queries=answer.image_queries,
                thought="Searching images for: " + "; ".join(answer.image_queries),
            )
            yield event("response.reasoning.image_search_results", call_id="img_1", results=answer.images)
        if openai_events and thought:
            yield event("response.reasoning.delta", delta=thought)
        yield event("response.reasoning.stopped", thought=None)
    for index, item in enumerate(response["output"]):
        yield from _item_events(event, index, item, openai_events)
    if response["status"] == "failed":
        yield event("response.failed", error=response["error"])
    else:
        yield event("response.completed", response=response)


def _item_events(event: Any, index: int, item: dict[str, Any], openai_events: bool) -> Iterator[dict[str, Any]]:
    if item["type"] == "message":
        yield event(
            "response.output_item.added", output_index=index, item={**item, "content": [], "status": "in_progress"}
        )
        part = item["content"][0]
        if openai_events:
            yield event(
                "response.content_part.added",
                output_index=index,
                item_id=item["id"],
                content_index=0,
                part={"type": "output_text", "text": "", "annotations": []},
            )
        for piece in words(part["text"]):
            yield event(
                "response.output_text.delta", output_index=index, item_id=item["id"], content_index=0, delta=piece
            )
        yield event(
            "response.output_text.done", output_index=index, item_id=item["id"], content_index=0, text=part["text"]
        )
    elif item["type"] == "function_call":
        yield event(
            "response.output_item.added", output_index=index, item={**item, "arguments": "", "status": "in_progress"}
        )
        if openai_events:
            yield event(
                "response.function_call_arguments.delta",
                output_index=index,
                item_id=item["id"],
                delta=item["arguments"],
            )
    elif item["type"] == "sandbox_results":
        yield event(
            "response.output_item.added", output_index=index, item={**item, "results": [], "status": "in_progress"}
        )
    else:
        yield event("response.output_item.added", output_index=index, item=item)
    yield event("response.output_item.done", output_index=index, item=item)


# Output items a continuation sends back, and the fields their input forms take (`InputItemInput`).
_AS_INPUT = {
    "mcp_list_tools": ("type", "id", "server_label", "tools", "error"),
    "mcp_approval_request": ("type", "id", "server_label", "name", "arguments", "connector_id", "thought_signature"),
    "mcp_call": (
        "type",
        "id",
        "server_label",
        "name",
        "arguments",
        "output",
        "error",
        "approval_request_id",
        "connector_id",
    ),
}


def output_as_input(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A response's output as the input items a continuation of it starts from (messages, calls, MCP items)."""
    items: list[dict[str, Any]] = []
    for item in output:
        if item["type"] == "message":
            text = "".join(part.get("text", "") for part in item["content"])
            if text:
                items.append({"role": "assistant", "content": text})
        elif item["type"] == "function_call":
            call = {k: item[k] for k in ("type", "call_id", "name", "arguments")}
            if item.get("thought_signature"):
                call["thought_signature"] = item["thought_signature"]
            items.append(call)
        elif item["type"] in _AS_INPUT:
            items.append({k: item[k] for k in _AS_INPUT[item["type"]] if item.get(k) is not None})
    return items
