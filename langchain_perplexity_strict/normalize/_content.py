"""Message content in the few shapes Perplexity takes: text, images, files.

`canonical_content` maps any content to those and reports what it flattened or dropped; langchain-core's
parsing runs first. Assistant content is a string: the Agent API's input message has no `output_text` part.
MCP approvals keep `ChatOpenAI`'s form: requests in an answer, responses in user content.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages.block_translators import get_translator

from langchain_perplexity_strict._message_keys import MCP_APPROVAL_REQUESTS

TEXT_TYPES = frozenset({"text", "input_text", "output_text"})
# Sent from `AIMessage.tool_calls`: dropped silently.
TOOL_CALL_TYPES = frozenset({"tool_call", "tool_call_chunk", "invalid_tool_call", "tool_use", "function_call"})
# Reasoning has no Perplexity part: dropped and reported.
REASONING_TYPES = frozenset({"reasoning", "thinking", "redacted_thinking"})
PARSED_TYPES = frozenset({"image", "image_url", "file", "document", "audio", "input_audio"})
"""Block types langchain-core may parse into standard data blocks."""
SOURCE_KWARGS = frozenset({"citations", "search_results", "annotations"})
"""`additional_kwargs` keys of an answer's sources (this package's, langchain-perplexity's, ChatXAI's)."""
VIEW_KWARGS = frozenset({"refusal", "reasoning_content", "reasoning", "audio", "executed_tools", *SOURCE_KWARGS})
"""`additional_kwargs` keys the standard view shows, and sources: an answer with one is read through it."""


@dataclass
class CanonicalContent:
    """Content in canonical blocks, and what was flattened or dropped on the way."""

    content: str | list[dict[str, Any]]
    flattened: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    videos: list[str] = field(default_factory=list)
    """The caller's kinds of the blocks that became videos."""
    reasoning: list[str] = field(default_factory=list)
    citations: list[str] = field(default_factory=list)
    """The sources cited by the text blocks (URL, else title), left out."""


def standard_view(message: BaseMessage) -> Any:
    """An answer as `content_blocks` shows it, plus a `refusal` kwarg (langchain-core shows it for OpenAI only)."""
    if not isinstance(message, AIMessage):
        return message.content
    content = message.content if isinstance(message.content, list) else [message.content] if message.content else []
    v1 = message.response_metadata.get("output_version") == "v1" and isinstance(message.content, list)
    try:
        if v1 or get_translator(str(message.response_metadata.get("model_provider"))) is None:
            raise NotImplementedError
        blocks = [*message.content_blocks, *(b for b in content if not isinstance(b, (str, dict)))]
    except (NotImplementedError, KeyError, TypeError, ValueError, AttributeError):
        outside = AIMessage(content=[], additional_kwargs=message.additional_kwargs).content_blocks
        blocks = [*content, *outside]
    # langchain-core < 1.8 shows a refusal wrapped as `non_standard`.
    blocks = [_unwrapped(b) if _kind(_unwrapped(b)) == "refusal" else b for b in blocks]
    refusal = message.additional_kwargs.get("refusal")
    if isinstance(refusal, str) and refusal and not any(_kind(b) == "refusal" for b in blocks):
        blocks.append({"type": "refusal", "refusal": refusal})
    return blocks


def canonical_content(content: Any, *, assistant: bool, own: bool = True) -> CanonicalContent:
    """`content` as a string (assistant) or text, image and file blocks; what else is unsendable is named.

    Tool calls, own server tool work and approvals go silently.
    """
    if isinstance(content, str):
        return CanonicalContent(content)
    result = CanonicalContent([])
    blocks: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else [content]:
        converted = _block(block, result, own=own)
        if converted is None:
            continue
        if assistant and converted["type"] != "text":
            result.dropped.append(_kind(block))
            continue
        blocks.append(converted)
    if assistant:
        result.content = "".join(b["text"] for b in blocks)
    else:
        result.content = [b for b in blocks if b["type"] != "text" or b["text"]]
    return result


def _kind(block: Any) -> str:
    return str(block.get("type")) if isinstance(block, dict) else type(block).__name__


def _block(block: Any, result: CanonicalContent, *, own: bool = True) -> dict[str, Any] | None:
    if isinstance(block, str):
        return {"type": "text", "text": block}
    if not isinstance(block, dict):
        result.dropped.append(type(block).__name__)
        return None
    kind = block.get("type")
    if kind in TEXT_TYPES and isinstance(block.get("text"), str):
        result.citations += cited(block)
        return {"type": "text", "text": block["text"]}
    if kind in REASONING_TYPES:
        result.reasoning.append(kind)
        return None
    if is_server_output(block) and not own:  # another provider's: reported
        result.dropped.append(str(kind))
        return None
    if kind in TOOL_CALL_TYPES or is_server_output(block) or is_approval_response(block):
        return None  # approvals are sent as their own input items
    if kind == "non_standard" and isinstance(block.get("value"), dict):
        dropped, reasoning = len(result.dropped), len(result.reasoning)
        converted = _block(block["value"], result, own=own)
        del result.dropped[dropped:]  # reported as the wrapper
        if converted is None and len(result.reasoning) == reasoning:
            result.dropped.append("non_standard")
        return converted
    written = str(kind)  # for reports
    if kind in PARSED_TYPES:  # as langchain-core parses it, unless not standard
        (parsed,) = HumanMessage([block]).content_blocks
        block = block if parsed.get("type") == "non_standard" else dict(parsed)
        kind = block.get("type")
    if kind in AS_TEXT:
        text = AS_TEXT[kind](block)
        if text is not None:
            result.flattened.append(written)
            return {"type": "text", "text": text}
    if kind == "media":  # Google's
        mime = str(block.get("mime_type", ""))
        kind = "image" if mime.startswith("image/") else "video" if mime.startswith("video/") else "file"
        block = {**block, "url": block.get("file_uri"), "base64": block.get("data")}
    media = MEDIA[kind](block) if kind in MEDIA else None
    if media is not None:
        if media["type"] == "video" and "kind" not in block:  # not again on normalized output
            result.videos.append(media["kind"])
        return media
    if kind is None and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    result.dropped.append(written)
    return None


def cited(block: dict[str, Any]) -> list[str]:
    """The sources (URL, else title) a text block cites: standard and OpenAI `annotations`, Anthropic `citations`."""
    names = []
    for note in [*_listed(block.get("annotations")), *_listed(block.get("citations"))]:
        if isinstance(note, str):  # a bare URL (Perplexity's and ChatXAI's `citations`)
            names.append(note)
            continue
        inner = note.get("url_citation") if isinstance(note.get("url_citation"), dict) else {}
        found = (note.get("url"), inner.get("url"), note.get("title"), note.get("document_title"), note.get("filename"))
        name = next((n for n in found if isinstance(n, str) and n), None)
        names.append(name or str(note.get("type") or "citation"))
    return names


def _listed(value: Any) -> list[Any]:
    """A list's str and dict items; anything else (Anthropic's `{"enabled": true}` setting): none."""
    return [v for v in value if isinstance(v, (str, dict))] if isinstance(value, list) else []


def kwarg_sources(kwargs: dict[str, Any]) -> list[str]:
    """The sources an answer keeps in `SOURCE_KWARGS`: cited URLs, search results' URLs, annotations."""
    names = cited({"annotations": kwargs.get("annotations"), "citations": kwargs.get("citations")})
    for record in _listed(kwargs.get("search_results")):
        name = record.get("url") or record.get("title") if isinstance(record, dict) else None
        names += [str(name)] if name else []
    return names


def _joined(*parts: Any) -> str:
    return "\n".join(str(p) for p in parts if p)


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content or [] if isinstance(b, dict) and b.get("text"))


def _plain_text(block: dict[str, Any]) -> str | None:
    """LangChain's `text-plain` block: its text under its title."""
    text = block.get("text")
    if text is None and block.get("base64"):
        text = base64.b64decode(block["base64"]).decode("utf-8", errors="replace")
    extras: dict[str, Any] = block["extras"] if isinstance(block.get("extras"), dict) else {}
    title, context = (block.get(k) or extras.get(k) for k in ("title", "context"))
    return _joined(title, context, text) if text is not None else None


def _document_text(block: dict[str, Any]) -> str | None:
    """Anthropic's `document` with a content source: its title and text."""
    source = block.get("source") or {}
    if source.get("type") == "content":
        return _joined(block.get("title"), block.get("context"), _texts(source.get("content")))
    return None


# Blocks sent as text; None: not this shape.
AS_TEXT: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "refusal": lambda b: str(b.get("refusal") or b.get("text") or ""),
    "text-plain": _plain_text,
    "document": _document_text,  # Anthropic's, with a content source
    "search_result": lambda b: _joined(b.get("title"), b.get("source"), _texts(b.get("content"))),  # Anthropic's
    # Anthropic's `tool_result` in a user turn, naming its call.
    "tool_result": lambda b: _joined(f"Result of tool call {b.get('tool_use_id')}:", _texts(b.get("content"))),
    "json": lambda b: json.dumps(b.get("json"), ensure_ascii=False, default=str),
}


def _data_url(mime_type: Any, data: Any) -> str:
    return f"data:{mime_type or 'application/octet-stream'};base64,{data}"


def _url(block: dict[str, Any], key: str) -> str | None:
    """A media block's URL: `key` (a string or OpenAI's `{"url": ...}`), else `url`, else its data; or None."""
    url = block.get(key)
    if isinstance(url, dict):
        url = url.get("url")
    url = url or block.get("url")
    if not url and block.get("base64"):
        url = _data_url(block.get("mime_type"), block["base64"])
    return url if isinstance(url, str) and url else None


def _video(block: dict[str, Any]) -> dict[str, Any] | None:
    """A video as `{"type": "video", "url", "kind"}`; only chat completions take videos."""
    url = _url(block, "video_url")
    return {"type": "video", "url": url, "kind": str(block.get("kind") or block.get("type"))} if url else None


def _image(block: dict[str, Any]) -> dict[str, Any] | None:
    url = _url(block, "image_url")
    return {"type": "image", "url": url} if url else None


def _file(block: dict[str, Any]) -> dict[str, Any] | None:
    """A file with `url` or `base64` and `mime_type`, or None (audio and video are not files Perplexity reads)."""
    if str(block.get("mime_type") or "").startswith(("audio/", "video/")):
        return None
    out: dict[str, Any] = {"type": "file"}
    nested: dict[str, Any] = block["file"] if isinstance(block.get("file"), dict) else {}
    extras: dict[str, Any] = block["extras"] if isinstance(block.get("extras"), dict) else {}
    filename = block.get("filename") or block.get("file_name") or nested.get("filename") or extras.get("filename")
    data = block.get("base64") or block.get("file_data") or nested.get("file_data")
    url = block.get("url") or block.get("file_url") or block.get("pdf_url")
    if isinstance(url, dict):
        url = url.get("url")
    if isinstance(data, str) and data:
        if data.startswith("data:"):
            header, _, data = data.partition(",")
            out["mime_type"] = header[5:].split(";", 1)[0]
        else:
            out["mime_type"] = block.get("mime_type") or "application/pdf"
        out["base64"] = data
    elif isinstance(url, str) and url:
        out["url"] = url
    else:
        return None
    if filename:
        out["filename"] = str(filename)
    return out


MEDIA: dict[Any, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    **dict.fromkeys(("video", "video_url"), _video),
    **dict.fromkeys(("image_url", "input_image", "image"), _image),
    **dict.fromkeys(("file", "input_file", "document", "file_url", "pdf_url"), _file),
}


def canonical_blocks(content: Any) -> list[dict[str, Any]]:
    """User, system or tool content as canonical blocks."""
    converted = canonical_content(content, assistant=False).content
    return [{"type": "text", "text": converted}] if isinstance(converted, str) else converted


def canonical_text(content: Any) -> str:
    """Assistant content as its text."""
    return str(canonical_content(content, assistant=True).content)


def text_of(blocks: str | Sequence[dict[str, Any]]) -> str:
    if isinstance(blocks, str):
        return blocks
    return "\n".join(b["text"] for b in blocks if b.get("type") == "text")


def data_url(block: dict[str, Any]) -> str | None:
    """A canonical file's data as a `data:` URL, or None."""
    return _data_url(block.get("mime_type"), block["base64"]) if "base64" in block else None


REQUEST_FIELDS = ("type", "id", "name", "arguments", "server_label", "connector_id", "thought_signature")
RESPONSE_FIELDS = ("type", "approval_request_id", "approve", "reason", "id")


@dataclass(frozen=True)
class ItemSpec:
    """How one server item type of an answer maps to a server tool call and its result."""

    tool: str  # the call's `name` (OpenAI's where it matches)
    id_field: str | None  # None: an ordinal id is made
    args: tuple[str, ...] = ()  # JSON `arguments` is decoded
    extras: tuple[str, ...] = ()  # neither argument nor output
    raw_output: str | None = None  # the field that is the whole output (MCP)


ITEM_SPECS: dict[str, ItemSpec] = {
    "search_results": ItemSpec("web_search", None, args=("queries",)),
    "fetch_url_results": ItemSpec("fetch_url", None),
    "image_search_results": ItemSpec("image_search", None, args=("queries",)),
    "sandbox_results": ItemSpec("sandbox", "call_id", args=("code", "language"), extras=("container_id",)),
    "sandbox_write_file": ItemSpec("sandbox_write_file", "call_id", args=("file_path",)),
    "sandbox_read_file": ItemSpec("sandbox_read_file", "call_id", args=("file_path", "start_line")),
    "sandbox_edit_file": ItemSpec("sandbox_edit_file", "call_id", args=("file_path",)),
    "sandbox_grep": ItemSpec("sandbox_grep", "call_id"),
    "sandbox_glob": ItemSpec("sandbox_glob", "call_id"),
    "sandbox_apply_patch": ItemSpec("sandbox_apply_patch", "call_id"),
    "share_file": ItemSpec("share_file", "call_id"),
    "mcp_list_tools": ItemSpec("mcp_list_tools", "id", extras=("server_label", "connector_id"), raw_output="tools"),
    "mcp_call": ItemSpec(
        "remote_mcp",
        "id",
        args=("arguments",),
        extras=("name", "server_label", "connector_id", "approval_request_id"),
        raw_output="output",
    ),
    "tool_search_output": ItemSpec("tool_search", "call_id", args=("arguments",), extras=("id", "execution")),
}
SERVER_ITEM_TYPES = frozenset({*ITEM_SPECS, "mcp_approval_request", "skill_loaded", "unknown"})
"""Server tool and skill items of `OutputItemOutput`."""
SERVER_BLOCK_TYPES = frozenset({"server_tool_call", "server_tool_call_chunk", "server_tool_result"})


def _unwrapped(block: Any) -> Any:
    if isinstance(block, dict) and block.get("type") == "non_standard" and isinstance(block.get("value"), dict):
        return block["value"]
    return block


def is_server_output(block: Any) -> bool:
    """Whether `block` is a server tool's work in an earlier answer; it is not sent back."""
    if not isinstance(block, dict):
        return False
    return block.get("type") in SERVER_BLOCK_TYPES or _unwrapped(block).get("type") in SERVER_ITEM_TYPES


def is_approval_response(block: Any) -> bool:
    value = _unwrapped(block)
    return isinstance(value, dict) and value.get("type") == "mcp_approval_response"


def approval_responses(content: Any) -> list[dict[str, Any]]:
    """User content's approval responses, published fields only."""
    if not isinstance(content, list):
        return []
    return [_fields(_unwrapped(b), RESPONSE_FIELDS) for b in content if is_approval_response(b)]


def approval_requests(message: BaseMessage) -> list[dict[str, Any]]:
    """An answer's approval requests, once each (the first by id), published fields only."""
    found = [*(message.additional_kwargs.get(MCP_APPROVAL_REQUESTS) or [])]
    if isinstance(message.content, list):
        found.extend(map(_unwrapped, message.content))
    once: dict[str, dict[str, Any]] = {}
    for item in found:
        if isinstance(item, dict) and item.get("type") == "mcp_approval_request" and isinstance(item.get("id"), str):
            once.setdefault(item["id"], _fields(item, REQUEST_FIELDS))
    return list(once.values())


def _fields(item: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {k: item[k] for k in fields if item.get(k) is not None}


def check_approval_history(messages: Iterable[BaseMessage]) -> None:
    """Raise `ValueError` when an `mcp_approval_response` answers no pending `mcp_approval_request`."""
    pending: dict[str, None] = {}  # ordered, for the error
    answered: set[str] = set()
    for message in messages:
        if type(message.content) is str and MCP_APPROVAL_REQUESTS not in message.additional_kwargs:
            continue  # text alone holds neither requests nor responses
        if isinstance(message, AIMessage):
            pending.update(dict.fromkeys(r["id"] for r in approval_requests(message)))
            continue
        for response in approval_responses(message.content):
            request_id = response.get("approval_request_id")
            if request_id in pending:
                del pending[request_id]
                answered.add(request_id)
                continue
            if request_id in answered:
                problem = "was answered already"
            elif not pending and not answered:
                problem = "has no mcp_approval_request before it in the history"
            else:
                problem = "names no pending mcp_approval_request; pending: " + (", ".join(pending) or "none")
            msg = (
                f"mcp_approval_response (approval_request_id={request_id!r}) {problem}. An approval answers "
                "an mcp_approval_request of an earlier answer: keep that answer in the history and use its id."
            )
            raise ValueError(msg)
