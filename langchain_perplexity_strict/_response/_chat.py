"""Sonar chat completions → LangChain messages: one reader for a completion, one for its stream."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessageChunk

from langchain_perplexity_strict._response._answer import Answer


def content_text(content: Any) -> str:
    """A message's content as text: a string, or its text parts."""
    if isinstance(content, str):
        return content
    return "".join(str(p.get("text") or "") for p in content or [] if isinstance(p, dict) and p.get("type") == "text")


# Unpublished lists Sonar sends, kept as langchain-perplexity did.
RECORD_LISTS = ("images", "videos", "related_questions", "reasoning_steps")


class ChatStreamReader:
    """Chat-completions chunks → message chunks; usage is cumulative, so only the last counts (agno PR #6058)."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self._last: dict[str, Any] = {}  # the envelope's latest fields
        self._finish_reason: Any = None
        self._tool_parts: dict[int, dict[str, Any]] = {}
        self._done = False

    def feed(self, data: dict[str, Any]) -> list[AIMessageChunk]:
        answer = self.answer
        if data.get("type") == "[DONE]":  # `_transport`'s end mark
            self._done = True
            return []
        # A sources-only trailing chunk must not erase the finish chunk's fields.
        self._last = {**self._last, **{k: v for k, v in data.items() if v is not None}}
        answer.add_citations(data.get("citations") or [])
        answer.add_search_results(data.get("search_results") or [])
        for key in RECORD_LISTS:
            if data.get(key):
                answer.add_items(key, data[key])
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("reasoning_steps"):
                answer.add_items("reasoning_steps", delta["reasoning_steps"])
            if delta.get("content"):
                answer.add_text(content_text(delta["content"]))
            for call in delta.get("tool_calls") or [] if not answer.stopped else []:
                # A piece without an `index` is a whole call (`ToolCallOutput`).
                index = call["index"] if isinstance(call.get("index"), int) else max(self._tool_parts, default=-1) + 1
                part = self._tool_parts.setdefault(index, {"id": None, "name": "", "arguments": ""})
                function = call.get("function") or {}
                part["id"] = call.get("id") or part["id"]
                part["name"] += function.get("name") or ""
                part["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                self._finish_reason = choice["finish_reason"]
        return answer.take_text()

    def read(self, completion: dict[str, Any]) -> None:
        """A whole chat completion (`CompletionResponseOutput`), read as a stream of one chunk."""
        choices = [{**choice, "delta": choice.get("message") or {}} for choice in (completion.get("choices") or [])[:1]]
        self.feed({**completion, "choices": choices})
        self.end()

    def finish(self) -> list[AIMessageChunk]:
        """The stream ended: complete only after a finish reason, `[DONE]` or a matched stop."""
        if self._finish_reason is None and not self._done and not (self.answer.stopped and self._last):
            return self.answer.close_stream()
        self.end()
        return [self.answer.final_chunk()]

    def end(self) -> None:
        """The text and tool calls held back, then usage and metadata."""
        answer = self.answer
        if answer.stopped and self._last:  # cut by a stop: no tool calls
            self._finish_reason, self._tool_parts = "stop", {}
        for index in sorted(self._tool_parts):
            part = self._tool_parts[index]
            answer.add_tool_call(part["id"], part["name"], part["arguments"])
        answer.end(self._last, self._finish_reason)
        if self._finish_reason == "length" and not answer.stopped:
            answer.cut_at_length(
                "Perplexity stopped the answer at the token limit (finish_reason 'length'); "
                "the partial answer is on this error's .partial. Raise max_tokens."
            )
