"""Issue 18, class 1: content of every kind, in every role, on both surfaces, invoked and streamed.

The forms are listed from their sources: langchain-core's standard blocks
(`langchain_core.messages.content`: text, image, file, audio, video,
text-plain, non_standard) and its v0 data blocks; OpenAI chat and Responses
parts; Anthropic's (image, document, search_result, tool_result); Google's
(`media`, `image_url` as a string); what tools return (`json`, lists).
Each form in each role (user, system, assistant, tool result) is either sent
with its data (the body validates under the published models and carries the
form's markers) or left out with a report line naming its type; a newest user
turn left with nothing is refused, naming the type.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import make
from tests.integration_tests.habits import MODES, SURFACES, report_text, run

# Warnings these tests provoke on purpose (each is the behaviour under test or a habit kept on purpose);
# filtered here so that `make test` shows only warnings nobody expected.
pytestmark = [
    pytest.mark.filterwarnings("ignore:The newest user message lost content block:UserWarning"),
    pytest.mark.filterwarnings("ignore:The newest tool result lost its file:UserWarning"),
]

IMG_URL = "https://img.example.com/cat.png"
IMG_B64 = base64.b64encode(b"\x89PNG image bytes").decode()
PDF_URL = "https://docs.example.com/paper.pdf"
PDF_B64 = base64.b64encode(b"%PDF-1.4 pdf bytes").decode()
AUDIO_B64 = base64.b64encode(b"RIFF wav bytes").decode()
VIDEO_URL = "https://video.example.com/clip.mp4"

# (name, block, markers that must reach the body, kind). Kinds: "text" (kept as text in every role),
# "image" / "file" (kept as media where the role takes media), "video" (chat completions only),
# "none" (no surface takes it: left out and reported).
FORMS: list[tuple[str, Any, tuple[str, ...], str]] = [
    # langchain-core v1 standard blocks
    ("v1 text", {"type": "text", "text": "Plain words"}, ("Plain words",), "text"),
    ("v1 text with citation", {"type": "text", "text": "Cited words", "annotations": [
        {"type": "citation", "url": "https://src.example.com", "cited_text": "Cited"}]}, ("Cited words",), "text"),
    ("v1 image url", {"type": "image", "url": IMG_URL}, (IMG_URL,), "image"),
    ("v1 image base64", {"type": "image", "base64": IMG_B64, "mime_type": "image/png"}, (IMG_B64,), "image"),
    ("v1 image file_id", {"type": "image", "file_id": "file-img-1"}, (), "none"),
    ("v1 file url", {"type": "file", "url": PDF_URL, "mime_type": "application/pdf"}, (PDF_URL,), "file"),
    ("v1 file base64", {"type": "file", "base64": PDF_B64, "mime_type": "application/pdf",
                        "extras": {"filename": "paper.pdf"}}, (PDF_B64,), "file"),
    ("v1 file file_id", {"type": "file", "file_id": "file-pdf-1"}, (), "none"),
    ("v1 audio base64", {"type": "audio", "base64": AUDIO_B64, "mime_type": "audio/wav"}, (), "none"),
    ("v1 video url", {"type": "video", "url": VIDEO_URL, "mime_type": "video/mp4"}, (VIDEO_URL,), "video"),
    ("v1 text-plain text", {"type": "text-plain", "text": "Notes body", "title": "notes.txt",
                            "mime_type": "text/plain"}, ("Notes body", "notes.txt"), "text"),
    ("v1 text-plain base64", {"type": "text-plain", "base64": base64.b64encode(b"Encoded notes").decode(),
                              "mime_type": "text/plain"}, ("Encoded notes",), "text"),
    ("v1 non_standard wrapping a known part", {"type": "non_standard",
                                               "value": {"type": "input_text", "text": "Wrapped words"}},
     ("Wrapped words",), "text"),
    ("v1 non_standard unknown", {"type": "non_standard", "value": {"kind": "hologram"}}, (), "none"),
    # langchain-core v0 data blocks
    ("v0 image url", {"type": "image", "source_type": "url", "url": IMG_URL}, (IMG_URL,), "image"),
    ("v0 image base64", {"type": "image", "source_type": "base64", "data": IMG_B64, "mime_type": "image/png"},
     (IMG_B64,), "image"),
    ("v0 file base64", {"type": "file", "source_type": "base64", "data": PDF_B64, "mime_type": "application/pdf"},
     (PDF_B64,), "file"),
    ("v0 audio base64", {"type": "audio", "source_type": "base64", "data": AUDIO_B64, "mime_type": "audio/wav"},
     (), "none"),
    # OpenAI chat completions parts
    ("openai text", {"type": "text", "text": "Chat words"}, ("Chat words",), "text"),
    ("openai image_url", {"type": "image_url", "image_url": {"url": IMG_URL, "detail": "high"}}, (IMG_URL,), "image"),
    ("openai image_url data", {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{IMG_B64}"}},
     (IMG_B64,), "image"),
    ("openai file data", {"type": "file", "file": {"file_data": f"data:application/pdf;base64,{PDF_B64}",
                                                  "filename": "paper.pdf"}}, (PDF_B64,), "file"),
    ("openai file id", {"type": "file", "file": {"file_id": "file-abc"}}, (), "none"),
    ("openai input_audio", {"type": "input_audio", "input_audio": {"data": AUDIO_B64, "format": "wav"}}, (), "none"),
    ("openai refusal", {"type": "refusal", "refusal": "I cannot say"}, ("I cannot say",), "text"),
    # OpenAI Responses parts
    ("responses input_text", {"type": "input_text", "text": "Responses words"}, ("Responses words",), "text"),
    ("responses output_text", {"type": "output_text", "text": "Output words", "annotations": []},
     ("Output words",), "text"),
    ("responses input_image", {"type": "input_image", "image_url": IMG_URL, "detail": "auto"}, (IMG_URL,), "image"),
    ("responses input_file data", {"type": "input_file", "file_data": f"data:application/pdf;base64,{PDF_B64}",
                                   "filename": "paper.pdf"}, (PDF_B64,), "file"),
    ("responses input_file url", {"type": "input_file", "file_url": PDF_URL}, (PDF_URL,), "file"),
    # Anthropic blocks
    ("anthropic image base64", {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                            "data": IMG_B64}}, (IMG_B64,), "image"),
    ("anthropic image url", {"type": "image", "source": {"type": "url", "url": IMG_URL}}, (IMG_URL,), "image"),
    ("anthropic document pdf", {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                                               "data": PDF_B64}}, (PDF_B64,), "file"),
    ("anthropic document url", {"type": "document", "source": {"type": "url", "url": PDF_URL}}, (PDF_URL,), "file"),
    ("anthropic document text", {"type": "document", "title": "Doc title", "source": {
        "type": "text", "media_type": "text/plain", "data": "Document text body"}},
     ("Document text body", "Doc title"), "text"),
    ("anthropic document content", {"type": "document", "source": {
        "type": "content", "content": [{"type": "text", "text": "Content source body"}]}},
     ("Content source body",), "text"),
    ("anthropic search_result", {"type": "search_result", "source": "https://rag.example.com/doc",
                                 "title": "RAG title", "content": [{"type": "text", "text": "RAG passage"}],
                                 "citations": {"enabled": True}},
     ("https://rag.example.com/doc", "RAG title", "RAG passage"), "text"),
    ("anthropic tool_result", {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Tool said this"},
     ("Tool said this",), "text"),
    # Google blocks
    ("google media image", {"type": "media", "mime_type": "image/png", "data": IMG_B64}, (IMG_B64,), "image"),
    ("google media file_uri", {"type": "media", "mime_type": "application/pdf", "file_uri": PDF_URL},
     (PDF_URL,), "file"),
    ("google image_url string", {"type": "image_url", "image_url": IMG_URL}, (IMG_URL,), "image"),
    # what tools return
    ("json block", {"type": "json", "json": {"answer": 42, "label": "JSON value"}}, ("JSON value", "42"), "text"),
    ("bare string in a list", "Loose string", ("Loose string",), "text"),
]  # fmt: skip

ROLES = ("user", "system", "assistant", "tool")


@pytest.fixture(scope="module")
def models(emulator: PerplexityEmulator) -> dict[str, ChatPerplexityStrict]:
    """One model per surface for the module's 700 runs (a new one per run was most of their time: each is built
    and serialized for LangChain's callbacks on its first call). The forms differ in the messages, not the
    model, and a model carries nothing from one call to the next that these calls could see: what it warns of
    once per model (a compaction, a mapped model name) none of them causes; the content warnings checked here
    are given on every call."""
    return {api: make(emulator, api) for api in SURFACES}


def conversation(role: str, content: Any) -> list[BaseMessage]:
    """A conversation carrying `content` in `role`, ending with a user or tool turn as Perplexity needs."""
    if role == "user":
        return [HumanMessage("Earlier question"), AIMessage("Earlier answer"), HumanMessage(content)]
    if role == "system":
        return [SystemMessage(content), HumanMessage("Question")]
    if role == "assistant":
        return [HumanMessage("Question"), AIMessage(content), HumanMessage("Follow-up")]
    call = {"name": "lookup", "args": {"q": "x"}, "id": "call_1"}
    return [HumanMessage("Question"), AIMessage("", tool_calls=[call]), ToolMessage(content, tool_call_id="call_1")]


def fate(kind: str, role: str, api: str) -> str:
    """Whether a form of `kind` is sent with its data ("kept"), left out with a report line ("left out"),
    or named in the text where it was (a file in a tool result on the Agent API: "named")."""
    if kind == "text":
        return "kept"
    if kind == "none" or role == "assistant":  # an assistant turn is text on both surfaces
        return "left out"
    if kind == "video":  # a video_url part on chat completions; the Agent API has no video part
        return "kept" if api == "chat_completions" else "left out"
    if kind == "file" and role == "tool" and api == "agent":  # a function output holds text and images only
        return "named"
    return "kept"


# langchain-core turns OpenAI's data parts into its standard blocks before a chat model sees them.
STANDARD_NAMES = {"input_audio": "audio"}


def _type_of(block: Any) -> str:
    return block["type"] if isinstance(block, dict) else "str"


def _named(block: Any, text: str) -> bool:
    """Whether `text` names the block's type, as the caller wrote it or as langchain-core renamed it."""
    kind = _type_of(block)
    return kind in text or STANDARD_NAMES.get(kind, kind) in text


_DATA_URL = re.compile(r"data:[\w/.+-]+;base64,([^\"]*)")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("name", "block", "markers", "kind"), FORMS, ids=[f[0] for f in FORMS])
def test_every_content_form_in_every_role(
    emu: PerplexityEmulator,
    models: dict[str, ChatPerplexityStrict],
    name: str,
    block: Any,
    markers: tuple[str, ...],
    kind: str,
    role: str,
    api: str,
    mode: str,
) -> None:
    model = models[api]
    messages = conversation(role, [{"type": "text", "text": "Context:"}, block])
    outcome = run(model, emu, api, mode, messages)
    assert outcome.error is None, outcome.error
    for data in _DATA_URL.findall(outcome.text):  # what goes as base64 is base64
        base64.b64decode(data, validate=True)
    expected = fate(kind, role, api)
    if expected == "kept":
        missing = [m for m in markers if m not in outcome.text]
        assert not missing, f"{name} as {role}: {missing} not sent"
    elif expected == "named":  # the output says a file was returned and not sent, naming it when it has a name
        assert "a file the tool returned is not sent" in outcome.text
        assert "in a tool result named in its text" in report_text(model, messages)
        assert any("The newest tool result lost its file(s)" in w for w in outcome.warnings)
    else:
        assert _named(block, report_text(model, messages)), f"{name} as {role}: left out without a report"
        if role == "user":
            assert any(_named(block, w) for w in outcome.warnings), "the newest turn lost data without a warning"


NOTHING_LEFT = [f for f in FORMS if f[3] in ("none", "video")]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", SURFACES)
@pytest.mark.parametrize(("name", "block", "markers", "kind"), NOTHING_LEFT, ids=[f[0] for f in NOTHING_LEFT])
def test_a_newest_turn_with_nothing_sendable_is_refused_naming_the_block(
    emu: PerplexityEmulator,
    models: dict[str, ChatPerplexityStrict],
    name: str,
    block: Any,
    markers: tuple[str, ...],
    kind: str,
    api: str,
    mode: str,
) -> None:
    if fate(kind, "user", api) == "kept":
        pytest.skip(f"{name} is sendable on {api}")
    messages = [HumanMessage("What is 2 + 2?"), AIMessage("4"), HumanMessage([block])]
    outcome = run(models[api], emu, api, mode, messages)
    assert outcome.error is not None, "the newest turn was dropped: the model would answer the previous question"
    assert _named(block, str(outcome.error))


@pytest.mark.parametrize("role", ["user", "system"])
def test_a_thinking_block_in_the_newest_turn_warns_and_alone_is_refused_naming_it(
    emu: PerplexityEmulator, models: dict[str, ChatPerplexityStrict], role: str
) -> None:
    thinking = {"type": "thinking", "thinking": "Let me think", "signature": "sig"}
    with_text = [HumanMessage("Earlier"), AIMessage("Answer"), HumanMessage([{"type": "text", "text": "Q"}, thinking])]
    if role == "system":  # a thinking block anywhere else is reported, not warned of
        with_text = [SystemMessage([{"type": "text", "text": "Be brief"}, thinking]), HumanMessage("Q")]
    outcome = run(models["agent"], emu, "agent", "invoke", with_text)
    assert outcome.error is None and "'thinking'" in report_text(models["agent"], with_text)
    assert any("'thinking'" in w for w in outcome.warnings) == (role == "user")
    alone = run(models["agent"], emu, "agent", "invoke", [HumanMessage([thinking])])
    assert alone.error is not None and "'thinking'" in str(alone.error)


@pytest.mark.parametrize("api", SURFACES)
def test_a_large_pdf_in_the_newest_turn_is_sent_not_refused(emu: PerplexityEmulator, api: str) -> None:
    pdf = base64.b64encode(b"%PDF-1.4 " + bytes(600_000)).decode()
    messages = [HumanMessage([{"type": "text", "text": "Summarize"},
                              {"type": "file", "base64": pdf, "mime_type": "application/pdf"}])]  # fmt: skip
    outcome = run(make(emu, api, max_input_tokens=32_000), emu, api, "invoke", messages)
    assert outcome.error is None, outcome.error
    assert pdf in outcome.text
