"""The checks behind docs/comparison.md: three LangChain clients, one emulator, the same calls.

Run it in a scratch venv that holds all three packages (it needs no key and no network):

    python -m venv /tmp/compare
    /tmp/compare/bin/pip install . langchain-perplexity langchain-openai
    /tmp/compare/bin/python docs/comparison.py

Each client is pointed at the package's emulator (`PerplexityEmulator`) and configured to do the
same thing: the `perplexity/sonar` model with web search on the Agent API, and `sonar` on the
retired chat-completions surface. The script prints one Markdown table per surface; every cell is
what the call returned, or the exception it raised.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from langchain_openai import ChatOpenAI
from langchain_perplexity import ChatPerplexity
from perplexity import AsyncPerplexity, Perplexity

from langchain_perplexity_strict import ChatPerplexityStrict
from langchain_perplexity_strict.testing import PerplexityEmulator

logging.disable(logging.WARNING)  # langchain-perplexity logs what it drops; the table says it
warnings.simplefilter("ignore")

QUESTION = "What is new in Python 3.13?"
HISTORIES: dict[str, list[BaseMessage]] = {
    "a plain second turn (user, assistant, user)": [
        HumanMessage("What is the tallest mountain?"),
        AIMessage("Mount Everest."),
        HumanMessage("And the second tallest?"),
    ],
    "a system message mid-way": [
        HumanMessage("Summarize the news."),
        AIMessage("Here is the summary."),
        SystemMessage("Answer in French from now on."),
        HumanMessage("And the weather?"),
    ],
    "two user messages in a row": [HumanMessage("Here is my file: ..."), HumanMessage("Summarize it.")],
    "ends on an assistant message": [HumanMessage("Hi"), AIMessage("Hello! Ask away.")],
    "opens with an assistant greeting": [AIMessage("Hi! What shall we look into?"), HumanMessage("Prices.")],
    "another model's answer with thinking blocks": [
        HumanMessage("Why is the sky blue?"),
        AIMessage([{"type": "thinking", "thinking": "Rayleigh...", "signature": "c2ln"}, {"type": "text", "text": "Scattering."}]),
        HumanMessage("And sunsets?"),
    ],
}


def clients(base_url: str, surface: str) -> dict[str, Runnable[Any, Any]]:
    """The three clients, each set up for `surface` as its own documentation says."""
    perplexity = {
        "api_key": "k",
        "client": Perplexity(api_key="k", base_url=base_url),
        "async_client": AsyncPerplexity(api_key="k", base_url=base_url),
    }
    if surface == "agent":
        return {
            "ChatOpenAI": ChatOpenAI(
                model="perplexity/sonar", api_key="k", base_url=f"{base_url}/v1", use_responses_api=True, temperature=0.2
            ).bind_tools([{"type": "web_search"}]),
            "ChatPerplexity": ChatPerplexity(
                model="perplexity/sonar",
                use_responses_api=True,
                model_kwargs={"tools": [{"type": "web_search"}]},
                temperature=0.2,
                **perplexity,
            ),
            "ChatPerplexityStrict": ChatPerplexityStrict(api_key="k", base_url=base_url, temperature=0.2),
        }
    return {
        "ChatOpenAI": ChatOpenAI(model="sonar", api_key="k", base_url=base_url, temperature=0.2),
        "ChatPerplexity": ChatPerplexity(temperature=0.2, **perplexity),  # its defaults: model "sonar", chat completions
        "ChatPerplexityStrict": ChatPerplexityStrict(
            api_key="k", base_url=base_url, api="chat_completions", model="sonar", temperature=0.2
        ),
    }


def attempt(call: Callable[[], str]) -> str:
    try:
        return call()
    except Exception as error:  # the table reports what a user would meet
        first = str(error).splitlines()[0] if str(error) else ""
        return f"{type(error).__name__}: {first[:90]}"


def merged(model: Runnable[Any, Any], *args: Any, **kwargs: Any) -> Any:
    full = None
    for chunk in model.stream(*args, **kwargs):
        full = chunk if full is None else full + chunk
    return full


def sources(message: Any) -> str:
    """Where the answer's sources ended up: `citations`, `search_results`, and annotations in content blocks."""
    kwargs = message.additional_kwargs
    found = f"{len(kwargs.get('citations') or [])} citations, {len(kwargs.get('search_results') or [])} search results"
    blocks = message.content if isinstance(message.content, list) else []
    annotations = sum(len(b.get("annotations") or []) for b in blocks if isinstance(b, dict))
    return found + (f", {annotations} url_citation annotations in content" if annotations else "")


def rows(emu: PerplexityEmulator, model: Runnable[Any, Any]) -> dict[str, str]:
    chat_model: BaseChatModel = getattr(model, "bound", model)
    out = {"`ls_provider`": attempt(lambda: repr(chat_model._get_ls_params().get("ls_provider")))}

    def path() -> str:
        model.invoke(QUESTION)
        return f"`{emu.requests[-1].path}`"

    out["default path posted to"] = attempt(path)
    answer: dict[str, Any] = {}

    def invoke() -> str:
        answer["message"] = model.invoke(QUESTION)
        return sources(answer["message"])

    def stream() -> str:
        full = merged(model, QUESTION)
        answer["stream"] = full
        return sources(full)

    def usage() -> str:
        once, streamed = answer["message"].usage_metadata, answer["stream"].usage_metadata
        if streamed == once or (streamed and once and streamed["total_tokens"] == once["total_tokens"]):
            return f"same as invoke ({once['total_tokens']} tokens)"
        return f"{streamed and streamed['total_tokens']} tokens; invoke {once and once['total_tokens']}"

    def stop() -> str:
        text = merged(model, QUESTION, stop=["."]).text
        text = text if isinstance(text, str) else text()
        if "." not in text:
            return f"cut at the stop ({text!r})"
        if "stop" in emu.requests[-1].body:  # the server is asked to stop; the emulator does not apply it
            return "sent to the server as `stop`"
        return f"ignored: no `stop` in the body, answer not cut ({len(text)} characters)"

    def temperature() -> str:
        model.invoke(QUESTION)
        return repr(emu.requests[-1].body.get("temperature", "not sent"))

    out["`temperature=0.2` sent as"] = attempt(temperature)
    out["invoke: sources"] = attempt(invoke)
    out["stream: sources"] = attempt(stream)
    out["stream: usage"] = attempt(usage)
    out["`stream(stop=['.'])`"] = attempt(stop)
    for name, history in HISTORIES.items():
        out[f"history: {name}"] = attempt(lambda h=history: f"accepted ({sources(model.invoke(h))})")
    return out


def table(emu: PerplexityEmulator, surface: str) -> str:
    results = {name: rows(emu, model) for name, model in clients(emu.base_url, surface).items()}
    names = list(results)
    lines = ["| check | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for check in next(iter(results.values())):
        lines.append(f"| {check} | " + " | ".join(results[n][check].replace("|", "\\|") for n in names) + " |")
    return "\n".join(lines)


def main() -> None:
    packages = ["langchain-perplexity-strict", "langchain-perplexity", "langchain-openai", "langchain-core", "perplexityai"]
    print(", ".join(f"{p} {version(p)}" for p in packages))
    with PerplexityEmulator() as emu:
        print("\n## Agent API (`perplexity/sonar`, web search on)\n")
        print(table(emu, "agent"))
        print("\n## Sonar chat completions (`sonar`; retired by Perplexity on 2026-09-27)\n")
        print(table(emu, "chat_completions"))


if __name__ == "__main__":
    main()
