"""Bad input: a clear error before any request is sent, and the caller's objects unchanged."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make


@pytest.mark.parametrize(
    ("api", "params", "fragment"),
    [
        ("agent", {"temperature": 2.5}, "temperature=2.5 is not accepted on api='agent'"),
        ("chat_completions", {"temperature": 2}, "temperature=2 is not accepted on api='chat_completions'"),
        ("agent", {"top_p": -0.1}, "top_p=-0.1"),
        ("agent", {"max_tokens": 0}, "max_tokens=0"),
        ("agent", {"max_steps": 0}, "max_steps=0"),
        ("agent", {"top_k": 5}, "top_k=5 is not available on api='agent'"),
        ("agent", {"presence_penalty": 1}, "it was removed from the Agent API"),
        ("chat_completions", {"preset": "fast"}, "preset='fast' is not available on api='chat_completions'"),
        ("chat_completions", {"top_k": 2049}, "[0, 2048]"),
        (
            "chat_completions",
            {"top_k": 1.5},
            "top_k=1.5 is not accepted on api='chat_completions': expected an integer",
        ),
        ("chat_completions", {"presence_penalty": 3}, "presence_penalty=3"),
        ("chat_completions", {"frequency_penalty": 0}, "frequency_penalty=0"),
        ("chat_completions", {"presence_penalty": 1, "frequency_penalty": 1.2}, "one or the other"),
        ("agent", {"search_domain_filter": ["https://a.com"]}, "without a scheme"),
        ("agent", {"search_domain_filter": ["a.com", "-b.com"]}, "all allowed or all denied"),
        ("agent", {"search_domain_filter": [f"d{i}.com" for i in range(21)]}, "at most 20"),
        ("agent", {"search_recency_filter": "day", "search_after_date_filter": "01/01/2025"}, "not both"),
        ("agent", {"search_after_date_filter": "2025-01-01"}, "MM/DD/YYYY"),
        ("agent", {"reasoning_effort": "huge"}, "reasoning_effort='huge'"),
        ("agent", {"preset": ""}, "preset=''"),
        ("agent", {"reasoning_effort": "max"}, "reasoning_effort='max'"),  # not in ReasoningConfigInput
        ("agent", {"models": ["a/b"] * 6}, "models="),
        ("agent", {"max_resumes": None}, "max_resumes=None is not accepted on api='agent'"),
        ("agent", {"n": "2"}, "n='2' is not accepted on api='agent'"),  # taken as given, not coerced to 2
        ("agent", {"n": True}, "n=True is not accepted"),
        ("agent", {"n": None}, "n=None is not accepted"),
    ],
)
def test_bad_parameters_at_construction(
    emu: PerplexityEmulator, api: str, params: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ValueError) as info:
        make(emu, api, **params)
    assert fragment in str(info.value)
    assert emu.requests == []


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"temperature": 3}, "temperature=3"),
        ({"top_k": 3}, "top_k=3 is not available on api='agent'"),
        ({"logit_bias": {"1": 2}}, "logit_bias"),
        ({"seed": 1}, "seed=1"),
        ({"bogus": 1}, "bogus=1 is not a parameter"),
        # None where the setting has no None (it would silently mean 0 or off)
        ({"max_resumes": None}, "max_resumes=None is not accepted on api='agent': expected an integer >= 0"),
        ({"n": None}, "n=None is not accepted on api='agent': expected an integer >= 1"),
        ({"use_previous_response_id": None}, "use_previous_response_id=None is not accepted"),
    ],
)
@pytest.mark.parametrize("mode", ["invoke", "stream"])
def test_bad_parameters_at_call_time(emu: PerplexityEmulator, kwargs: dict[str, Any], fragment: str, mode: str) -> None:
    llm = make(emu)
    with pytest.raises(ValueError, match=fragment.replace("[", r"\[").replace("(", r"\(")):
        if mode == "invoke":
            llm.invoke("x", **kwargs)
        else:
            list(llm.stream("x", **kwargs))
    assert emu.requests == []


@pytest.mark.parametrize(
    ("messages", "fragment"),
    [
        ([], "empty"),
        ([SystemMessage("only")], "nothing but system"),
        ([HumanMessage("a"), ChatMessage(role="narrator", content="x")], "unknown role 'narrator'"),
        # A block Perplexity cannot take is left out; a message left empty is not sent, and the
        # error says why nothing is left.
        ([HumanMessage([{"type": "file", "file_id": "f1"}])], "'file' left out"),
        ([HumanMessage("x" * (33 * 1024 * 1024))], "32 MiB"),
    ],
)
@pytest.mark.parametrize("api", ["agent", "chat_completions"])
def test_bad_conversations(emu: PerplexityEmulator, messages: list[Any], fragment: str, api: str) -> None:
    before = copy.deepcopy(messages)
    with pytest.raises(ValueError, match=fragment):
        make(emu, api, max_input_tokens=0).invoke(messages)  # compaction off: these are the checks after it
    assert messages == before
    assert emu.requests == []


def test_a_video_alone_is_refused_on_the_agent_api(emu: PerplexityEmulator) -> None:
    """The Agent API has no video part (chat completions take `video_url`, issue 18)."""
    messages = [HumanMessage([{"type": "video_url", "video_url": {"url": "https://v"}}])]
    with pytest.raises(ValueError, match="video_url"):
        make(emu, "agent", max_input_tokens=0).invoke(messages)
    assert emu.requests == []


def test_a_newest_turn_over_the_context_window_is_refused(emu: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match="max_input_tokens=127072: the system instructions and the newest user turn"):
        make(emu).invoke([HumanMessage("x" * 600_000)])
    assert emu.requests == []


def test_reserved_tool_name(emu: PerplexityEmulator) -> None:
    @tool
    def fetch_url(url: str) -> str:
        """Fetch."""
        return url

    with pytest.raises(ValueError, match="reserved"):
        make(emu).bind_tools([fetch_url]).invoke("x")
    assert emu.requests == []


def test_n_cannot_be_streamed(emu: PerplexityEmulator) -> None:
    with pytest.raises(ValueError, match="n=2 cannot be streamed"):
        list(make(emu, n=2).stream("x"))
    assert emu.requests == []


def test_missing_key_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="PPLX_API_KEY nor PERPLEXITY_API_KEY"):
        ChatPerplexityStrict()


def test_callers_tool_messages_are_unchanged(emu: PerplexityEmulator) -> None:
    history = [
        HumanMessage("a"),
        AIMessage("", tool_calls=[{"name": "t", "args": {"x": [1]}, "id": "c1"}]),
    ]
    before = copy.deepcopy(history)
    make(emu).invoke(history)
    assert history == before


@pytest.mark.parametrize("api", ["agent", "chat_completions"])
def test_a_number_json_cannot_carry_is_refused(emu: PerplexityEmulator, api: str) -> None:
    extra = {"step_budget_reminder" if api == "agent" else "safe_search": float("nan")}  # published, no parameter
    with pytest.raises(ValueError, match=r"request body: .*NaN and infinite numbers are not JSON"):
        make(emu, api, model_kwargs=extra).invoke("x")
    assert emu.requests == []
