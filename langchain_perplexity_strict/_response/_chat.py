"""Sonar chat completions → LangChain messages: one reader for a completion, one for its stream."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessageChunk

from langchain_perplexity_strict._response._answer import Answer
from langchain_perplexity_strict.errors import PerplexityIncompleteError


def read_chat_completion(answer: Answer, completion: dict[str, Any]) -> None:
    """Fill `answer` from a chat completion (`CompletionResponseOutput`)."""
    choice = (completion.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    answer.add_text(message.get("content") or "")
    answer.flush_text()
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        answer.add_tool_call(call.get("id"), function.get("name"), function.get("arguments"))
    _read_chat_sources(answer, completion)
    _read_chat_end(answer, completion, choice.get("finish_reason"))


def _read_chat_sources(answer: Answer, data: dict[str, Any]) -> None:
    answer.add_citations(data.get("citations") or [])
    if data.get("search_results"):
        answer.add_search_results(data["search_results"])
    for key in ("images", "related_questions"):
        if data.get(key):
            answer.set_extra(key, data[key])


def _read_chat_end(answer: Answer, data: dict[str, Any], finish_reason: Any) -> None:
    answer.end(data, finish_reason)
    if finish_reason == "length" and not answer.stopped:
        msg = (
            "Perplexity stopped the answer at the token limit (finish_reason 'length'); "
            "the partial answer is on this error's .partial. Raise max_tokens."
        )
        raise PerplexityIncompleteError(msg, answer.message())


class ChatStreamReader:
    """Chat-completions chunks → message chunks.

    Every Perplexity chunk repeats `citations` and carries the cumulative
    usage so far: citations are kept once, and only the last usage is
    reported, so nothing is over-counted (agno PR #6058 shows the over-count).
    """

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self._last: dict[str, Any] = {}
        self._finish_reason: Any = None
        self._tool_parts: dict[int, dict[str, Any]] = {}

    def feed(self, data: dict[str, Any]) -> list[AIMessageChunk]:
        answer = self.answer
        self._last = data
        _read_chat_sources(answer, data)
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                answer.pend(*answer.add_text(delta["content"]))
            for call in delta.get("tool_calls") or []:
                part = self._tool_parts.setdefault(int(call.get("index", 0)), {"id": None, "name": "", "arguments": ""})
                function = call.get("function") or {}
                part["id"] = call.get("id") or part["id"]
                part["name"] += function.get("name") or ""
                part["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                self._finish_reason = choice["finish_reason"]
        return []

    def finish(self) -> list[AIMessageChunk]:
        answer = self.answer
        if self._finish_reason is None:
            return answer.close_stream()
        answer.pend(*answer.flush_text())
        for index in sorted(self._tool_parts):
            part = self._tool_parts[index]
            answer.add_tool_call(part["id"], part["name"], part["arguments"])
        _read_chat_end(answer, self._last, self._finish_reason)
        return [answer.final_chunk()]
