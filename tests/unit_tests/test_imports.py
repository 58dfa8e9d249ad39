"""The public API, pinned: a change to it is a decision, not an accident."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import pytest

import langchain_perplexity_strict
import langchain_perplexity_strict.errors
import langchain_perplexity_strict.normalize
import langchain_perplexity_strict.testing

EXPECTED_ALL = [
    "ChatPerplexityStrict",
    "EmbeddingsResult",
    "PerplexityBatchError",
    "PerplexityBatchTimeoutError",
    "PerplexityContextualizedEmbeddings",
    "PerplexityCostCallbackHandler",
    "PerplexityDecision",
    "PerplexityDecisionResult",
    "PerplexityEmbeddings",
    "PerplexityModelInfo",
    "PerplexityResponseFile",
    "PerplexitySearchResults",
    "PerplexitySearchRetriever",
    "__version__",
    "alist_models",
    "builtin_skill",
    "connector_tool",
    "custom_skill",
    "fetch_url_tool",
    "finance_search_tool",
    "get_perplexity_cost_callback",
    "image_search_tool",
    "inline_skill",
    "list_models",
    "mcp_tool",
    "normalize_messages",
    "people_search_tool",
    "sandbox_tool",
    "web_search_tool",
]

EXPECTED_NORMALIZE_ALL = [
    "CanonicalMessages",
    "Change",
    "DEFAULT_RULES",
    "DemoteLateSystemMessages",
    "DropTrailingAssistantMessages",
    "Entry",
    "MergeAdjacentTurns",
    "RepairToolProtocol",
    "Rule",
    "StartWithUserTurn",
    "compact_messages",
    "normalize_messages",
]

EXPECTED_ERRORS_ALL = [
    "PerplexityAuthenticationError",
    "PerplexityBatchError",
    "PerplexityBatchTimeoutError",
    "PerplexityBudgetExceededError",
    "PerplexityContextOverflowError",
    "PerplexityIncompleteError",
    "PerplexityInvalidRequestError",
    "PerplexityNotFoundError",
    "PerplexityPermissionDeniedError",
    "PerplexityRateLimitError",
    "PerplexityRefusedRunError",
    "PerplexityRequestError",
    "PerplexityRequestTypeError",
    "PerplexityResponseError",
    "PerplexityResumeError",
    "PerplexityRunTimeoutError",
    "PerplexityRunUnknownError",
    "PerplexityServerError",
    "PerplexityStreamError",
    "PerplexityUnprocessableEntityError",
]


def test_all_is_pinned() -> None:
    assert sorted(langchain_perplexity_strict.__all__) == sorted(EXPECTED_ALL)
    assert len(EXPECTED_ALL) <= 30, "the root stays small: group names in a public submodule"
    for name in EXPECTED_ALL:
        assert hasattr(langchain_perplexity_strict, name), name


def test_the_public_submodules_are_pinned() -> None:
    """The normalizer's public names (the rules and what a rule of your own uses) and the errors."""
    assert sorted(langchain_perplexity_strict.normalize.__all__) == sorted(EXPECTED_NORMALIZE_ALL)
    assert len(EXPECTED_NORMALIZE_ALL) <= 12
    for name in EXPECTED_NORMALIZE_ALL:
        assert hasattr(langchain_perplexity_strict.normalize, name), name
    errors = langchain_perplexity_strict.errors
    assert sorted(n for n in vars(errors) if n.startswith("Perplexity")) == EXPECTED_ERRORS_ALL
    assert sorted(errors.__all__) == EXPECTED_ERRORS_ALL


def test_testing_api_is_pinned() -> None:
    expected = ["ConversationRules", "Fault", "ManualClock", "PerplexityEmulator", "RecordedRequest"]
    assert sorted(langchain_perplexity_strict.testing.__all__) == expected


FRESH_PROCESS = """
import sys

import subprocess
import sys

import pytest

import langchain_perplexity_strict
from langchain_perplexity_strict import cli, testing
from langchain_perplexity_strict.cli import _emulator_process

cli.build_parser().parse_args(["emulator", "--background", "--env"])
heavy = ("langchain_core", "langchain", "openai", "langchain_openai")
loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
assert not loaded, loaded[:5]
assert "langchain_perplexity_strict.chat_models" not in sys.modules

from langchain.chat_models import init_chat_model
from langchain_core.messages import AIMessage

model = init_chat_model("perplexity_strict:perplexity/sonar", api_key="pplx-test")
assert type(model).__name__ == "ChatPerplexityStrict", model
answer = AIMessage("Blue [1].", additional_kwargs={"citations": ["https://a.example"]},
                   response_metadata={"model_provider": "perplexity"})
assert answer.content_blocks[0]["annotations"][0]["url"] == "https://a.example", answer.content_blocks
print("ok")
"""


def test_the_import_is_light_and_still_registers_with_langchain() -> None:
    """A fresh interpreter (what a serverless cold start or the `perplexity-strict emulator` process runs):
    `import langchain_perplexity_strict`, the CLI's parser and the emulator load neither LangChain nor openai;
    the public names load on first use (test_all_is_pinned), and once LangChain's modules are imported,
    `init_chat_model("perplexity_strict:...")` and an answer's `content_blocks` work as they did when the
    import registered them at once (registration.register_when_imported)."""
    result = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


# langchain-perplexity 1.4.2's `__all__` (`pip download --no-deps langchain-perplexity`): a switched import.
LANGCHAIN_PERPLEXITY_ALL = (
    "ChatPerplexity",
    "PerplexityEmbeddings",
    "PerplexitySearchRetriever",
    "PerplexitySearchResults",
    "UserLocation",
    "WebSearchOptions",
    "MediaResponse",
    "MediaResponseOverrides",
    "ReasoningJsonOutputParser",
    "ReasoningStructuredOutputParser",
    "strip_think_tags",
)
WHAT_TO_USE = {"ChatPerplexity": "ChatPerplexityStrict", "WebSearchOptions": "search_context_size="}


@pytest.mark.parametrize("name", LANGCHAIN_PERPLEXITY_ALL)
def test_langchain_perplexitys_names_import_or_say_what_to_use(name: str) -> None:
    """`from langchain_perplexity_strict import ChatPerplexity` names `ChatPerplexityStrict`, not a bare failure."""
    if name in langchain_perplexity_strict.__all__ or name in langchain_perplexity_strict._DEPRECATED:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # a name kept for one release
            exec(f"from langchain_perplexity_strict import {name}", {})
        return
    with pytest.raises(ImportError) as info:
        exec(f"from langchain_perplexity_strict import {name}", {})
    message = str(info.value)
    assert f"{name} is langchain-perplexity's" in message
    assert WHAT_TO_USE.get(name, "") in message
    for suggested in ("ChatPerplexityStrict", "image_search_tool"):  # what it names exists
        assert suggested not in message or suggested in langchain_perplexity_strict.__all__


SWITCHED_MODULES = {
    "retrievers": ["PerplexitySearchRetriever"],
    "tools": ["PerplexitySearchResults"],
    "embeddings": ["PerplexityEmbeddings"],
    "types": ["UserLocation", "WebSearchOptions", "MediaResponse", "MediaResponseOverrides"],
    "output_parsers": ["ReasoningJsonOutputParser", "ReasoningStructuredOutputParser", "strip_think_tags"],
}


@pytest.mark.parametrize(("module", "names"), SWITCHED_MODULES.items())
def test_langchain_perplexitys_modules_say_what_to_use_for_each_name(module: str, names: list[str]) -> None:
    """`from langchain_perplexity_strict.retrievers import ...` (a find-and-replace switch) says, for each name
    of that module, an import that works or what to write instead."""
    with pytest.raises(ModuleNotFoundError) as info:
        exec(f"from langchain_perplexity_strict.{module} import {names[0]}", {})
    message = str(info.value)
    for name in names:
        assert f"{name}: " in message, name
        suggested = re.search(rf"{name}: from langchain_perplexity_strict import (\w+)", message)
        if suggested:  # the suggested import works as written
            exec(suggested.group(0).split(": ", 1)[1], {})


def test_a_switched_chat_models_import_names_chat_perplexity_strict() -> None:
    with pytest.raises(ImportError, match="ChatPerplexity is langchain-perplexity's: use ChatPerplexityStrict"):
        exec("from langchain_perplexity_strict.chat_models import ChatPerplexity", {})
    with pytest.raises(ModuleNotFoundError):  # other missing modules stay Python's own error
        exec("import langchain_perplexity_strict.no_such_module", {})
