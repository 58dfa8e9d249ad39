"""The Sonar chat-completions body (`POST /chat/completions`): `ApiChatCompletionsRequestInput`'s shape."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict._request._input import BodyInput, PartTable, content_parts, tool_arguments
from langchain_perplexity_strict._request._model_names import chat_model_name
from langchain_perplexity_strict._request._parameter_row import place
from langchain_perplexity_strict._request._parameter_table import CLIENT, PARAMETERS
from langchain_perplexity_strict.normalize._content import canonical_text


def chat_body(request: BodyInput) -> dict[str, Any]:
    """The whole body: messages, model, parameters and response format (no plan)."""
    settings, call = request.settings, request.call
    body: dict[str, Any] = {
        "model": chat_model_name(settings["model"]),
        "messages": [_message(m) for m in request.messages],
    }
    for name, value in settings.items():
        parameter = PARAMETERS.get(name)
        if value is not None and parameter is not None and parameter.chat not in (None, CLIENT):
            place(body, parameter.chat, value)
    if call.get("response_format") is not None:
        body["response_format"] = call["response_format"]
    body["stream"] = request.stream
    body.update(settings.get("model_kwargs") or {})
    return body


def _message(message: BaseMessage) -> dict[str, Any]:
    if isinstance(message, AIMessage):
        out: dict[str, Any] = {"role": "assistant", "content": canonical_text(message.content)}
        if message.tool_calls:
            out["tool_calls"] = [
                {
                    "id": c.get("id"),
                    "type": "function",
                    "function": {"name": c["name"], "arguments": tool_arguments(c)},
                }
                for c in message.tool_calls
            ]
        return out
    if isinstance(message, ToolMessage):
        output = content_parts(message.content, PARTS, text_as_string=True)
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": output}
    role = "system" if isinstance(message, SystemMessage) else "user"
    return {"role": role, "content": content_parts(message.content, PARTS, text_as_string=True)}


def _file(block: dict[str, Any]) -> dict[str, Any]:
    # Perplexity's file-attachments guide: a URL or bare base64.
    chunk: dict[str, Any] = {"type": "file_url", "file_url": {"url": block.get("url") or block["base64"]}}
    if block.get("filename"):
        chunk["file_name"] = block["filename"]
    return chunk


PARTS: PartTable = {
    "text": lambda block: {"type": "text", "text": block["text"]},
    "image": lambda block: {"type": "image_url", "image_url": {"url": block["url"]}},
    "file": _file,
    "video": lambda block: {"type": "video_url", "video_url": {"url": block["url"]}},
}
"""Content chunks by canonical kind."""
