"""The files an Agent API run shared (`GET /v1/responses/{id}/files`) and their bytes (`.../{file_id}/content`).

docs.perplexity.ai/docs/agent-api/working-with-files: the `sandbox` tool's `share_file` delivers a file, listed
and downloaded by the response's id (the published `ResponseFileListOutput`; the content is raw bytes).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from langchain_perplexity_strict._transport._client import Transport
from langchain_perplexity_strict.errors import PerplexityResponseError

API = "agent files"


def files_path(response_id: str) -> str:
    return f"/v1/responses/{quote(response_id, safe='')}/files"


@dataclass(frozen=True)
class PerplexityResponseFile:
    """A file a run shared (the published `ResponseFileOutput`), with its run's id; `extra` keeps any field
    Perplexity adds. `download()` returns the bytes; `save(directory)` writes them under the file's own name."""

    id: str
    filename: str
    bytes: int
    created_at: int
    response_id: str
    object: str = "file"
    extra: dict[str, Any] = field(default_factory=dict)
    _transport: Transport | None = field(default=None, repr=False, compare=False)

    @property
    def _content_path(self) -> str:
        return f"{files_path(self.response_id)}/{quote(self.id, safe='')}/content"

    def _connected(self) -> Transport:
        if self._transport is None:
            msg = f"file {self.id!r} was not listed by a model: list it with model.response_files(answer)"
            raise RuntimeError(msg)
        return self._transport

    def download(self) -> builtins.bytes:
        """The file's bytes (`GET /v1/responses/{id}/files/{file_id}/content`)."""
        return self._connected().get_bytes(self._content_path, api=API)

    async def adownload(self) -> builtins.bytes:
        """Async `download`."""
        return await self._connected().aget_bytes(self._content_path, api=API)

    def save(self, directory: str | Path = ".") -> Path:
        """Download the file into `directory` under its own name (never outside it); the path written."""
        return _write(Path(directory), self.filename, self.id, self.download())

    async def asave(self, directory: str | Path = ".") -> Path:
        """Async `save`."""
        return _write(Path(directory), self.filename, self.id, await self.adownload())


def _write(directory: Path, filename: str, file_id: str, data: bytes) -> Path:
    name = filename.replace("\\", "/").rsplit("/", 1)[-1].replace("\x00", "").strip()
    if name in ("", ".", ".."):
        name = file_id
    path = directory / name
    path.write_bytes(data)
    return path


_PUBLISHED = ("id", "filename", "bytes", "created_at", "object")


def read_files(answer: Any, response_id: str, transport: Transport) -> list[PerplexityResponseFile]:
    """The published `ResponseFileListOutput` as `PerplexityResponseFile`s, in the order listed."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list):
        msg = f"Perplexity's GET {files_path(response_id)} answered no list of files: {str(answer)[:200]}"
        raise PerplexityResponseError(msg)
    files = []
    for item in data:
        if not (isinstance(item, dict) and isinstance(item.get("id"), str) and isinstance(item.get("filename"), str)):
            msg = f"Perplexity's GET {files_path(response_id)} answered a file without an id or filename: {item!r}"
            raise PerplexityResponseError(msg)
        extra = {k: v for k, v in item.items() if k not in _PUBLISHED}
        files.append(
            PerplexityResponseFile(
                item["id"],
                item["filename"],
                int(item.get("bytes") or 0),
                int(item.get("created_at") or 0),
                response_id,
                str(item.get("object") or "file"),
                extra,
                transport,
            )
        )
    return files


def list_files(transport: Transport, response_id: str) -> list[PerplexityResponseFile]:
    """The files the run `response_id` shared."""
    return read_files(transport.get(files_path(response_id), api=API), response_id, transport)


async def alist_files(transport: Transport, response_id: str) -> list[PerplexityResponseFile]:
    """Async `list_files`."""
    return read_files(await transport.aget(files_path(response_id), api=API), response_id, transport)
