"""Running one form of one class of issue 18 (what applications pass by habit) through the public model.

Each catalogue test gives a form, a surface and a mode (invoke or stream);
`run` says what happened: the body the emulator recorded (checked against
Perplexity's published models, unknown fields forbidden) and the answer, or
the `ValueError` raised before anything was sent, and the warnings.
"""

from __future__ import annotations

import functools
import json
import operator
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk, BaseMessage

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import published_schema

SURFACES = ("agent", "chat_completions")
MODES = ("invoke", "stream")


@dataclass
class Outcome:
    """A form's fate: sent (`body`, `answer`) or refused before sending (`error`); the warnings either way."""

    body: dict[str, Any] | None = None
    answer: Any = None
    error: Exception | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The body as JSON text, to look for what the input carried."""
        return json.dumps(self.body, ensure_ascii=False)


def check_body(api: str, body: dict[str, Any]) -> None:
    """The body is valid under the published request model of `api`."""
    if api == "agent":
        published_schema.agent_request(body)
    else:
        published_schema.chat_request(body)


def run(runnable: Any, emu: PerplexityEmulator, api: str, mode: str, messages: Any) -> Outcome:
    """Invoke or stream `runnable` on `messages` against `emu`; a `ValueError` must come before any request."""
    emu.clear()
    outcome = Outcome()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if mode == "invoke":
                outcome.answer = runnable.invoke(messages)
            else:
                outcome.answer = merged(list(runnable.stream(messages)))
        except ValueError as error:
            assert not emu.requests, f"refused after sending: {error}"
            outcome.error = error
        outcome.warnings = [str(w.message) for w in caught]
    if outcome.error is None:
        outcome.body = emu.requests[-1].body
        check_body(api, outcome.body)
    return outcome


def merged(chunks: list[Any]) -> Any:
    """A stream's result: message chunks added up; anything else (parsed output) is its last value."""
    if chunks and all(isinstance(c, AIMessageChunk) for c in chunks):
        return chunks[0] + chunks[1:]  # the chunks added up in one merge (a chunk takes a list), not one by one
    if chunks and all(isinstance(c, BaseMessage) for c in chunks):
        return functools.reduce(operator.add, chunks)
    if chunks and all(isinstance(c, dict) for c in chunks):  # include_raw: {"raw"}, then {"parsed"}, ...
        result: dict[str, Any] = {}
        for chunk in chunks:
            for key, value in chunk.items():
                result[key] = result[key] + value if key == "raw" and key in result else value
        return result
    return chunks[-1] if chunks else None


def report_text(model: Any, messages: list[BaseMessage]) -> str:
    """What the normalizer reports for `messages` (the model's own report, one line per change)."""
    return model.normalize(messages).report()


def message_view(message: Any) -> dict[str, Any]:
    """What a user reads from an answer: text, tool calls, usage, sources and metadata.

    A streamed block's `index` is LangChain's merge bookkeeping, not content: it is left out.
    """
    content = message.content
    if isinstance(content, list):
        content = [{k: v for k, v in b.items() if k != "index"} if isinstance(b, dict) else b for b in content]
    return {
        "content": content,
        "tool_calls": message.tool_calls,
        "invalid_tool_calls": [{k: c.get(k) for k in ("id", "name", "args")} for c in message.invalid_tool_calls],
        "usage": message.usage_metadata,
        "additional_kwargs": message.additional_kwargs,
        "response_metadata": message.response_metadata,
    }


def streamed_message(model: Any, messages: Any, **kwargs: Any) -> Any:
    """The streamed answer added up as one `AIMessage`, comparable with `invoke`'s."""
    from langchain_core.messages import AIMessage

    chunk: Any = functools.reduce(operator.add, model.stream(messages, **kwargs))
    fields = ("content", "additional_kwargs", "response_metadata", "tool_calls", "invalid_tool_calls",
              "usage_metadata", "id")  # fmt: skip
    return AIMessage(**{name: getattr(chunk, name) for name in fields})


def refusal(emu: PerplexityEmulator, run: Callable[[], Any]) -> str:
    """The `ValueError` text `run` raises before anything is sent to `emu`."""
    emu.clear()
    with pytest.raises(ValueError) as info:
        run()
    assert emu.requests == []
    return str(info.value)
