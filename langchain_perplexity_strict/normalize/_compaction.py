"""Make a conversation fit a token budget.

System messages and the newest user turn stay whole; the oldest content goes first, a tool call with its
results. Not `trim_messages`: it recounts every prefix and splits tool calls from results.
Images and PDF pages are estimated by the upper ends of Anthropic's vision and PDF guides (Perplexity
publishes no figures), not by the length of their base64.
"""

from __future__ import annotations

import base64
import inspect
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, get_origin

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, convert_to_messages
from langchain_core.messages.utils import MessageLikeRepresentation, count_tokens_approximately

from langchain_perplexity_strict.normalize._roles import Change, role_of

RULE_NAME = "compact_to_context_window"

IMAGE_TOKENS = 1_600
PDF_PAGE_TOKENS = 3_000
MEDIA_TYPES = frozenset({"image", "file"})
_PAGE = re.compile(rb"/Type\s*/Page(?!s)")

TokenCounter = Callable[[str], int] | Callable[[list[BaseMessage]], int] | Any
"""A text or message-list counter, a tiktoken-like `encode`, or a LangChain model."""


@dataclass(frozen=True)
class CompactionResult:
    """The messages that fit, and what was dropped or cut."""

    messages: list[BaseMessage]
    changes: list[Change] = field(default_factory=list)
    kept: tuple[int, ...] = ()
    """The input position of each message kept, in order."""
    tokens: int = 0
    counter_calls: int = 0


class MessageCounter:
    """Counts one message at a time with whatever counter the user gave."""

    def __init__(self, counter: TokenCounter | None) -> None:
        self.calls = 0
        if counter is None:
            self._count: Callable[[BaseMessage], int] = lambda m: count_tokens_approximately([m])
        elif hasattr(counter, "encode") and not isinstance(counter, str):  # a string's encode counts nothing
            self._count = lambda m: len(counter.encode(_text(m)))
        elif hasattr(counter, "get_num_tokens_from_messages"):  # a LangChain model
            self._count = lambda m: int(counter.get_num_tokens_from_messages([m]))
        elif callable(counter):
            count: Callable[..., int] = counter
            self._count = (lambda m: count([m])) if counts_messages(count) else (lambda m: count(_text(m)))
        else:
            msg = (
                f"token_counter={counter!r}: expected a callable (text or messages -> int) "
                "or an object with encode(text)."
            )
            raise ValueError(msg)

    def __call__(self, message: BaseMessage) -> int:
        """Tokens in `message`: text counted, media estimated."""
        self.calls += 1
        text, media = without_media(message)
        return int(self._count(text)) + media


def _pages(data: Any) -> int:
    if not isinstance(data, str):
        return 0
    try:
        raw = base64.b64decode(data, validate=False)
    except ValueError:  # binascii.Error too
        return 0
    return len(_PAGE.findall(raw))


def without_media(message: BaseMessage) -> tuple[BaseMessage, int]:
    """`message` without its media blocks, and their estimate."""
    content = message.content if isinstance(message.content, list) else []
    media = [b for b in content if isinstance(b, dict) and b.get("type") in MEDIA_TYPES]
    if not media:
        return message, 0
    rest = [b for b in content if not (isinstance(b, dict) and b.get("type") in MEDIA_TYPES)]
    images = sum(b["type"] == "image" for b in media)
    pages = sum(max(1, _pages(b.get("base64"))) for b in media if b["type"] == "file")
    return message.model_copy(update={"content": rest}), images * IMAGE_TOKENS + pages * PDF_PAGE_TOKENS


_COLLECTIONS = (list, tuple, Sequence, Iterable, Collection)
_COLLECTION_NAMES = re.compile(r"^(typing\.|collections\.abc\.)?(list|List|tuple|Tuple|Sequence|Iterable|Collection)\b")


def counts_messages(counter: Callable[..., Any]) -> bool:
    """Whether `counter`'s first parameter is annotated as a collection; not tried: `len` takes either."""
    try:
        parameters = list(inspect.signature(counter).parameters.values())
    except (TypeError, ValueError):  # no signature: a text counter
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    first = next((p for p in parameters if p.kind in positional), None)
    if first is None or first.annotation is inspect.Parameter.empty:
        return False
    annotation = first.annotation
    if isinstance(annotation, str):  # read the text, evaluate nothing
        return bool(_COLLECTION_NAMES.match(annotation.strip()))
    return get_origin(annotation) in _COLLECTIONS or annotation in _COLLECTIONS


def _text(message: BaseMessage) -> str:
    return message.text if not isinstance(message.content, str) else message.content


def compact_messages(
    messages: Sequence[MessageLikeRepresentation],
    max_tokens: int,
    *,
    token_counter: TokenCounter | None = None,
) -> CompactionResult:
    """Keep what fits in `max_tokens`, dropping the oldest content first."""
    if not isinstance(max_tokens, int) or max_tokens < 1:
        msg = f"max_tokens={max_tokens!r}: expected a positive integer token budget."
        raise ValueError(msg)
    converted = convert_to_messages(messages)  # messages pass as they are
    count = MessageCounter(token_counter)
    sizes = [count(m) for m in converted]
    total = sum(sizes)
    if total <= max_tokens:
        return CompactionResult(list(converted), [], tuple(range(len(converted))), total, count.calls)
    newest, fixed, budget = _fixed(converted, sizes, max_tokens)
    units = _units(converted, [i for i in range(newest) if i not in fixed])
    keep, cut, budget = _fill(converted, units, sizes, budget, count)
    dropped = tuple(i for unit in units for i in unit if i not in keep)
    why = f"oldest messages dropped to fit max_input_tokens={max_tokens}"
    changes = [Change(RULE_NAME, dropped, why)] if dropped else []
    changes += [Change(RULE_NAME, (i,), "lines dropped from the front of the oldest kept message to fit") for i in cut]
    kept = tuple(i for i in range(len(converted)) if i in fixed or i in keep)
    return CompactionResult([cut.get(i, converted[i]) for i in kept], changes, kept, max_tokens - budget, count.calls)


def _fixed(converted: Sequence[BaseMessage], sizes: list[int], max_tokens: int) -> tuple[int, set[int], int]:
    """The newest user turn's index, the messages always kept, and the budget left for the rest."""
    roles = [role_of(m, index=i) for i, m in enumerate(converted)]
    newest = max((i for i, r in enumerate(roles) if r == "user"), default=len(converted))
    fixed = {i for i, r in enumerate(roles) if r == "system"} | set(range(newest, len(converted)))
    budget = max_tokens - sum(sizes[i] for i in fixed)
    if budget < 0:
        msg = (
            f"max_input_tokens={max_tokens}: the system instructions and the newest user turn alone take "
            f"{max_tokens - budget} tokens; nothing can be dropped to fit. Raise the budget or shorten the newest turn."
        )
        raise ValueError(msg)
    return newest, fixed, budget


def _fill(
    converted: Sequence[BaseMessage], units: list[list[int]], sizes: list[int], budget: int, count: MessageCounter
) -> tuple[set[int], dict[int, BaseMessage], int]:
    """Keep units newest first while they fit; cut lines from the first that does not."""
    keep: set[int] = set()
    cut: dict[int, BaseMessage] = {}
    for unit in reversed(units):
        size = sum(sizes[i] for i in unit)
        if size <= budget:
            keep.update(unit)
            budget -= size
            continue
        if len(unit) == 1 and isinstance(converted[unit[0]].content, str) and budget > 0:
            trimmed = _cut_lines(converted[unit[0]], budget, count)
            if trimmed is not None:
                cut[unit[0]], used = trimmed
                keep.add(unit[0])
                budget -= used
        break
    return keep, cut, budget


def _units(messages: Sequence[BaseMessage], indices: list[int]) -> list[list[int]]:
    """Group each assistant tool call with the tool results that answer it."""
    units: list[list[int]] = []
    for i in indices:
        head = messages[units[-1][0]] if units else None
        if isinstance(messages[i], ToolMessage) and isinstance(head, AIMessage) and head.tool_calls:
            units[-1].append(i)
        else:
            units.append([i])
    return units


def _cut_lines(message: BaseMessage, budget: int, count: MessageCounter) -> tuple[BaseMessage, int] | None:
    """The message without its first lines, as few dropped as fit `budget` (bisection)."""
    lines = str(message.content).split("\n")
    low, high = 1, len(lines)  # drop at least one line, not all
    best: tuple[BaseMessage, int] | None = None
    while low < high:
        middle = (low + high) // 2
        candidate = message.model_copy(update={"content": "\n".join(lines[middle:])})
        used = count(candidate)
        if used <= budget:
            best = (candidate, used)
            high = middle
        else:
            low = middle + 1
    return best


def compaction_warning(summary: dict[str, Any]) -> str:
    """The warning a model gives once when compaction dropped messages."""
    return (
        f"ChatPerplexityStrict compacted the conversation to max_input_tokens={summary['max_input_tokens']}: "
        f"{summary['messages_in']} messages in, {summary['messages_sent']} sent (oldest content dropped first). "
        "response_metadata['compaction'] has the detail; max_input_tokens=0 turns compaction off. "
        "This warning is shown once per model instance."
    )


def count_tokens(messages: Sequence[BaseMessage], counter: TokenCounter | None, tools: Sequence[Any] | None) -> int:
    if counter is None:
        return count_tokens_approximately(messages, tools=list(tools) if tools else None)
    count = MessageCounter(counter)
    return sum(count(m) for m in messages)
