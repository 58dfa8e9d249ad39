"""Deterministic answers derived from the request, so tests can assert on them.

Everything here is a pure function of the request: the same request always
gets the same text, sources, tool calls and usage.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_QUOTED = re.compile(r"\"([^\"]+)\"|'([^']+)'|“([^”]+)”")


@dataclass
class EmulatedAnswer:
    """What the emulated model says to one request (the emulator's own record, not the client's)."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    search_results: list[dict[str, Any]] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    fetched: list[dict[str, Any]] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    image_queries: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    verticals: list[tuple[str, list[str], list[dict[str, Any]]]] = field(default_factory=list)
    """People and finance searches: (tool type, queries, `SearchResultOutput`s)."""
    tool_items: list[dict[str, Any]] = field(default_factory=list)
    """Sandbox, MCP and connector output items, in order."""
    invocations: dict[str, int] = field(default_factory=dict)
    """Built-in tool invocations, per tool type (`usage.tool_calls_details`)."""
    status: str = "completed"
    """`requires_action` while an MCP call waits for the app's approval."""


_URL = re.compile(r"https?://[^\s\])>\"']+")


def urls_in(text: str) -> list[str]:
    """The URLs a prompt mentions, in order, once each."""
    return list(dict.fromkeys(_URL.findall(text)))


def fetched_pages(urls: list[str]) -> list[dict[str, Any]]:
    """What `fetch_url` returns for `urls` (`UrlContentOutput`: url, title, snippet)."""
    return [{"url": u, "title": f"Page at {u}", "snippet": f"The text of {u}."} for u in urls]


def image_results_for(question: str, count: int = 2) -> list[dict[str, Any]]:
    """Deterministic image records (`ImageResultOutput`)."""
    slug = re.sub(r"[^a-z0-9]+", "-", question.lower()).strip("-")[:40] or "query"
    return [
        {
            "image_url": f"https://images.example.com/{slug}/{n}.png",
            "origin_url": f"https://source{n}.example.com/{slug}",
            "title": f"Image {n} of {question[:40]}",
            "width": 640,
            "height": 480,
        }
        for n in range(1, count + 1)
    ]


def text_of(content: Any) -> str:
    """The plain text of a message content (string or parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict)).strip()
    return ""


def last_user_text(messages: list[dict[str, Any]]) -> str:
    """What the answer is about: the question of the current turn, whitespace collapsed.

    The current turn is the user messages after the last assistant item; among
    them, the latest paragraph that ends with a question mark, else the last
    one's first paragraph. So an instruction an agent appends after the
    question ("Reminder: be brief.") does not become the topic.
    """
    current: list[str] = []
    for item in reversed(messages):
        if item.get("role") == "assistant" or item.get("type") == "function_call":
            break
        if item.get("role") == "user":
            current.insert(0, text_of(item.get("content")))
    if not current:
        current = [text_of(m.get("content")) for m in messages if m.get("role") == "user"][-1:]
    paragraphs = [p.strip() for text in current for p in text.split("\n\n") if p.strip()]
    questions = [p for p in paragraphs if p.endswith("?")]
    chosen = questions[-1] if questions else (current[-1].split("\n\n")[0] if current else "")
    return " ".join(chosen.split())


def trailing_tool_outputs(
    messages: list[dict[str, Any]], tool_output: Callable[[dict[str, Any]], str | None]
) -> list[str]:
    """The texts of the tool results that end the conversation, oldest first: what the model answers from.

    `tool_output` is the surface's reading of one item: its text when it is a tool result, else None.
    User text after the results with no answer between them (an agent's reminder, or a middleware's
    late system message sent as user text) does not hide them: a model still answers from the results.
    A new question there (text ending in "?", as `last_user_text` reads a question) does.
    """
    items = list(messages)
    while items and items[-1].get("role") == "user":
        if text_of(items.pop().get("content")).rstrip().endswith("?"):
            return []
    outputs: list[str] = []
    for item in reversed(items):
        text = tool_output(item)
        if text is None:
            break
        outputs.insert(0, text)
    return outputs


def search_results_for(question: str, count: int = 3) -> list[dict[str, Any]]:
    """Deterministic search records for `question` (Agent API shape)."""
    slug = re.sub(r"[^a-z0-9]+", "-", question.lower()).strip("-")[:40] or "query"
    seed = int(hashlib.sha256(question.encode()).hexdigest()[:8], 16)
    results = []
    for n in range(1, count + 1):
        results.append(
            {
                "id": n,  # SearchResultOutput.id is an integer
                "url": f"https://source{n}.example.com/{slug}",
                "title": f"Source {n} on {question[:60]}",
                "snippet": f"Snippet {n} about {question[:80]}.",
                "date": f"2026-0{1 + (seed + n) % 9}-1{n}",
                "last_updated": "2026-11-01",
                "source": "web",
            }
        )
    return results


_ASKING = re.compile(
    r"^(please\s+)?(tell me about|what is|what are|what's|who is|who are|explain|describe|summari[sz]e|"
    r"compare|why is|why are|how does|how do|give me)\s+",
    re.IGNORECASE,
)


def text_answer(question: str, cited: int, tool_outputs: list[str]) -> str:
    """A deterministic answer that names its topic and cites ``cited`` sources (``[n]`` markers)."""
    if tool_outputs:
        return "From the tool results: " + "; ".join(tool_outputs) + "."
    topic = _ASKING.sub("", question).rstrip("?.! ") or "your question"
    if cited >= 2:
        return f"On {topic}: the sources found agree on the main points [1], and [2] gives the details."
    if cited == 1:
        return f"On {topic}: the source found covers the main points [1]."
    return f"On {topic}: a short answer, written without a web search (none was asked for)."


def choose_tool_calls(
    tools: list[dict[str, Any]],
    tool_choice: Any,
    prompt: str,
    parallel: bool,
    answered: frozenset[tuple[str, str]] = frozenset(),
) -> list[dict[str, Any]]:
    """The documented policy: the forced choice, else tools the prompt names, else the only tool.

    The only-tool fallback applies only before any tool has answered in the
    conversation, and a call identical to one already answered
    (`answered`: name and arguments) is never made again, so an agent loop
    always ends. Returns `[{"name", "arguments"}]` (arguments a JSON string), or `[]`.
    """
    by_name = {t["name"]: t for t in tools}
    if not by_name or tool_choice == "none":
        return []
    forced = _forced_name(tool_choice)
    if forced is not None and forced in by_name:
        chosen = [by_name[forced]]
    else:
        lowered = prompt.lower()
        chosen = [t for name, t in by_name.items() if name.lower() in lowered]
        if not chosen and not answered and (len(by_name) == 1 or tool_choice == "required"):
            chosen = [next(iter(by_name.values()))]
    calls = [
        {"name": t["name"], "arguments": json.dumps(instance_of(t.get("parameters") or {}, prompt))} for t in chosen
    ]
    calls = [c for c in calls if (c["name"], c["arguments"]) not in answered]
    return calls if parallel else calls[:1]


def _forced_name(tool_choice: Any) -> str | None:
    if isinstance(tool_choice, dict):
        if "name" in tool_choice:
            return str(tool_choice["name"])
        function = tool_choice.get("function")
        if isinstance(function, dict):
            return str(function.get("name"))
    return None


class _Pools:
    """Numbers and quoted strings taken from the prompt, handed out in order."""

    def __init__(self, prompt: str) -> None:
        self.numbers = [float(x) for x in _NUMBER.findall(prompt)]
        self.strings = [next(g for g in m if g) for m in _QUOTED.findall(prompt)]
        self.words = [w for w in re.findall(r"[A-Za-z]{3,}", prompt)]
        self.vocabulary = set(re.findall(r"\w+", prompt.lower()))

    def number(self) -> float:
        return self.numbers.pop(0) if self.numbers else 1.0

    def string(self) -> str:
        if self.strings:
            return self.strings.pop(0)
        return self.words[-1] if self.words else "value"


def instance_of(schema: dict[str, Any], prompt: str) -> Any:
    """A JSON instance that satisfies `schema`, filled from the prompt.

    Required properties are always filled; an optional one only when the prompt
    plainly holds a value for it (a quoted string, a number, or one of its enum
    values as a word), as a model leaves out what the user did not ask for.
    """
    return _instance(schema, _Pools(prompt), schema.get("$defs") or schema.get("definitions") or {})


def _offered(schema: dict[str, Any], pools: _Pools, defs: dict[str, Any]) -> bool:
    """Whether the prompt still holds a value for an optional property of this `schema`."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return _offered(defs.get(ref.rsplit("/", 1)[-1], {}), pools, defs)
    if schema.get("enum"):
        return any(str(v).lower() in pools.vocabulary for v in schema["enum"])
    options = schema.get("anyOf") or schema.get("oneOf") or []
    if options:
        return any(_offered(o, pools, defs) for o in options if o.get("type") != "null")
    kind = schema.get("type")
    if kind == "array":
        return _offered(schema.get("items") or {}, pools, defs)
    if kind in ("integer", "number"):
        return bool(pools.numbers)
    return kind == "string" and bool(pools.strings)


def _instance(schema: dict[str, Any], pools: _Pools, defs: dict[str, Any]) -> Any:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return _instance(defs.get(ref.rsplit("/", 1)[-1], {}), pools, defs)
    if schema.get("enum"):
        return next((v for v in schema["enum"] if str(v).lower() in pools.vocabulary), schema["enum"][0])
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if options:
            non_null = [o for o in options if o.get("type") != "null"] or options
            return _instance(non_null[0], pools, defs)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        return {
            name: _instance(sub, pools, defs)
            for name, sub in props.items()
            if name in required or _offered(sub, pools, defs)
        }
    if kind == "array":
        count = max(int(schema.get("minItems", 1)), 1)
        return [_instance(schema.get("items") or {}, pools, defs) for _ in range(count)]
    if kind == "integer":
        return int(pools.number())
    if kind == "number":
        return pools.number()
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return pools.string()


def approx_tokens(text: str) -> int:
    """A rough token count: one per four characters, at least one."""
    return max(1, len(text) // 4)


def words(text: str) -> list[str]:
    """Split `text` into stream pieces that join back to it exactly."""
    return re.findall(r"\S+\s*|\s+", text) or [text]
