"""A batch's input file: one JSONL line per input, split into files within Perplexity's documented limits.

Perplexity's Batch API (docs.perplexity.ai, "Batch API" and "Upload a file"): a file holds up to 50,000
lines and 200 MB; each line is `{"custom_id", "method": "POST", "url": "/v1/responses", "body"}`, its
`custom_id` unique in the file; output lines are joined to inputs on `custom_id`, not on order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ENDPOINT = "/v1/responses"
MAX_LINES = 50_000
MAX_FILE_BYTES = 200_000_000
"""200 MB, read as decimal megabytes: the smaller reading, so a file is never over either."""
_PREFIX = "input-"


def custom_id(index: int) -> str:
    """The line's `custom_id`: the input's position among all the job's inputs (unique across its batches)."""
    return f"{_PREFIX}{index}"


def index_of(custom_id: object) -> int | None:
    """The input position a `custom_id` names, or None for one this package did not write."""
    if isinstance(custom_id, str) and custom_id.startswith(_PREFIX) and custom_id[len(_PREFIX) :].isdigit():
        return int(custom_id[len(_PREFIX) :])
    return None


def line(index: int, body: bytes) -> bytes:
    """One JSONL line around an Agent API body already encoded (`encode_body`: not encoded twice)."""
    return b'{"custom_id":"%s","method":"POST","url":"%s","body":%s}\n' % (
        custom_id(index).encode(),
        ENDPOINT.encode(),
        body,
    )


@dataclass(frozen=True)
class FilePart:
    """The lines of one input file: inputs `first` to `first + len(lines) - 1`."""

    first: int
    lines: Sequence[bytes]

    @property
    def content(self) -> bytes:
        return b"".join(self.lines)


def split(lines: Sequence[bytes], max_lines: int | None = None, max_bytes: int | None = None) -> list[FilePart]:
    """The lines in files of at most `max_lines` lines and `max_bytes` bytes (the documented limits), in order.

    A line alone over `max_bytes` is refused (`ValueError`) before anything is uploaded (an Agent API body is
    at most 32 MiB, so only a smaller `max_bytes` meets one).
    """
    max_lines = MAX_LINES if max_lines is None else max_lines
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    parts: list[FilePart] = []
    start, size = 0, 0
    for i, text in enumerate(lines):
        if len(text) > max_bytes:
            msg = f"input {i}: its batch line is {len(text):,} bytes, over the {max_bytes:,} bytes of a batch file."
            raise ValueError(msg)
        if i - start == max_lines or size + len(text) > max_bytes:
            parts.append(FilePart(start, lines[start:i]))
            start, size = i, 0
        size += len(text)
    if start < len(lines):
        parts.append(FilePart(start, lines[start:]))
    return parts
