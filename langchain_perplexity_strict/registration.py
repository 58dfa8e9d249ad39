"""Register `perplexity_strict` as a provider of `langchain.chat_models.init_chat_model`.

LangChain keeps its providers in a private table; if that table changes shape
in a later release, importing this package still works and a warning says
why the provider could not be registered.
"""

from __future__ import annotations

import importlib.util
import warnings

PROVIDER = "perplexity_strict"


def register_provider() -> bool:
    """Add `perplexity_strict` to `init_chat_model`'s providers; True when registered."""
    if importlib.util.find_spec("langchain") is None:
        return False  # langchain (the package with init_chat_model) is not installed
    try:
        from langchain.chat_models import base
    except Exception as error:
        _cannot(f"importing langchain.chat_models failed ({error})")
        return False
    providers = getattr(base, "_BUILTIN_PROVIDERS", None)
    template = providers.get("openai") if isinstance(providers, dict) else None
    if not isinstance(providers, dict) or not (
        isinstance(template, tuple) and len(template) == 3 and callable(template[2])
    ):
        _cannot("langchain.chat_models.base._BUILTIN_PROVIDERS is not the (module, class, factory) table it was")
        return False
    providers.setdefault(PROVIDER, ("langchain_perplexity_strict", "ChatPerplexityStrict", template[2]))
    cache_clear = getattr(getattr(base, "_get_chat_model_creator", None), "cache_clear", None)
    if callable(cache_clear):
        cache_clear()
    return True


def _cannot(why: str) -> None:
    warnings.warn(
        f"langchain-perplexity-strict could not register the {PROVIDER!r} provider with "
        f"init_chat_model: {why}. Construct ChatPerplexityStrict directly instead.",
        RuntimeWarning,
        stacklevel=3,
    )
