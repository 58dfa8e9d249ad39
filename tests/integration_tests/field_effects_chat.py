"""`ChatPerplexityStrict`'s fields, each with the check that it takes effect (see test_every_field_takes_effect)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.rate_limiters import InMemoryRateLimiter
from langchain_core.tracers.context import collect_runs

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.errors import PerplexityIncompleteError, PerplexityResumeError
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests.integration_tests.factory import KEY, make
from tests.integration_tests.field_effects import (
    CHAT,
    EFFECTS,
    WS,
    Check,
    at,
    effect,
    sent,
)

# -- ChatPerplexityStrict: Perplexity's parameters, each where the published schema puts it -------------------

AGENT_SENT: dict[str, Any] = {
    "temperature": 0.5,
    "top_p": 0.9,
    "max_tokens": 100,
    "reasoning_effort": "low",
    "language_preference": "fr",
    "search_domain_filter": ["nature.com"],
    "search_recency_filter": "week",
    "search_context_size": "high",
    "search_type": "fast",
    "user_location": {"country": "FR"},
    "search_max_tokens": 1000,
    "search_max_tokens_per_page": 200,
    "preset": "low",
    "effort": "medium",
    "models": ["perplexity/sonar", "openai/gpt-5.1"],
    "max_steps": 5,
    "instructions": "Be brief.",
    "store": True,
    "prompt_cache_key": "k1",
    "service_tier": "flex",
    "search_after_date_filter": "01/31/2025",
    "search_before_date_filter": "12/31/2025",
    "last_updated_after_filter": "01/01/2025",
    "last_updated_before_filter": "12/01/2025",
    "skills": [{"type": "builtin", "name": "office"}],
}
CHAT_SENT: dict[str, Any] = {
    "top_k": 5,
    "presence_penalty": 0.5,
    "search_mode": "academic",
    "return_images": True,
    "return_related_questions": True,
    "disable_search": True,
    "enable_search_classifier": True,
}


# Where `ResponsesRequestInput` (and its `web_search` tool) puts a field not sent under its own name.
AGENT_PATHS = {
    "max_tokens": "max_output_tokens",
    "reasoning_effort": "reasoning.effort",
    "user_location": WS + "user_location",
    "search_context_size": WS + "search_context_size",
    "search_type": WS + "search_type",
    "search_max_tokens": WS + "max_tokens",
    "search_max_tokens_per_page": WS + "max_tokens_per_page",
    **{
        f: WS + "filters." + f
        for f in (
            "search_domain_filter",
            "search_recency_filter",
            "search_after_date_filter",
            "search_before_date_filter",
            "last_updated_after_filter",
            "last_updated_before_filter",
        )
    },
}


def _sent_at_its_path(name: str, value: Any, api: str) -> Check:
    def check(emu: PerplexityEmulator) -> None:
        extra = {"model": "sonar"} if api == "chat_completions" else {}
        make(emu, api, **extra, **{name: value}).invoke("hi")
        path = AGENT_PATHS.get(name, name) if api == "agent" else name
        assert at(sent(emu), path) == value

    return check


for _name, _value in AGENT_SENT.items():
    EFFECTS[(CHAT, _name)] = _sent_at_its_path(_name, _value, "agent")
for _name, _value in CHAT_SENT.items():
    EFFECTS[(CHAT, _name)] = _sent_at_its_path(_name, _value, "chat_completions")


@effect(CHAT, "image_results_enhanced_relevance")
def _image_results_enhanced_relevance(emu: PerplexityEmulator) -> None:
    make(emu, "chat_completions", model="sonar", image_results_enhanced_relevance=True).invoke("hi")
    assert sent(emu)["web_search_options"] == {"image_results_enhanced_relevance": True}


@effect(CHAT, "frequency_penalty")
def _frequency_penalty(emu: PerplexityEmulator) -> None:
    make(emu, "chat_completions", model="sonar", frequency_penalty=1.5).invoke("hi")
    assert sent(emu)["frequency_penalty"] == 1.5


@effect(CHAT, "web_search")
def _web_search(emu: PerplexityEmulator) -> None:
    make(emu).invoke("hi")
    assert any(t.get("type") == "web_search" for t in sent(emu).get("tools", []))
    make(emu, web_search=False).invoke("hi")
    assert not any(t.get("type") == "web_search" for t in sent(emu).get("tools", []))


@effect(CHAT, "background")
def _background(emu: PerplexityEmulator) -> None:
    make(emu, background=True).invoke("hi")
    assert sent(emu, "create")["background"] is True and "retrieve" in [r.kind for r in emu.requests]


# -- ChatPerplexityStrict: the client's own options ----------------------------------------------------------------


@effect(CHAT, "stop")
def _stop(emu: PerplexityEmulator) -> None:
    assert "agree" in str(make(emu).invoke("hi").content)
    assert str(make(emu, stop=["agree"]).invoke("hi").content) == "On hi: the sources found "
    assert "stop" not in sent(emu)


@effect(CHAT, "n")
def _n(emu: PerplexityEmulator) -> None:
    result = make(emu, n=2).generate([[HumanMessage("hi")]])
    assert len(result.generations[0]) == 2 and [r.kind for r in emu.requests] == ["create", "create"]


@effect(CHAT, "streaming")
def _streaming(emu: PerplexityEmulator) -> None:
    make(emu, streaming=True).invoke("hi")
    assert sent(emu)["stream"] is True


@effect(CHAT, "timeout")
def _timeout(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("hold"))  # not answered before the test ends (`clear` lets it go): only the timeout ends it
    with pytest.raises(Exception, match=r"(?i)time"):
        make(emu, timeout=0.1, max_retries=0).invoke("hi")
    assert emu.wait_holding(1)  # read and held, not read late into the next test's log


@effect(CHAT, "max_retries")
def _max_retries(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("server_error", status=503))
    with pytest.raises(Exception, match="503"):
        make(emu, max_retries=0).invoke("hi")
    emu.clear()
    emu.inject(Fault("server_error", status=503))
    make(emu, max_retries=1).invoke("hi")
    assert [r.kind for r in emu.requests] == ["create", "create"]


@effect(CHAT, "raise_on_length")
def _raise_on_length(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("incomplete"))
    assert make(emu).invoke("hi").response_metadata["finish_reason"] == "length"
    emu.inject(Fault("incomplete"))
    with pytest.raises(PerplexityIncompleteError):
        make(emu, raise_on_length=True).invoke("hi")


@effect(CHAT, "stream_usage")
def _stream_usage(emu: PerplexityEmulator) -> None:
    assert any(c.usage_metadata for c in make(emu).stream("hi"))
    assert not any(c.usage_metadata for c in make(emu, stream_usage=False).stream("hi"))
    assert not any(c.usage_metadata for c in make(emu).stream("hi", stream_usage=False))
    assert make(emu, stream_usage=False).invoke("hi").usage_metadata  # only a stream's chunks go without


@effect(CHAT, "stream_chunk_timeout")
def _stream_chunk_timeout(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("stall", seconds=2.0, after_events=1))  # the stall follows the first event, sent with the head
    chunks = list(make(emu, background=True, stream_chunk_timeout=0.2).stream("hi"))
    assert chunks[-1].response_metadata["resumes"][0]["reason"] == "stall"


@effect(CHAT, "max_resumes")
def _max_resumes(emu: PerplexityEmulator) -> None:
    emu.inject(Fault("reset", after_events=3))
    assert "".join(c.text for c in make(emu).stream("hi"))  # resumed (the default allows 5)
    emu.clear()
    emu.inject(Fault("reset", after_events=3))
    with pytest.raises(PerplexityResumeError):
        list(make(emu, max_resumes=0).stream("hi"))


@effect(CHAT, "model_kwargs")
def _model_kwargs(emu: PerplexityEmulator) -> None:
    # A published field with no parameter of its own (a parameter's field in model_kwargs is refused).
    make(emu, model_kwargs={"step_budget_reminder": True}).invoke("hi")
    assert sent(emu)["step_budget_reminder"] is True


LONG_HISTORY = [HumanMessage("old " * 400), AIMessage("noted"), HumanMessage("hi")]


@effect(CHAT, "max_input_tokens")
def _max_input_tokens(emu: PerplexityEmulator) -> None:
    make(emu).invoke(LONG_HISTORY)
    assert "old old" in json.dumps(sent(emu)["input"])
    with pytest.warns(UserWarning, match="compact"):
        message = make(emu, max_input_tokens=50).invoke(LONG_HISTORY)
    assert "old old" not in json.dumps(sent(emu)["input"]) and message.response_metadata["compaction"]


@effect(CHAT, "token_counter")
def _token_counter(emu: PerplexityEmulator) -> None:
    history = [HumanMessage("a"), AIMessage("b"), HumanMessage("hi")]
    with pytest.warns(UserWarning, match="compact"):
        make(emu, max_input_tokens=150, token_counter=lambda text: 100).invoke(history)
    assert len(sent(emu)["input"]) == 1
    assert make(emu, token_counter=lambda text: 7).get_num_tokens("anything") == 7


@effect(CHAT, "custom_get_token_ids")
def _custom_get_token_ids(emu: PerplexityEmulator) -> None:
    model = make(emu, custom_get_token_ids=lambda text: [0] * 100, max_input_tokens=150)
    assert model.get_num_tokens("anything") == 100
    with pytest.warns(UserWarning, match="compact"):
        model.invoke([HumanMessage("a"), AIMessage("b"), HumanMessage("hi")])
    assert len(sent(emu)["input"]) == 1


@effect(CHAT, "use_previous_response_id")
def _use_previous_response_id(emu: PerplexityEmulator) -> None:
    model = make(emu, use_previous_response_id=True)
    first = model.invoke("hi")
    model.invoke([HumanMessage("hi"), first, HumanMessage("and then?")])
    assert sent(emu)["previous_response_id"] == first.response_metadata["id"]


@effect(CHAT, "rules")
def _rules(emu: PerplexityEmulator) -> None:
    history = [HumanMessage("one"), HumanMessage("two")]
    make(emu).invoke(history)
    assert len(sent(emu)["input"]) == 1  # the default rules merge two user turns
    with pytest.raises(Exception, match="should alternate"):  # no rules: sent as given, which Perplexity refuses
        make(emu, rules=[], max_retries=0).invoke(history)
    assert len(sent(emu)["input"]) == 2


@effect(CHAT, "model")
def _model(emu: PerplexityEmulator) -> None:
    make(emu, model="openai/gpt-5.1").invoke("hi")
    assert sent(emu)["model"] == "openai/gpt-5.1"


@effect(CHAT, "api")
def _api(emu: PerplexityEmulator) -> None:
    make(emu, "chat_completions").invoke("hi")
    assert emu.requests[-1].path == "/chat/completions"


@effect(CHAT, "api_key")
def _api_key(emu: PerplexityEmulator) -> None:
    make(emu).invoke("hi")
    assert {k.lower(): v for k, v in emu.requests[-1].headers.items()}["authorization"] == f"Bearer {KEY}"  # any case
    with pytest.raises(Exception, match="401"):
        ChatPerplexityStrict(api_key="wrong-key", base_url=emu.base_url, max_retries=0).invoke("hi")  # type: ignore[arg-type]


@effect(CHAT, "base_url")
def _base_url(emu: PerplexityEmulator) -> None:
    with PerplexityEmulator(api_key=KEY) as other:
        make(other).invoke("hi")
        assert len(other.requests) == 1 and not emu.requests


@effect(CHAT, "cache")
def _cache(emu: PerplexityEmulator) -> None:
    model = make(emu, cache=InMemoryCache())
    assert model.invoke("hi").content == model.invoke("hi").content
    assert len(emu.requests) == 1


class _Events(BaseCallbackHandler):
    def __init__(self) -> None:
        self.starts: list[dict[str, Any]] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.starts.append(kwargs)


@effect(CHAT, "callbacks", "tags", "metadata")
def _callbacks_tags_metadata(emu: PerplexityEmulator) -> None:
    events = _Events()
    make(emu, callbacks=[events], tags=["mine"], metadata={"team": "a"}).invoke("hi")
    assert len(events.starts) == 1
    assert events.starts[0]["tags"] == ["mine"] and events.starts[0]["metadata"]["team"] == "a"


@effect(CHAT, "verbose")
def _verbose(emu: PerplexityEmulator) -> None:
    """langchain-core's `verbose` adds its stdout handler to the model's runs (which prints a chain's steps;
    langchain-core gives it nothing to print for a model's own events): counted as it is made."""
    from langchain_core.callbacks import StdOutCallbackHandler

    made: list[object] = []

    class Counting(StdOutCallbackHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(self)
            super().__init__(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("langchain_core.callbacks.manager.StdOutCallbackHandler", Counting)
        make(emu).invoke("hi")
        assert not made
        make(emu, verbose=True).invoke("hi")
        assert made


@effect(CHAT, "rate_limiter")
def _rate_limiter(emu: PerplexityEmulator) -> None:
    class Counting(InMemoryRateLimiter):
        calls = 0

        def acquire(self, *, blocking: bool = True) -> bool:
            type(self).calls += 1
            return True

    make(emu, rate_limiter=Counting()).invoke("hi")
    assert Counting.calls == 1


@effect(CHAT, "disable_streaming")
def _disable_streaming(emu: PerplexityEmulator) -> None:
    chunks = list(make(emu, disable_streaming=True).stream("hi"))
    assert len(chunks) == 1 and sent(emu).get("stream") is not True


@effect(CHAT, "output_version")
def _output_version(emu: PerplexityEmulator) -> None:
    assert isinstance(make(emu).invoke("hi").content, str)
    assert isinstance(make(emu, output_version="v1").invoke("hi").content, list)


@effect(CHAT, "profile")
def _profile(emu: PerplexityEmulator) -> None:
    with pytest.warns(UserWarning, match="compact"):
        make(emu, profile={"max_input_tokens": 50}).invoke(LONG_HISTORY)
    assert "old old" not in json.dumps(sent(emu)["input"])


@effect(CHAT, "name")
def _name(emu: PerplexityEmulator) -> None:
    with collect_runs() as runs:
        make(emu, name="researcher").invoke("hi")
    assert [run.name for run in runs.traced_runs] == ["researcher"]
