"""docs/migration.md's rows for outputs and entry points (format: the team's migration-rows note).

Each row names the test that checks it; the shared renderer collects `ROWS` from every
`migration_rows_*.py` module.
"""

from __future__ import annotations

OUT = "tests/integration_tests/test_migration_outputs.py::"
READER = "tests/unit_tests/test_chat_reader.py::"
ENTRY = "tests/integration_tests/test_migration_entry_points.py::"
LP = "langchain-perplexity"
OAI = "ChatOpenAI"

ROWS: list[dict[str, str]] = [
    {
        "group": LP,
        "kind": "output",
        "habit": '`msg.additional_kwargs["search_results"]`: `r.url` (chat-completions invoke) or `r["url"]`',
        "now": "carries over: both surfaces, invoke and stream, sync and async; each record is the dict "
        "Perplexity sent and also reads as attributes (`r.url`, `r.title`; an unsent published field is None)",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_search_results_read_by_key_and_by_attribute",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": '`msg.additional_kwargs["citations"]`',
        "now": "carries over: the URLs in marker order, on both surfaces, invoke and stream",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_search_results_read_by_key_and_by_attribute",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": '`msg.additional_kwargs["images"]` (with `return_images=True`)',
        "now": "carries over: chat completions, as sent; on the Agent API, the `image_search` tool's results, "
        "the same records (`image_url`, `origin_url`, `height`, `width`), also whole in "
        '`additional_kwargs["image_search_results"]`',
        "instead": '—; on the Agent API bind the tool: `model.bind_tools([{"type": "image_search"}])`',
        "defaults": "",
        "test": OUT + "test_images_on_the_agent_api_come_from_image_search",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": '`msg.additional_kwargs["images"]`, `["videos"]`, `["related_questions"]` on chat completions',
        "now": "carries over: kept as Sonar sends them, once each although a stream repeats them",
        "instead": "—",
        "defaults": "",
        "test": READER + "test_sonar_record_lists_are_kept_once_from_invoke_and_stream",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": '`msg.additional_kwargs["reasoning_steps"]` (reasoning models, chat completions)',
        "now": "carries over: top-level or in the message/delta, once each, invoke and stream",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_reasoning_steps_on_chat_completions",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": '`msg.response_metadata["model"]`, `["object"]`, `["id"]`, `["status"]`, `["model_name"]`',
        "now": "carries over: `model`, `id` and `model_name` on both surfaces; `object` and `status` on the "
        "Agent API, as langchain-perplexity had them (chat completions' `object` names the chunk, not the answer)",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_response_metadata_model_object_and_model_name",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": '`msg.response_metadata["num_search_queries"]`, `["search_context_size"]`',
        "now": "carries over: chat completions, invoke and stream (the Agent API reports neither; it reports "
        "`tool_calls_details` and `cost`, also in `response_metadata`)",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_search_counts_in_response_metadata",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": '`usage_metadata["output_token_details"]["citation_tokens"]`',
        "now": "carries over: still there (deprecated); the count is also "
        '`response_metadata["citation_tokens"]`. It is not in `input_token_details` (parts of `input_tokens`): '
        "Perplexity counts citation tokens apart from the prompt and the total, and prices them in their own column",
        "instead": '`response_metadata["citation_tokens"]`',
        "defaults": "",
        "test": OUT + "test_citation_and_reasoning_tokens_where_both_packages_put_them",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": '`usage_metadata["output_token_details"]["reasoning"]`',
        "now": "carries over: whenever Perplexity reports the count, 0 included",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_citation_and_reasoning_tokens_where_both_packages_put_them",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": '`PerplexitySearchResults().invoke("q")` returning a `list[dict]` (`r[0]["url"]`)',
        "now": "warned once: the default content is numbered text for a model; a direct call (not a tool call) "
        "says so once per tool and names `content_as='results'`",
        "instead": '`PerplexitySearchResults(content_as="results")`: the `list[dict]`, and a tool call\'s '
        "`ToolMessage` holds them as JSON, as before",
        "defaults": '`content_as="text"`',
        "test": OUT + "test_search_tool_text_warns_a_direct_call_once",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": "`PerplexitySearchResults` in an agent (the `ToolMessage` the model reads)",
        "now": "carries over: the model gets the results, as numbered text (`[1] title`, URL, dates, snippet), "
        "which models cite well; the `ToolMessage`'s artifact is Perplexity's answer as sent",
        "instead": '—; `content_as="results"` sends the list of dicts as JSON, as langchain-perplexity did',
        "defaults": '`content_as="text"`',
        "test": OUT + "test_search_tool_results_as_a_list_of_dicts",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": "`PerplexitySearchRetriever().invoke(q)` Documents (snippet; title, url, date, last_updated)",
        "now": "carries over: the same Documents, plus `search_id` in the metadata",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_retriever_documents_carry_over",
    },
    {
        "group": LP,
        "kind": "output",
        "habit": "`PerplexityEmbeddings().embed_documents(...)` / `embed_query(...)`",
        "now": "carries over: `list[float]`, the int8 values as sent (-128 to 127)",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_embeddings_carry_over",
    },
    {
        "group": OAI,
        "kind": "output",
        "habit": '`msg.response_metadata["token_usage"]`',
        "now": "carries over: the usage as Perplexity sent it, on both surfaces, invoke and stream",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_token_usage_in_response_metadata",
    },
    {
        "group": OAI,
        "kind": "output",
        "habit": '`LLMResult.llm_output["token_usage"]` in a callback\'s `on_llm_end`',
        "now": "carries over: the usage as Perplexity sent it, on both surfaces (invoke)",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_token_usage_in_llm_output_for_callbacks",
    },
    {
        "group": OAI,
        "kind": "output",
        "habit": "`generate([...]).llm_output` (and `agenerate`)",
        "now": "carries over: `token_usage` summed over the prompts as `ChatOpenAI` sums it (costs included), "
        "and `model_name`; with `streaming=True` langchain-core keeps no per-prompt output, so `token_usage` is "
        "`{}` as in `ChatOpenAI` (the usage is on each message)",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_generate_llm_output_as_chat_openai_gives_it",
    },
    {
        "group": OAI,
        "kind": "output",
        "habit": '`msg.response_metadata["model"]`, `["object"]`, `["status"]`, `["id"]`, `["service_tier"]` '
        "(Responses API)",
        "now": "carries over: on the Agent API as sent (`service_tier` when sent); `model_name` is the served "
        "model, as `ChatOpenAI` sets it; `created_at` is not kept (a run's clock: two runs' answers would differ)",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_response_metadata_model_object_and_model_name",
    },
    {
        "group": OAI,
        "kind": "output",
        "habit": '`usage_metadata["output_token_details"]["reasoning"]`, `["input_token_details"]["cache_read"]`',
        "now": "carries over: whenever Perplexity reports the counts, 0 included",
        "instead": "—",
        "defaults": "",
        "test": OUT + "test_citation_and_reasoning_tokens_where_both_packages_put_them",
    },
    {
        "group": LP,
        "kind": "entry point",
        "habit": '`init_chat_model("perplexity:sonar-pro")` (or `"sonar-pro"`, inferred) after switching',
        "now": "warned once: with langchain-perplexity uninstalled and this package imported, "
        "`ChatPerplexityStrict` serves the name and the warning names `perplexity_strict:`; with "
        "langchain-perplexity installed the name stays its own",
        "instead": '`init_chat_model("perplexity_strict:sonar-pro")`',
        "defaults": "",
        "test": ENTRY + "test_the_perplexity_name_is_served_when_langchain_perplexity_is_gone",
    },
    {
        "group": LP,
        "kind": "entry point",
        "habit": '`init_chat_model("perplexity_strict:...")` / `model_provider="perplexity_strict"` in a config',
        "now": "carries over: after `import langchain_perplexity_strict` (LangChain has no hook for a package "
        "to register itself; before the import LangChain's own error says the provider is unknown)",
        "instead": "`import langchain_perplexity_strict` once, before the first `init_chat_model`",
        "defaults": "",
        "test": ENTRY + "test_the_provider_name_needs_the_import_and_works_after_it",
    },
    {
        "group": OAI,
        "kind": "entry point",
        "habit": '`init_chat_model("openai:...", base_url="https://api.perplexity.ai")`',
        "now": "carries over: the same call with the prefix `perplexity_strict:` (and the import) builds "
        "`ChatPerplexityStrict`; `base_url`/`api_key` keep their names",
        "instead": '`init_chat_model("perplexity_strict:perplexity/sonar")`',
        "defaults": "",
        "test": ENTRY + "test_the_provider_name_needs_the_import_and_works_after_it",
    },
]
