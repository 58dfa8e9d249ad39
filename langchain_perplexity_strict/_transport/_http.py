"""The HTTP library under openai's clients: httpx2 from openai 3, httpx before.

What the package builds for the client (a TLS context, a timeout: `_client.client_timeout`) or catches from it
(a broken stream's error) is that library's, never whichever one the package happens to import.
"""

from __future__ import annotations

import ssl
import sys
from functools import cache
from types import ModuleType

import openai

LIBRARY: ModuleType = sys.modules[openai.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0]]
"""httpx or httpx2: the package that defines the class openai's default client extends."""

HTTP_ERROR: type[BaseException] = LIBRARY.HTTPError
"""The library's base error (a read timeout, a reset): what a broken stream raises."""


@cache
def trust_store() -> ssl.SSLContext:
    """The process's TLS context, as the library makes it by default.

    Called first from synchronous code (a transport's construction), so that no event loop waits on the read.
    """
    context: ssl.SSLContext = LIBRARY.create_ssl_context()
    return context
