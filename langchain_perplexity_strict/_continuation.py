"""Continue a stored Agent API response (`previous_response_id`): send only what is new.

Safe because the normalizer is turn-stable. Each answer records a digest of the items the server holds,
the model, server and account; a later call continues only when all match, else sends the whole conversation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from langchain_core.messages import AIMessage, BaseMessage

from langchain_perplexity_strict._message_keys import CONTEXT_KEY, MCP_APPROVAL_REQUESTS
from langchain_perplexity_strict.normalize._compaction import TokenCounter, count_tokens
from langchain_perplexity_strict.normalize._content import approval_requests, canonical_text
from langchain_perplexity_strict.normalize._normalizer import NormalizationResult, Prepared


def account_tag(api_key: Any) -> str:
    """A one-way tag of the API key: another account must not continue a stored response."""
    key = api_key.get_secret_value() if hasattr(api_key, "get_secret_value") else str(api_key or "")
    return hashlib.sha256(b"langchain-perplexity-strict/account\0" + key.encode()).hexdigest()[:32]


ItemEncoder = Callable[[Sequence[BaseMessage]], list[list[dict[str, Any]]]]
"""Each message's input items, as the surface encodes them."""


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


@dataclass(frozen=True)
class Continuation:
    """A request that continues `previous_response_id` with `items`."""

    previous_response_id: str
    items: list[dict[str, Any]]
    total_items: int

    def body_fields(self) -> dict[str, Any]:
        return {"input": self.items, "previous_response_id": self.previous_response_id}

    def note(self, *, fell_back: bool) -> dict[str, Any]:
        """`response_metadata["continuation"]`."""
        note: dict[str, Any] = {"previous_response_id": self.previous_response_id}
        if fell_back:
            note["fallback"] = "the server no longer knew the stored response; the whole conversation was sent"
        else:
            note.update(items_sent=len(self.items), items_in_conversation=self.total_items)
        return note


@dataclass
class Context:
    """What a call sends, as the server will hold it: for the answer's record."""

    opened: str
    """The conversation's items per message as a JSON array, left open to digest it with the answer."""
    total: int
    owner: dict[str, Any]
    """The model (`target`), `server` and `account` the record must match."""
    items: list[dict[str, Any]] | None
    """The whole conversation's input items (None when compacted)."""
    encode: ItemEncoder
    continuation: Continuation | None = None
    held: int | None = None
    """Tokens the server holds for this call (None without a budget)."""
    count: Callable[[list[BaseMessage]], int] | None = None

    def record(self, answer: AIMessage) -> dict[str, Any]:
        """The continuation record of `answer`, digested as the items it becomes when sent back."""
        text = answer.content if isinstance(answer.content, str) else canonical_text(answer.content)
        kwargs = dict(answer.additional_kwargs)
        requests = approval_requests(answer)
        if requests:
            kwargs[MCP_APPROVAL_REQUESTS] = requests
        plain = AIMessage(content=text, tool_calls=answer.tool_calls, additional_kwargs=kwargs)
        items = self.encode([plain])[0]
        digest = hashlib.sha256((self.opened + ("," if self.opened != "[" else "") + _ENCODE(items) + "]").encode())
        record = {"digest": digest.hexdigest(), "items": self.total + len(items), **self.owner}
        if self.held is not None and self.count is not None:
            record["tokens"] = self.held + self.count([answer])
        return record


def _anchor(messages: Sequence[BaseMessage], owner: dict[str, Any]) -> tuple[int, str, str] | None:
    """The latest answer with a record, if `owner` matches: (position, id, digest)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, AIMessage):
            continue
        record = message.response_metadata.get(CONTEXT_KEY)
        response_id = message.response_metadata.get("id")
        if isinstance(record, dict) and isinstance(response_id, str) and record.get("digest"):
            same = all(record.get(name) == value for name, value in owner.items())
            return (index, response_id, record["digest"]) if same else None
    return None


@dataclass
class Planner:
    """Plans a call with `use_previous_response_id`: continues when safe and within budget, else compacts."""

    owner: dict[str, Any]
    encode: ItemEncoder
    budget: int | None
    counter: TokenCounter
    _context: Context | None = field(default=None, init=False)
    _held: int = field(default=0, init=False)

    def keep_whole(self, whole: NormalizationResult) -> bool:
        """Plan the call; whether it goes out uncompacted, as a continuation (when safe) within the budget."""
        messages, per_message = whole.messages, self.encode(whole.messages)
        items = [item for message_items in per_message for item in message_items]
        anchor = _anchor(messages, self.owner)
        # The history is encoded once: the anchor's prefix is digested, the rest appended.
        head = _ENCODE(per_message[: anchor[0] + 1] if anchor else per_message)
        tail = _ENCODE(per_message[anchor[0] + 1 :])[1:-1] if anchor else ""
        opened = head[:-1] + ("," + tail if tail else "")
        self._context = Context(opened, len(items), self.owner, items, self.encode)
        if anchor is None or hashlib.sha256(head.encode()).hexdigest() != anchor[2]:
            return False
        index, response_id, _ = anchor
        rest = [item for later in per_message[index + 1 :] for item in later]
        self._context.continuation = Continuation(response_id, rest, len(items))
        if not self.budget:
            return True
        stored = messages[index].response_metadata.get(CONTEXT_KEY, {}).get("tokens")
        if not isinstance(stored, int):
            stored = self._count(messages[: index + 1])
        self._held = stored + self._count(messages[index + 1 :])
        return self._held <= self.budget

    def _count(self, messages: Sequence[BaseMessage]) -> int:
        return count_tokens(messages, self.counter, None)

    def context(self, prepared: Prepared) -> Context:
        """The call's context, once `normalize.prepare` decided what is sent."""
        context = cast(Context, self._context)  # set by `keep_whole`, which `prepare` calls first
        count = self._count if self.budget else None
        if prepared.kept_whole:
            return replace(context, held=self._held if self.budget else None, count=count)
        held = self._count(prepared.messages) if self.budget else None
        items = None if prepared.compaction is not None else context.items
        return replace(context, continuation=None, items=items, held=held, count=count)


def forgot_the_response(error: BaseException) -> bool:
    """Whether the server no longer knows the previous response."""
    status = getattr(error, "status_code", None) or getattr(getattr(error, "response", None), "status_code", None)
    return status == 404 or (status == 400 and "previous_response_id" in str(error))
