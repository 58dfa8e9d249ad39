"""Message content in the few shapes Perplexity takes: text, images, files.

LangChain applications hand a chat model content in many shapes: plain
strings, OpenAI chat blocks (`image_url`), OpenAI Responses blocks
(`input_text`, `output_text`, `refusal`), LangChain's standard blocks
(`image`, `file`, `reasoning`, `tool_call`, `server_tool_call`),
Anthropic's (`thinking`, `redacted_thinking`, `tool_use`,
`document`) and more. Perplexity takes text, images and files
(`input_text`, `input_image`, `input_file` in the Agent API's published
`InputContentPartInput`; `text`, `image_url`, `file_url` on chat
completions). `canonical_content` turns any content into LangChain's
standard blocks of those three kinds, so each request builder only maps
three shapes, and says what it flattened or dropped so the normalizer can
report it. Only tool-call blocks are left out without a word: the calls
themselves are sent from `AIMessage.tool_calls`, so nothing is lost.
langchain-core's own parsing (`content_blocks` and its block translators)
reads data blocks and answers first (`_parsed`, `standard_view`); this module
reads only what it leaves in a provider's shape.

Assistant content becomes a plain string: the Agent API's input message has
no `output_text` part, and one string per assistant turn is what both
surfaces take without loss of the text.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages.block_translators import get_translator

from langchain_perplexity_strict._message_keys import MODEL_PROVIDER
from langchain_perplexity_strict.normalize._approvals import is_approval_response, is_server_output

TEXT_TYPES = frozenset({"text", "input_text", "output_text"})
# Blocks that repeat what the message says elsewhere: tool calls are sent from
# `AIMessage.tool_calls`, so these are left out of the content silently.
TOOL_CALL_TYPES = frozenset({"tool_call", "tool_call_chunk", "invalid_tool_call", "tool_use", "function_call"})
# A model's reasoning (LangChain's standard block, Anthropic's signed or
# redacted thinking, OpenAI's summaries): Perplexity's message parts are text,
# images and files, so it is left out, and named so the report shows it.
REASONING_TYPES = frozenset({"reasoning", "thinking", "redacted_thinking"})
PARSED_TYPES = frozenset({"image", "image_url", "file", "document", "audio", "input_audio"})
"""Block types langchain-core's content parsing may turn into standard data blocks (OpenAI's, Anthropic's, v0)."""
VIEW_KWARGS = frozenset({"refusal", "reasoning_content", "reasoning", "audio", "executed_tools"})
"""`AIMessage.additional_kwargs` keys whose content an answer's standard view shows (langchain-core's block
translators, and `standard_view`'s refusal): an answer holding one is read through that view."""


@dataclass
class CanonicalContent:
    """Content in canonical blocks, and what was flattened or dropped on the way."""

    content: str | list[dict[str, Any]]
    flattened: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    videos: list[str] = field(default_factory=list)
    """The kinds, as the caller wrote them, of the blocks that became videos."""
    reasoning: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Whether nothing is left to send."""
        return not self.content


def standard_view(message: BaseMessage) -> Any:
    """What an answer says, as LangChain's standard view (`AIMessage.content_blocks`) shows it.

    With a block translator for its `model_provider` (OpenAI, Anthropic, Google, Bedrock, Groq, this
    package's own), the view is the translator's blocks. Otherwise it is the content as written (so the report
    names blocks as the caller wrote them) plus what the view shows outside it (`reasoning_content`).
    langchain-core shows `additional_kwargs["refusal"]` only under OpenAI's translator, so it is added here
    whatever the provider: ChatOpenAI's refusal is what the turn says.
    Any other message: its content.
    """
    if not isinstance(message, AIMessage):
        return message.content
    content = message.content if isinstance(message.content, list) else [message.content] if message.content else []
    v1 = message.response_metadata.get("output_version") == "v1" and isinstance(message.content, list)
    try:
        if v1 or get_translator(str(message.response_metadata.get("model_provider"))) is None:
            raise NotImplementedError
        blocks = [*message.content_blocks, *(b for b in content if not isinstance(b, (str, dict)))]
    except (NotImplementedError, KeyError, TypeError, ValueError, AttributeError):  # read as written
        outside = AIMessage(content=[], additional_kwargs=message.additional_kwargs).content_blocks
        blocks = [*content, *outside]
    refusal = message.additional_kwargs.get("refusal")
    if isinstance(refusal, str) and refusal and not any(_kind(b) == "refusal" for b in blocks):
        blocks.append({"type": "refusal", "refusal": refusal})
    return blocks


def is_own(message: BaseMessage) -> bool:
    """Whether `message` is this package's answer or has no provider (server tools' work in it is not named)."""
    return message.response_metadata.get("model_provider") in (None, MODEL_PROVIDER)


def canonical_content(content: Any, *, assistant: bool, own: bool = True) -> CanonicalContent:
    """`content` as a string (assistant) or a list of text, image and file blocks.

    A string stays as it is. Text of every kind becomes `{"type": "text"}`
    (a refusal is its text); images become `{"type": "image", "url": ...}`
    (a `data:` URL for inline data); files become `{"type": "file", ...}`
    with `url` or `base64` and `mime_type`. Reasoning blocks are left out
    and their kinds named in `reasoning`; tool-call, server-tool and MCP
    approval blocks are left out silently (the server's own work is not sent
    back; tool calls go from `tool_calls`, approvals as their own items); any
    other block is dropped and named in `dropped`, and so is server tools' work
    unless `own` (it is this package's answer). Assistant images and files
    are dropped too: an assistant turn is text.
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
            result.dropped.append(_kind(block))  # named as the caller wrote it
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
        return {"type": "text", "text": block["text"]}
    if kind in REASONING_TYPES:
        result.reasoning.append(kind)
        return None
    if is_server_output(block) and not own:  # another provider's server tools: named
        result.dropped.append(str(kind))
        return None
    if kind in TOOL_CALL_TYPES or is_server_output(block) or is_approval_response(block):
        return None  # MCP approvals are kept by the canonical rule and sent as their own input items
    if kind == "non_standard" and isinstance(block.get("value"), dict):  # LangChain's wrapper of a provider block
        inner = CanonicalContent([])
        converted = _block(block["value"], inner, own=own)
        result.flattened += inner.flattened
        result.videos += inner.videos
        result.reasoning += inner.reasoning
        result.dropped += ["non_standard"] if converted is None and not inner.reasoning else []
        return converted
    written = str(kind)  # reports name a block as the caller wrote it
    if kind in PARSED_TYPES:
        block = _parsed(block)
        kind = block.get("type")
    if kind in AS_TEXT:
        text = AS_TEXT[kind](block)
        if text is not None:
            result.flattened.append(written)
            return {"type": "text", "text": text}
    if kind == "media":  # Google's: an image, a video or a file, by its MIME type
        mime = str(block.get("mime_type", ""))
        kind = "image" if mime.startswith("image/") else "video" if mime.startswith("video/") else "file"
        block = {**block, "url": block.get("file_uri"), "base64": block.get("data")}
    if kind in ("video", "video_url"):
        video = _video(block)
        if video is not None and "kind" not in block:  # noted once: not again when normalized output comes back
            result.videos.append(video["kind"])
        if video is not None:
            return video
    if kind in ("image_url", "input_image", "image"):
        image = _image(block)
        if image is not None:
            return image
    if kind in ("file", "input_file", "document", "file_url", "pdf_url") and _sendable_file(block):
        file = _file(block)
        if file is not None:
            return file
    if kind is None and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    result.dropped.append(written)
    return None


def _parsed(block: dict[str, Any]) -> dict[str, Any]:
    """`block` as langchain-core's parsing of content gives it (`BaseMessage.content_blocks`), or as written
    when it is no standard block there."""
    (parsed,) = HumanMessage([block]).content_blocks
    return block if parsed.get("type") == "non_standard" else dict(parsed)


def _sendable_file(block: dict[str, Any]) -> bool:
    """Whether a file block is one Perplexity can read: not audio or video (those have their own blocks)."""
    mime = str(block.get("mime_type") or "")
    return not mime.startswith(("audio/", "video/"))


def _joined(*parts: Any) -> str:
    return "\n".join(str(p) for p in parts if p)


def _texts(content: Any) -> str:
    """The text of a nested content list (Anthropic's `document` and `search_result` hold one)."""
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content or [] if isinstance(b, dict) and b.get("text"))


def _plain_text(block: dict[str, Any]) -> str | None:
    """LangChain's `text-plain` block: its text (or its base64, decoded), under its title."""
    text = block.get("text")
    if text is None and block.get("base64"):
        text = base64.b64decode(block["base64"]).decode("utf-8", errors="replace")
    extras: dict[str, Any] = block["extras"] if isinstance(block.get("extras"), dict) else {}  # Anthropic's
    title, context = (block.get(k) or extras.get(k) for k in ("title", "context"))
    return _joined(title, context, text) if text is not None else None


def _document_text(block: dict[str, Any]) -> str | None:
    """Anthropic's `document` with a content source: its title and text (langchain-core parses the others)."""
    source = block.get("source") or {}
    if source.get("type") == "content":
        return _joined(block.get("title"), block.get("context"), _texts(source.get("content")))
    return None


def _search_result(block: dict[str, Any]) -> str:
    """A cited passage (Anthropic's `search_result`, as RAG tools return them): title, source and text."""
    return _joined(block.get("title"), block.get("source"), _texts(block.get("content")))


def _tool_result(block: dict[str, Any]) -> str:
    """Anthropic's `tool_result` inside a user turn: its text, with the call it answers."""
    return _joined(f"Result of tool call {block.get('tool_use_id')}:", _texts(block.get("content")))


def _json_block(block: dict[str, Any]) -> str:
    """A `json` block (what tools return): the JSON itself."""
    return json.dumps(block.get("json"), ensure_ascii=False, default=str)


def _refusal(block: dict[str, Any]) -> str:
    return str(block.get("refusal") or block.get("text") or "")


# Blocks that become text that keeps their data (None from the function: not this shape, try the others).
AS_TEXT: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "refusal": _refusal,
    "text-plain": _plain_text,
    "document": _document_text,
    "search_result": _search_result,
    "tool_result": _tool_result,
    "json": _json_block,
}


def _data_url(mime_type: Any, data: Any) -> str:
    return f"data:{mime_type or 'application/octet-stream'};base64,{data}"


def _video(block: dict[str, Any]) -> dict[str, Any] | None:
    """A video as `{"type": "video", "url", "kind"}` (a URL or a `data:` URL; `kind` the caller's block type):
    chat completions take it as `video_url` (`ChatMessageContentVideoChunkInput`); the Agent API has no
    video part, so its builder leaves it out."""
    url = block.get("video_url") or block.get("url")
    if isinstance(url, dict):
        url = url.get("url")
    if not url and block.get("base64"):
        url = _data_url(block.get("mime_type"), block["base64"])
    kind = str(block.get("kind") or block.get("type"))  # as the caller wrote it, for reports and errors
    return {"type": "video", "url": url, "kind": kind} if isinstance(url, str) and url else None


def _image(block: dict[str, Any]) -> dict[str, Any] | None:
    """An image as `{"type": "image", "url": ...}` (http(s) or data URL), or None when it has neither."""
    url = block.get("image_url")  # a string: Google's, and the Responses API's `input_image`
    if isinstance(url, dict):
        url = url.get("url")
    if url is None:
        url = block.get("url") or (_data_url(block.get("mime_type"), block["base64"]) if block.get("base64") else None)
    return {"type": "image", "url": url} if isinstance(url, str) and url else None


def _file(block: dict[str, Any]) -> dict[str, Any] | None:
    """A file as `{"type": "file", "url"}` or `{"type": "file", "base64", "mime_type"}` (plus `filename`)."""
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


def canonical_blocks(content: Any) -> list[dict[str, Any]]:
    """User, system or tool content as canonical blocks (a string is one text block)."""
    converted = canonical_content(content, assistant=False).content
    return [{"type": "text", "text": converted}] if isinstance(converted, str) else converted


def canonical_text(content: Any) -> str:
    """Assistant content as its text."""
    converted = canonical_content(content, assistant=True).content
    return converted if isinstance(converted, str) else text_of(converted)


def text_of(blocks: str | Sequence[dict[str, Any]]) -> str:
    """The text of canonical content (blocks other than text are left out)."""
    if isinstance(blocks, str):
        return blocks
    return "\n".join(b["text"] for b in blocks if b.get("type") == "text")


def data_url(block: dict[str, Any]) -> str | None:
    """A canonical file's data as a `data:` URL (None for a file given by URL)."""
    if "base64" not in block:
        return None
    return _data_url(block.get("mime_type"), block["base64"])
