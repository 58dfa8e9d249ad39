"""A refusal's suggested replacement works as written: applied to the model that was refused, it is accepted.

The code in a refusal's text (a keyword with a literal value, `return_images=True`; a call,
`bind_tools([image_search_tool(), web_search_tool()])`, `model_copy(update={...})`; a tool factory,
`web_search_tool()`, which is bound) is found in the text itself, so a new row or a reworded one is
covered without a new line here. `(api='...')` after it says on which API; "remove the search settings
and ..." applies it without them. Each refusal is met on a model with search settings (the case where a
replacing tool would itself be refused) and on a bare one. The refusals:

- every `Refuse` row of `_habits.HABITS` (other integrations' names);
- every chat-completions-only parameter on the Agent API (`_parameter_table._INSTEAD`);
- the others that suggest code: a replacing built-in tool beside search settings, `web_search=False`
  beside them, `disable_search=False` over a held True, `n` with `streaming=True`, a built-in
  `tool_choice`, a Sonar model given an Agent API slug, a batch of a chat-completions model.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import langchain_perplexity_strict as lps
from langchain_perplexity_strict import ChatPerplexityStrict, image_search_tool
from langchain_perplexity_strict._request._habits import HABITS, Refuse
from langchain_perplexity_strict._request._parameter_table import _INSTEAD
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY
from tests.integration_tests.test_contract import CHAT_VALUES

SEARCH = {"search_domain_filter": ["nature.com"]}
CONTEXTS = {"with search settings": SEARCH, "bare": {}}
NAMESPACE = {name: getattr(lps, name) for name in lps.__all__}
MODEL_CALLS = ("bind_tools", "bind", "model_copy")
TOOL_ARGUMENTS = ("tool_choice", "strict", "parallel_tool_calls")


def _calls(text: str) -> Iterator[tuple[int, str]]:
    """Each `name(...)` in `text` that parses as Python with no `...` in it."""
    for match in re.finditer(r"\b[a-z_]+\(", text):
        depth, end = 0, match.start()
        for end in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        code = text[match.start() : end + 1]
        if "..." not in code and _parses(code):
            yield match.start(), code


def _parses(code: str) -> bool:
    try:
        ast.parse(code, mode="eval")
    except SyntaxError:
        return False
    return True


def _keywords(text: str) -> Iterator[tuple[int, str, Any]]:
    """Each `name=literal` in `text` (`...` is a placeholder, not code)."""
    for match in re.finditer(r"\b([a-z_]+)=(True|False|None|-?\d+|'[^']*')", text):
        yield match.start(), match.group(1), ast.literal_eval(match.group(2))


def _api(text: str, end: int, api: str) -> str:
    """The API the code at `end` is for: a following `(api='...')`, else the refused model's."""
    found = re.match(r"\)?\]?\)?\s*\(api='(\w+)'\)", text[end:])
    return found.group(1) if found else api


Applied = Callable[[ChatPerplexityStrict], Any]


def suggestions(text: str, api: str, tools: list[Any] | None = None) -> list[tuple[str, Applied]]:
    """The code in a refusal's `text`, each as (what it says, a function applying it to the refused model);
    `bind_tools`'s own arguments (`tool_choice='required'`) go with the `tools` the refused call bound."""
    found: list[tuple[str, Applied]] = []
    inside: list[range] = []
    for start, code in _calls(text):
        if any(start in r for r in inside):  # a call inside another (the tools bind_tools is given)
            continue
        inside.append(range(start, start + len(code)))
        on = _api(text, start + len(code), api)
        name = code.split("(")[0]
        if name in MODEL_CALLS:
            found.append((code, lambda m, code=code, on=on: eval(f"m.{code}", NAMESPACE, {"m": _on(m, on)})))
        elif name in NAMESPACE and name.endswith("_tool"):
            found.append((code, lambda m, code=code, on=on: _on(m, on).bind_tools([eval(code, NAMESPACE)])))
    for start, name, value in _keywords(text):
        before = text[max(0, start - 60) : start]
        if start == 0 or any(start in r for r in inside) or re.search(r"(\(|drop |remove )$", before):
            continue  # the refused argument itself, inside a call, an API named in parentheses, or to remove
        said = f"{name}={value!r}"
        if name in TOOL_ARGUMENTS:
            found.append((said, lambda m, n=name, v=value: m.bind_tools(tools, **{n: v})))
        elif name in ChatPerplexityStrict.model_fields:
            on = _api(text, start + len(said), api)
            bare = "remove the search settings and" in before
            found.append((said, lambda m, n=name, v=value, on=on, bare=bare: _copy(m, on, bare, {n: v})))
    return found


def _on(model: ChatPerplexityStrict, api: str) -> ChatPerplexityStrict:
    return model if model.api == api else _copy(model, api, False, {})


def _copy(model: ChatPerplexityStrict, api: str, bare: bool, update: dict[str, Any]) -> ChatPerplexityStrict:
    settings = {} if bare else {k: getattr(model, k) for k in SEARCH if getattr(model, k) is not None}
    kept = {k: getattr(model, k) for k in ("streaming", "n") if k in model.model_fields_set}
    surface = {"api": api, "model": "sonar"} if api == "chat_completions" else {"api": api}
    built = {**kept, **settings, **surface, **update}
    return ChatPerplexityStrict(api_key=KEY, base_url=model.base_url, **built)  # type: ignore[arg-type]


def _accepted(emu: PerplexityEmulator, applied: Any) -> None:
    """The suggestion built a model or a binding that sends a request."""
    emu.clear()
    applied.invoke("hi")
    assert emu.requests, "nothing was sent"


def _check(emu: PerplexityEmulator, model: ChatPerplexityStrict, text: str, tools: list[Any] | None = None) -> None:
    found = suggestions(text, model.api, tools)
    if re.search(r"\bbind(_tools)?\b", text):  # a tool to bind is named as the code that binds it
        assert any("_tool" in said for said, _ in found), f"no tool to bind, as code, in {text!r}"
    for said, apply in found:
        try:
            _accepted(emu, apply(model))
        except ValueError as refused:
            pytest.fail(f"the suggestion {said!r} of\n  {text}\nis refused in turn:\n  {refused}")


def _refusal(run: Callable[[], Any]) -> str:
    with pytest.raises(ValueError) as info:
        run()
    return str(info.value)


def _model(emu: PerplexityEmulator, **kw: Any) -> ChatPerplexityStrict:
    return ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, **kw)  # type: ignore[arg-type]


REFUSED = sorted(name for name, habit in HABITS.items() if isinstance(habit, Refuse))


@pytest.mark.parametrize("context", list(CONTEXTS.values()), ids=list(CONTEXTS))
@pytest.mark.parametrize("name", REFUSED)
def test_each_habit_refusals_suggestion_works(emu: PerplexityEmulator, name: str, context: dict[str, Any]) -> None:
    for api in ("agent", "chat_completions"):
        model = _copy(_model(emu, **context), api, False, {})
        text = _refusal(lambda model=model: model.invoke("hi", **{name: True}))
        _check(emu, model, text)


@pytest.mark.parametrize("context", list(CONTEXTS.values()), ids=list(CONTEXTS))
@pytest.mark.parametrize("name", sorted(_INSTEAD["agent"]))
def test_each_agent_api_instead_works(emu: PerplexityEmulator, name: str, context: dict[str, Any]) -> None:
    model = _model(emu, **context)
    _check(emu, model, _refusal(lambda: model.invoke("hi", **{name: CHAT_VALUES.get(name, 0.5)})))


def _other_refusals(emu: PerplexityEmulator) -> dict[str, tuple[ChatPerplexityStrict, Callable[[], Any]]]:
    searching, plain = _model(emu, **SEARCH), _model(emu)
    off = _model(emu, web_search=True)
    held = _model(emu, disable_search=True)
    chat = _model(emu, api="chat_completions", model="sonar")
    return {
        "replacing tool": (searching, lambda: searching.bind_tools([image_search_tool()]).invoke("hi")),
        "web_search=False": (searching, lambda: searching.invoke("hi", web_search=False)),
        "disable_search": (held, lambda: held.invoke("hi", disable_search=False)),
        "n streamed": (plain, lambda: _model(emu, n=2, streaming=True)),
        "tool_choice": (off, lambda: off.bind_tools([image_search_tool()], tool_choice="image_search").invoke("hi")),
        "agent slug on sonar": (chat, lambda: chat.invoke("hi", model="openai/gpt-5.1")),
        "batch": (chat, lambda: chat.submit_batch(["hi"])),
    }


@pytest.mark.parametrize(
    "case",
    [
        "replacing tool",
        "web_search=False",
        "disable_search",
        "n streamed",
        "tool_choice",
        "agent slug on sonar",
        "batch",
    ],
)
def test_the_other_refusals_suggestions_work(emu: PerplexityEmulator, case: str) -> None:
    model, run = _other_refusals(emu)[case]
    text = _refusal(run)
    tools = [image_search_tool()] if case == "tool_choice" else None
    assert suggestions(text, model.api, tools), f"no code found in {text!r}"
    _check(emu, model, text, tools)


def test_code_is_found_in_a_refusal() -> None:
    """The reading itself: calls, tool factories and literal keywords, never a `...` placeholder."""
    text = (
        "pass return_images=True (api='chat_completions') or bind_tools([image_search_tool(), web_search_tool()]) "
        "(api='agent'); pass api_key=... or n=1"
    )
    assert [said for said, _ in suggestions(text, "agent")] == [
        "bind_tools([image_search_tool(), web_search_tool()])",
        "return_images=True",
        "n=1",
    ]
