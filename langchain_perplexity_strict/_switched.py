"""What a switched import is told: langchain-perplexity's names and modules this package has not."""

from __future__ import annotations

_PACKAGE = "langchain_perplexity_strict"

_PARSERS = (
    "Perplexity's inline <think> reasoning is already split off the answer (additional_kwargs['reasoning_content'], "
    "or reasoning blocks with output_version='v1'): use with_structured_output, or langchain-core's "
    "JsonOutputParser / PydanticOutputParser on the answer"
)
_MEDIA = (
    "for images pass return_images=True (api='chat_completions') or "
    "bind_tools([image_search_tool(), web_search_tool()]) (api='agent'); "
    "videos have no published request field"
)
MOVED: dict[str, str] = {
    "ChatPerplexity": "use ChatPerplexityStrict (from langchain_perplexity_strict import ChatPerplexityStrict); "
    "docs/migration.md lists the arguments that carry over and those that change",
    "WebSearchOptions": "pass its keys as ChatPerplexityStrict arguments (search_context_size=..., "
    "user_location=..., search_type=...), or web_search_options={...}, which is converted",
    "MediaResponse": _MEDIA,
    "MediaResponseOverrides": _MEDIA,
    "ReasoningJsonOutputParser": _PARSERS,
    "ReasoningStructuredOutputParser": _PARSERS,
    "strip_think_tags": _PARSERS,
}
"""langchain-perplexity's public names (its `__all__`, 1.4.2) that this package has not: what to use instead."""

_MODULES = {
    "retrievers": ("PerplexitySearchRetriever",),
    "tools": ("PerplexitySearchResults",),
    "embeddings": ("PerplexityEmbeddings",),
    "types": ("UserLocation", "WebSearchOptions", "MediaResponse", "MediaResponseOverrides"),
    "output_parsers": ("ReasoningJsonOutputParser", "ReasoningStructuredOutputParser", "strip_think_tags"),
}
"""langchain-perplexity's modules that this package has not, and the names a switched import wants from them."""

_FATES = {**MOVED, "UserLocation": "pass user_location={...} as a dict"}
"""What to use instead of each name a switched import wants; any other is this package's, under its own name."""


class SwitchedModules:
    """A finder asked last: langchain-perplexity's module path under this package says what to use instead."""

    @staticmethod
    def find_spec(fullname: str, path: object = None, target: object = None) -> None:
        module = fullname.removeprefix(f"{_PACKAGE}.")
        if module in _MODULES:
            fates = "; ".join(
                f"{name}: {_FATES.get(name, f'from {_PACKAGE} import {name}')}" for name in _MODULES[module]
            )
            msg = f"{fullname}: langchain-perplexity's module, which {_PACKAGE} has not. {fates}."
            raise ModuleNotFoundError(msg, name=fullname)
