"""The HTTP library under openai's clients: httpx2 from openai 3, httpx before.

Two things depend on which one it is: its own error class (what a broken stream raises)
and its default TLS context (made once, for the clients of new event loops, `_loops`).
"""

from __future__ import annotations

import ssl
import sys
from functools import cache
from types import ModuleType
from typing import Any

import openai


def _library(cls: type) -> ModuleType | None:
    """The top-level package that defines `cls` (`httpx2.AsyncClient` -> `httpx2`)."""
    return sys.modules.get(cls.__module__.partition(".")[0])


def http_errors(response: Any) -> tuple[type[BaseException], ...]:
    """The HTTP library's own error class for `response`, if it has one."""
    error = getattr(_library(type(response)), "HTTPError", None)
    return (error,) if isinstance(error, type) and issubclass(error, BaseException) else ()


@cache
def trust_store() -> ssl.SSLContext:
    """The process's TLS context, as the library under openai's async client makes it by default.

    Called first from synchronous code (a transport's construction), so that no event loop waits on the read.
    """
    context: ssl.SSLContext = _library(openai.DefaultAsyncHttpxClient.__mro__[1]).create_ssl_context()  # type: ignore[union-attr]
    return context
