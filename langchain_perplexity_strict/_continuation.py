"""Continue a stored Agent API response (`previous_response_id`): send only what is new.

Perplexity's Agent API continues a conversation from a stored response
(`previous_response_id` in `ResponsesRequestInput`); the server then sees the
stored response's input and output, followed by the new items. That is only
safe when the stored context is exactly what the package would send again,
and the normalizer makes it so: it is turn-stable (every earlier message goes
out again unchanged, under the same role).

Each answer of this package carries a record in
`response_metadata["perplexity_context"]`: a digest of the input items the
server held plus the answer as it will be sent back next turn, the model
target, the server and the account (`account_tag` of the API key: a stored
response belongs to the account that made it). On a later call, the latest
assistant message with a record is the anchor: if the digest of the items up
to and including it (as normalized now) equals the record, and the model,
server and account are the same, the request carries `previous_response_id`
and only the items after the anchor. Anything else (an edited history,
another model, surface, server or key, an answer cut by a stop sequence, a
record from elsewhere or from before records named the account) sends the
whole conversation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from langchain_perplexity_strict._message_keys import CONTEXT_KEY, MCP_APPROVAL_REQUESTS
from langchain_perplexity_strict.normalize._approvals import approval_requests
from langchain_perplexity_strict.normalize._compaction import TokenCounter, count_tokens
from langchain_perplexity_strict.normalize._content import canonical_text
from langchain_perplexity_strict.normalize._normalizer import NormalizationResult
from langchain_perplexity_strict.normalize._prepare import Prepared


def account_tag(api_key: Any) -> str:
    """What a continuation record keeps of the API key: a one-way tag, never the key.

    A stored response is the account's that made it: another key (another account, or a tenant of the
    same application) must not continue it, nor learn its id by sending it. The tag is fixed across
    processes, so a history saved by a checkpointer still continues after a restart. `api_key`: a
    string or a pydantic `SecretStr` (None: no key).
    """
    key = api_key.get_secret_value() if hasattr(api_key, "get_secret_value") else str(api_key or "")
    return hashlib.sha256(b"langchain-perplexity-strict/account\0" + key.encode()).hexdigest()[:32]


ItemEncoder = Callable[[Sequence[BaseMessage]], list[list[dict[str, Any]]]]
"""The surface's message encoder: each message's input items, as the request builder writes them."""


class ContextDigest:
    """The digest of a conversation's input items, message by message.

    The conversation is serialized as one JSON array of per-message item arrays
    (key order is the builder's own, so the same message always serializes the
    same way) in a single encoder call; the digest is its SHA-256. Kept open
    (without the closing bracket), so the answer's items can be appended.
    """

    def __init__(self, per_message: Sequence[Sequence[dict[str, Any]]]) -> None:
        self._open = _ENCODE(per_message)[:-1]
        self.count = sum(len(items) for items in per_message)

    def with_message(self, items: Sequence[dict[str, Any]]) -> tuple[str, int]:
        """The digest and item count of this conversation followed by one more message's `items`."""
        joined = self._open + ("," if self._open != "[" else "") + _ENCODE(items) + "]"
        return hashlib.sha256(joined.encode()).hexdigest(), self.count + len(items)


def conversation_digest(per_message: Sequence[Sequence[dict[str, Any]]]) -> str:
    """The digest of a conversation (what `ContextDigest` gives for it)."""
    return hashlib.sha256(_ENCODE(per_message).encode()).hexdigest()


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


@dataclass(frozen=True)
class Continuation:
    """A request that continues `previous_response_id` with `items` (what follows the stored response)."""

    previous_response_id: str
    items: list[dict[str, Any]]
    total_items: int
    anchor: int
    """The position of the stored response's answer among the normalized messages."""

    def body_fields(self) -> dict[str, Any]:
        """What the body carries instead of the whole conversation."""
        return {"input": self.items, "previous_response_id": self.previous_response_id}

    def note(self, *, fell_back: bool) -> dict[str, Any]:
        """What `response_metadata["continuation"]` says of this call."""
        if fell_back:
            return {
                "previous_response_id": self.previous_response_id,
                "fallback": "the server no longer knew the stored response; the whole conversation was sent",
            }
        return {
            "previous_response_id": self.previous_response_id,
            "items_sent": len(self.items),
            "items_in_conversation": self.total_items,
        }


@dataclass
class Context:
    """What a call sends, seen as a conversation the server will hold: for the answer's record."""

    digest: ContextDigest
    target: dict[str, Any]
    server: str
    account: str
    """`account_tag` of the call's API key."""
    items: list[dict[str, Any]] | None
    """The whole conversation's input items (None when the body is built from compacted messages instead)."""
    encode: ItemEncoder
    continuation: Continuation | None = None
    held: int | None = None
    """The tokens of the conversation the server holds for this call (by the model's counter; None
    without a budget), so that the answer's record says what a continuation from it would start with."""
    count: Callable[[list[BaseMessage]], int] | None = None

    def record(self, answer: AIMessage) -> dict[str, Any]:
        """The continuation record of `answer` (its items as they will be sent back, appended)."""
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
        """The items `answer` becomes when it is sent back in a later request."""
        text = answer.content if isinstance(answer.content, str) else canonical_text(answer.content)
        kwargs = dict(answer.additional_kwargs)
        requests = approval_requests(answer)  # a v1 answer holds them in its content
        if requests:
            kwargs[MCP_APPROVAL_REQUESTS] = requests
        plain = AIMessage(content=text, tool_calls=answer.tool_calls, additional_kwargs=kwargs)
        return self.encode([plain])[0]

    def whole(self) -> Context:
        """This context sending the whole conversation (the fallback when the server forgot the response)."""
        return replace(self, continuation=None)


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
    """The latest assistant message with a record for this model, server and account (`owner`):
    (position, digest, response id)."""
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


class Planner:
    """Plans a call with `use_previous_response_id`: hands `normalize.prepare` its `keep_whole`.

    The context is always the whole normalized conversation: an answer's record
    says what the history was, so a later call can tell it is unchanged. A
    continuation is used when one is safe and what follows the stored response
    fits the budget (the server holds the rest, compacted or not); otherwise the
    conversation is compacted as usual and sent whole (`context.items` unset when
    compaction changed it).
    """

    def __init__(
        self,
        target: dict[str, Any],
        server: str,
        account: str,
        encode: ItemEncoder,
        budget: int | None,
        counter: TokenCounter,
    ) -> None:
        self.target, self.server, self.account, self.encode = target, server, account, encode
        self.budget, self.counter = budget, counter
        self._context: Context | None = None
        self._held = 0

    def keep_whole(self, whole: NormalizationResult) -> bool:
        """Plan on the whole normalized conversation; whether it goes out uncompacted, as a continuation.

        The budget bounds what the model sees: what the server holds (the stored response's record says
        how much) plus what follows it. When that would not fit, the call compacts and starts a new chain.
        """
        self._context = plan(whole.messages, self.target, self.server, self.account, self.encode)
        found = self._context.continuation
        if found is None:
            return False
        if not self.budget:
            return True
        stored = whole.messages[found.anchor].response_metadata.get(CONTEXT_KEY, {}).get("tokens")
        if not isinstance(stored, int):  # a record from before records held a count: count the history
            stored = self._count(whole.messages[: found.anchor + 1])
        self._held = stored + self._count(whole.messages[found.anchor + 1 :])
        return self._held <= self.budget

    def _count(self, messages: Sequence[BaseMessage]) -> int:
        return count_tokens(messages, self.counter, None)

    def context(self, prepared: Prepared) -> Context:
        """The call's context, once `normalize.prepare` has decided what is sent."""
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
    """Whether `error` is the server saying it does not know the previous response (404, or 400 naming it)."""
    status = getattr(error, "status_code", None) or getattr(getattr(error, "response", None), "status_code", None)
    return status == 404 or (status == 400 and "previous_response_id" in str(error))
