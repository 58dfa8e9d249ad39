"""What images and files cost the model, for compaction: a documented estimate, not the length of their base64.

Per image and per PDF page (one page if uncountable). Perplexity publishes no figures; these are the upper
ends of Anthropic's vision and PDF-support guides.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from langchain_core.messages import BaseMessage

IMAGE_TOKENS = 1_600
PDF_PAGE_TOKENS = 3_000
MEDIA_TYPES = frozenset({"image", "file"})
_PAGE = re.compile(rb"/Type\s*/Page(?!s)")


def media_tokens(block: dict[str, Any]) -> int:
    """The estimate for one canonical image or file block."""
    if block.get("type") == "image":
        return IMAGE_TOKENS
    return PDF_PAGE_TOKENS * max(1, _pages(block.get("base64")))


def _pages(data: Any) -> int:
    if not isinstance(data, str):
        return 0
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return 0
    return len(_PAGE.findall(raw))


def without_media(message: BaseMessage) -> tuple[BaseMessage, int]:
    """`message` without its media blocks, and their estimate."""
    content = message.content
    if isinstance(content, str) or not any(isinstance(b, dict) and b.get("type") in MEDIA_TYPES for b in content):
        return message, 0
    media = [b for b in content if isinstance(b, dict) and b.get("type") in MEDIA_TYPES]
    rest = [b for b in content if not (isinstance(b, dict) and b.get("type") in MEDIA_TYPES)]
    return message.model_copy(update={"content": rest}), sum(media_tokens(b) for b in media)
