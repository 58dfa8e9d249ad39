"""The search, embeddings, cost, emulator and CLI fields, each with its check (see test_every_field_takes_effect)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tracers.context import collect_runs
from pydantic import BaseModel

from langchain_perplexity_strict import (
    PerplexityContextualizedEmbeddings,
    PerplexityCostCallbackHandler,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
    get_perplexity_cost_callback,
)
from langchain_perplexity_strict.cli import main
from langchain_perplexity_strict.errors import PerplexityBudgetExceededError, PerplexityResumeError
from langchain_perplexity_strict.testing import Fault, ManualClock, PerplexityEmulator
from tests.integration_tests.factory import KEY, make
from tests.integration_tests.field_effects import (
    CLI,
    CONTEXTUALIZED,
    COST,
    COST_CONTEXT,
    EFFECTS,
    EMBEDDINGS,
    EMULATOR,
    RETRIEVER,
    TOOL,
    Check,
    effect,
    sent,
)

# -- the Search API: retriever and tool ---------------------------------------------------------------------------

SEARCH_SENT: dict[str, Any] = {
    "max_tokens": 100,
    "max_tokens_per_page": 10,
    "country": "GB",
    "search_domain_filter": ["python.org"],
    "search_language_filter": ["en"],
    "search_recency_filter": "week",
    "search_after_date_filter": "3/1/2025",
    "search_before_date_filter": "4/1/2025",
    "last_updated_after_filter": "3/1/2025",
    "last_updated_before_filter": "4/1/2025",
    "search_mode": "academic",
    "search_context_size": "high",
    "search_type": "fast",
    "display_server_time": True,
}


def _search_sent(cls: type, name: str, value: Any) -> Check:
    def check(emu: PerplexityEmulator) -> None:
        searcher = cls(api_key=KEY, base_url=emu.base_url, **{name: value})
        searcher.invoke("q")
        assert sent(emu)[name] == value

    return check


for _cls in (PerplexitySearchRetriever, PerplexitySearchResults):
    for _name, _value in SEARCH_SENT.items():
        EFFECTS[(_cls.__name__, _name)] = _search_sent(_cls, _name, _value)


def _connected(cls: type) -> Check:
    """`api_key`, `base_url`, `timeout`, `max_retries`: the key sent, the server reached, the wait bounded, the
    retry made."""

    def check(emu: PerplexityEmulator) -> None:
        one: Any = {"texts": ["a"]} if "Embeddings" in cls.__name__ else {"query": "q"}

        def call(obj: Any) -> Any:
            if "texts" in one:
                return obj.embed_documents(one["texts"]) if cls is PerplexityEmbeddings else obj.embed_query("a")
            return obj.invoke("q")

        call(cls(api_key=KEY, base_url=emu.base_url))
        assert {k.lower(): v for k, v in emu.requests[-1].headers.items()}[
            "authorization"
        ] == f"Bearer {KEY}"  # any case
        with pytest.raises(Exception, match="401"):
            call(cls(api_key="wrong-key", base_url=emu.base_url, max_retries=0))
        emu.clear()
        emu.inject(Fault("server_error", status=503))
        call(cls(api_key=KEY, base_url=emu.base_url, max_retries=1))
        assert len(emu.requests) == 2
        emu.inject(Fault("hold"))  # not answered before the test ends (`clear` lets it go): only the timeout ends it
        with pytest.raises(Exception, match=r"(?i)time"):
            call(cls(api_key=KEY, base_url=emu.base_url, timeout=0.1, max_retries=0))
        # The request was read and its fault taken before the test ends: a loaded server reading it late would
        # put it, and its fault, in the next test's log.
        assert emu.wait_holding(1)

    return check


for _cls in (
    PerplexitySearchRetriever,
    PerplexitySearchResults,
    PerplexityEmbeddings,
    PerplexityContextualizedEmbeddings,
):
    for _name in ("api_key", "base_url", "timeout", "max_retries"):
        EFFECTS[(_cls.__name__, _name)] = _connected(_cls)


def _tool(emu: PerplexityEmulator, **kw: Any) -> PerplexitySearchResults:
    return PerplexitySearchResults(api_key=KEY, base_url=emu.base_url, **kw)  # type: ignore[arg-type]


def _call(tool: Any, **args: Any) -> Any:
    return tool.invoke({"type": "tool_call", "id": "c1", "name": tool.name, "args": {"query": "q", **args}})


@effect(RETRIEVER, "k")
def _k(emu: PerplexityEmulator) -> None:
    docs = PerplexitySearchRetriever(api_key=KEY, base_url=emu.base_url, k=3).invoke("q")  # type: ignore[arg-type]
    assert len(docs) == 3 and sent(emu)["max_results"] == 3


@effect(RETRIEVER, "name", "tags", "metadata")
def _retriever_run(emu: PerplexityEmulator) -> None:
    retriever = PerplexitySearchRetriever(
        api_key=KEY,
        base_url=emu.base_url,
        name="web",
        tags=["t"],  # type: ignore[arg-type]
        metadata={"m": 1},
    )
    with collect_runs() as runs:
        retriever.invoke("q")
    run = runs.traced_runs[0]
    assert run.name == "web" and run.tags == ["t"] and run.extra["metadata"]["m"] == 1


@effect(TOOL, "max_results")
def _max_results(emu: PerplexityEmulator) -> None:
    message = _call(_tool(emu, max_results=2))
    assert sent(emu)["max_results"] == 2 and len(message.artifact["results"]) == 2


@effect(TOOL, "response_format")
def _response_format(emu: PerplexityEmulator) -> None:
    both = _call(_tool(emu))
    assert both.content.startswith("[1] q (1)") and both.artifact["results"]
    text = _call(_tool(emu, response_format="content"))
    assert text.content == both.content and text.artifact is None
    assert _tool(emu, response_format="content").invoke("q") == both.content
    assert asyncio.run(_tool(emu, response_format="content").ainvoke("q")) == both.content


@effect(TOOL, "content_as")
def _content_as(emu: PerplexityEmulator) -> None:
    records = _tool(emu, content_as="results")
    assert records.invoke("q")[0]["url"] == _call(_tool(emu)).artifact["results"][0]["url"]
    assert json.loads(_call(records).content) == _call(records).artifact["results"]
    assert _tool(emu, content_as="text").invoke("q").startswith("[1] q (1)")


@effect(TOOL, "handle_validation_error")
def _handle_validation_error(emu: PerplexityEmulator) -> None:
    assert "max_results=99 is not accepted" in _call(_tool(emu), max_results=99).content  # the default explains
    assert _call(_tool(emu, handle_validation_error="bad argument"), max_results=99).content == "bad argument"
    with pytest.raises(ValueError, match="max_results=99"):
        _call(_tool(emu, handle_validation_error=False), max_results=99)
    assert not emu.requests


@effect(TOOL, "handle_tool_error")
def _handle_tool_error(emu: PerplexityEmulator) -> None:
    late = {"search_after_date_filter": "3/2/2025", "search_before_date_filter": "3/1/2025"}  # a rule across two
    assert "is later than" in _call(_tool(emu), **late).content
    assert _call(_tool(emu, handle_tool_error="try again"), **late).content == "try again"
    with pytest.raises(Exception, match="is later than"):
        _call(_tool(emu, handle_tool_error=False), **late)


@effect(TOOL, "return_direct")
def _return_direct(emu: PerplexityEmulator) -> None:
    from langchain.agents import create_agent

    agent = create_agent(make(emu, web_search=False), [_tool(emu, return_direct=True)])
    emu.clear()
    result = agent.invoke({"messages": [HumanMessage("search the web for cats")]})
    assert isinstance(result["messages"][-1], ToolMessage)  # the agent stopped at the tool's answer
    assert [r.kind for r in emu.requests].count("create") == 1


class _OnlyQuery(BaseModel):
    """Just the query."""

    query: str


@effect(TOOL, "args_schema", "name", "description")
def _schema_name_description(emu: PerplexityEmulator) -> None:
    tool = _tool(emu, args_schema=_OnlyQuery, name="web", description="Search it.")
    make(emu).bind_tools([tool]).invoke("hi")
    function = next(t for t in sent(emu)["tools"] if t.get("type") == "function")
    assert function["name"] == "web" and function["description"] == "Search it."
    assert set(function["parameters"]["properties"]) == {"query"}


@effect(TOOL, "verbose")
def _tool_verbose(emu: PerplexityEmulator) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _tool(emu).invoke("q")
    assert out.getvalue() == ""
    with contextlib.redirect_stdout(out):
        _tool(emu, verbose=True).invoke("q")
    assert "[1] q (1)" in out.getvalue()  # langchain-core's stdout handler prints the tool's output


@effect(TOOL, "callbacks", "tags", "metadata")
def _tool_run(emu: PerplexityEmulator) -> None:
    class Starts(BaseCallbackHandler):
        seen: list[Any] = []

        def on_tool_start(self, serialized: Any, input_str: str, **kwargs: Any) -> None:
            self.seen.append((kwargs.get("tags"), kwargs.get("metadata")))

    _tool(emu, callbacks=[Starts()], tags=["t"], metadata={"m": 1}).invoke("q")
    assert Starts.seen == [(["t"], {"m": 1})]


@effect(TOOL, "extras")
def _extras(emu: PerplexityEmulator) -> None:
    """langchain-core's provider-specific extras (Anthropic's `cache_control`, ...): Perplexity has none, and
    langchain-core's own conversion, which the model binds through, leaves them out, as ChatOpenAI does."""
    tool = _tool(emu, extras={"cache_control": {"type": "ephemeral"}})
    assert tool.extras == {"cache_control": {"type": "ephemeral"}}
    make(emu).bind_tools([tool]).invoke("hi")
    assert "cache_control" not in json.dumps(sent(emu))  # not sent where Perplexity's schema has no place for it


# -- embeddings ----------------------------------------------------------------------------------------------------


@effect(EMBEDDINGS, "model", "dimensions", "encoding_format")
def _embeddings_settings(emu: PerplexityEmulator) -> None:
    embeddings = PerplexityEmbeddings(
        api_key=KEY,
        base_url=emu.base_url,
        model="pplx-embed-v1-0.6b",  # type: ignore[arg-type]
        dimensions=128,
        encoding_format="base64_binary",
    )
    vector = embeddings.embed_query("a")
    assert len(vector) == 128 and set(vector) <= {1.0, -1.0}
    assert sent(emu) == {
        "model": "pplx-embed-v1-0.6b",
        "dimensions": 128,
        "encoding_format": "base64_binary",
        "input": ["a"],
    }


@effect(EMBEDDINGS, "chunk_size")
def _chunk_size(emu: PerplexityEmulator) -> None:
    PerplexityEmbeddings(api_key=KEY, base_url=emu.base_url, chunk_size=2).embed_documents(["a", "b", "c"])  # type: ignore[arg-type]
    # The two requests may be in flight together (max_concurrency), so they arrive in either order.
    assert sorted(len(r.body["input"]) for r in emu.requests) == [1, 2]


@effect(CONTEXTUALIZED, "model", "dimensions", "encoding_format")
def _contextualized_settings(emu: PerplexityEmulator) -> None:
    embeddings = PerplexityContextualizedEmbeddings(
        api_key=KEY,
        base_url=emu.base_url,  # type: ignore[arg-type]
        model="pplx-embed-context-v1-0.6b",
        dimensions=256,
        encoding_format="base64_binary",
    )
    vectors = embeddings.embed_in_context([["a", "b"]])
    assert [len(v) for v in vectors[0]] == [256, 256] and set(vectors[0][0]) <= {1.0, -1.0}
    assert sent(emu)["model"] == "pplx-embed-context-v1-0.6b" and sent(emu)["dimensions"] == 256


# -- the cost callback ---------------------------------------------------------------------------------------------


@effect(COST, "budget_usd")
def _budget_usd(emu: PerplexityEmulator) -> None:
    handler = PerplexityCostCallbackHandler(budget_usd=1e-9)
    model = make(emu, callbacks=[handler])
    model.invoke("hi")
    assert handler.total_cost > 0
    with pytest.raises(PerplexityBudgetExceededError):
        model.invoke("hi")
    assert len(emu.requests) == 1
    unlimited = PerplexityCostCallbackHandler()  # no budget: never refuses
    for _ in range(2):
        make(emu, callbacks=[unlimited]).invoke("hi")
    assert unlimited.total_cost == 2 * handler.total_cost and len(emu.requests) == 3


@effect(COST_CONTEXT, "budget_usd", "name")
def _cost_context(emu: PerplexityEmulator) -> None:
    with get_perplexity_cost_callback(budget_usd=1e-9, name="first") as first:
        with get_perplexity_cost_callback(name="second") as second:
            make(emu).invoke("hi")  # each name is its own context variable: both totals see the call
        with pytest.raises(PerplexityBudgetExceededError):
            make(emu).invoke("hi")
    assert first.total_cost == second.total_cost > 0


# -- the emulator --------------------------------------------------------------------------------------------------


def _get(url: str, key: str = KEY) -> tuple[int, Any]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, None


def _post(url: str, body: dict[str, Any], key: str = KEY) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, None


@effect(EMULATOR, "host", "port", "api_key")
def _emulator_socket(emu: PerplexityEmulator) -> None:
    with PerplexityEmulator(host="127.0.0.1", port=0, api_key="own") as own:
        assert own.base_url == f"http://127.0.0.1:{own.port}" and own.port != 0
        assert _post(own.base_url + "/search", {"query": "q"}, "own")[0] == 200
        assert _post(own.base_url + "/search", {"query": "q"}, "other")[0] == 401


@effect(EMULATOR, "agent_models")
def _agent_models(emu: PerplexityEmulator) -> None:
    with PerplexityEmulator(api_key=KEY, agent_models=["perplexity/sonar"]) as own:
        assert [m["id"] for m in _get(own.base_url + "/v1/models")[1]["data"]] == ["perplexity/sonar"]
        with pytest.raises(Exception, match=r"400|404"):
            make(own, model="openai/gpt-5.1", max_retries=0).invoke("hi")


@effect(EMULATOR, "sonar_retired")
def _sonar_retired(emu: PerplexityEmulator) -> None:
    with PerplexityEmulator(api_key=KEY, sonar_retired=True) as own, pytest.raises(Exception, match="not_available"):
        make(own, "chat_completions", max_retries=0).invoke("hi")


@effect(EMULATOR, "sonar_function_tools")
def _sonar_function_tools(emu: PerplexityEmulator) -> None:
    body = {
        "model": "sonar",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    }
    for switch, status in ((False, 400), (True, 200)):
        with PerplexityEmulator(api_key=KEY, sonar_function_tools=switch) as own:
            assert _post(own.base_url + "/chat/completions", body)[0] == status, switch


@effect(EMULATOR, "conversation_rules")
def _conversation_rules(emu: PerplexityEmulator) -> None:
    from langchain_perplexity_strict.testing.conversation import ConversationRules

    assistant_first = [AIMessage("I start"), HumanMessage("hi")]  # sent as is: no rules on the client
    with pytest.raises(Exception, match="400"):
        make(emu, "chat_completions", rules=[], max_retries=0).invoke(assistant_first)
    with PerplexityEmulator(api_key=KEY, conversation_rules=ConversationRules(require_user_first=False)) as lax:
        assert make(lax, "chat_completions", rules=[]).invoke(assistant_first).content


@effect(EMULATOR, "track_roles")
def _track_roles(emu: PerplexityEmulator) -> None:
    first = [SystemMessage("same words"), HumanMessage("hi")]
    again = [HumanMessage("same words"), AIMessage("ok"), HumanMessage("hi")]  # the same message, another role
    with PerplexityEmulator(api_key=KEY) as tracking:
        make(tracking, "chat_completions", rules=[]).invoke(first)
        with pytest.raises(Exception, match="400"):
            make(tracking, "chat_completions", rules=[], max_retries=0).invoke(again)
    with PerplexityEmulator(api_key=KEY, track_roles=False) as forgetting:
        make(forgetting, "chat_completions", rules=[]).invoke(first)
        assert make(forgetting, "chat_completions", rules=[]).invoke(again).content


@effect(EMULATOR, "event_delay", "run_duration", "queue_time")
def _emulator_clock(emu: PerplexityEmulator) -> None:
    """Each stretches the emulator's clock: seen in what the run reports when asked at once, not in how long the
    test waits (a 30 s clock is still running whatever a loaded machine's pauses: no client bound to race)."""
    body = {"model": "perplexity/sonar", "input": "hi", "background": True}

    def status_at_once(**clock: float) -> str:
        """A background run's status, retrieved as soon as its create is answered."""
        with PerplexityEmulator(api_key=KEY, **clock) as own:
            code, text = _post(own.base_url + "/v1/responses", body)
            assert code == 200, text
            code, run = _get(f"{own.base_url}/v1/responses/{json.loads(text)['id']}")
            assert code == 200
            return str(run["status"])

    assert status_at_once() == "completed"  # no clock: over once created
    assert status_at_once(queue_time=30.0) == "queued"
    assert status_at_once(run_duration=30.0) == "in_progress"
    # A stream whose next event is 30 s away: only the 0.3 s stall timeout can end it (the emulator holds it open).
    with PerplexityEmulator(api_key=KEY, event_delay=30.0) as delayed, pytest.raises(Exception, match=r"(?i)stall"):
        list(make(delayed, stream_chunk_timeout=0.3, max_resumes=0, max_retries=0).stream("hi"))


@effect(EMULATOR, "clock")
def _emulator_manual_clock(emu: PerplexityEmulator) -> None:
    """A run keeps the given clock's time: a 30 s run is under way until the test moves that clock past its end
    (on the machine's clock it would still be going)."""
    clock = ManualClock()
    with PerplexityEmulator(api_key=KEY, run_duration=30.0, clock=clock) as own:
        body = {"model": "perplexity/sonar", "input": "hi", "background": True}
        code, text = _post(own.base_url + "/v1/responses", body)
        assert code == 200, text
        url = f"{own.base_url}/v1/responses/{json.loads(text)['id']}"
        assert _get(url)[1]["status"] == "in_progress"
        clock.advance(30.0)
        assert _get(url)[1]["status"] == "completed"


@effect(EMULATOR, "seed")
def _seed(emu: PerplexityEmulator) -> None:
    def pattern(seed: int) -> list[int]:
        with PerplexityEmulator(api_key=KEY, seed=seed) as own:
            own.set_fault_rates({Fault("server_error", status=503): 0.5})
            return [_post(own.base_url + "/search", {"query": "q"})[0] for _ in range(24)]

    assert pattern(1) == pattern(1) != pattern(2)


@effect(EMULATOR, "dialect")
def _dialect(emu: PerplexityEmulator) -> None:
    """The live dialect numbers a stream's events from 0 (as the live capture does), the published schema from 1."""

    def first_number(dialect: str) -> int:
        with PerplexityEmulator(api_key=KEY, dialect=dialect) as own:  # type: ignore[arg-type]
            lines = _post(own.base_url + "/v1/responses", {"model": "perplexity/sonar", "input": "hi", "stream": True})
        events = [x[5:] for x in lines[1].splitlines() if x.startswith("data:") and x[5:].strip() != "[DONE]"]
        return int(json.loads(events[0])["sequence_number"])

    assert (first_number("live"), first_number("schema")) == (0, 1)


@effect(EMULATOR, "openai_events")
def _openai_events(emu: PerplexityEmulator) -> None:
    def event_types(switch: bool) -> set[str]:
        with PerplexityEmulator(api_key=KEY, openai_events=switch) as own:
            lines = _post(own.base_url + "/v1/responses", {"model": "perplexity/sonar", "input": "hi", "stream": True})
        events = [x[5:] for x in lines[1].splitlines() if x.startswith("data:") and x[5:].strip() != "[DONE]"]
        return {json.loads(x)["type"] for x in events}

    assert event_types(True) - event_types(False)


@effect(EMULATOR, "resumable_streams")
def _resumable_streams(emu: PerplexityEmulator) -> None:
    with PerplexityEmulator(api_key=KEY, resumable_streams=False) as own:
        own.inject(Fault("reset", after_events=3))
        with pytest.raises(PerplexityResumeError, match="background=True"):
            list(make(own).stream("hi"))


@effect(EMULATOR, "unknown_output_items")
def _unknown_output_items(emu: PerplexityEmulator) -> None:
    with PerplexityEmulator(api_key=KEY, unknown_output_items=True) as own:
        assert make(own).invoke("hi").content  # the client reads on past an item newer than it knows
        answer = _post(own.base_url + "/v1/responses", {"model": "perplexity/sonar", "input": "hi"})[1]
        assert "unknown" in [item["type"] for item in json.loads(answer)["output"]]


# -- the CLI ------------------------------------------------------------------------------------------------------


def _run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            status = main(list(argv))
        except SystemExit as leaving:
            status = int(leaving.code or 0)
    return status, out.getvalue()


@effect(CLI, "--version")
def _version(emu: PerplexityEmulator) -> None:
    from langchain_perplexity_strict import __version__

    assert __version__ in _run_cli("--version")[1]


@effect(CLI, "chat question", "chat --system", "chat --model", "chat --effort", "chat --preset", "chat --api")
def _cli_chat(emu: PerplexityEmulator) -> None:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PPLX_API_KEY", KEY)
        env.setenv("PPLX_BASE_URL", emu.base_url)
        status, out = _run_cli("chat", "what is new", "--system", "Be brief.", "--model", "openai/gpt-5.1")
        assert status == 0 and "[1]" in out
        body = sent(emu)
        assert body["model"] == "openai/gpt-5.1"
        assert "Be brief." in json.dumps(body) and "what is new" in json.dumps(body)
        _run_cli("chat", "what is new", "--effort", "fast@2026-10-16.0")
        assert sent(emu)["effort"] == "fast@2026-10-16.0" and "model" not in sent(emu)
        _run_cli("chat", "what is new", "--preset", "low")
        assert sent(emu)["preset"] == "low" and "model" not in sent(emu)
        _run_cli("chat", "what is new", "--api", "chat_completions")
        assert emu.requests[-1].path == "/chat/completions"


def _in_flight(emu: PerplexityEmulator, call: Any) -> None:
    """`call` keeps two requests in flight at once: both held answers are waiting together."""
    import threading

    emu.inject(Fault("hold"), Fault("hold"))
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    try:
        assert emu.wait_holding(2, timeout=30)
    finally:
        emu.release()
    thread.join(30)


@effect("PerplexityEmbeddings", "max_concurrency")
def _embeddings_concurrency(emu: PerplexityEmulator) -> None:
    model = PerplexityEmbeddings(api_key=KEY, base_url=emu.base_url, chunk_size=1, max_concurrency=2)  # type: ignore[arg-type]
    _in_flight(emu, lambda: model.embed_documents(["a", "b", "c"]))


@effect("PerplexityContextualizedEmbeddings", "max_concurrency")
def _contextual_concurrency(emu: PerplexityEmulator) -> None:
    model = PerplexityContextualizedEmbeddings(api_key=KEY, base_url=emu.base_url, max_concurrency=2)  # type: ignore[arg-type]
    _in_flight(emu, lambda: model.embed_in_context([[f"{n}" + "a" * 40_000] for n in range(4)]))


@effect(CLI, "models --json", "models --emulator")
def _cli_models(emu: PerplexityEmulator) -> None:
    with pytest.MonkeyPatch.context() as env:
        env.delenv("PPLX_API_KEY", raising=False)
        env.delenv("PERPLEXITY_API_KEY", raising=False)
        assert _run_cli("models")[0] == 2  # no key: refused
        status, out = _run_cli("models", "--emulator")
        assert status == 0 and "perplexity/sonar\tperplexity" in out.splitlines()
        status, out = _run_cli("models", "--emulator", "--json")
        assert status == 0 and json.loads(out)["data"][0]["id"] == "perplexity/sonar"


@effect(CLI, "chat --emulator")
def _cli_chat_emulator(emu: PerplexityEmulator) -> None:
    with pytest.MonkeyPatch.context() as env:
        env.delenv("PPLX_API_KEY", raising=False)
        env.delenv("PERPLEXITY_API_KEY", raising=False)
        assert _run_cli("chat", "what is new")[0] == 2  # no key: refused
        status, out = _run_cli("chat", "what is new", "--emulator")
    assert status == 0 and out.startswith("[answered by the local Perplexity emulator")


@effect(CLI, "check file", "check --model", "check --effort", "check --preset", "check --api")
def _cli_check(emu: PerplexityEmulator) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.json"
        path.write_text(json.dumps([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]))
        status, out = _run_cli("check", str(path))
        assert status == 0 and '"model": "perplexity/sonar"' in out and "merge" in out.lower()
        status, out = _run_cli("check", str(path), "--model", "openai/gpt-5.1")
        assert '"model": "openai/gpt-5.1"' in out
        status, out = _run_cli("check", str(path), "--effort", "medium")
        assert '"effort": "medium"' in out and '"model"' not in out
        status, out = _run_cli("check", str(path), "--preset", "low")
        assert '"preset": "low"' in out
        status, out = _run_cli("check", str(path), "--api", "chat_completions")
        assert '"messages"' in out and '"input"' not in out


@effect(
    CLI,
    "emulator --host",
    "emulator --port",
    "emulator --background",
    "emulator --env",
    "emulator --sonar-retired",
    "emulator --event-delay",
    "emulator --dialect",
)
def _cli_emulator(emu: PerplexityEmulator) -> None:
    """`--background --env` starts a process with the flags and prints where it serves (the session's `exports`
    fixture runs the same); the flags reach the emulator the command builds."""
    import langchain_perplexity_strict.cli as cli

    built: list[dict[str, Any]] = []

    class Recording(PerplexityEmulator):
        def __init__(self, **kw: Any) -> None:
            built.append(kw)
            super().__init__(**kw)

        def start(self) -> PerplexityEmulator:
            raise OSError(98, "stop here")  # the command then reports the port as taken, having built it

    import langchain_perplexity_strict.testing as testing

    original = testing.PerplexityEmulator
    testing.PerplexityEmulator = Recording  # type: ignore[misc]
    try:
        status, _ = _run_cli(
            "emulator",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--sonar-retired",
            "--event-delay",
            "0.5",
            "--dialect",
            "schema",
        )
    finally:
        testing.PerplexityEmulator = original  # type: ignore[misc]
    assert status == 2
    assert built == [{"host": "127.0.0.1", "port": 0, "sonar_retired": True, "event_delay": 0.5, "dialect": "schema"}]
    assert _run_cli("emulator", "--env")[0] == 2  # --env without --background is refused
    del cli


@effect(CLI, "emulator --stop")
def _cli_emulator_stop(emu: PerplexityEmulator) -> None:
    """`--stop` stops the emulator the shell points at (it then no longer serves), and with `--env` prints what
    undoes the exports; a shell pointed at no emulator is told so, and nothing of its own is unset."""
    import re
    import urllib.request

    status, out = _run_cli("emulator", "--port", "0", "--background", "--env")
    exported = dict(re.findall(r"^export (\w+)=(\S+)$", out, re.MULTILINE))
    assert status == 0
    with pytest.MonkeyPatch.context() as env:
        for name, value in exported.items():
            env.setenv(name, value)
        status, out = _run_cli("emulator", "--stop", "--env")
        assert status == 0 and "unset PERPLEXITY_EMULATOR_PID PERPLEXITY_EMULATOR_REUSED" in out.splitlines()
        with pytest.raises(OSError):
            urllib.request.urlopen(exported["PPLX_BASE_URL"] + "/v1/models", timeout=2)
        env.delenv("PERPLEXITY_EMULATOR_PID")
        env.setenv("PPLX_API_KEY", "pplx-mine")
        status, out = _run_cli("emulator", "--stop", "--env", "--port", "0")
        assert status == 0 and "unset" not in out and "export" not in out


@effect(CLI, "demo")
def _cli_demo(emu: PerplexityEmulator) -> None:
    with pytest.MonkeyPatch.context() as env:
        for name in ("PPLX_API_KEY", "PERPLEXITY_API_KEY", "PPLX_BASE_URL"):
            env.delenv(name, raising=False)
        status, out = _run_cli("demo")
    assert status == 0 and out.startswith("Answers in this tour come from the local Perplexity emulator")
    assert "5. A streamed answer" in out
