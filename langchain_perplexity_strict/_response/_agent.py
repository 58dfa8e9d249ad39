"""Agent API responses and stream events → LangChain messages; invoke reads a response as a stream's last event.

Shapes: `ResponsesResponseOutput`, `ResponseStreamEventOutput` (`perplexity.generated.api`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessageChunk

from langchain_perplexity_strict._response._answer import Answer
from langchain_perplexity_strict._response._vocabulary import ANSWERED_STATUSES, PENDING_STATUSES
from langchain_perplexity_strict.errors import PerplexityResponseError, reported_error

PART_SEPARATOR = "\n\n"  # between text parts: each is its own paragraph
# Kept as `ChatOpenAI` keeps them; `created_at` would make equal answers differ.
ENVELOPE_KEYS = ("object", "service_tier")
# Server tool events: (item type, whether it starts, the field carried).
TOOL_EVENTS = {
    "response.reasoning.search_queries": ("search_results", True, "queries"),
    "response.reasoning.search_results": ("search_results", False, "results"),
    "response.reasoning.image_search_queries": ("image_search_results", True, "queries"),
    "response.reasoning.image_search_results": ("image_search_results", False, "results"),
    "response.reasoning.fetch_url_queries": ("fetch_url_results", True, "urls"),
    "response.reasoning.fetch_url_results": ("fetch_url_results", False, "contents"),
}


def _shifted(annotation: dict[str, Any], offset: int) -> dict[str, Any]:
    if not offset or not isinstance(annotation.get("start_index"), int):
        return annotation
    return {
        **annotation,
        "start_index": annotation["start_index"] + offset,
        "end_index": int(annotation.get("end_index") or 0) + offset,
    }


def raise_for_status(answer: Answer, status: Any, error: dict[str, Any]) -> None:
    """Raise for a run that did not complete (its status is neither None nor an answer's)."""
    if answer.stopped and status != "failed":  # ended at its stop sequence
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
    raise reported_error(msg, error, answer.partial())  # a failed run is billed: keep its usage


@dataclass
class AgentStreamReader:
    """Agent API stream events → message chunks."""

    answer: Answer
    _offsets: dict[tuple[int, int], int] = field(default_factory=dict)
    _items: dict[int, dict[str, Any]] = field(default_factory=dict)  # for a terminal event without output
    _received: dict[tuple[int, int], str] = field(default_factory=dict)
    _stopped_at: int | None = None  # the item where a stop matched
    _done: dict[str, int] = field(default_factory=dict)
    _thought: str | None = None  # a repeat is no new step

    def feed(self, event: dict[str, Any]) -> list[AIMessageChunk]:
        """The chunks one event completes: what it brought as one chunk, or the last."""
        kind = event.get("type", "")
        answer = self.answer
        index = int(event.get("output_index") or 0)
        if kind == "response.output_text.delta":  # the common event: text in, one chunk out
            key = (index, int(event.get("content_index") or 0))
            self._add(key, self._received.get(key, "") + str(event.get("delta") or ""))
        elif kind == "response.output_text.done":  # whole text: add what deltas missed
            self._add((index, int(event.get("content_index") or 0)), str(event.get("text") or ""))
        elif kind.startswith("response.reasoning."):
            self._reasoning(kind, event)
        elif kind == "response.output_item.done":
            item = event.get("item") or {}
            self._items[int(event.get("output_index") or len(self._items))] = item
            self._catch_up(int(event.get("output_index") or len(self._items) - 1), item)
            if item.get("type") == "search_results":
                answer.add_search_results(item.get("results") or [])
            elif item.get("type") == "image_search_results":
                answer.add_items("images", item.get("results") or [])
            answer.server.add(item, self._done)
        elif kind == "response.skill.loaded" and answer.v1:
            answer.server.skill_loaded(str(event.get("name")))
        elif kind in ("response.completed", "response.incomplete", "response.cancelled"):  # the last two: OpenAI's
            self.read(event.get("response") or {})
            return [answer.final_chunk()]
        elif kind == "response.failed":
            answer.fail()
            raise_for_status(answer, "failed", event.get("error") or (event.get("response") or {}).get("error") or {})
            answer.metadata["status"] = "failed"
            return [answer.final_chunk()]  # cut at the output limit
        elif kind == "error":  # fields on the event (OpenAI) or nested in `error`
            error = event["error"] if isinstance(event.get("error"), dict) else event
            code = " ".join(
                f"{key} {error[key]}" for key in ("type", "code") if error.get(key) and error[key] != "error"
            )
            msg = f"Perplexity stream error: {error.get('message') or event.get('error') or event}"
            answer.fail()  # what came before the error is kept on the error's .partial
            raise reported_error(f"{msg} ({code})" if code else msg, error, answer.partial())
        return answer.take_text()

    def _reasoning(self, kind: str, event: dict[str, Any]) -> None:
        answer = self.answer
        thought = event.get("thought")
        if isinstance(thought, str) and thought and thought != self._thought:
            # Each thought is a whole step: a blank line between steps.
            piece = "\n\n" + thought if answer.reasoning else thought
            self._thought = thought
            answer.add_reasoning(piece)
        if kind == "response.reasoning.search_queries":
            answer.add_items("search_queries", event.get("queries") or [])
        elif kind == "response.reasoning.search_results":
            answer.add_search_results(event.get("results") or [])
        elif kind == "response.reasoning.image_search_results":
            answer.add_items("images", event.get("results") or [])
        if kind in TOOL_EVENTS and answer.v1:
            item_type, starts, name = TOOL_EVENTS[kind]
            value = {name: event.get(name) or []}
            if starts:
                answer.server.started(item_type, value)
            else:
                answer.server.finished(item_type, value)

    def _add(self, key: tuple[int, int], text: str) -> None:
        """Part `key`'s text is now `text` (from deltas, a done event or the response): add what is new."""
        received = self._received.get(key, "")
        after_stop = self._stopped_at is not None and key[0] > self._stopped_at
        if not text.startswith(received) or len(text) == len(received) or after_stop:
            return
        answer = self.answer
        if key not in self._offsets:  # a new part: its own paragraph
            if answer.text:
                answer.add_text(PART_SEPARATOR)
            self._offsets[key] = len(answer.text)
        self._received[key] = text
        answer.add_text(text[len(received) :])
        if answer.stopped and self._stopped_at is None:
            self._stopped_at = key[0]

    def _catch_up(self, index: int, item: dict[str, Any]) -> None:
        """A message item's text that deltas missed."""
        if item.get("type") != "message":
            return
        for part_index, part in enumerate(item.get("content") or []):  # content_index counts all parts
            if part.get("type") == "output_text":
                self._add((index, part_index), str(part.get("text") or ""))

    def read(self, response: dict[str, Any]) -> None:
        """A whole response (a stream's last event, or an invoke's answer); messages and calls after the item
        where a stop matched are skipped."""
        answer = self.answer
        output = response.get("output") or [self._items[i] for i in sorted(self._items)]
        ordinals: dict[str, int] = {}
        for index, item in enumerate(output):
            self._catch_up(index, item)
            kind = item.get("type")
            if kind in ("message", "function_call") and self._stopped_at is not None and index > self._stopped_at:
                continue
            answer.server.add(item, ordinals)
            if kind == "message":  # annotation offsets are per part
                for part_index, part in enumerate(item.get("content") or []):
                    for annotation in part.get("annotations") or []:
                        answer.add_annotation(_shifted(annotation, self._offsets.get((index, part_index), 0)))
            elif kind == "search_results":
                answer.add_items("search_queries", item.get("queries") or [])
                answer.add_search_results(item.get("results") or [])
            elif kind == "image_search_results":
                answer.add_items("images", item.get("results") or [])
            elif kind == "function_call":
                answer.add_tool_call(
                    item.get("call_id"), item.get("name"), item.get("arguments"), item.get("thought_signature")
                )
        # On the Agent API `status`, not HTTP 200, means success.
        status = response.get("status")
        answer.end(response, "tool_calls" if answer.tool_calls else "stop", ENVELOPE_KEYS, status=status)
        if status is not None and status not in ANSWERED_STATUSES:
            raise_for_status(answer, status, response.get("error") or {})

    def finish(self) -> list[AIMessageChunk]:
        return self.answer.close_stream()
