"""Sonar chat completions → LangChain messages: one reader for a completion, one for its stream."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessageChunk

from langchain_perplexity_strict._response._answer import Answer


def content_text(content: Any) -> str:
    """A message's content as text: a string, or the text of its parts (`ChatMessageContentTextChunk`);
    the published schema also allows image, file and video parts, which carry no answer text."""
    if isinstance(content, str):
        return content
    return "".join(str(p.get("text") or "") for p in content or [] if isinstance(p, dict) and p.get("type") == "text")


def read_chat_completion(answer: Answer, completion: dict[str, Any]) -> None:
    """Fill `answer` from a chat completion (`CompletionResponseOutput`).

    Tool calls after a matched stop sequence are not part of the answer, as a stream that stopped never reads them.
    """
    choice = (completion.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    answer.add_text(content_text(message.get("content")))
    answer.flush_text()
    for call in message.get("tool_calls") or [] if not answer.stopped else []:
        function = call.get("function") or {}
        answer.add_tool_call(call.get("id"), function.get("name"), function.get("arguments"))
    _read_chat_sources(answer, completion, "message")
    _read_chat_end(answer, completion, "stop" if answer.stopped else choice.get("finish_reason"))


RECORD_LISTS = ("images", "videos", "related_questions", "reasoning_steps")
"""Lists Sonar sends beside the published fields (with `return_images`, `media_response`,
`return_related_questions`, and for reasoning models), read where langchain-perplexity 1.4.2 read them:
`additional_kwargs[key]`. `reasoning_steps` may also come in a message or delta (`ChatMessageOutputOutput`)."""


def _read_chat_sources(answer: Answer, data: dict[str, Any], part: str) -> None:
    """Sources and Sonar's record lists; `part` is where a choice's message is (`message` in a completion,
    `delta` in a stream chunk: the other one is not the answer)."""
    answer.add_citations(data.get("citations") or [])
    if data.get("search_results"):
        answer.add_search_results(data["search_results"])
    for key in RECORD_LISTS:
        if data.get(key):
            answer.add_items(key, data[key])
    choice = (data.get("choices") or [{}])[0]  # the answer is the first choice's, as its text is
    steps = (choice.get(part) or {}).get("reasoning_steps")
    if steps:
        answer.add_items("reasoning_steps", steps)


def _read_chat_end(answer: Answer, data: dict[str, Any], finish_reason: Any) -> None:
    answer.end(data, finish_reason)
    if finish_reason == "length" and not answer.stopped:
        answer.cut_at_length(
            "Perplexity stopped the answer at the token limit (finish_reason 'length'); "
            "the partial answer is on this error's .partial. Raise max_tokens."
        )


class ChatStreamReader:
    """Chat-completions chunks → message chunks.

    Every Perplexity chunk repeats `citations` and carries the cumulative
    usage so far: citations are kept once, and only the last usage is
    reported, so nothing is over-counted (agno PR #6058 shows the over-count).
    """

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self._last: dict[str, Any] = {}  # the envelope so far (id, model, usage), each field's latest value
        self._finish_reason: Any = None
        self._tool_parts: dict[int, dict[str, Any]] = {}
        self._done = False

    def feed(self, data: dict[str, Any]) -> list[AIMessageChunk]:
        answer = self.answer
        if data.get("type") == "[DONE]":  # `_transport`'s end mark: a chunk without a finish reason ended it
            self._done = True
            return []
        # The latest value of each envelope field: a trailing chunk that carries only the sources (no usage,
        # id or model) does not erase what the finish chunk reported; usage is cumulative, so the latest counts.
        self._last = {**self._last, **{k: v for k, v in data.items() if v is not None}}
        _read_chat_sources(answer, data, "delta")
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                answer.pend(*answer.add_text(content_text(delta["content"])))
            for call in delta.get("tool_calls") or [] if not answer.stopped else []:
                part = self._tool_parts.setdefault(self._index(call), {"id": None, "name": "", "arguments": ""})
                function = call.get("function") or {}
                part["id"] = call.get("id") or part["id"]
                part["name"] += function.get("name") or ""
                part["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                self._finish_reason = choice["finish_reason"]
        return []

    def _index(self, call: dict[str, Any]) -> int:
        """Which call a streamed piece belongs to: its `index` (OpenAI's pieces), else a call of its own
        (the published `ToolCallOutput` has no `index`: each is a whole call)."""
        if isinstance(call.get("index"), int):
            return int(call["index"])
        return max(self._tool_parts, default=-1) + 1

    def finish(self) -> list[AIMessageChunk]:
        answer = self.answer
        if answer.stopped and self._last:  # cut by a stop: no tool calls, as invoke; the last chunk's usage
            self._finish_reason, self._tool_parts = "stop", {}
        if self._finish_reason is None and not self._done:
            return answer.close_stream()
        answer.pend(*answer.flush_text())
        for index in sorted(self._tool_parts):
            part = self._tool_parts[index]
            answer.add_tool_call(part["id"], part["name"], part["arguments"])
        _read_chat_end(answer, self._last, self._finish_reason)
        return [answer.final_chunk()]
