"""The error the emulator answers with, in Perplexity's envelope.

Source: Perplexity's API error reference (docs/perplexity-rules.md):
`{"error": {"message", "type", "code", "param"?}}`, with the HTTP status equal to `code`.
"""

from __future__ import annotations

import http
import json
from typing import Any, Literal

BodyForm = Literal["json", "typed", "detail", "html", "text", "empty"]


_GATEWAY_PAGE = (
    "<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}</h1></center>\r\n"
    "<hr><center>openresty</center>\r\n</body>\r\n</html>\r\n"
)
"""An openresty gateway's error page, the form Perplexity's 401 took until 2026-02 (docs/perplexity-rules.md)."""


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
        form: BodyForm = "json",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.type = type_
        self.message = message
        self.param = param
        self.headers = headers or {}
        self.form = form

    def body(self) -> tuple[bytes, str]:
        """The body and its content type, in this error's `form` (`error_body`)."""
        if self.form in ("json", "typed"):
            return json.dumps(self.envelope()).encode(), "application/json"
        if self.form == "detail":
            return json.dumps(
                {"detail": [{"loc": ["body", self.param or "input"], "msg": self.message, "type": self.type}]}
            ).encode(), "application/json"
        if self.form == "html":
            title = f"{self.status} {_phrase(self.status)}"
            return _GATEWAY_PAGE.format(title=title).encode(), "text/html"
        if self.form == "text":
            return self.message.encode(), "text/plain"
        return b"", "application/json"

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


TOO_MANY_PROMPT_TOKENS = "The total length of all messages is too long."
"""Sonar's words for an over-long input, recorded live with 400 `too_many_prompt_tokens` (docs/perplexity-rules.md)."""


FAILURE_MESSAGES = {
    "server_error": "emulated failure: the run failed",
    "too_many_prompt_tokens": TOO_MANY_PROMPT_TOKENS,
}


def failure_message(code: str) -> str:
    """The message of a failed run or a stream `error` event, by its code (`Fault.code`)."""
    return FAILURE_MESSAGES.get(code, f"emulated failure ({code})")


def context_overflow() -> APIError:
    """Sonar's refusal of an input longer than the model's context, as recorded live (docs/perplexity-rules.md)."""
    return APIError(400, "too_many_prompt_tokens", TOO_MANY_PROMPT_TOKENS)


def _phrase(status: int) -> str:
    """The status's reason phrase; a gateway's own status (Cloudflare's 520-529) has none in `http`."""
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def error_body(status: int, form: BodyForm, code: str = "server_error") -> APIError:
    """HTTP `status` with a body in `form`, the forms an error reaches a client in (docs/perplexity-rules.md):
    `json` (Perplexity's envelope, with the status's generic type), `typed` (the envelope with `code` as its
    type), `detail` (the schema's `HTTPValidationError`, FastAPI's `{"detail": [...]}`), `html` (a gateway's
    page: Perplexity's 401 was openresty's until 2026-02), `text` (a gateway's plain text), `empty` (no body)."""
    phrase = _phrase(status)
    if form == "detail":
        return APIError(status, "missing", "Field required", param="input", form=form)
    kind = code if form == "typed" else "invalid_request" if status < 500 else "internal_error"
    return APIError(status, kind, f"upstream answered {status} {phrase}", form=form)
