"""Whatever the package keeps between calls belongs to an owner, never to equal content alone.

Every place the package keeps state from one call to the next (found by grepping the sources for
module-level dicts and sets, caches, private attributes and records keyed by text or digest), and
what owns each, so that two owners with equal content never share it:

1. `PerplexityContextualizedEmbeddings._prepared`: the vectors `split_documents` / `asplit_documents`
   computed, kept for the store's `embed_documents` / `aembed_documents`. Owner: the split call, and
   the chunk's place among the chunks it returned (`_PreparedRun`), not the chunk's text; a
   `model_copy` prepares its own. Fixed (a shared chunk took the other document's vector).
2. `PerplexityEmbeddings`: keeps nothing between calls (each call is its own request). Already fine.
3. Continuation records (`response_metadata["perplexity_context"]`, read by `_continuation._anchor`):
   keyed by the history's digest, the model target, the server and now the account (a tag of the API
   key), on every path to `_prepare` (invoke, ainvoke, stream, astream, configurable_fields,
   model_copy, init_chat_model with a key or a configurable one, an answer langchain-core's LLM cache
   handed another key). Fixed for the key; the model, the
   server and a thread's own answer were already fine.
4. Connection pools: `_transport/_loops._POOLS` (per event loop) and the sync pool, which
   langchain-openai shared process-wide by server and timeout (`_get_default_httpx_client`): keyed by
   the owner's connection settings, the key among them (a pool keeps the cookies a server sets), for
   every class (the chat model, search retriever and tool, both embeddings classes). Fixed.
   `Transport` per object (`_transport`, rebuilt when its settings change): already fine.
5. Once-only warnings: the Sonar-name notice (a module-level set by name) and the compaction warning
   (a per-instance flag that `model_copy` copied, and Python's registry, which keys by text and line):
   once per model instance (`_once.OncePerOwner`). Fixed.
6. The cost callback's totals: one handler per `get_perplexity_cost_callback` block (its own
   ContextVar), so two blocks, also at once in two threads, count only their own calls. Already fine.
7. The emulator (`testing`, public): its stored responses (`EmulatorState.stored`), runs (`RunStore`)
   and remembered roles (`RoleMemory`, keyed by the history's words) belong to the API key that made
   them, as a stored response is its account's on Perplexity. Fixed (any key continued, retrieved or
   cancelled another's; one key's roles refused another key's conversation of the same words).

State kept with no owner's content: `_loops.trust_store` (the process's TLS context, the same for
every owner), `_loops._HELD` (requests by identity until they end), `_resume._SCOPE` (a ContextVar,
per context); constant tables (`SURFACES`, `PARAMETERS`, `PROFILES`, ...) never change.
"""

from __future__ import annotations

import asyncio
import json
import threading
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from langchain.chat_models import init_chat_model
from langchain_core.caches import InMemoryCache
from langchain_core.documents import Document
from langchain_core.globals import set_llm_cache
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import ConfigurableField
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_text_splitters import CharacterTextSplitter
from pydantic import SecretStr

from langchain_perplexity_strict import (
    ChatPerplexityStrict,
    PerplexityContextualizedEmbeddings,
    PerplexityEmbeddings,
    PerplexitySearchResults,
    PerplexitySearchRetriever,
    get_perplexity_cost_callback,
)
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import loopback

BOILERPLATE = "Confidential - do not share."
SPLITTER = CharacterTextSplitter(separator="\n", chunk_size=40, chunk_overlap=0)
TENANT_A = Document("Tenant A: quarterly revenue by region.\n" + BOILERPLATE + "\nA's closing remarks.")
TENANT_B = Document("Tenant B: hiring plan for next year.\n" + BOILERPLATE + "\nB's closing remarks.")


@pytest.fixture(scope="module")
def accounts() -> Iterator[PerplexityEmulator]:
    """An emulator taking any key, as one server serving two accounts (two tenants of one application)."""
    with PerplexityEmulator(api_key=None) as emu:
        yield emu


@pytest.fixture
def server(accounts: PerplexityEmulator) -> Iterator[PerplexityEmulator]:
    accounts.clear()
    yield accounts
    accounts.clear()


def chat(emu: PerplexityEmulator, key: str = "key-a", **kw: Any) -> ChatPerplexityStrict:
    return ChatPerplexityStrict(api_key=key, base_url=emu.base_url, **kw)  # type: ignore[arg-type]


def contextual(emu: PerplexityEmulator, **kw: Any) -> PerplexityContextualizedEmbeddings:
    return PerplexityContextualizedEmbeddings(api_key="key-a", base_url=emu.base_url, **kw)  # type: ignore[arg-type]


def texts(chunks: list[Document]) -> list[str]:
    return [chunk.page_content for chunk in chunks]


def key(request: Any) -> str | None:
    """The Authorization header a recorded request carried (header names as the client wrote them)."""
    return {name.lower(): value for name, value in request.headers.items()}.get("authorization")


def stored(store: InMemoryVectorStore) -> dict[str, list[float]]:
    return {record["text"]: record["vector"] for record in store.store.values()}


# -- 1. contextualized embeddings ---------------------------------------------------------------------


def test_two_documents_sharing_a_chunk_keep_their_own_vectors_when_ingested_interleaved(
    server: PerplexityEmulator,
) -> None:
    """Split A, split B, add B, add A on one object: each store holds its own document's vectors."""
    embeddings = contextual(server)
    chunks_a = embeddings.split_documents([TENANT_A], SPLITTER)
    chunks_b = embeddings.split_documents([TENANT_B], SPLITTER)
    assert BOILERPLATE in texts(chunks_a) and BOILERPLATE in texts(chunks_b)
    truth_a, truth_b = embeddings.embed_in_context([texts(chunks_a), texts(chunks_b)])
    assert truth_a[texts(chunks_a).index(BOILERPLATE)] != truth_b[texts(chunks_b).index(BOILERPLATE)]
    store_a, store_b = InMemoryVectorStore(embeddings), InMemoryVectorStore(embeddings)
    store_b.add_documents(chunks_b)
    store_a.add_documents(chunks_a)
    assert stored(store_a) == dict(zip(texts(chunks_a), truth_a, strict=True))
    assert stored(store_b) == dict(zip(texts(chunks_b), truth_b, strict=True))


def test_the_async_path_keeps_each_documents_vectors_too(server: PerplexityEmulator) -> None:
    embeddings = contextual(server)

    async def ingest() -> tuple[list[Document], list[Document], InMemoryVectorStore, InMemoryVectorStore]:
        chunks_a = await embeddings.asplit_documents([TENANT_A], SPLITTER)
        chunks_b = await embeddings.asplit_documents([TENANT_B], SPLITTER)
        store_a, store_b = InMemoryVectorStore(embeddings), InMemoryVectorStore(embeddings)
        await store_b.aadd_documents(chunks_b)
        await store_a.aadd_documents(chunks_a)
        return chunks_a, chunks_b, store_a, store_b

    chunks_a, chunks_b, store_a, store_b = asyncio.run(ingest())
    truth_a, truth_b = embeddings.embed_in_context([texts(chunks_a), texts(chunks_b)])
    assert stored(store_a) == dict(zip(texts(chunks_a), truth_a, strict=True))
    assert stored(store_b) == dict(zip(texts(chunks_b), truth_b, strict=True))


def test_a_store_that_embeds_in_batches_interleaved_with_another_gets_its_own_vectors(
    server: PerplexityEmulator,
) -> None:
    """Stores that call embed_documents per batch of chunks, two stores taking turns."""
    embeddings = contextual(server)
    chunks_a = texts(embeddings.split_documents([TENANT_A], SPLITTER))
    chunks_b = texts(embeddings.split_documents([TENANT_B], SPLITTER))
    truth_a, truth_b = embeddings.embed_in_context([chunks_a, chunks_b])
    got_b = embeddings.embed_documents(chunks_b[:2])
    got_a = embeddings.embed_documents(chunks_a[:2])
    got_b += embeddings.embed_documents(chunks_b[2:])
    got_a += embeddings.embed_documents(chunks_a[2:])
    assert (got_a, got_b) == (truth_a, truth_b)


def test_a_shared_chunk_asked_alone_is_never_given_another_documents_vector(server: PerplexityEmulator) -> None:
    """Nothing tells whose it is: it is embedded as a one-chunk document, with a warning, and each
    document's own vector is still there for its store."""
    embeddings = contextual(server)
    chunks_a = texts(embeddings.split_documents([TENANT_A], SPLITTER))
    chunks_b = texts(embeddings.split_documents([TENANT_B], SPLITTER))
    truth_a, truth_b = embeddings.embed_in_context([chunks_a, chunks_b])
    with pytest.warns(UserWarning, match="more than one split_documents call"):
        (alone,) = embeddings.embed_documents([BOILERPLATE])
    assert alone == embeddings.embed_query(BOILERPLATE)
    assert embeddings.embed_documents(chunks_a) == truth_a
    assert embeddings.embed_documents(chunks_b) == truth_b


def test_one_split_of_two_documents_sharing_a_chunk_gives_each_its_own_vector(server: PerplexityEmulator) -> None:
    embeddings = contextual(server)
    chunks = texts(embeddings.split_documents([TENANT_A, TENANT_B], SPLITTER))
    assert chunks.count(BOILERPLATE) == 2
    half = len(chunks) // 2
    truth = [v for doc in embeddings.embed_in_context([chunks[:half], chunks[half:]]) for v in doc]
    assert embeddings.embed_documents(chunks) == truth


def test_a_copy_does_not_take_the_vectors_its_original_prepared(server: PerplexityEmulator) -> None:
    original = contextual(server)
    chunks = texts(original.split_documents([TENANT_A], SPLITTER))
    (truth,) = original.embed_in_context([chunks])
    for copy in (original.model_copy(), original.model_copy(update={"dimensions": 128})):
        assert copy.embed_documents(chunks) == [vectors[0] for vectors in copy.embed_in_context([[t] for t in chunks])]
    assert original.embed_documents(chunks) == truth, "the original keeps its own"


def test_two_embeddings_objects_do_not_share_prepared_vectors(server: PerplexityEmulator) -> None:
    first, second = contextual(server), contextual(server)
    chunks = texts(first.split_documents([TENANT_A], SPLITTER))
    (truth,) = first.embed_in_context([chunks])
    assert second.embed_documents(chunks) != truth
    assert first.embed_documents(chunks) == truth


def test_plain_embeddings_keep_nothing_between_owners(server: PerplexityEmulator) -> None:
    """Equal texts, two objects with different settings: each gets its own answer, asked of the server."""
    small = PerplexityEmbeddings(api_key="key-a", base_url=server.base_url, dimensions=128)  # type: ignore[arg-type]
    large = PerplexityEmbeddings(api_key="key-b", base_url=server.base_url, dimensions=256)  # type: ignore[arg-type]
    assert [len(v) for v in small.embed_documents([BOILERPLATE]) + large.embed_documents([BOILERPLATE])] == [128, 256]
    assert [key(r) for r in server.requests] == ["Bearer key-a", "Bearer key-b"]


# -- 3. continuation records ----------------------------------------------------------------------


def first_turn(model: ChatPerplexityStrict) -> list[BaseMessage]:
    history: list[BaseMessage] = [HumanMessage("What is the capital of France?")]
    return [*history, model.invoke(history), HumanMessage("And of Italy?")]


def call(model: Any, history: list[BaseMessage], how: str, config: Any = None) -> None:
    if how == "invoke":
        model.invoke(history, config)
    elif how == "ainvoke":
        asyncio.run(model.ainvoke(history, config))
    elif how == "stream":
        list(model.stream(history, config))
    else:

        async def drain() -> None:
            async for _ in model.astream(history, config):
                pass

        asyncio.run(drain())


def last_create(emu: PerplexityEmulator) -> dict[str, Any]:
    return [r for r in emu.requests if r.kind == "create"][-1].body


def sent_ids(emu: PerplexityEmulator, since: int) -> list[Any]:
    """The `previous_response_id` of each create since request `since` (None where the whole conversation went)."""
    return [r.body.get("previous_response_id") for r in emu.requests[since:] if r.kind == "create"]


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream", "astream"])
def test_another_key_never_continues_a_response_it_does_not_own(server: PerplexityEmulator, how: str) -> None:
    owner = chat(server, "key-a", use_previous_response_id=True)
    history = first_turn(owner)
    before = len(server.requests)
    call(chat(server, "key-b", use_previous_response_id=True), history, how)
    assert sent_ids(server, before) == [None], "B must not send (or learn) A's response id"
    call(owner, history, how)
    assert last_create(server)["previous_response_id"] == history[1].response_metadata["id"], "A continues its own"


def test_a_key_set_by_configurable_fields_model_copy_or_init_chat_model_is_the_owner_too(
    server: PerplexityEmulator,
) -> None:
    owner = chat(server, "key-a", use_previous_response_id=True)
    history = first_turn(owner)
    before = len(server.requests)
    configurable = owner.configurable_fields(api_key=ConfigurableField(id="key"))
    call(configurable, history, "invoke", {"configurable": {"key": "key-b"}})
    call(owner.model_copy(update={"api_key": SecretStr("key-b")}), history, "invoke")
    registered = init_chat_model(
        "perplexity_strict:perplexity/sonar", api_key="key-b", base_url=server.base_url, use_previous_response_id=True
    )
    call(registered, history, "invoke")
    any_field = init_chat_model(
        "perplexity_strict:perplexity/sonar",
        base_url=server.base_url,
        use_previous_response_id=True,
        configurable_fields="any",
    )
    call(any_field, history, "invoke", {"configurable": {"api_key": "key-b"}})
    assert sent_ids(server, before) == [None] * 4, "each of the four calls by key B sent the whole conversation"
    assert {key(r) for r in server.requests[before:]} == {"Bearer key-b"}
    call(owner.model_copy(), history, "invoke")
    assert last_create(server).get("previous_response_id") == history[1].response_metadata["id"], (
        "a copy with the same key is the same account"
    )


def test_an_answer_another_key_got_from_langchains_cache_is_not_continued_by_it(server: PerplexityEmulator) -> None:
    """langchain-core's LLM cache keys by prompt and settings, the key left out (it is a secret): key B may be
    handed key A's cached answer, whose record names A's account, so B sends the whole conversation."""
    question = [HumanMessage("What is the capital of France?")]
    set_llm_cache(InMemoryCache())
    try:
        answer = chat(server, "key-a", use_previous_response_id=True).invoke(question)
        other = chat(server, "key-b", use_previous_response_id=True)
        assert other.invoke(question).response_metadata["id"] == answer.response_metadata["id"], "a cache hit"
        before = len(server.requests)
        other.invoke([*question, answer, HumanMessage("And of Italy?")])
    finally:
        set_llm_cache(None)
    assert sent_ids(server, before) == [None]


def test_another_model_or_server_does_not_continue_either(server: PerplexityEmulator, emu: PerplexityEmulator) -> None:
    history = first_turn(chat(server, use_previous_response_id=True))
    before = len(server.requests)
    chat(server, model="openai/gpt-5.1", use_previous_response_id=True).invoke(history)
    assert sent_ids(server, before) == [None]
    chat(emu, "test-key", use_previous_response_id=True).invoke(history)
    assert sent_ids(emu, 0) == [None]


def test_two_threads_with_identical_histories_each_continue_their_own_response(server: PerplexityEmulator) -> None:
    model = chat(server, use_previous_response_id=True)
    one, two = first_turn(model), first_turn(model)
    assert one[1].content == two[1].content and one[1].response_metadata["id"] != two[1].response_metadata["id"]
    for thread in (one, two, one):
        model.invoke(thread)
        assert last_create(server)["previous_response_id"] == thread[1].response_metadata["id"]


# -- 4. connection pools --------------------------------------------------------------------------


class _CookieServer(BaseHTTPRequestHandler):
    """Answers `{}` and sets a cookie naming the caller's key, as a gateway's session cookie would; notes the
    cookies each key's requests carried."""

    seen: list[tuple[str, str]]

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        self.seen.append((key, self.headers.get("Cookie", "")))
        body = json.dumps({}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Set-Cookie", f"session={key}; Path=/")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def cookie_server() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    seen: list[tuple[str, str]] = []
    handler = type("Handler", (_CookieServer,), {"seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize(
    "cls", [ChatPerplexityStrict, PerplexitySearchRetriever, PerplexitySearchResults, PerplexityEmbeddings]
)
def test_two_keys_on_one_server_never_share_a_sync_pool_or_its_cookies(
    cookie_server: tuple[str, list[tuple[str, str]]], cls: Any
) -> None:
    """Every class sends through a `Transport` (search and embeddings by `_connection_settings`): one pool per key."""
    url, seen = cookie_server
    a, b = (cls(api_key=k, base_url=url) for k in ("key-a", "key-b"))
    a.transport.post("/x", b"{}")
    b.transport.post("/x", b"{}")
    a.transport.post("/x", b"{}")
    assert seen == [("key-a", ""), ("key-b", ""), ("key-a", "session=key-a")]
    assert a.transport.chat_openai.root_client._client is not b.transport.chat_openai.root_client._client
    again = cls(api_key="key-a", base_url=url)
    assert again.transport.chat_openai.root_client._client is a.transport.chat_openai.root_client._client


def test_two_keys_on_one_event_loop_never_share_a_pool_or_its_cookies(
    cookie_server: tuple[str, list[tuple[str, str]]],
) -> None:
    url, seen = cookie_server
    a, b = (ChatPerplexityStrict(api_key=k, base_url=url) for k in ("key-a", "key-b"))  # type: ignore[arg-type]
    same = ChatPerplexityStrict(api_key="key-a", base_url=url)  # type: ignore[arg-type]

    async def calls() -> tuple[bool, bool]:
        for model in (a, b, a):
            await model.transport.apost("/x", b"{}")
        pool = a.transport.async_client()._client
        return pool is not b.transport.async_client()._client, pool is same.transport.async_client()._client

    assert asyncio.run(calls()) == (True, True), "one pool per key on a loop, shared by that key's models"
    assert seen == [("key-a", ""), ("key-b", ""), ("key-a", "session=key-a")]


# -- 5. once-only warnings ------------------------------------------------------------------------

LONG = [HumanMessage("word " * 400), AIMessage("reply " * 400), HumanMessage("last question")]


def notices(models: list[ChatPerplexityStrict], history: Any) -> list[str]:
    """The warnings each model gives for `history`, under Python's default filter, all from one line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for model in models:
            model.request_body(history)
    return [str(w.message) for w in caught]


def test_a_sonar_name_warns_once_per_model_not_once_per_process(server: PerplexityEmulator) -> None:
    first, second = chat(server, model="sonar-pro"), chat(server, model="sonar-pro")
    said = notices([first, second, first, first.model_copy()], "hi")
    assert len(said) == 3 and all("'sonar-pro' is a Sonar" in text for text in said)


def test_the_compaction_warning_is_given_by_each_model_once(server: PerplexityEmulator) -> None:
    first, second = chat(server, max_input_tokens=200), chat(server, max_input_tokens=200)
    said = notices([first, second, first, second], LONG)
    assert len(said) == 2 and all("compacted the conversation" in text for text in said)
    assert len(notices([first.model_copy(), first], LONG)) == 1, "a copy warns on its own; the original said it"


def test_a_callers_ignore_filter_still_silences_them(server: PerplexityEmulator) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        chat(server, model="sonar-pro", max_input_tokens=200).request_body(LONG)
    assert caught == []


# -- 6. the cost callback -------------------------------------------------------------------------


def test_two_cost_blocks_count_only_their_own_calls_also_at_once_in_two_threads(server: PerplexityEmulator) -> None:
    model = chat(server)
    one_call = model.invoke("hi").response_metadata["cost"]["total_cost"]
    totals: dict[str, float] = {}
    ready = threading.Barrier(2)

    def run(name: str, calls: int) -> None:
        with get_perplexity_cost_callback() as cb:
            ready.wait()  # both blocks open before either calls
            for _ in range(calls):
                model.invoke("hi")
            ready.wait()
            totals[name] = cb.total_cost

    threads = [threading.Thread(target=run, args=(name, n)) for name, n in (("one", 1), ("three", 3))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert totals == pytest.approx({"one": one_call, "three": 3 * one_call})


# -- 7. the emulator's memory: stored responses, runs, remembered roles ------------------------------


def raw(emu: PerplexityEmulator, api_key: str, method: str, path: str, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {api_key}"}
    return loopback.request(method, emu.base_url + path, headers=headers, json=body, timeout=10)


AGENT = {"model": "perplexity/sonar", "max_output_tokens": 200}


def test_the_emulator_keeps_a_stored_response_for_its_own_key(server: PerplexityEmulator) -> None:
    """Another key neither continues, retrieves nor cancels it: for that key there is no such response."""
    first = raw(server, "key-a", "POST", "/v1/responses", {**AGENT, "input": "hi"}).json()
    follow = {**AGENT, "input": "and then?", "previous_response_id": first["id"]}
    assert raw(server, "key-b", "POST", "/v1/responses", follow).status_code == 404
    assert raw(server, "key-b", "GET", f"/v1/responses/{first['id']}").status_code == 404
    assert raw(server, "key-b", "POST", f"/v1/responses/{first['id']}/cancel").status_code == 404
    assert raw(server, "key-a", "POST", "/v1/responses", follow).status_code == 200
    assert raw(server, "key-a", "GET", f"/v1/responses/{first['id']}").status_code == 200


def test_the_emulator_remembers_roles_per_key(server: PerplexityEmulator) -> None:
    """Two accounts' conversations with the same words are two conversations; within one, a role change
    is still refused."""
    as_user = [{"role": "user", "content": "Instructions: be brief"}]
    as_system = [{"role": "system", "content": "Instructions: be brief"}, {"role": "user", "content": "q"}]
    assert raw(server, "key-a", "POST", "/v1/responses", {**AGENT, "input": as_user}).status_code == 200
    assert raw(server, "key-b", "POST", "/v1/responses", {**AGENT, "input": as_system}).status_code == 200
    refused = raw(server, "key-a", "POST", "/v1/responses", {**AGENT, "input": as_system})
    assert refused.status_code == 400 and "earlier in this conversation" in refused.text
