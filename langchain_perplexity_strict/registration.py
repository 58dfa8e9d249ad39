"""Make `perplexity_strict` a provider of `langchain.chat_models.init_chat_model`, as far as LangChain allows.

LangChain offers no hook, so the import adds the name to the private `_BUILTIN_PROVIDERS` table (once imported:
wrapt's post-import hooks). Without langchain-perplexity, `perplexity:` is served too, with a warning.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from types import ModuleType
from typing import Any

import wrapt

from langchain_perplexity_strict._message_keys import MODEL_PROVIDER
from langchain_perplexity_strict._once import warn

PROVIDER = "perplexity_strict"
LEGACY_PROVIDER = "perplexity"
LEGACY_PACKAGE = "langchain_perplexity"
PROVIDERS_MODULE = "langchain.chat_models.base"


def register_when_imported() -> None:
    """Register the provider and the block translator once their modules are imported."""
    wrapt.register_post_import_hook(_register_in, PROVIDERS_MODULE)
    wrapt.register_post_import_hook(_register_block_translator, "langchain_core.messages.block_translators")


def register_provider() -> bool:
    """Add `perplexity_strict` to `init_chat_model`'s providers; True when registered."""
    if importlib.util.find_spec("langchain") is None:
        return False
    try:
        from langchain.chat_models import base
    except Exception as error:
        _cannot(f"importing langchain.chat_models failed ({error})")
        return False
    return _register_in(base)


def _register_in(base: ModuleType) -> bool:
    providers = getattr(base, "_BUILTIN_PROVIDERS", {})
    template = providers.get("openai") if isinstance(providers, dict) else None
    if not (isinstance(template, tuple) and len(template) == 3 and callable(template[2])):
        _cannot("langchain.chat_models.base._BUILTIN_PROVIDERS is not the (module, class, factory) table it was")
        return False
    providers.setdefault(PROVIDER, ("langchain_perplexity_strict", "ChatPerplexityStrict", template[2]))
    legacy = providers.get(LEGACY_PROVIDER)
    legacy_package = str(legacy[0]).split(".")[0] if isinstance(legacy, tuple) and legacy else None
    if legacy_package == LEGACY_PACKAGE and importlib.util.find_spec(LEGACY_PACKAGE) is None:
        providers[LEGACY_PROVIDER] = ("langchain_perplexity_strict", "ChatPerplexityStrict", serve_legacy_name)
    cache_clear = getattr(getattr(base, "_get_chat_model_creator", None), "cache_clear", None)
    if callable(cache_clear):
        cache_clear()
    return True


def _register_block_translator(translators: ModuleType) -> None:
    """Register `_response._blocks`' translators, imported on first use: this hook runs inside langchain-core's."""
    blocks = "langchain_perplexity_strict._response._blocks"
    translators.register_translator(
        MODEL_PROVIDER,
        lambda message: importlib.import_module(blocks).translate_content(message),
        lambda message: importlib.import_module(blocks).translate_content_chunk(message),
    )


def serve_legacy_name(cls: type, **kwargs: Any) -> Any:
    """`init_chat_model("perplexity:...")` without langchain-perplexity: this model, with a warning."""
    model = kwargs.get("model")
    warn(
        f"init_chat_model: the 'perplexity' provider is langchain-perplexity's, which is not installed; "
        f"langchain-perplexity-strict's ChatPerplexityStrict serves it. Write 'perplexity_strict:{model}' "
        "(or model_provider='perplexity_strict') to choose it by its own name and silence this warning."
    )
    return cls(**kwargs)


def _cannot(why: str) -> None:
    warnings.warn(
        f"langchain-perplexity-strict could not register the {PROVIDER!r} provider with "
        f"init_chat_model: {why}. Construct ChatPerplexityStrict directly instead.",
        RuntimeWarning,
        stacklevel=3,
    )
