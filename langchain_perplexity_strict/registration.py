"""Make `perplexity_strict` a provider of `langchain.chat_models.init_chat_model`, as far as LangChain allows.

LangChain (1.x) resolves a provider name through one private table,
`langchain.chat_models.base._BUILTIN_PROVIDERS`, and offers a third-party
package no hook to add itself (no entry point, no public registry). So the
name works once this package is imported: `import langchain_perplexity_strict`
adds it to that table. Before that import, LangChain's own error is what a
user sees ("Unable to infer model provider for model='perplexity_strict:...'"
or "Unsupported provider='perplexity_strict'"), and the docs say to add the
import.

`init_chat_model("perplexity:...")` is langchain-perplexity's name. When
langchain-perplexity is installed it stays its own. When it is not (the app
switched), LangChain's entry for it can only fail ("requires the
langchain-perplexity package"), so after the import the name is served by
`ChatPerplexityStrict`, with a warning that names `perplexity_strict:` (once per
call site, as Python shows warnings).

No `.pth` file registers the name at interpreter start: it would run in every
Python process of the environment, LangChain or not, and hide where the
provider came from. If LangChain's table changes shape, importing this
package still works and a warning says why the provider could not be
registered.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any

PROVIDER = "perplexity_strict"
LEGACY_PROVIDER = "perplexity"
"""langchain-perplexity's provider name in LangChain's table."""
LEGACY_PACKAGE = "langchain_perplexity"


def register_provider() -> bool:
    """Add `perplexity_strict` to `init_chat_model`'s providers (and `perplexity`, when langchain-perplexity
    is not installed); True when registered."""
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
    legacy = providers.get(LEGACY_PROVIDER)
    if _names_package(legacy, LEGACY_PACKAGE) and importlib.util.find_spec(LEGACY_PACKAGE) is None:
        providers[LEGACY_PROVIDER] = ("langchain_perplexity_strict", "ChatPerplexityStrict", serve_legacy_name)
    cache_clear = getattr(getattr(base, "_get_chat_model_creator", None), "cache_clear", None)
    if callable(cache_clear):
        cache_clear()
    return True


def _names_package(entry: Any, package: str) -> bool:
    return isinstance(entry, tuple) and bool(entry) and str(entry[0]).split(".")[0] == package


def serve_legacy_name(cls: type, **kwargs: Any) -> Any:
    """`init_chat_model("perplexity:<model>")` without langchain-perplexity: the model from this package, and
    a warning naming the provider to write instead."""
    model = kwargs.get("model")
    warnings.warn(
        f"init_chat_model: the 'perplexity' provider is langchain-perplexity's, which is not installed; "
        f"langchain-perplexity-strict's ChatPerplexityStrict serves it. Write 'perplexity_strict:{model}' "
        "(or model_provider='perplexity_strict') to choose it by its own name and silence this warning.",
        UserWarning,
        stacklevel=4,
    )
    return cls(**kwargs)


def _cannot(why: str) -> None:
    warnings.warn(
        f"langchain-perplexity-strict could not register the {PROVIDER!r} provider with "
        f"init_chat_model: {why}. Construct ChatPerplexityStrict directly instead.",
        RuntimeWarning,
        stacklevel=3,
    )
