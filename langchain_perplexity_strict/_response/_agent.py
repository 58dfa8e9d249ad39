"""Agent API responses and stream events → LangChain messages.

One reader, `read_output`, takes what a response's `output` holds
(messages, function calls, and the items of the server tools and skills);
invoke uses it on the response, and a stream uses it on the terminal event's
response, so the two cannot drift. The stream reader adds what only a stream
has: text deltas, the model's `thought` on each `response.reasoning.*`
event, each search, fetch and image search as it starts and as its results
come, loaded skills, and each output item as soon as it is done.

Shapes: `ResponsesResponseOutput` and `ResponseStreamEventOutput` in
`perplexity.generated.api`. Events not in that vocabulary are ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessageChunk

from langchain_perplexity_strict._response._answer import Answer
from langchain_perplexity_strict._response._server_item_blocks import is_server_item
from langchain_perplexity_strict._response._vocabulary import ANSWERED_STATUSES, PENDING_STATUSES
from langchain_perplexity_strict.errors import PerplexityResponseError, reported_error

# Separates the text of two message items of one response (a preamble, then the answer), and of two
# `output_text` parts of one item: each is a paragraph of its own, and run together they would read as one.
PART_SEPARATOR = "\n\n"
# The envelope fields `response_metadata` keeps besides `id`, `model` and `status`, as `ChatOpenAI` keeps a
# Responses answer's (its `created_at` is left out: a run's clock, which would make two runs' answers differ).
ENVELOPE_KEYS = ("object", "service_tier")
# The `response.reasoning.*` events of a server tool: (item type, whether it starts, the field carried).
TOOL_EVENTS = {
    "response.reasoning.search_queries": ("search_results", True, "queries"),
    "response.reasoning.search_results": ("search_results", False, "results"),
    "response.reasoning.image_search_queries": ("image_search_results", True, "queries"),
    "response.reasoning.image_search_results": ("image_search_results", False, "results"),
    "response.reasoning.fetch_url_queries": ("fetch_url_results", True, "urls"),
    "response.reasoning.fetch_url_results": ("fetch_url_results", False, "contents"),
}


def read_output(
    answer: Answer,
    output: Sequence[dict[str, Any]],
    *,
    text: bool,
    offsets: dict[tuple[int, int], int],
    stopped_at: int | None,
) -> None:
    """Fill `answer` from `output` items; message text only when `text` (a stream had it already).

    `offsets` gives, per (output index, content index), where that text part
    starts in the answer: Perplexity counts a part's annotation offsets from the
    part's own start, so they are shifted by it; reading text fills it in. Once a
    stop sequence has matched (in item `stopped_at`), later messages and function
    calls are not part of the answer, as a stream that stopped there never reads them.
    """
    ordinals: dict[str, int] = {}
    for index, item in enumerate(output):
        kind = item.get("type")
        if stopped_at is None and answer.stopped:
            stopped_at = index - 1
        if kind in ("message", "function_call") and stopped_at is not None and index > stopped_at:
            continue
        if is_server_item(item):
            read_server_item(answer, item, ordinals)
        if kind == "message":
            for part_index, part in enumerate(item.get("content") or []):
                if text and part.get("type") == "output_text" and part.get("text"):
                    start_text_part(answer, (index, part_index), offsets)
                    answer.add_text(part["text"])
                for annotation in part.get("annotations") or []:
                    answer.add_annotation(_shifted(annotation, offsets.get((index, part_index), 0)))
        elif kind == "search_results":
            answer.add_queries(item.get("queries") or [])
            answer.add_search_results(item.get("results") or [])
        elif kind == "image_search_results":
            answer.add_items("images", item.get("results") or [])
        elif kind == "function_call":
            answer.add_tool_call(
                item.get("call_id"), item.get("name"), item.get("arguments"), item.get("thought_signature")
            )


def read_server_item(answer: Answer, item: dict[str, Any], ordinals: dict[str, int]) -> None:
    """A server tool's or skill's item; `ordinals` counts the items of each type read so far."""
    kind = str(item.get("type"))
    n = ordinals.get(kind, 0)
    ordinals[kind] = n + 1
    answer.server.add(item, n)


def start_text_part(answer: Answer, key: tuple[int, int], offsets: dict[tuple[int, int], int]) -> None:
    """A text part (`key`: output index, content index) begins: separate it from the text before, and
    note where it starts."""
    if key in offsets:
        return
    if answer.text:
        answer.pend(*answer.add_text(PART_SEPARATOR))
    offsets[key] = len(answer.text)


def _shifted(annotation: dict[str, Any], offset: int) -> dict[str, Any]:
    if not offset or not isinstance(annotation.get("start_index"), int):
        return annotation
    return {
        **annotation,
        "start_index": annotation["start_index"] + offset,
        "end_index": int(annotation.get("end_index") or 0) + offset,
    }


def read_agent_response(answer: Answer, response: dict[str, Any]) -> None:
    """Fill `answer` from a whole response (invoke)."""
    read_output(answer, response.get("output") or [], text=True, offsets={}, stopped_at=None)
    answer.flush_text()
    read_status(answer, response)


def read_status(answer: Answer, response: dict[str, Any]) -> None:
    """Usage, metadata and status; HTTP 200 is not success on the Agent API: `status` says whether it is."""
    status = response.get("status")
    envelope = {key: response[key] for key in ENVELOPE_KEYS if response.get(key) is not None}
    answer.end(response, "tool_calls" if answer.tool_calls else "stop", status=status, **envelope)
    raise_for_status(answer, status, response.get("error") or {})


def raise_for_status(answer: Answer, status: Any, error: dict[str, Any]) -> None:
    """Raise for a run that did not complete. `requires_action` is an answer: the run waits for the
    application (to run its function calls, or to approve MCP calls; the requests are in the message)."""
    if status is None or status in ANSWERED_STATUSES or answer.waits_for_the_app:
        return
    if answer.stopped and status != "failed":  # the answer ended at its stop, before the limit or the run's end
        return
    if status == "incomplete" or error.get("code") == "max_output_tokens":
        answer.cut_at_length(
            "Perplexity stopped the answer at max_output_tokens; the partial answer is on this "
            "error's .partial. Raise max_tokens."
        )
        return
    if status in PENDING_STATUSES:
        msg = (
            f"Perplexity answered with status {status!r}: the run has not finished. A background run "
            "is polled to its end when created with background=True (docs/long-runs.md)."
        )
        raise PerplexityResponseError(msg)
    msg = f"Perplexity reported the run as {status!r}: {error.get('message') or 'no message'}"
    if error.get("code"):
        msg += f" (code {error['code']})"
    if answer.text or answer.tool_calls:
        msg += "; what it produced before it ended is on this error's .partial"
    # What the run produced and cost (a failed run that used tokens is billed): on the error, not lost.
    raise reported_error(msg, error, answer.partial())


class AgentStreamReader:
    """Agent API stream events → message chunks."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self._offsets: dict[tuple[int, int], int] = {}
        self._items: dict[int, dict[str, Any]] = {}  # output_item.done, for a terminal event without output
        self._received: dict[tuple[int, int], str] = {}  # the text of each (item, part) read so far
        self._stopped_at: int | None = None  # the item in which a stop sequence matched
        self._done: dict[str, int] = {}  # output_item.done items read, per type
        self._thought: str | None = None  # the last thought read (a repeat is not a new step)

    def feed(self, event: dict[str, Any]) -> list[AIMessageChunk]:
        """Read one event; return the chunks it completes (its text goes out after it, `_surfaces.read_event`)."""
        kind = event.get("type", "")
        answer = self.answer
        index = int(event.get("output_index") or 0)
        if kind == "response.output_text.delta":
            key = (index, int(event.get("content_index") or 0))
            self._add(key, self._received.get(key, "") + str(event.get("delta") or ""))
            return []
        if kind == "response.output_text.done":  # the part's whole text: what no delta brought is added
            self._add((index, int(event.get("content_index") or 0)), str(event.get("text") or ""))
            return []
        if kind.startswith("response.reasoning."):
            return self._reasoning(kind, event)
        if kind == "response.output_item.done":
            item = event.get("item") or {}
            self._items[int(event.get("output_index") or len(self._items))] = item
            self._catch_up(int(event.get("output_index") or len(self._items) - 1), item)
            if item.get("type") == "search_results":
                answer.add_search_results(item.get("results") or [])
            elif item.get("type") == "image_search_results":
                answer.add_items("images", item.get("results") or [])
            if is_server_item(item):
                read_server_item(answer, item, self._done)
        elif kind == "response.skill.loaded":
            answer.server.skill_loaded(str(event.get("name")))
        elif kind == "response.completed":
            return self._terminal(event.get("response") or {})
        elif kind == "response.failed":
            answer.fail()
            raise_for_status(answer, "failed", event.get("error") or (event.get("response") or {}).get("error") or {})
            answer.metadata["status"] = "failed"
            return [answer.final_chunk()]  # cut at the output limit: the answer so far, with finish_reason "length"
        elif kind in ("response.incomplete", "response.cancelled"):  # OpenAI's terminals, should a gateway send them
            return self._terminal(event.get("response") or {})
        elif kind == "error":  # OpenAI's shape has the error's fields on the event; others nest it in `error`
            error = event["error"] if isinstance(event.get("error"), dict) else event
            code = " ".join(
                f"{key} {error[key]}" for key in ("type", "code") if error.get(key) and error[key] != "error"
            )
            msg = f"Perplexity stream error: {error.get('message') or event.get('error') or event}"
            raise reported_error(f"{msg} ({code})" if code else msg, error)
        return []

    def _reasoning(self, kind: str, event: dict[str, Any]) -> list[AIMessageChunk]:
        answer = self.answer
        thought = event.get("thought")
        if isinstance(thought, str) and thought and thought != self._thought:
            # Each event's thought is a whole step ("Searching the web for ..."): a blank line between steps.
            piece = "\n\n" + thought if answer.reasoning else thought
            self._thought = thought
            answer.add_reasoning(piece)
            answer.pend(piece, "")
        if kind == "response.reasoning.search_queries":
            answer.add_queries(event.get("queries") or [])
        elif kind == "response.reasoning.search_results":
            answer.add_search_results(event.get("results") or [])  # streamed with this event's chunk
        elif kind == "response.reasoning.image_search_results":
            answer.add_items("images", event.get("results") or [])
        if kind in TOOL_EVENTS:
            item_type, starts, field = TOOL_EVENTS[kind]
            value = {field: event.get(field) or []}
            if starts:
                answer.server.started(item_type, value)
            else:
                answer.server.finished(item_type, value)
        return []

    def _add(self, key: tuple[int, int], text: str) -> None:
        """The text of part `key` is now `text`: what extends what was read goes into the answer.

        Text may arrive as deltas, only in `output_text.done`, only in the item's
        `output_item.done`, or only in the terminal response: each part's text is
        taken once, from wherever it first arrives, as invoke takes it from the response.
        """
        received = self._received.get(key, "")
        if not text.startswith(received) or len(text) == len(received) or self._after_stop(key[0]):
            return
        answer = self.answer
        start_text_part(answer, key, self._offsets)
        self._received[key] = text
        answer.pend(*answer.add_text(text[len(received) :]))
        if answer.stopped and self._stopped_at is None:
            self._stopped_at = key[0]

    def _after_stop(self, index: int) -> bool:
        return self._stopped_at is not None and index > self._stopped_at

    def _catch_up(self, index: int, item: dict[str, Any]) -> None:
        """A whole message item: the text of its parts that did not arrive as deltas."""
        if item.get("type") != "message":
            return
        for part_index, part in enumerate(item.get("content") or []):  # content_index counts every part
            if part.get("type") == "output_text":
                self._add((index, part_index), str(part.get("text") or ""))

    def _terminal(self, response: dict[str, Any]) -> list[AIMessageChunk]:
        answer = self.answer
        output = response.get("output") or [self._items[i] for i in sorted(self._items)]
        for index, item in enumerate(output):
            self._catch_up(index, item)
        answer.pend(*answer.flush_text())
        read_output(answer, output, text=False, offsets=self._offsets, stopped_at=self._stopped_at)
        read_status(answer, response)
        return [answer.final_chunk()]

    def finish(self) -> list[AIMessageChunk]:
        """The stream ended: complete only after a terminal event or a matched stop."""
        return self.answer.close_stream()
