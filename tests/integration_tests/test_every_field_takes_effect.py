"""Every field of every public class takes effect: set it, and the request, the answer or the behaviour changes.

Issue 26, class F: "a declared option that does not do what it says" (`PerplexitySearchResults(
response_format="content")` still returned `(content, artifact)`). The forms are the fields themselves,
each listed in `EFFECTS` as (class, field) with a check that fails if the field were accepted and ignored:

- `ChatPerplexityStrict`: every Perplexity parameter of `PARAMETERS` (its value at its published path in
  the body the emulator received, on each surface that has it), the client options (`stop`, `n`,
  `streaming`, `timeout`, `max_retries`, `raise_on_length`, `stream_usage`, `stream_chunk_timeout`,
  `max_resumes`, `model_kwargs`, `max_input_tokens`, `token_counter`, `use_previous_response_id`, `rules`),
  the connection (`model`, `api`, `api_key`, `base_url`) and langchain-core's fields (`cache`, `verbose`,
  `callbacks`, `tags`, `metadata`, `custom_get_token_ids`, `rate_limiter`, `disable_streaming`,
  `output_version`, `profile`, `name`);
- `PerplexitySearchRetriever` and `PerplexitySearchResults`: every Search API field, the connection, and
  `BaseRetriever`'s / `BaseTool`'s own (`return_direct`, `response_format`, `handle_tool_error`,
  `handle_validation_error`, `args_schema`, `name`, `description`, `extras`, ...);
- `PerplexityEmbeddings` and `PerplexityContextualizedEmbeddings`: `model`, `dimensions`,
  `encoding_format`, `chunk_size` and the connection;
- `PerplexityCostCallbackHandler` (`budget_usd`) and `get_perplexity_cost_callback` (`budget_usd`, `name`);
- `testing.PerplexityEmulator`: every constructor argument;
- the CLI: every flag of every command.

`test_the_table_lists_every_field` keeps the list whole: a new field without a check fails it.

Not a field but the same defect: `bind_tools(parallel_tool_calls=False)` (and per call) was accepted and dropped;
it is now refused (`test_parallel_tool_calls_false_is_refused_where_it_was_ignored`).
"""

from __future__ import annotations

import inspect

import pytest
from langchain_core.tools import tool

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityCostCallbackHandler,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
    get_perplexity_cost_callback,
)
from langchain_perplexity_strict.cli import build_parser
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests import field_effects_chat, field_effects_others
from tests.integration_tests.factory import make
from tests.integration_tests.field_effects import CLI, COST, COST_CONTEXT, EFFECTS, EMULATOR, sent

MODULES = (field_effects_chat, field_effects_others)  # importing them fills EFFECTS


# -- the table is whole, and each entry takes effect -------------------------------------------------------------


def _cli_flags() -> set[str]:
    """`--version`, and each command's arguments as `command --flag` (a command without any as its name)."""
    parser = build_parser()
    flags = {a.option_strings[0] for a in parser._actions if a.option_strings and a.dest != "help"}
    commands = next(a.choices for a in parser._actions if isinstance(a.choices, dict))
    for command, sub in commands.items():
        names = [a.option_strings[0] if a.option_strings else a.dest for a in sub._actions if a.dest != "help"]
        flags |= {f"{command} {name}" for name in names} if names else {command}
    return flags


def _fields() -> set[tuple[str, str]]:
    fields = {
        (cls.__name__, name)
        for cls in (
            ChatPerplexityStrict,
            PerplexitySearchRetriever,
            PerplexitySearchResults,
            PerplexityEmbeddings,
            PerplexityContextualizedEmbeddings,
        )
        for name in cls.model_fields
    }
    fields |= {(COST, n) for n in inspect.signature(PerplexityCostCallbackHandler).parameters}
    fields |= {(COST_CONTEXT, n) for n in inspect.signature(get_perplexity_cost_callback).parameters}
    fields |= {(EMULATOR, n) for n in inspect.signature(PerplexityEmulator).parameters}
    fields |= {(CLI, flag) for flag in _cli_flags()}
    return fields


def test_the_table_lists_every_field() -> None:
    """Every field of every public class, every emulator argument and every CLI flag has its check."""
    assert _fields() - set(EFFECTS) == set()
    assert set(EFFECTS) - _fields() == set()


@pytest.mark.parametrize(("owner", "field"), sorted(EFFECTS), ids=[f"{o}.{f}" for o, f in sorted(EFFECTS)])
def test_each_field_takes_effect(emu: PerplexityEmulator, owner: str, field: str, quick_client_retries: None) -> None:
    EFFECTS[(owner, field)](emu)


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}."


def test_parallel_tool_calls_false_is_refused_where_it_was_ignored(emu: PerplexityEmulator) -> None:
    """`bind_tools(parallel_tool_calls=False)` and the per-call argument were dropped: the published Agent API has
    no such field, and its model may still call several tools. True or None (what happens anyway) are accepted."""
    model = make(emu)
    for refused in (
        lambda: model.bind_tools([weather], parallel_tool_calls=False),
        lambda: model.bind_tools([weather]).invoke("hi", parallel_tool_calls=False),
        lambda: model.bind(parallel_tool_calls=False).invoke("hi"),
    ):
        with pytest.raises(ValueError, match="parallel_tool_calls=False"):
            refused()
    assert not emu.requests
    model.bind_tools([weather], parallel_tool_calls=True).invoke("hi")
    assert "parallel_tool_calls" not in sent(emu)
