"""Deprecated alias of `testing.run_routes`, so imports of the old name keep working."""

from __future__ import annotations

import warnings
from typing import Any

from langchain_perplexity_strict.testing import run_routes as _new


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # the import system's own questions (`__path__`, ...) are not uses
        raise AttributeError(name)
    warnings.warn(
        "langchain_perplexity_strict.testing.background is renamed langchain_perplexity_strict.testing.run_routes",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(_new, name)
