"""Issue 27, item 5: each list of values, and each drop of content a surface cannot take, exists once.

- A list of three or more strings (a tuple, list or set literal, or a `Literal[...]`) is written once in
  the client; a second copy is a second place to update and to drift (the recency values were written
  four times, the search modes, types and context sizes, the office skills and the date filters twice).
  The emulator (`testing/`) is left out: it imports nothing from the client on purpose. Two lists that
  merely hold the same values for different published fields are named below, with why.
- Videos and a tool result's files are left out (or named in text) on the Agent API by the normalizer's
  `AGENT_CONTENT` alone, which reports it; the body builders compare no block type with a kind they
  would drop (the Agent API builder had its own `without_videos` and file renaming beside the
  normalizer's). `model.normalize()` shows what is sent on each surface.
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langchain_perplexity_strict import ChatPerplexityStrict

PACKAGE = Path(__file__).resolve().parents[2] / "langchain_perplexity_strict"
KEY = "pplx-test"
URL = "http://127.0.0.1:9"  # never reached: nothing is sent

SAME_VALUES_OTHER_FIELD = {
    # `WebSearchToolInput.search_context_size` and the Search API's `search_context_size`: two published
    # fields that happen to take the same three words.
    frozenset({"low", "medium", "high"}): 2,
}


def _string_lists() -> dict[frozenset[str], list[str]]:
    found: dict[frozenset[str], list[str]] = collections.defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        if "testing" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            items = getattr(node, "elts", None) if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else None
            if (
                items
                and len(items) >= 3
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items)
            ):
                found[frozenset(e.value for e in items)].append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_each_list_of_values_is_written_once() -> None:
    copies = {
        tuple(sorted(values)): places
        for values, places in _string_lists().items()
        if len(places) > SAME_VALUES_OTHER_FIELD.get(values, 1)
    }
    assert not copies, copies


def test_no_body_builder_drops_a_kind_of_content() -> None:
    """A drop is a comparison of a block's type with the kind dropped; the builders have none."""
    dropped = {"video", "file", "audio", "image"}
    builders = [*sorted((PACKAGE / "_request").glob("*.py")), PACKAGE / "_surfaces.py"]
    found = [
        f"{path.name}:{node.lineno}"
        for path in builders
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Compare)
        and any(isinstance(c, ast.Constant) and c.value in dropped for c in [node.left, *node.comparators])
    ]
    assert not found, found


VIDEO = {"type": "video", "url": "https://v.example.com/clip.mp4", "mime_type": "video/mp4"}
PDF = {"type": "file", "url": "https://f.example.com/report.pdf", "mime_type": "application/pdf"}
CALL = {"name": "lookup", "args": {"q": "x"}, "id": "call_1"}
HISTORY = [
    HumanMessage([{"type": "text", "text": "Earlier"}, VIDEO]),
    AIMessage("", tool_calls=[CALL]),
    ToolMessage([{"type": "text", "text": "Found"}, PDF], tool_call_id="call_1"),
    AIMessage("Answer"),
    HumanMessage("Now?"),
]


@pytest.fixture(scope="module")
def models() -> dict[str, ChatPerplexityStrict]:
    return {
        api: ChatPerplexityStrict(api_key=KEY, base_url=URL, api=api)  # type: ignore[arg-type]
        for api in ("agent", "chat_completions")
    }


def _types(messages: list[object]) -> list[str]:
    return [b["type"] for m in messages for b in getattr(m, "content", []) if isinstance(b, dict)]


def test_the_agent_apis_drop_is_the_normalizers_with_its_report(models: dict[str, ChatPerplexityStrict]) -> None:
    result = models["agent"].normalize(HISTORY)
    assert "video" not in _types(result.messages) and "file" not in _types(result.messages)
    report = result.report()
    assert "agent_content: #0: video block(s) 'video' left out" in report
    assert "agent_content: #2: file(s) 'https://f.example.com/report.pdf' in a tool result named in its text" in report
    body = models["agent"].request_body(HISTORY)
    assert "clip.mp4" not in str(body) and "a file the tool returned is not sent" in str(body)
    assert HISTORY[0].content == [{"type": "text", "text": "Earlier"}, VIDEO], "the caller's message is not changed"
    assert HISTORY[2].content == [{"type": "text", "text": "Found"}, PDF]


def test_chat_completions_keep_what_they_take(models: dict[str, ChatPerplexityStrict]) -> None:
    result = models["chat_completions"].normalize(HISTORY)
    assert "video" in _types(result.messages) and "file" in _types(result.messages)
    assert "agent_content" not in result.report()
    body = str(models["chat_completions"].request_body(HISTORY))
    assert "clip.mp4" in body and "report.pdf" in body


def test_a_newest_turn_of_videos_alone_is_refused_by_the_normalizer(models: dict[str, ChatPerplexityStrict]) -> None:
    with pytest.raises(ValueError, match="content block\\(s\\) 'video' left out of the newest user message"):
        models["agent"].normalize([HumanMessage([VIDEO])])
    with pytest.warns(UserWarning, match="The newest user message lost content block\\(s\\) 'video'"):
        models["agent"].normalize([HumanMessage([{"type": "text", "text": "What is this?"}, VIDEO])])
