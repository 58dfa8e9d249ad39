"""The live Agent API dialect: what a live exchange shows beside the published schema.

The emulator builds every answer in the published shapes (`.agent_api`,
`.agent_events`); with `dialect="live"` (the default) this module turns that
answer into what the live API sends. The one public record of a live
exchange is vercel/ai's `packages/perplexity/src/__fixtures__/agent-web-search.json`
and `.chunks.txt` (captured from the live Agent API on 2026-09-25 with the
`fast` preset; docs/perplexity-rules.md, "The live dialect"). Each rule below is
what that capture shows:

- stream `sequence_number`s count from 0 and skip numbers (2 and 41 there: the
  number after `response.in_progress`, and the one before `output_text.done`);
- the built-in web search is announced by an `output_item.added` whose item is
  a `function_call` named `search_web` (`arguments`: `{"queries": [...]}`,
  status `completed`), no `.done` follows it, and its output index is then
  taken by the `search_results` item (its `.done` only); the final response
  holds the `search_results` item, not the call;
- `response.reasoning.search_queries` / `.search_results` carry that call's
  `call_id` and a `thought` ("Searching the web...", "Found N results"); no
  `response.reasoning.started` / `.stopped` when no reasoning was asked for
  (`reasoning: null` there);
- the message's `output_item.added` has `"content": null` (status `completed`);
- citations are `[n]` markers in the text with `"annotations": []`, `n` being
  a `results[].id`;
- usage names the search `search_web` (`cost.tool_calls_cost_details`,
  `tool_calls_details`), adds `cost.cache_read_cost`, `input_tokens_details.cached_tokens`
  and `output_tokens_details.reasoning_tokens`;
- `model` is the preset in `response.created` / `.in_progress` and the served
  model in the final response; `service_tier` is "default" early and the
  preset's name at the end;
- the envelope carries OpenAI Responses fields (`text.format`, `truncation`,
  `top_logprobs`, `service_tier`, `safety_identifier`, ...), and ids are
  `resp_<uuid>`, `msg_<uuid>`, `fc_<uuid>`, `call_<uuid>`.

`dialect="schema"` keeps the bare published shapes (every event and response
valid under `perplexity.generated.api` with extra fields forbidden).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from typing import Any, Literal

Dialect = Literal["live", "schema"]
DIALECTS: tuple[str, ...] = ("live", "schema")

SEARCH_FUNCTION = "search_web"
"""The name the live API gives its own web search (the announced call, the usage keys)."""
USAGE_NAMES = {"web_search": SEARCH_FUNCTION}
"""Built-in tool types renamed in the live usage; the capture shows the web search only."""
SEARCHING, FOUND = "Searching the web...", "Found {} results"

# The OpenAI Responses fields of the live envelope, each with the request field it echoes (None: none) and
# the value when the request does not set it, as the capture shows them.
ENVELOPE: tuple[tuple[str, str | None, Any], ...] = (
    ("completed_at", None, None),
    ("error", None, None),
    ("frequency_penalty", None, 0),
    ("incomplete_details", None, None),
    ("instructions", "instructions", None),
    ("max_output_tokens", "max_output_tokens", None),
    ("max_tool_calls", None, None),
    ("metadata", None, {}),
    ("parallel_tool_calls", None, True),
    ("presence_penalty", None, 0),
    ("previous_response_id", "previous_response_id", None),
    ("prompt_cache_key", "prompt_cache_key", None),
    ("reasoning", "reasoning", None),
    ("safety_identifier", None, None),
    ("temperature", "temperature", 1),
    ("text", None, {"format": {"type": "text"}}),
    ("tool_choice", "tool_choice", "auto"),
    ("tools", "tools", []),
    ("top_logprobs", None, 0),
    ("top_p", "top_p", 1),
    ("truncation", None, ""),
    ("user", None, None),
)


def live_id(prefix: str) -> str:
    """An id in the live form, `<prefix>_<uuid>`."""
    return f"{prefix}_{uuid.uuid4()}"


def live_response(body: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    """The final response in the live dialect: the envelope's fields, `search_web` usage, `[n]` citations only."""
    out = {key: body.get(source, default) if source else default for key, source, default in ENVELOPE}
    out.update(response)
    out["background"] = bool(body.get("background"))
    out["store"] = body.get("store") is not False
    out["service_tier"] = body.get("service_tier") or _preset(body) or "default"
    if out["status"] == "completed":
        out["completed_at"] = out["created_at"]
    out["output"] = [_live_item(item) for item in response["output"]]
    if response.get("usage"):
        out["usage"] = live_usage(response["usage"])
    return out


def _preset(body: dict[str, Any]) -> str | None:
    preset = body.get("effort") or body.get("preset")
    return str(preset) if preset else None


def _live_item(item: dict[str, Any]) -> dict[str, Any]:
    if item.get("type") != "message":
        return item
    content = [{**part, "annotations": []} if part.get("type") == "output_text" else part for part in item["content"]]
    return {**item, "id": live_id("msg"), "content": content}


def live_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """Usage as the capture spells it: tools renamed, cache and reasoning details, per-tool costs."""
    details = {USAGE_NAMES.get(k, k): v for k, v in (usage.get("tool_calls_details") or {}).items()}
    inputs = dict(usage.get("input_tokens_details") or {})
    inputs.setdefault("cache_creation_input_tokens", 0)
    inputs["cached_tokens"] = inputs.get("cache_read_input_tokens", 0)
    cost = dict(usage["cost"])
    cost["cache_read_cost"] = round(inputs["cached_tokens"] * 1e-7, 8)
    cost["tool_calls_cost_details"] = {name: d["cost_usd"] for name, d in details.items()}
    cost["total_cost"] = round(cost["total_cost"] + cost["cache_read_cost"], 8)
    out = {**usage, "input_tokens_details": inputs, "cost": cost, "output_tokens_details": {"reasoning_tokens": 0}}
    if details:
        out["tool_calls_details"] = details
    return out


def live_events(
    events: Iterable[dict[str, Any]], body: dict[str, Any], *, web_search: bool, reasoning: bool
) -> Iterator[dict[str, Any]]:
    """The published stream of a live response, in the live dialect (the module docstring's rules, in order).

    `web_search`: the first search events are the built-in web search (announced
    as a `search_web` call); `reasoning`: the request asked for reasoning, so
    `response.reasoning.started` / `.stopped` stay.
    """
    seq, skip_next = -1, False
    call_id, searches = live_id("call"), 0
    search_index: int | None = None  # the output index of the web search's `search_results` item
    held: list[dict[str, Any]] = []  # the web search's `.done`, sent right after its results

    def numbered(event: dict[str, Any], skip: bool = False) -> dict[str, Any]:
        nonlocal seq, skip_next
        seq += 2 if skip or skip_next else 1
        skip_next = event["type"] == "response.in_progress"
        return {**event, "sequence_number": seq}

    preset = _preset(body)
    events = list(events)
    if web_search:
        done = [e for e in events if e["type"] == "response.output_item.done"]
        search_index = next((e["output_index"] for e in done if e["item"]["type"] == "search_results"), None)
    for event in events:
        kind = event["type"]
        if kind in ("response.created", "response.in_progress"):
            early = {**event["response"], "service_tier": "default", "completed_at": None}
            if preset:
                early["model"] = preset
            yield numbered({**event, "response": early})
            continue
        if kind in ("response.reasoning.started", "response.reasoning.stopped") and not reasoning:
            continue
        if search_index is not None and kind == "response.reasoning.search_queries" and searches == 0:
            arguments = json.dumps({"queries": event["queries"]})
            announced = {
                "type": "function_call",
                "name": SEARCH_FUNCTION,
                "arguments": arguments,
                "call_id": call_id,
                "id": live_id("fc"),
                "status": "completed",
            }
            yield numbered({"type": "response.output_item.added", "output_index": search_index, "item": announced})
            yield numbered({**event, "call_id": call_id, "thought": SEARCHING})
            continue
        if search_index is not None and kind == "response.reasoning.search_results" and searches == 0:
            searches += 1
            yield numbered({**event, "call_id": call_id, "thought": FOUND.format(len(event["results"]))})
            yield from (numbered(e) for e in held)
            held.clear()
            continue
        if kind.startswith("response.output_item.") and event.get("output_index") == search_index:
            if kind == "response.output_item.done":
                if searches:
                    yield numbered(event)
                else:
                    held.append(event)
            continue  # the search's `search_results` item has no `.added`: the announced call holds its place
        if kind == "response.output_item.added" and event["item"]["type"] == "message":
            yield numbered({**event, "item": {**event["item"], "content": None, "status": "completed"}})
            continue
        yield numbered(event, skip=kind == "response.output_text.done")
