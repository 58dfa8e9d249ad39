"""Continue a stored Agent API response (`previous_response_id`): send only what is new.

Safe because the normalizer is turn-stable. Each answer records a digest of the items
the server holds, the model, server and account. A later call continues only when
all match; anything else sends the whole conversation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

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
"""The surface's encoder: each message's input items."""


class ContextDigest:
    """The SHA-256 of a conversation's items as one JSON array, kept open to append the answer."""

    def __init__(self, per_message: Sequence[Sequence[dict[str, Any]]]) -> None:
        self._open = _ENCODE(per_message)[:-1]
        self.count = sum(len(items) for items in per_message)

    def with_message(self, items: Sequence[dict[str, Any]]) -> tuple[str, int]:
        """The digest and item count with one more message's `items`."""
        joined = self._open + ("," if self._open != "[" else "") + _ENCODE(items) + "]"
        return hashlib.sha256(joined.encode()).hexdigest(), self.count + len(items)


def conversation_digest(per_message: Sequence[Sequence[dict[str, Any]]]) -> str:
    """The digest of a conversation, as `ContextDigest` gives it."""
    return hashlib.sha256(_ENCODE(per_message).encode()).hexdigest()


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


@dataclass(frozen=True)
class Continuation:
    """A request that continues `previous_response_id` with `items`."""

    previous_response_id: str
    items: list[dict[str, Any]]
    total_items: int
    anchor: int
    """The stored answer's position among the normalized messages."""

    def body_fields(self) -> dict[str, Any]:
        """What the body carries instead of the whole conversation."""
        return {"input": self.items, "previous_response_id": self.previous_response_id}

    def note(self, *, fell_back: bool) -> dict[str, Any]:
        """What `response_metadata["continuation"]` says of this call."""
        note: dict[str, Any] = {"previous_response_id": self.previous_response_id}
        if fell_back:
            note["fallback"] = "the server no longer knew the stored response; the whole conversation was sent"
        else:
            note.update(items_sent=len(self.items), items_in_conversation=self.total_items)
        return note


@dataclass
class Context:
    """What a call sends, as the server will hold it: for the answer's record."""

    digest: ContextDigest
    target: dict[str, Any]
    server: str
    account: str
    items: list[dict[str, Any]] | None
    """The whole conversation's input items (None when compacted)."""
    encode: ItemEncoder
    continuation: Continuation | None = None
    held: int | None = None
    """Tokens the server holds for this call (None without a budget)."""
    count: Callable[[list[BaseMessage]], int] | None = None

    def record(self, answer: AIMessage) -> dict[str, Any]:
        """The continuation record of `answer`."""
        digest, count = self.digest.with_message(self.answer_items(answer))
        record = {
            "digest": digest,
            "items": count,
            "target": self.target,
            "server": self.server,
            "account": self.account,
        }
        if self.held is not None and self.count is not None:
            record["tokens"] = self.held + self.count([answer])
        return record

    def answer_items(self, answer: AIMessage) -> list[dict[str, Any]]:
        """The items `answer` becomes when sent back."""
        text = answer.content if isinstance(answer.content, str) else canonical_text(answer.content)
        kwargs = dict(answer.additional_kwargs)
        requests = approval_requests(answer)
        if requests:
            kwargs[MCP_APPROVAL_REQUESTS] = requests
        plain = AIMessage(content=text, tool_calls=answer.tool_calls, additional_kwargs=kwargs)
        return self.encode([plain])[0]


def plan(
    messages: Sequence[BaseMessage],
    target: dict[str, Any],
    server: str,
    account: str,
    encode: ItemEncoder,
) -> Context:
    """The call's context (a digest of its items), with a continuation when one is safe."""
    per_message = encode(messages)
    anchor = _anchor(messages, {"target": target, "server": server, "account": account})
    continuation = None
    if anchor is not None and conversation_digest(per_message[: anchor[0] + 1]) == anchor[1]:
        rest = [item for later in per_message[anchor[0] + 1 :] for item in later]
        total = sum(len(items) for items in per_message)
        continuation = Continuation(anchor[2], rest, total, anchor[0])
    items = [item for message_items in per_message for item in message_items]
    return Context(ContextDigest(per_message), target, server, account, items, encode, continuation)


def _anchor(messages: Sequence[BaseMessage], owner: dict[str, Any]) -> tuple[int, str, str] | None:
    """The latest answer with a record, if `owner` matches: (position, digest, response id)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, AIMessage):
            continue
        record = message.response_metadata.get(CONTEXT_KEY)
        response_id = message.response_metadata.get("id")
        if isinstance(record, dict) and isinstance(response_id, str) and record.get("digest"):
            if all(record.get(name) == value for name, value in owner.items()):
                return index, str(record["digest"]), response_id
            return None
    return None


@dataclass
class Planner:
    """Plans a call with `use_previous_response_id`: hands `normalize.prepare` its `keep_whole`.

    Continues when safe and within budget; else compacts and sends the whole conversation.
    """

    target: dict[str, Any]
    server: str
    account: str
    encode: ItemEncoder
    budget: int | None
    counter: TokenCounter
    _context: Context | None = field(default=None, init=False)
    _held: int = field(default=0, init=False)

    def keep_whole(self, whole: NormalizationResult) -> bool:
        """Whether the call goes out uncompacted, as a continuation within the budget."""
        self._context = plan(whole.messages, self.target, self.server, self.account, self.encode)
        found = self._context.continuation
        if found is None:
            return False
        if not self.budget:
            return True
        stored = whole.messages[found.anchor].response_metadata.get(CONTEXT_KEY, {}).get("tokens")
        if not isinstance(stored, int):
            stored = self._count(whole.messages[: found.anchor + 1])
        self._held = stored + self._count(whole.messages[found.anchor + 1 :])
        return self._held <= self.budget

    def _count(self, messages: Sequence[BaseMessage]) -> int:
        return count_tokens(messages, self.counter, None)

    def context(self, prepared: Prepared) -> Context:
        """The call's context, once `normalize.prepare` decided what is sent."""
        context = self._context
        if context is None:
            msg = "Planner.context: call normalize.prepare(..., keep_whole=planner.keep_whole) first."
            raise RuntimeError(msg)
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
