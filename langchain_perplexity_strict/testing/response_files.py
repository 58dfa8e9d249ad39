"""`GET /v1/responses/{id}/files` and `GET /v1/responses/{id}/files/{file_id}/content`: what a run shared.

docs.perplexity.ai/docs/agent-api/working-with-files and the API reference
pages "List Agent Response Files" / "Download Agent Response File": the list is
the published `ResponseFileListOutput` (each `ResponseFileOutput`: `id`,
`filename`, `bytes`, `created_at`, `object: "file"`) of the files the run's
`share_file` items delivered, scoped to the caller's key; the content is raw
bytes with a `Content-Type` matching the file and `Content-Disposition:
attachment` naming it. The emulator's sandbox writes each file it shares and
reads it back in the same run (`builtin_tools.sandbox_items`), so a file's bytes
are what its `sandbox_read_file` item read. Standard library only.
"""

from __future__ import annotations

import mimetypes
from typing import Any

from langchain_perplexity_strict.testing.errors import APIError

PREFIX = "/v1/responses/"


def parse(path: str) -> tuple[str, str | None] | None:
    """`(response_id, file_id or None)` for the two routes, else None."""
    if not path.startswith(PREFIX):
        return None
    parts = path[len(PREFIX) :].split("/")
    if len(parts) == 2 and parts[1] == "files" and parts[0]:
        return parts[0], None
    if len(parts) == 4 and parts[1] == "files" and parts[3] == "content" and parts[0] and parts[2]:
        return parts[0], parts[2]
    return None


def shared_files(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The published `ResponseFileOutput` of each file the response's `share_file` items delivered."""
    return [
        {
            "id": item["file_id"],
            "object": "file",
            "filename": item.get("filename") or item["file_id"],
            "bytes": int(item.get("size_bytes") or 0),
            "created_at": int(response.get("created_at") or 0),
        }
        for item in response.get("output") or []
        if item.get("type") == "share_file" and item.get("file_id")
    ]


def content(response: dict[str, Any], file_id: str) -> tuple[bytes, str, str]:
    """The bytes of the shared file `file_id`, its filename and content type; a 404 when the run shared none."""
    listed = {f["id"]: f for f in shared_files(response)}
    if file_id not in listed:
        raise APIError(404, "not_found", f"no file {file_id!r} in response {response.get('id')!r}")
    filename = listed[file_id]["filename"]
    read = [
        item
        for item in response.get("output") or []
        if item.get("type") == "sandbox_read_file" and str(item.get("file_path", "")).rsplit("/", 1)[-1] == filename
    ]
    data = str(read[-1].get("content") or "").encode() if read else b""
    kind = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    return data, filename, kind
