"""Two models whose settings change what is sent, or how the answer is read, never share a cache entry.

langchain-core's LLM cache (`set_llm_cache`, `InMemoryCache`, a model's `cache=`) keys an answer by the
prompt (the caller's messages, before normalization) and `_get_llm_string`, which langchain-core builds
from the model's dump (leaving out excluded fields, and kept from the model's first call) and the
call's arguments. The forms:

- every field of `ChatPerplexityStrict` (`FIELDS` below must name each): the Perplexity parameters, the
  client options (`stop`, `n`, `streaming`, `stream_usage`, `stream_chunk_timeout`, `max_resumes`,
  `raise_on_length`, `output_version`, `use_previous_response_id`, `timeout`, `max_retries`), the
  surface (`model`, `api`, `base_url`, `model_kwargs`), compaction (`max_input_tokens`, `profile`,
  `token_counter`, `custom_get_token_ids`) and the normalizer's `rules` (a redaction rule);
- a field set by assignment after the model's first call;
- bound arguments: tools, `tool_choice`, a structured output's schema (two classes of one name);
- the same key for two identical models, one of them used (its private transport and once-warnings set),
  with or without a cost budget (a callback: it changes nothing that is sent), and for two keys (the
  answer is the same for every account);
- end to end, sync and async, with `InMemoryCache`: the model with an extra redaction rule sends its own
  (redacted) request instead of returning the other model's cached answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict, PerplexityCostCallbackHandler
from langchain_perplexity_strict.normalize import DEFAULT_RULES, Change, Entry
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY
from tests.integration_tests.test_contract import AGENT_VALUES, CHAT_VALUES


class Redact:
    """A rule that hides a word in every message (a caller's extra rule)."""

    name = "redact"

    def __call__(self, entries: Sequence[Entry]) -> tuple[list[Entry], list[Change]]:
        out = [
            e._replace(message=e.message.model_copy(update={"content": self._hide(e.message.content)})) for e in entries
        ]
        return out, []

    @staticmethod
    def _hide(content: Any) -> Any:
        return content.replace("Alice", "[name]") if isinstance(content, str) else content


def _count(text: str) -> int:
    return len(text)


NOT_SENT = {"api_key", "cache", "callbacks", "verbose", "tags", "metadata", "rate_limiter", "name", "disable_streaming"}
"""Fields that change neither the request nor its reading."""
FIELDS: dict[str, Any] = {
    **{n: v for n, v in AGENT_VALUES.items() if n not in ("n", "disable_search", "web_search", "preset")},
    "preset": "pro-search",
    "web_search": False,
    "disable_search": True,
    "n": 2,
    "model": "openai/gpt-5.1",
    "base_url": "http://127.0.0.1:10",
    "model_kwargs": {"step_budget_reminder": True},
    "streaming": True,
    "timeout": 5.0,
    "max_retries": 0,
    "raise_on_length": True,
    "output_version": "v1",
    "max_input_tokens": 100,
    "profile": {"max_input_tokens": 50},
    "token_counter": _count,
    "custom_get_token_ids": lambda text: [1],
    "rules": (*DEFAULT_RULES, Redact()),
}
CHAT_ONLY = {**{n: v for n, v in CHAT_VALUES.items() if n not in AGENT_VALUES}, "frequency_penalty": 0.5}
BASE = {"api_key": KEY, "base_url": "http://127.0.0.1:9"}


def _key(model: Any, **kwargs: Any) -> str:
    return model._get_llm_string(**kwargs)


def test_every_field_is_tried() -> None:
    assert set(ChatPerplexityStrict.model_fields) == set(FIELDS) | set(CHAT_ONLY) | {"api"} | NOT_SENT


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_a_model_differing_in_one_field_has_another_key(name: str) -> None:
    one = ChatPerplexityStrict(**BASE)  # type: ignore[arg-type]
    other = ChatPerplexityStrict(**{**BASE, name: FIELDS[name]})  # type: ignore[arg-type]
    assert _key(one) != _key(other)
    assert _key(other) == _key(ChatPerplexityStrict(**{**BASE, name: FIELDS[name]}))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted([*CHAT_ONLY, "api"]))
def test_a_chat_completions_model_differing_in_one_field_has_another_key(name: str) -> None:
    chat = {**BASE, "api": "chat_completions", "model": "sonar"}
    other = {**chat, name: CHAT_ONLY.get(name, "agent")}
    if name == "api":
        other.pop("model")
    assert _key(ChatPerplexityStrict(**chat)) != _key(ChatPerplexityStrict(**other))  # type: ignore[arg-type]


def test_a_field_set_after_the_first_call_changes_the_key(emu: PerplexityEmulator) -> None:
    model = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, cache=InMemoryCache())
    model.invoke("hi")
    before = _key(model)
    model.search_domain_filter = ["nature.com"]
    assert _key(model) != before


class Answer(BaseModel):
    """An answer."""

    text: str


def _other_answer() -> type[BaseModel]:
    class Answer(BaseModel):  # the same name, another schema
        """An answer."""

        score: int

    return Answer


def test_bound_arguments_are_in_the_key() -> None:
    model = ChatPerplexityStrict(**BASE)  # type: ignore[arg-type]
    pairs = {
        "tools": ({"tools": [{"type": "fetch_url"}]}, {"tools": [{"type": "image_search"}]}),
        "tool_choice": ({"tool_choice": "auto"}, {"tool_choice": "required"}),
        "schema": ({"response_format": Answer}, {"response_format": _other_answer()}),
    }
    for way, (one, other) in pairs.items():
        assert _key(model, **one) != _key(model, **other), way
        assert _key(model, **one) == _key(model, **dict(one)), way


def test_identical_models_share_a_key(emu: PerplexityEmulator) -> None:
    used = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, search_domain_filter=["nature.com"])
    used.invoke("hi")  # its transport built, its once-warnings set
    budget = PerplexityCostCallbackHandler(budget_usd=1.0)
    others = {
        "new": ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, search_domain_filter=["nature.com"]),
        "budget": ChatPerplexityStrict(
            api_key=KEY, base_url=emu.base_url, search_domain_filter=["nature.com"], callbacks=[budget]
        ),
        "another key": ChatPerplexityStrict(
            api_key="pplx-other", base_url=emu.base_url, search_domain_filter=["nature.com"]
        ),
    }
    for way, other in others.items():
        assert _key(other) == _key(used), way


QUESTION = [HumanMessage("Where does Alice live?")]


def _creates(emu: PerplexityEmulator) -> list[dict[str, Any]]:
    return [r.body for r in emu.requests if r.kind == "create"]


def test_a_model_with_a_redaction_rule_does_not_get_the_others_cached_answer(emu: PerplexityEmulator) -> None:
    cache = InMemoryCache()
    plain = ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, cache=cache)
    redacting = plain.model_copy(update={"rules": (*DEFAULT_RULES, Redact())})
    emu.clear()
    plain.invoke(QUESTION)
    plain.invoke(QUESTION)  # a cache hit: one request
    assert len(_creates(emu)) == 1
    redacting.invoke(QUESTION)
    asyncio.run(redacting.ainvoke(QUESTION))  # its own entry, sync or async
    sent = _creates(emu)
    assert len(sent) == 2 and "Alice" not in str(sent[1]["input"]) and "[name]" in str(sent[1]["input"])
