"""The error the emulator answers with, in Perplexity's envelope.

Source: Perplexity's API error reference (docs/perplexity-rules.md):
`{"error": {"message", "type", "code", "param"?}}`, with the HTTP status equal to `code`.
"""

from __future__ import annotations

from typing import Any


class APIError(Exception):
    """A request Perplexity would refuse: HTTP `status` with `type` and `message`."""

    def __init__(
        self,
        status: int,
        type_: str,
        message: str,
        *,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.type = type_
        self.message = message
        self.param = param
        self.headers = headers or {}

    def envelope(self) -> dict[str, Any]:
        """The JSON body Perplexity sends for this error."""
        error: dict[str, Any] = {
            "message": self.message,
            "type": self.type,
            "code": self.status,
        }
        if self.param is not None:
            error["param"] = self.param
        return {"error": error}


def unknown_field(path: str) -> APIError:
    """The Agent API's answer to any field it does not know, at any depth.

    Source: the Agent API's rule on unknown fields (docs/perplexity-rules.md); `param` names the field.
    """
    name = path.rsplit(".", 1)[-1].split("[", 1)[0]
    return APIError(
        400,
        "invalid_request",
        f'invalid request body: json: unknown field "{name}"',
        param=path,
    )


def invalid(type_: str, message: str, param: str | None = None) -> APIError:
    """A 400 of the given `type` (`invalid_request`, `invalid_message`, ...)."""
    return APIError(400, type_, message, param=param)
