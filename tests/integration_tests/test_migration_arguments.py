"""Every argument habit of langchain-perplexity 1.4.2 and of `ChatOpenAI` pointed at Perplexity, against the emulator.

Written from the two packages' sources: `ChatPerplexity`'s fields and call keyword arguments (and its
retriever's, tool's and embeddings' arguments), and `BaseChatOpenAI`'s fields. Each habit either carries
over (the value is in the body the emulator recorded, which it validated against Perplexity's published
request models) or is refused before anything is sent, with a message naming what to write instead, on the
constructor, call and `bind` paths. docs/migration.md's rows (`migration_rows_arguments.py`) name these tests.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
)
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY, make

Q = "What changed in Python 3.13?"
APIS = ("agent", "chat_completions")


def body(emu: PerplexityEmulator) -> dict:
    """The body of the last request the emulator received (it refuses one the published models refuse)."""
    assert emu.requests, "nothing was sent"
    return emu.requests[-1].body


def search_tool(sent: dict) -> dict:
    [tool] = [t for t in sent["tools"] if t["type"] == "web_search"]
    return tool


# -- carried over, in the body, on every path ---------------------------------------------------------------


def on_every_path(emu: PerplexityEmulator, api: str, **habit: object) -> list[dict]:
    """The bodies sent with `habit` given to the constructor, to a call, and by `.bind`."""
    bodies = []
    make(emu, api, **habit).invoke(Q)
    bodies.append(body(emu))
    make(emu, api).invoke(Q, **habit)
    bodies.append(body(emu))
    make(emu, api).bind(**habit).invoke(Q)
    bodies.append(body(emu))
    return bodies


@pytest.mark.parametrize("api", APIS)
def test_web_search_options_carry_over_to_the_search_settings(emu: PerplexityEmulator, api: str) -> None:
    options = {"search_context_size": "high", "user_location": {"country": "FR", "city": "Lyon"}}
    for sent in on_every_path(emu, api, web_search_options=options):
        where = search_tool(sent) if api == "agent" else sent["web_search_options"]
        assert where["search_context_size"] == "high"
        assert where["user_location"] == {"country": "FR", "city": "Lyon"}
    # langchain-perplexity's pydantic WebSearchOptions and its misnamed image relevance switch
    pro = {"search_type": "pro", "image_search_relevance_enhanced": True}
    if api == "chat_completions":
        make(emu, api, web_search_options=pro).invoke(Q)
        assert body(emu)["web_search_options"] == {"search_type": "pro", "image_results_enhanced_relevance": True}
    else:
        with pytest.raises(ValueError, match="search_type='pro' is not accepted on api='agent'"):
            make(emu, api, web_search_options=pro)
    with pytest.raises(ValueError, match=r"web_search_options\['search_depth'\] .* takes image_results_enh"):
        make(emu, api, web_search_options={"search_depth": "deep"})


@pytest.mark.parametrize("api", APIS)
def test_extra_body_carries_over_on_every_path(emu: PerplexityEmulator, api: str) -> None:
    extra = {"search_domain_filter": ["python.org"], "search_recency_filter": "month"}
    for sent in on_every_path(emu, api, extra_body=extra):
        where = search_tool(sent)["filters"] if api == "agent" else sent
        assert where["search_domain_filter"] == ["python.org"]
        assert where["search_recency_filter"] == "month"
    # a field no parameter names goes into the body as model_kwargs would send it
    if api == "chat_completions":
        make(emu, api).invoke(Q, extra_body={"safe_search": True})
        assert body(emu)["safe_search"] is True
    # extra_body inside model_kwargs (the way langchain-perplexity passed it on) is unpacked, not sent literally
    make(emu, api, model_kwargs={"extra_body": {"web_search_options": {"search_context_size": "low"}}}).invoke(Q)
    sent = body(emu)
    assert "extra_body" not in sent
    assert (search_tool(sent) if api == "agent" else sent["web_search_options"])["search_context_size"] == "low"
    with pytest.raises(ValueError, match="search_recency_filter is given twice"):
        make(emu, api, search_recency_filter="day", extra_body={"search_recency_filter": "week"})


@pytest.mark.parametrize("api", APIS)
def test_reasoning_effort_dict_carries_over(emu: PerplexityEmulator, api: str) -> None:
    for sent in on_every_path(emu, api, reasoning={"effort": "low"}):
        assert (sent["reasoning"]["effort"] if api == "agent" else sent["reasoning_effort"]) == "low"
    with pytest.raises(ValueError, match=r"reasoning\['summary'\] .* reasoning takes effort"):
        make(emu, api, reasoning={"effort": "low", "summary": "auto"})


def test_a_call_may_change_the_model(emu: PerplexityEmulator) -> None:
    make(emu).invoke(Q, model="openai/gpt-5.1")
    assert body(emu)["model"] == "openai/gpt-5.1"
    make(emu).bind(model="openai/gpt-5.1").invoke(Q)
    assert body(emu)["model"] == "openai/gpt-5.1"
    make(emu, "chat_completions").invoke(Q, model="sonar-pro")
    assert body(emu)["model"] == "sonar-pro"
    with pytest.raises(ValueError, match="model=3 is not accepted"):
        make(emu).invoke(Q, model=3)


def test_use_responses_api_picks_the_api(emu: PerplexityEmulator) -> None:
    common: dict[str, Any] = {"api_key": KEY, "base_url": emu.base_url}
    assert ChatPerplexityStrict(use_responses_api=True, **common).api == "agent"  # type: ignore[call-arg]
    model = ChatPerplexityStrict(use_responses_api=False, **common)  # type: ignore[call-arg]
    assert (model.api, model.model) == ("chat_completions", "sonar")
    model.invoke(Q)
    assert emu.requests[-1].path.endswith("/chat/completions")
    assert ChatPerplexityStrict(use_responses_api=None, **common).api == "agent"  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="api is given twice, as use_responses_api and as api"):
        ChatPerplexityStrict(use_responses_api=True, api="chat_completions", **common)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="ChatPerplexityStrict\\(api='agent' or 'chat_completions'\\)"):
        make(emu).invoke(Q, use_responses_api=False)


@pytest.mark.parametrize("api", APIS)
def test_disable_search_carries_over(emu: PerplexityEmulator, api: str) -> None:
    for sent in on_every_path(emu, api, disable_search=True):
        if api == "agent":
            assert "tools" not in sent  # no web_search tool: as web_search=False
        else:
            assert sent["disable_search"] is True
    with pytest.raises(ValueError, match="contradict"):
        make(emu, "agent", disable_search=True, web_search=True)


def test_enable_search_classifier(emu: PerplexityEmulator) -> None:
    for sent in on_every_path(emu, "chat_completions", enable_search_classifier=True):
        assert sent["enable_search_classifier"] is True
    with pytest.raises(ValueError, match=r"no search classifier.*as the classifier did; remove it"):
        make(emu, "agent", enable_search_classifier=True)


@pytest.mark.parametrize("name", ["return_images", "return_related_questions", "enable_search_classifier"])
def test_langchain_perplexitys_false_defaults_are_taken_on_the_agent_api(emu: PerplexityEmulator, name: str) -> None:
    for sent in on_every_path(emu, "agent", **{name: False}):
        assert name not in sent
        assert search_tool(sent) == {"type": "web_search"}  # nothing else changed


def test_return_images(emu: PerplexityEmulator) -> None:
    for sent in on_every_path(emu, "chat_completions", return_images=True):
        assert sent["return_images"] is True
    with pytest.raises(ValueError, match=re.escape("bind_tools([image_search_tool(), web_search_tool()])")):
        make(emu, "agent", return_images=True)


def test_binding_image_search_keeps_the_search_and_never_drops_a_filter(emu: PerplexityEmulator) -> None:
    make(emu).bind_tools([{"type": "image_search"}]).invoke(Q)
    tools = {t["type"]: t for t in body(emu)["tools"]}
    assert set(tools) == {"image_search", "web_search"}  # perplexity/sonar still searches
    assert emu.requests[-1].body["model"] == "perplexity/sonar"
    filtered = make(emu, search_domain_filter=["python.org"], search_recency_filter="month")
    emu.clear()
    with pytest.raises(ValueError, match=r"search_domain_filter=\['python.org'\].*image_search.*Bind web_search too"):
        filtered.bind_tools([{"type": "image_search"}]).invoke(Q)
    assert not emu.requests
    filtered.bind_tools([{"type": "image_search"}, {"type": "web_search"}]).invoke(Q)
    tools = {t["type"]: t for t in body(emu)["tools"]}
    assert tools["web_search"]["filters"] == {"search_domain_filter": ["python.org"], "search_recency_filter": "month"}


def test_stream_usage_and_stream_options(emu: PerplexityEmulator) -> None:
    model = make(emu, stream_usage=False)
    chunks = list(model.stream(Q))
    assert all(c.usage_metadata is None for c in chunks)
    chunks = list(make(emu).stream(Q, stream_options={"include_usage": False}))
    assert all(c.usage_metadata is None for c in chunks)
    full = None
    for chunk in make(emu).stream(Q, stream_options={"include_usage": True}):
        full = chunk if full is None else full + chunk
    assert isinstance(full, AIMessageChunk) and full.usage_metadata


def test_output_version(emu: PerplexityEmulator) -> None:
    answer = make(emu, output_version="v1").invoke(Q)
    assert isinstance(answer.content, list) and "text" in [block["type"] for block in answer.content]
    with pytest.raises(ValueError, match="output_version='responses/v1' is not accepted: use 'v1'"):
        make(emu, output_version="responses/v1")


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("openai_api_key", KEY, "api_key"),
        ("pplx_api_key", KEY, "api_key"),
        ("model_name", "openai/gpt-5.1", "model"),
        ("request_timeout", 30, "timeout"),
        ("max_completion_tokens", 64, "max_tokens"),
        ("stop_sequences", ["\n\n"], "stop"),
    ],
)
def test_renamed_arguments(emu: PerplexityEmulator, name: str, value: object, expected: str) -> None:
    common: dict[str, Any] = {"api_key": KEY, "base_url": emu.base_url}
    common.pop(expected, None)
    model = ChatPerplexityStrict(**common, **{name: value})  # type: ignore[arg-type]
    got = getattr(model, expected)
    assert (got.get_secret_value() if expected == "api_key" else got) == value
    model.invoke(Q)
    if expected == "max_tokens":
        assert body(emu)["max_output_tokens"] == 64
    if expected == "model":
        assert body(emu)["model"] == "openai/gpt-5.1"
    assert ChatPerplexityStrict(openai_api_base=emu.base_url, api_key=KEY).base_url == emu.base_url  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("api", "habit", "field", "value"),
    [
        ("agent", {"temperature": 0.2}, "temperature", 0.2),
        ("chat_completions", {"temperature": 0.2}, "temperature", 0.2),
        ("agent", {"top_p": 0.5}, "top_p", 0.5),
        ("agent", {"max_tokens": 64}, "max_output_tokens", 64),
        ("chat_completions", {"max_tokens": 64}, "max_tokens", 64),
        ("agent", {"reasoning_effort": "high"}, "reasoning.effort", "high"),
        ("chat_completions", {"reasoning_effort": "high"}, "reasoning_effort", "high"),
        ("agent", {"language_preference": "fr"}, "language_preference", "fr"),
        ("chat_completions", {"search_mode": "academic"}, "search_mode", "academic"),
        ("chat_completions", {"return_related_questions": True}, "return_related_questions", True),
        ("chat_completions", {"search_after_date_filter": "1/1/2025"}, "search_after_date_filter", "1/1/2025"),
        (
            "agent",
            {"search_before_date_filter": "1/1/2025"},
            "tools.web_search.filters.search_before_date_filter",
            "1/1/2025",
        ),
        (
            "agent",
            {"last_updated_after_filter": "1/1/2025"},
            "tools.web_search.filters.last_updated_after_filter",
            "1/1/2025",
        ),
        ("agent", {"store": True}, "store", True),
        ("agent", {"service_tier": "flex"}, "service_tier", "flex"),
        ("agent", {"prompt_cache_key": "app-1"}, "prompt_cache_key", "app-1"),
        ("chat_completions", {"presence_penalty": 0.5}, "presence_penalty", 0.5),
        ("chat_completions", {"frequency_penalty": 1.2}, "frequency_penalty", 1.2),
        ("chat_completions", {"top_k": 5}, "top_k", 5),
    ],
)
def test_shared_fields_carry_over_on_every_path(
    emu: PerplexityEmulator, api: str, habit: dict, field: str, value: object
) -> None:
    for sent in on_every_path(emu, api, **habit):
        where: object = search_tool(sent) if field.startswith("tools.web_search.") else sent
        for part in field.removeprefix("tools.web_search.").split("."):
            assert isinstance(where, dict)
            where = where[part]
        assert where == value


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("search_mode", "academic"),
        ("return_related_questions", True),
        ("top_k", 5),
        ("presence_penalty", 0.5),
        ("frequency_penalty", 1.2),
    ],
)
def test_chat_completions_only_parameters_are_refused_on_the_agent_api(
    emu: PerplexityEmulator, name: str, value: object
) -> None:
    emu.clear()
    for build in (lambda: make(emu, **{name: value}), lambda: make(emu).invoke(Q, **{name: value})):
        with pytest.raises(ValueError, match=f"{name}=.* is not available on api='agent'.*api='chat_completions'"):
            build()
    assert not emu.requests


def test_n_is_n_requests(emu: PerplexityEmulator) -> None:
    result = make(emu, n=2).generate([[HumanMessage(Q)]])
    assert len(result.generations[0]) == 2
    assert len(emu.requests) == 2 and all("n" not in r.body for r in emu.requests)


@pytest.mark.parametrize("value", [True, None])
def test_parallel_tool_calls_true_is_what_perplexity_does(emu: PerplexityEmulator, value: object) -> None:
    make(emu).invoke(Q, parallel_tool_calls=value)
    assert "parallel_tool_calls" not in body(emu)
    emu.clear()
    with pytest.raises(ValueError, match=r"parallel_tool_calls=False: .*handle every tool call"):
        make(emu).invoke(Q, parallel_tool_calls=False)
    assert not emu.requests


@pytest.mark.parametrize("api", APIS)
def test_the_defaults_that_differ(emu: PerplexityEmulator, api: str) -> None:
    model = make(emu, api)
    assert (model.temperature, model.max_retries) == (None, 2)
    model.invoke(Q)
    sent = body(emu)
    assert "temperature" not in sent  # Perplexity's own default, not langchain-perplexity's 0.7
    assert sent["model"] == ("perplexity/sonar" if api == "agent" else "sonar")
    make(emu, api, temperature=0.7, max_retries=6).invoke(Q)  # the old defaults, given: taken as they are
    assert body(emu)["temperature"] == 0.7
    with pytest.warns(UserWarning, match="sonar"):
        make(emu, "agent", model="sonar").invoke(Q)  # a Sonar name on the Agent API: mapped, said once
    assert body(emu)["model"] == "perplexity/sonar"


# -- refused before sending, naming what to write instead ----------------------------------------------------

REFUSED = [
    ("client", object(), "api_key=..., base_url=..., timeout=... and max_retries=..."),
    ("async_client", object(), "api_key=..., base_url=..., timeout=... and max_retries=..."),
    ("root_client", object(), "api_key=..., base_url=..."),
    ("http_client", object(), "HTTPS_PROXY"),
    ("http_async_client", object(), "HTTPS_PROXY"),
    ("http_socket_options", [], "api_key=..., base_url=..."),
    ("openai_proxy", "http://proxy:8080", "HTTPS_PROXY environment variable"),
    ("openai_organization", "org-1", "no organizations"),
    ("default_headers", {"X-App": "1"}, "no extra headers"),
    ("default_query", {"a": "1"}, "no query parameters"),
    (
        "media_response",
        {"overrides": {"return_images": True}},
        r"return_images=True .* bind_tools\(\[image_search_tool\(\), web_search_tool\(\)\]\)",
    ),
    ("previous_response_id", "resp_1", "use_previous_response_id=True"),
    ("truncation", "auto", "max_input_tokens"),
    ("context_management", [{"type": "compaction"}], "max_input_tokens"),
    ("include", ["reasoning.encrypted_content"], "come back without asking"),
    ("include_response_headers", True, "response_metadata"),
    ("disabled_params", {"parallel_tool_calls": None}, "refused before sending"),
    ("prompt_cache_options", {"ttl": 60}, "prompt_cache_key"),
    ("tiktoken_model_name", "gpt-4o", "token_counter"),
    ("verbosity", "low", "instructions"),
    ("text", {"format": {"type": "json_object"}}, "with_structured_output"),
    ("seed", 7, "published request models"),
    ("logit_bias", {1: 1}, "published request models"),
    ("prediction", {"type": "content", "content": "x"}, "published request models"),
    ("modalities", ["text"], "published request models"),
    ("audio", {"voice": "alloy"}, "published request models"),
    ("user", "user-1", "published request models"),
    ("logprobs", True, "no logprobs"),
    ("top_logprobs", 3, "no logprobs"),
    ("max_search_results", 5, "search_max_tokens"),
]


@pytest.fixture(scope="module")
def shared(emulator: PerplexityEmulator) -> ChatPerplexityStrict:
    """One model for the call and bind refusals (nothing it holds changes)."""
    return make(emulator)


@pytest.mark.parametrize(("name", "value", "instead"), REFUSED, ids=[r[0] for r in REFUSED])
@pytest.mark.parametrize("path", ["constructor", "call", "bind"])
def test_refused_before_sending_naming_the_replacement(
    emu: PerplexityEmulator, shared: ChatPerplexityStrict, name: str, value: object, instead: str, path: str
) -> None:
    emu.clear()
    with pytest.raises(ValueError, match=f"{name}.* is not taken by ChatPerplexityStrict: .*{instead}") as info:
        if path == "constructor":
            make(emu, **{name: value})
        elif path == "call":
            shared.invoke(Q, **{name: value})
        else:
            shared.bind(**{name: value}).invoke(Q)
    assert not emu.requests
    assert "Did you mean" not in str(info.value)


def test_a_missing_key_says_openai_api_key_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PPLX_API_KEY", "PERPLEXITY_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-perplexity")
    for cls in (ChatPerplexityStrict, PerplexitySearchRetriever, PerplexityEmbeddings):
        with pytest.raises(ValueError, match=r"OPENAI_API_KEY is set but not read.*PPLX_API_KEY") as info:
            cls()
        assert "sk-not-for-perplexity" not in str(info.value)


@pytest.mark.parametrize("cls", [ChatPerplexityStrict, PerplexitySearchRetriever, PerplexityEmbeddings])
def test_an_unread_openai_base_url_warns_once_per_model(monkeypatch: pytest.MonkeyPatch, cls: type) -> None:
    """An app that ran `ChatOpenAI` through a gateway (`OPENAI_BASE_URL`) is told its requests now go to
    Perplexity, and how to keep the gateway: a warning, not an error (OpenAI and Perplexity side by side)."""
    import warnings

    from langchain.chat_models import init_chat_model

    monkeypatch.setenv("PPLX_API_KEY", KEY)
    monkeypatch.delenv("PPLX_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "https://user:pw@gateway.example/v1")

    built: list[Any] = []

    def warned(build: Any) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            built.append(build())
        return [str(w.message) for w in caught if "OPENAI_BASE_URL" in str(w.message)]

    [message] = warned(cls)
    assert "PPLX_BASE_URL" in message and "https://api.perplexity.ai" in message and "pw" not in message
    model = built[-1]
    assert warned(lambda: model.model_copy(update={"max_retries": 1})) == []  # its copies: warned already
    if cls is ChatPerplexityStrict:
        assert len(warned(lambda: init_chat_model("perplexity_strict:perplexity/sonar"))) == 1
    # told where to send them, or already going to Perplexity: nothing to say
    assert warned(lambda: cls(base_url="https://api.perplexity.ai")) == []
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.perplexity.ai/")
    assert warned(cls) == []
    monkeypatch.setenv("OPENAI_BASE_URL", "https://gateway.example/v1")
    monkeypatch.setenv("PPLX_BASE_URL", "https://gateway.example/v1")
    assert warned(cls) == []


@pytest.mark.parametrize(
    ("name", "hint", "says"),
    [
        ("temprature", "temperature", None),
        ("search_recency", "search_recency_filter", None),
        # the closest name is another integration's: its fate, never an unrelated setting of ours
        ("verbosty", "verbosity", "ask for brevity in instructions="),  # not LangChain's `verbose`
        ("openai_api_kye", "openai_api_key", "carries over, as api_key"),
        ("web_search_optionz", "web_search_options", "carries over: it becomes search_context_size"),
        ("truncatoin", "truncation", "max_input_tokens="),
        ("sed", "seed", "is not taken by ChatPerplexityStrict"),
        ("parallel_tool_call", "parallel_tool_calls", "bind_tools(tools, parallel_tool_calls="),
        ("web_search_optionz_plus", None, None),
    ],
)
def test_did_you_mean_only_for_a_near_typo(emu: PerplexityEmulator, name: str, hint: str | None, says: str) -> None:
    secret = "pplx-0123456789abcdef"
    for value in (1, secret):
        with pytest.raises(ValueError) as info:
            make(emu, **{name: value})
        with pytest.raises(ValueError, match="not a parameter") as on_call:
            make(emu).invoke(Q, **{name: value})
        with pytest.raises(ValueError, match="not a parameter") as on_bind:
            make(emu).bind(**{name: value}).invoke(Q)
        with pytest.raises(ValueError) as on_copy:
            make(emu).model_copy(update={name: value})
        texts = [str(e.value) for e in (info, on_call, on_bind, on_copy)]
        if value == 1:  # init_chat_model builds the model as the constructor does
            from langchain.chat_models import init_chat_model

            with pytest.raises(ValueError) as on_init:
                init_chat_model("perplexity_strict:perplexity/sonar", api_key=KEY, base_url=emu.base_url, **{name: 1})
            texts.append(str(on_init.value))
        for text in texts:
            assert secret not in text
            if hint is None:
                assert "Did you mean" not in text
            else:
                assert f"Did you mean {hint!r}?" in text
            if says is not None:
                assert says in text


def test_an_unknown_arguments_credential_is_never_shown(emu: PerplexityEmulator) -> None:
    secret = "pplx-0123456789abcdef"
    emu.clear()
    for raised in (
        lambda: make(emu, api_kye=secret),
        lambda: make(emu).invoke(Q, api_kye=secret),
        lambda: make(emu, extra_body={"api_kye": secret}).invoke(Q),
        lambda: make(emu, model_kwargs={"apikey": secret}),
        lambda: make(emu).invoke(Q, extra_body={"x_token": secret}),
        lambda: make(emu).bind(extra_body={"password": secret}).invoke(Q),
        lambda: make(emu).model_copy(update={"model_kwargs": {"api_key": secret}}),
        lambda: make(emu, client=secret),
    ):
        with pytest.raises(ValueError) as info:
            raised()
        assert secret not in str(info.value)
    assert not emu.requests  # a credential is never put in a request body


# -- model_kwargs: the habits table applies to each entry, as to extra_body's ---------------------------------


def model_kwargs_paths(emu: PerplexityEmulator, api: str, extra: dict) -> list[Any]:
    """Every way `model_kwargs` (or `extra_body`, the same path) reaches a model."""
    from langchain.chat_models import init_chat_model
    from langchain_core.runnables import ConfigurableField

    return [
        lambda: make(emu, api, model_kwargs=extra),
        lambda: make(emu, api, extra_body=extra),
        lambda: make(emu, api).model_copy(update={"model_kwargs": extra}),
        lambda: make(emu, api).invoke(Q, extra_body=extra),
        lambda: make(emu, api).bind(extra_body=extra).invoke(Q),
        lambda: (
            make(emu, api)
            .configurable_fields(model_kwargs=ConfigurableField(id="mk"))
            .invoke(Q, config={"configurable": {"mk": extra}})
        ),
        lambda: init_chat_model(
            "perplexity_strict:" + make(emu, api).model, api=api, api_key=KEY, base_url=emu.base_url, model_kwargs=extra
        ),
    ]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ({"seed": 1}, r"\['seed'\]=1 is not taken by ChatPerplexityStrict: not in Perplexity's published"),
        ({"parallel_tool_calls": False}, "parallel_tool_calls=False"),
        ({"logprobs": True}, r"\['logprobs'\]=True is not taken by ChatPerplexityStrict: .*no logprobs"),
        ({"verbosity": "low"}, r"\['verbosity'\] is not taken by ChatPerplexityStrict: .*instructions="),
        ({"user": "u1"}, r"\['user'\] is not taken by ChatPerplexityStrict"),
    ],
)
def test_model_kwargs_entries_meet_the_habits_table(emu: PerplexityEmulator, api: str, extra: dict, says: str) -> None:
    emu.clear()
    for run in model_kwargs_paths(emu, api, extra):
        with pytest.raises(ValueError, match=says):
            run()
    assert not emu.requests


@pytest.mark.parametrize("api", APIS)
def test_model_kwargs_habits_that_carry_over_are_converted(emu: PerplexityEmulator, api: str) -> None:
    model = make(emu, api, model_kwargs={"stream_options": {"include_usage": False}, "max_completion_tokens": 50})
    assert model.stream_usage is False and model.max_tokens == 50 and model.model_kwargs == {}
    model.invoke(Q)
    sent = body(emu)
    assert "stream_options" not in sent and "max_completion_tokens" not in sent
    assert sent["max_output_tokens" if api == "agent" else "max_tokens"] == 50
    # a published field without a parameter still passes through
    if api == "chat_completions":
        make(emu, api, model_kwargs={"safe_search": True}).invoke(Q)
        assert body(emu)["safe_search"] is True


@pytest.mark.parametrize("api", APIS)
def test_parallel_tool_calls_outside_bind_tools_names_bind_tools(emu: PerplexityEmulator, api: str) -> None:
    for value in (True, False):
        with pytest.raises(
            ValueError, match=r"bind_tools\(tools, parallel_tool_calls=\.\.\.\).*False is not supp"
        ) as info:
            make(emu, api, parallel_tool_calls=value)
        assert "Accepted:" not in str(info.value)
    make(emu, api).invoke(Q, parallel_tool_calls=True)  # what bind_tools binds: True or None, not sent
    assert "parallel_tool_calls" not in body(emu)
    with pytest.raises(ValueError, match="parallel_tool_calls=False"):
        make(emu, api).bind_tools([], parallel_tool_calls=False)


# -- the retriever, the tool and the embeddings -----------------------------------------------------------


def test_retriever_tool_and_embeddings_arguments_carry_over(emu: PerplexityEmulator) -> None:
    common: dict[str, Any] = {"pplx_api_key": KEY, "base_url": emu.base_url}
    PerplexitySearchRetriever(
        **common,
        k=3,
        max_tokens=500,
        max_tokens_per_page=100,
        country="US",
        search_domain_filter=["python.org"],
        search_recency_filter="week",
    ).invoke("python")
    assert body(emu) == {
        "query": "python",
        "max_results": 3,
        "max_tokens": 500,
        "max_tokens_per_page": 100,
        "country": "US",
        "search_domain_filter": ["python.org"],
        "search_recency_filter": "week",
    }
    PerplexitySearchRetriever(**common, search_after_date="1/1/2025", search_before_date="2/1/2025").invoke("q")
    assert (body(emu)["search_after_date_filter"], body(emu)["search_before_date_filter"]) == ("1/1/2025", "2/1/2025")
    tool = PerplexitySearchResults(**common)
    tool.invoke(
        {
            "query": "q",
            "max_results": 2,
            "country": "GB",
            "search_after_date": "1/1/2025",
            "search_before_date": "2/1/2025",
            "search_recency_filter": None,
        }
    )
    assert body(emu) == {
        "query": "q",
        "max_results": 2,
        "country": "GB",
        "search_after_date_filter": "1/1/2025",
        "search_before_date_filter": "2/1/2025",
    }
    emu.clear()
    with pytest.raises(ValueError, match="Did you mean 'max_results'"):  # told, not dropped (test_switching.py)
        tool.invoke({"query": "q", "max_result": 2})
    assert not emu.requests
    embeddings = PerplexityEmbeddings(**common, model="pplx-embed-v1-0.6b", request_timeout=5, max_retries=6)
    assert (embeddings.timeout, embeddings.max_retries) == (5, 6)
    embeddings.embed_query("x")
    assert body(emu)["model"] == "pplx-embed-v1-0.6b"
    for cls in (PerplexitySearchRetriever, PerplexitySearchResults, PerplexityEmbeddings):
        with pytest.raises(ValueError, match=re.escape("api_key=..., base_url=..., timeout=..., max_retries=...")):
            cls(**common, client=object())  # type: ignore[arg-type]
