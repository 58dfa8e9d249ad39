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

Importing this package does not import LangChain for this: `register_when_imported` (what the import runs)
registers the name the moment `langchain.chat_models` is imported, or at once when it already is, through
wrapt's post-import hooks; likewise the block translator, when langchain-core's messages are imported. So
`import langchain_perplexity_strict`, and the `perplexity-strict emulator` process, stay light.
"""

from __future__ import annotations

import importlib.util
import warnings
from types import ModuleType
from typing import Any

import wrapt

from langchain_perplexity_strict._message_keys import MODEL_PROVIDER

PROVIDER = "perplexity_strict"
LEGACY_PROVIDER = "perplexity"
"""langchain-perplexity's provider name in LangChain's table."""
LEGACY_PACKAGE = "langchain_perplexity"
PROVIDERS_MODULE = "langchain.chat_models.base"
"""The module of LangChain's provider table, `_BUILTIN_PROVIDERS`."""


def register_when_imported() -> None:
    """What `import langchain_perplexity_strict` runs: the provider goes into LangChain's table, and the block
    translator into langchain-core's, each once its module is imported (now, when it already is)."""
    wrapt.register_post_import_hook(_register_in, PROVIDERS_MODULE)
    wrapt.register_post_import_hook(_register_block_translator, "langchain_core.messages.block_translators")


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
    return _register_in(base)


def _register_in(base: ModuleType) -> bool:
    """Add the names to the provider table of `base` (`langchain.chat_models.base`, just imported or already)."""
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


def _register_block_translator(translators: ModuleType) -> None:
    """AIMessage.content_blocks of a v0 answer gives the blocks of a v1 answer: the translator of
    `_response._blocks`, for this package's `model_provider`.

    What is registered imports `_response._blocks` when first called, not now: this hook runs inside
    langchain-core's own imports (`langchain_core.language_models` imports the translators' module), where
    importing more of langchain-core could meet one of its modules half made.
    """
    translators.register_translator(MODEL_PROVIDER, _translate_content, _translate_content_chunk)


def _translate_content(message: Any) -> Any:
    from langchain_perplexity_strict._response._blocks import translate_content

    return translate_content(message)


def _translate_content_chunk(message: Any) -> Any:
    from langchain_perplexity_strict._response._blocks import translate_content_chunk

    return translate_content_chunk(message)


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
