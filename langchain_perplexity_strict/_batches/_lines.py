"""A batch's input file: one JSONL line per input, split into files within Perplexity's documented limits.

Limits and line shape: docs.perplexity.ai, "Batch API" and "Upload a file".
Output lines match inputs by `custom_id`, not order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ENDPOINT = "/v1/responses"
MAX_LINES = 50_000
MAX_FILE_BYTES = 200_000_000
"""200 MB as decimal megabytes, the smaller reading."""
_PREFIX = "input-"
_LINE = f'{{"custom_id":"{_PREFIX}%d","method":"POST","url":"{ENDPOINT}","body":%s}}\n'.encode()


def index_of(custom_id: object) -> int | None:
    """The input position a `custom_id` names, or None for a foreign one."""
    number = custom_id.removeprefix(_PREFIX) if isinstance(custom_id, str) else ""
    return int(number) if custom_id != number and number.isdigit() else None


def line(index: int, body: bytes) -> bytes:
    """One JSONL line around an encoded Agent API body, its `custom_id` naming the input's position in the job."""
    return _LINE % (index, body)


@dataclass(frozen=True)
class FilePart:
    """The lines of one input file, from input `first`."""

    first: int
    lines: Sequence[bytes]

    @property
    def content(self) -> bytes:
        return b"".join(self.lines)


def split(lines: Sequence[bytes]) -> list[FilePart]:
    """The lines in files within `MAX_LINES` and `MAX_FILE_BYTES`, in order; `ValueError` for a line over the size."""
    parts: list[FilePart] = []
    start, size = 0, 0
    for i, text in enumerate(lines):
        if len(text) > MAX_FILE_BYTES:
            msg = (
                f"input {i}: its batch line is {len(text):,} bytes, over the {MAX_FILE_BYTES:,} bytes of a batch file."
            )
            raise ValueError(msg)
        if i - start == MAX_LINES or size + len(text) > MAX_FILE_BYTES:
            parts.append(FilePart(start, lines[start:i]))
            start, size = i, 0
        size += len(text)
    if start < len(lines):
        parts.append(FilePart(start, lines[start:]))
    return parts
