"""Classes P and F: `model.profile` says what the package sends and Perplexity answers; an application's
profile is what every setting read from a profile obeys.

Class P, profile key x surface x model (every model the emulator serves, and an effort level's own model, on
`api="agent"` and `api="chat_completions"`; an Agent API slug chat completions refuse has no profile):
- `image_inputs` (a base64 image), `image_url_inputs` (an image by URL), `pdf_inputs` (a PDF file block),
  `video_inputs`, `audio_inputs` in a user turn; `image_tool_message`, `pdf_tool_message` in a tool result:
  True <=> the block is in the body (valid against Perplexity's published schema) and answered; False <=> it
  is left out (or named in the tool result's text) before sending, and the normalizer's report says so;
- `tool_calling`, `tool_choice`: True <=> a bound function and a forced choice are sent and answered with a
  tool call; False <=> refused before sending;
- `structured_output`: True <=> `json_schema` is sent and the answer parsed;
- `reasoning_output` (True): a stream with a reasoning effort returns reasoning;
- `max_output_tokens`: what an `anthropic/*` model sends when none is set; `max_input_tokens`: the
  compaction budget (a history past it is compacted before sending);
- `mid_conversation_system_messages` (False): a late system message is not sent where it sits;
- a Sonar name on the Agent API has the profile of the model it maps to (`sonar` -> `perplexity/sonar`;
  `sonar-pro` -> an effort level, whose model Perplexity picks: no limits), and `effort=` likewise.

Class F, each place a profile is read x each way a profile arrives:
- readers: the compaction budget, the default `max_output_tokens`, function tools (call-time `tools=`),
  the content refused (PDF, image, a tool result's image), late system messages, `with_structured_output`'s
  default method, and `model.profile` itself (what LangChain's agents and middleware read);
- ways: the constructor, `model_copy(update=)`, `configurable_fields(profile=...)` with a config,
  `init_chat_model(..., profile=...)`, and `init_chat_model` configurable per call;
- a derived profile follows the model: `model_copy` / `configurable_fields` to another model or API, and a
  call's `model=`, read the profile of the model the request names.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from langchain.chat_models import init_chat_model
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import ConfigurableField
from pydantic import BaseModel

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator
from langchain_perplexity_strict.testing.agent_api import AGENT_MODELS
from langchain_perplexity_strict.testing.chat_completions import SONAR_MODELS
from tests import published_schema
from tests.integration_tests.factory import KEY, make

pytestmark = [
    pytest.mark.filterwarnings("ignore:The newest user message lost content block:UserWarning"),
    pytest.mark.filterwarnings("ignore:The newest tool result lost its:UserWarning"),
    pytest.mark.filterwarnings("ignore:model .* is a Sonar chat-completions name:UserWarning"),
    pytest.mark.filterwarnings("ignore:model .* is an Agent API name:UserWarning"),
    pytest.mark.filterwarnings("ignore:ChatPerplexityStrict compacted the conversation:UserWarning"),
]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


PNG = _b64(b"\x89PNG\r\n\x1a\n-profile-image")
PDF = _b64(b"%PDF-1.4 profile-pdf")
WAV = _b64(b"RIFF-profile-audio")
IMAGE_URL = "https://example.com/profile-cat.png"
VIDEO_URL = "https://example.com/profile-clip.mp4"

# Profile key -> (a content block of that kind, the text only its part in the body carries).
BLOCKS: dict[str, tuple[dict[str, Any], str]] = {
    "image_inputs": ({"type": "image", "base64": PNG, "mime_type": "image/png"}, PNG),
    "image_url_inputs": ({"type": "image", "url": IMAGE_URL}, IMAGE_URL),
    "pdf_inputs": ({"type": "file", "base64": PDF, "mime_type": "application/pdf", "filename": "a.pdf"}, PDF),
    "video_inputs": ({"type": "video", "url": VIDEO_URL}, VIDEO_URL),
    "audio_inputs": ({"type": "audio", "base64": WAV, "mime_type": "audio/wav"}, WAV),
}
TOOL_BLOCKS = {"image_tool_message": BLOCKS["image_inputs"], "pdf_tool_message": BLOCKS["pdf_inputs"]}

# (api, model, extra settings): every model on both surfaces, and an effort level's model.
MODELS = sorted({*AGENT_MODELS, *SONAR_MODELS})  # every model the judge serves, on both surfaces
CASES = [(api, name, {}) for api in ("agent", "chat_completions") for name in MODELS]
CASES.append(("agent", "perplexity/sonar", {"effort": "low"}))


def _profile(case: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    api, name, extra = case
    return dict(ChatPerplexityStrict(model=name, api=api, api_key=KEY, **extra).profile or {})  # type: ignore[arg-type]


PROFILED = [c for c in CASES if _profile(c)]
IDS = [f"{api}-{name}{'-effort' if extra else ''}" for api, name, extra in PROFILED]
FUNCTION = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}


def _model(emu: PerplexityEmulator, case: tuple[str, str, dict[str, Any]], **kw: Any) -> ChatPerplexityStrict:
    api, name, extra = case
    return make(emu, api, model=name, **extra, **kw)


def _sent(emu: PerplexityEmulator) -> dict[str, Any]:
    """The one request the call sent, checked against Perplexity's published schema."""
    (request,) = [r for r in emu.requests if r.method == "POST"]
    (published_schema.agent_request if "input" in request.body else published_schema.chat_request)(request.body)
    return dict(request.body)


def _tool_round(block: dict[str, Any]) -> list[BaseMessage]:
    return [
        HumanMessage("Look it up."),
        AIMessage("", tool_calls=[{"name": "lookup", "args": {}, "id": "call_1"}]),
        ToolMessage([{"type": "text", "text": "found"}, block], tool_call_id="call_1"),
    ]


def _check_content(emu: PerplexityEmulator, model: ChatPerplexityStrict, key: str, history: list[Any]) -> None:
    """profile[key] True <=> the block is sent and answered; False <=> not sent, and the report says so."""
    marker = (BLOCKS | TOOL_BLOCKS)[key][1]
    report = model.normalize(history).report()
    answer = model.invoke(history)
    sent = marker in json.dumps(_sent(emu))
    assert isinstance(answer, AIMessage) and answer.content
    assert sent is bool(model.profile[key]), (key, model.profile[key], sent)
    assert sent or "left out" in report or "named in its text" in report or "dropped" in report, report


@pytest.mark.parametrize("key", sorted(BLOCKS))
@pytest.mark.parametrize("case", PROFILED, ids=IDS)
def test_a_user_turns_content_is_sent_exactly_when_the_profile_says(
    emu: PerplexityEmulator, case: Any, key: str
) -> None:
    block = BLOCKS[key][0]
    _check_content(emu, _model(emu, case), key, [HumanMessage([{"type": "text", "text": "What is it?"}, block])])


@pytest.mark.parametrize("key", sorted(TOOL_BLOCKS))
@pytest.mark.parametrize("case", PROFILED, ids=IDS)
def test_a_tool_results_content_is_sent_exactly_when_the_profile_says(
    emu: PerplexityEmulator, case: Any, key: str
) -> None:
    _check_content(emu, _model(emu, case), key, _tool_round(TOOL_BLOCKS[key][0]))


@pytest.mark.parametrize("case", PROFILED, ids=IDS)
def test_tools_are_sent_exactly_when_the_profile_says(emu: PerplexityEmulator, case: Any) -> None:
    model = _model(emu, case)
    profile = model.profile or {}
    if not profile["tool_calling"]:
        with pytest.raises(ValueError, match="function tools"):
            model.bind_tools([FUNCTION], tool_choice="lookup").invoke("Look it up.")
        assert not emu.requests  # refused before sending
        return
    answer = model.bind_tools([FUNCTION], tool_choice="lookup" if profile["tool_choice"] else None).invoke("Look!")
    body = _sent(emu)
    assert any(t.get("name") == "lookup" for t in body["tools"])
    assert ("tool_choice" in body) is profile["tool_choice"]
    assert isinstance(answer, AIMessage) and [c["name"] for c in answer.tool_calls] == ["lookup"]


class Answer(BaseModel):
    answer: str


@pytest.mark.parametrize("case", PROFILED, ids=IDS)
def test_structured_output_is_sent_and_parsed_when_the_profile_says(emu: PerplexityEmulator, case: Any) -> None:
    model = _model(emu, case)
    assert model.profile and model.profile["structured_output"] is True
    parsed = model.with_structured_output(Answer).invoke("Say hi.")
    assert isinstance(parsed, Answer)
    assert _sent(emu)["response_format"]["type"] == "json_schema"


@pytest.mark.parametrize("case", [c for c in PROFILED if _profile(c).get("reasoning_output")])
def test_a_reasoning_model_streams_its_reasoning(emu: PerplexityEmulator, case: Any) -> None:
    model = _model(emu, case, output_version="v1")
    assert model.profile and model.profile["reasoning_output"] is True
    chunks = list(model.stream("Why is the sky blue?", reasoning_effort="low"))
    assert any(b["type"] == "reasoning" for c in chunks for b in c.content_blocks)


@pytest.mark.parametrize("case", [c for c in PROFILED if c[0] == "agent"], ids=lambda c: f"{c[1]}-{bool(c[2])}")
def test_the_output_limit_sent_for_a_model_that_needs_one_is_the_profiles(emu: PerplexityEmulator, case: Any) -> None:
    model = _model(emu, case)
    model.invoke("Hi.")
    expected = (model.profile or {}).get("max_output_tokens", 8_192) if case[1].startswith("anthropic/") else None
    assert _sent(emu).get("max_output_tokens") == expected


def _counter(budget: int) -> Any:
    """A token counter by which each message of `_history` is 40% of `budget`."""
    return SimpleNamespace(encode=lambda text: range(len(text) * budget * 4 // 1000))


def _history() -> list[BaseMessage]:
    turns: list[BaseMessage] = []
    for i in range(4):
        turns += [HumanMessage(f"{i}" * 100), AIMessage(f"{i}" * 100)]
    return [*turns, HumanMessage("q" * 100)]


def _sent_turns(emu: PerplexityEmulator) -> int:
    body = _sent(emu)
    return len(body.get("input") or body.get("messages"))


@pytest.mark.parametrize("case", PROFILED, ids=IDS)
def test_a_history_past_the_profiles_input_limit_is_compacted(emu: PerplexityEmulator, case: Any) -> None:
    limit = (_model(emu, case).profile or {}).get("max_input_tokens")
    model = _model(emu, case, token_counter=_counter(limit or 100_000))
    model.invoke(_history())
    assert (_sent_turns(emu) < len(_history())) is (limit is not None)


@pytest.mark.parametrize("case", PROFILED, ids=IDS)
def test_a_late_system_message_is_not_sent_where_it_sits(emu: PerplexityEmulator, case: Any) -> None:
    model = _model(emu, case)
    assert model.profile and model.profile["mid_conversation_system_messages"] is False
    model.invoke([HumanMessage("Hi."), AIMessage("Hello."), SystemMessage("Be brief."), HumanMessage("Why?")])
    body = _sent(emu)
    roles = [m.get("role") for m in body.get("input") or body["messages"]]
    assert "system" not in roles[1:]


@pytest.mark.parametrize(
    ("api", "name", "served"),
    [
        ("agent", "sonar", "perplexity/sonar"),
        ("agent", "sonar-reasoning-pro", None),
        ("chat_completions", "perplexity/sonar", "sonar"),
        ("chat_completions", "sonar-pro", "sonar-pro"),
    ],
)
def test_a_mapped_name_has_the_profile_of_the_model_it_is_sent_as(
    emu: PerplexityEmulator, api: str, name: str, served: str | None
) -> None:
    model = make(emu, api, model=name)
    model.invoke("Hi.")
    body = _sent(emu)
    assert body.get("model") == served
    facts = (make(emu, api, model=served).profile or {}) if served else {}
    profile = model.profile or {}
    assert {k: profile.get(k) for k in ("max_input_tokens", "max_output_tokens")} == {
        k: facts.get(k) for k in ("max_input_tokens", "max_output_tokens")
    }
    assert profile["tool_calling"] is (api == "agent")


def test_a_model_chat_completions_refuse_has_no_profile(emu: PerplexityEmulator) -> None:
    model = make(emu, "chat_completions", model="openai/gpt-5.1")
    assert model.profile is None
    with pytest.raises(ValueError, match="Agent API model slug"):
        model.invoke("Hi.")


# -- class F: the application's profile --------------------------------------------------------------------

Path = Callable[[PerplexityEmulator, dict[str, Any], str], Any]


def _constructed(emu: PerplexityEmulator, profile: dict[str, Any], name: str) -> Any:
    return make(emu, model=name, profile=profile)


def _copied(emu: PerplexityEmulator, profile: dict[str, Any], name: str) -> Any:
    return make(emu, model=name).model_copy(update={"profile": profile})


def _configured(emu: PerplexityEmulator, profile: dict[str, Any], name: str) -> Any:
    field = ConfigurableField(id="model_profile")
    return make(emu, model=name).configurable_fields(profile=field).with_config(configurable={"model_profile": profile})


def _initialised(emu: PerplexityEmulator, profile: dict[str, Any], name: str) -> Any:
    return init_chat_model(f"perplexity_strict:{name}", api_key=KEY, base_url=emu.base_url, profile=profile)


def _initialised_configurable(emu: PerplexityEmulator, profile: dict[str, Any], name: str) -> Any:
    model = init_chat_model(
        f"perplexity_strict:{name}", api_key=KEY, base_url=emu.base_url, configurable_fields=("profile",)
    )
    return model.with_config(configurable={"profile": profile})


PATHS: dict[str, Path] = {
    "constructor": _constructed,
    "model_copy": _copied,
    "configurable_fields": _configured,
    "init_chat_model": _initialised,
    "init_chat_model_configurable": _initialised_configurable,
}
LATE_SYSTEM = [HumanMessage("Hi."), AIMessage("Hello."), SystemMessage("Be brief."), HumanMessage("Why?")]


def _budget(emu: PerplexityEmulator, path: Path) -> None:
    model = path(emu, {"max_input_tokens": 60}, "perplexity/sonar")
    model.invoke(_history())
    assert _sent_turns(emu) < len(_history())


def _output_limit(emu: PerplexityEmulator, path: Path) -> None:
    path(emu, {"max_output_tokens": 1234}, "anthropic/claude-haiku-4-5").invoke("Hi.")
    assert _sent(emu)["max_output_tokens"] == 1234


def _no_tools(emu: PerplexityEmulator, path: Path) -> None:
    with pytest.raises(ValueError, match="function tools"):
        path(emu, {"tool_calling": False}, "perplexity/sonar").invoke("Look it up.", tools=[FUNCTION])
    assert not emu.requests


def _content(key: str, history: list[Any]) -> Callable[[PerplexityEmulator, Path], None]:
    def check(emu: PerplexityEmulator, path: Path) -> None:
        answer = path(emu, {key: False}, "perplexity/sonar").invoke(history)
        assert answer.content and (BLOCKS | TOOL_BLOCKS)[key][1] not in json.dumps(_sent(emu))

    return check


def _late_system(emu: PerplexityEmulator, path: Path) -> None:
    model = path(emu, {"mid_conversation_system_messages": True}, "perplexity/sonar")
    with pytest.raises(Exception, match="system"):  # sent where it sits: Perplexity refuses it
        model.invoke(LATE_SYSTEM)
    roles = [item.get("role") for item in _sent(emu)["input"]]
    assert roles == ["user", "assistant", "system", "user"]


READERS: dict[str, Callable[[PerplexityEmulator, Path], None]] = {
    "max_input_tokens": _budget,
    "max_output_tokens": _output_limit,
    "tool_calling": _no_tools,
    "pdf_inputs": _content("pdf_inputs", [HumanMessage([{"type": "text", "text": "?"}, BLOCKS["pdf_inputs"][0]])]),
    "image_inputs": _content(
        "image_inputs", [HumanMessage([{"type": "text", "text": "?"}, BLOCKS["image_inputs"][0]])]
    ),
    "image_tool_message": _content("image_tool_message", _tool_round(TOOL_BLOCKS["image_tool_message"][0])),
    "mid_conversation_system_messages": _late_system,
}


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_an_application_profile_sets_what_is_read_from_it(emu: PerplexityEmulator, reader: str, path: str) -> None:
    READERS[reader](emu, PATHS[path])


@pytest.mark.parametrize("path", ["constructor", "model_copy", "init_chat_model"])
def test_an_application_profile_sets_the_structured_output_method(emu: PerplexityEmulator, path: str) -> None:
    model = PATHS[path](emu, {"structured_output": False, "tool_calling": True}, "perplexity/sonar")
    assert model.profile == {"structured_output": False, "tool_calling": True}  # what LangChain's agents read
    parsed = model.with_structured_output(Answer).invoke("Say hi.")
    assert isinstance(parsed, Answer)
    body = _sent(emu)
    assert "response_format" not in body and body["tool_choice"]["name"] == "Answer"


@pytest.mark.parametrize("update", [{"model": "openai/gpt-5.1"}, {"api": "chat_completions", "model": "sonar-pro"}])
def test_a_derived_profile_follows_a_copy_to_another_model(emu: PerplexityEmulator, update: dict[str, Any]) -> None:
    fresh = make(emu, update.get("api", "agent"), model=update["model"])
    assert make(emu).model_copy(update=update).profile == fresh.profile
    fields = {k: ConfigurableField(id=k) for k in update}
    configured = make(emu).configurable_fields(**fields).prepare({"configurable": update})[0]
    assert configured.profile == fresh.profile


def test_a_calls_model_reads_the_profile_of_the_model_it_names(emu: PerplexityEmulator) -> None:
    """`perplexity/sonar` has the smaller input limit: a call naming it compacts more than its model would."""
    counter = _counter((make(emu).profile or {})["max_input_tokens"])
    model = make(emu, model="openai/gpt-5.1", token_counter=counter)
    model.invoke(_history())
    own = _sent_turns(emu)
    emu.clear()
    model.invoke(_history(), model="perplexity/sonar")
    assert _sent_turns(emu) < own


def test_an_application_profile_wins_over_a_calls_model(emu: PerplexityEmulator) -> None:
    model = make(emu, model="perplexity/sonar", profile={"max_output_tokens": 1234})
    model.invoke("Hi.", model="anthropic/claude-haiku-4-5")
    assert _sent(emu)["max_output_tokens"] == 1234


def test_a_profile_without_tool_calling_refuses_tools_naming_the_profile(emu: PerplexityEmulator) -> None:
    """On the Agent API, whose models call tools, the refusal names the profile, not the Sonar surface."""
    from langchain_perplexity_strict import ChatPerplexityStrict

    def add(a: int) -> int:
        """Add."""
        return a

    model = ChatPerplexityStrict(api_key="k", base_url=emu.base_url, profile={"tool_calling": False})  # type: ignore[arg-type]
    for refuse in (lambda: model.bind_tools([add]), lambda: model.invoke("hi", tools=[add])):
        with pytest.raises(ValueError, match=r"profile says tool_calling=False") as info:
            refuse()
        assert "Sonar" not in str(info.value)
    assert not emu.requests
