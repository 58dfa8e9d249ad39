"""docs/migration.md's rows for arguments and defaults (the format: `migration_doc.KEYS`; rendered by migration_doc).

Written from langchain-perplexity 1.4.2's `ChatPerplexity` fields and call arguments (and its retriever's, tool's
and embeddings' arguments) and from langchain-openai's `BaseChatOpenAI` fields. Each row names the test that
checks it.
"""

from __future__ import annotations

from tests.integration_tests.migration_doc import row

T = "tests/integration_tests/test_migration_arguments.py::"
LP = "langchain-perplexity"
OA = "ChatOpenAI"
REFUSED = T + "test_refused_before_sending_naming_the_replacement"
SHARED = T + "test_shared_fields_carry_over_on_every_path"


ROWS: list[dict[str, str]] = [
    # -- langchain-perplexity's ChatPerplexity --------------------------------------------------------------
    row(
        LP,
        "default",
        "`ChatPerplexity()` with no `model`",
        "carries over: the default model is `perplexity/sonar` on the Agent API (`sonar` with "
        '`api="chat_completions"`); a Sonar name on the Agent API is mapped by Perplexity\'s table, with a warning',
        "—",
        T + "test_the_defaults_that_differ",
        "`model`: `sonar` (chat completions) → `perplexity/sonar` (Agent API)",
    ),
    row(
        LP,
        "default",
        "`temperature` left unset",
        "carries over: not sent, so Perplexity's own default applies",
        "pass `temperature=0.7` to keep langchain-perplexity's value",
        T + "test_the_defaults_that_differ",
        "`temperature`: 0.7 → unset",
    ),
    row(
        LP,
        "default",
        "`max_retries` left unset",
        "carries over: 2 retries on 429 and 5xx, as `ChatOpenAI` and the OpenAI SDK",
        "pass `max_retries=6` to keep langchain-perplexity's value",
        T + "test_the_defaults_that_differ",
        "`max_retries`: 6 → 2",
    ),
    row(
        LP,
        "argument",
        "`pplx_api_key=...`, `api_key=...`, `request_timeout=...`",
        "carries over",
        "—",
        T + "test_renamed_arguments",
    ),
    row(
        LP,
        "argument",
        "`use_responses_api=True` / `False`",
        'carries over: `api="agent"` / `api="chat_completions"`; `None` is the default, the Agent API',
        "—",
        T + "test_use_responses_api_picks_the_api",
        "unset: chat completions → the Agent API",
    ),
    row(
        LP,
        "argument",
        "`web_search_options={...}` (`search_context_size`, `user_location`, `search_type`)",
        "carries over: the Agent API's `web_search` tool fields; chat completions' `web_search_options` "
        '(`search_type` "pro"/"auto" only there); `image_search_relevance_enhanced`: see its own row',
        "—",
        T + "test_web_search_options_carry_over_to_the_search_settings",
    ),
    row(
        LP,
        "call argument",
        "`invoke(..., web_search_options={...})`, also by `.bind(...)`",
        "carries over, as the constructor's",
        "—",
        T + "test_web_search_options_carry_over_to_the_search_settings",
    ),
    row(
        LP,
        "argument",
        '`model_kwargs={"extra_body": {...}}`',
        "carries over: unpacked into the body (each known setting checked), never sent as `extra_body`",
        "—",
        T + "test_extra_body_carries_over_on_every_path",
    ),
    row(
        LP,
        "call argument",
        "`invoke(..., extra_body={...})`",
        "carries over: each entry is taken as the setting it names; other published fields go into the body as "
        "`model_kwargs` (one the published request lacks is refused)",
        "—",
        T + "test_extra_body_carries_over_on_every_path",
    ),
    row(
        LP,
        "call argument",
        '`invoke(..., model="...")`',
        "carries over: that call uses the model",
        "—",
        T + "test_a_call_may_change_the_model",
    ),
    row(
        LP,
        "call argument",
        '`invoke(..., previous_response_id="...")`',
        "refused before sending",
        "`use_previous_response_id=True`: the stored response is found in the history",
        REFUSED,
    ),
    row(
        LP,
        "argument",
        "`enable_search_classifier=True`",
        "carries over on chat completions; refused on the Agent API (no classifier there); `False` is taken on both",
        "on the Agent API, nothing (the model decides when to search, as the classifier did)",
        T + "test_enable_search_classifier",
    ),
    row(
        LP,
        "argument",
        "`media_response={...}`",
        "refused before sending (not in Perplexity's published request models)",
        "`return_images=True` (chat completions) or `bind_tools([image_search_tool(), web_search_tool()])` (Agent API)",
        REFUSED,
    ),
    row(
        LP,
        "argument",
        "`return_images=True`",
        "carries over on chat completions; refused on the Agent API, naming the tool",
        "`bind_tools([image_search_tool(), web_search_tool()])`: `web_search_tool()` carries the model's search "
        "settings (`image_search` alone beside search filters is refused, as it would search without them)",
        T + "test_return_images",
    ),
    row(
        LP,
        "argument",
        '`bind_tools([{"type": "image_search"}])` on `perplexity/sonar`',
        "carries over: the default `web_search` stays beside it; a model search filter is refused, naming it, "
        "never dropped",
        "bind `web_search` too to keep the filters, or `web_search=False`",
        T + "test_binding_image_search_keeps_the_search_and_never_drops_a_filter",
    ),
    row(
        LP,
        "argument",
        "`return_images=False`, `return_related_questions=False`, `enable_search_classifier=False` "
        "(langchain-perplexity's defaults)",
        "carries over: taken on both APIs; not sent on the Agent API, which does that anyway",
        "—",
        T + "test_langchain_perplexitys_false_defaults_are_taken_on_the_agent_api",
    ),
    row(
        LP,
        "argument",
        "`disable_search=True`",
        "carries over: chat completions' `disable_search`; on the Agent API no `web_search` tool is sent",
        "—",
        T + "test_disable_search_carries_over",
    ),
    row(
        LP,
        "argument",
        "`temperature`, `max_tokens`, `reasoning_effort`, `language_preference`, the search filters "
        "(domains, recency, dates)",
        "carries over on both APIs, also per call and by `.bind` (on the Agent API the filters go to the "
        "`web_search` tool, and `temperature` is sent, where langchain-perplexity dropped it)",
        "—",
        SHARED,
    ),
    row(
        LP,
        "argument",
        "`search_mode`, `return_related_questions=True`, `top_k`, the penalties",
        "carries over on chat completions; refused on the Agent API, which has none of them",
        "—",
        T + "test_chat_completions_only_parameters_are_refused_on_the_agent_api",
    ),
    row(
        LP,
        "argument",
        "`client=` / `async_client=` (a `perplexity` SDK client)",
        "refused before sending",
        "`api_key=`, `base_url=`, `timeout=`, `max_retries=` (proxies: `HTTPS_PROXY`)",
        REFUSED,
    ),
    row(
        LP,
        "argument",
        "retriever: `k`, `max_tokens`, `max_tokens_per_page`, `country`, `search_domain_filter`, "
        "`search_recency_filter`, `search_after_date`, `search_before_date`, `pplx_api_key`",
        "carries over",
        "—",
        T + "test_retriever_tool_and_embeddings_arguments_carry_over",
    ),
    row(
        LP,
        "call argument",
        "`PerplexitySearchResults` call: `max_results`, `country`, `search_after_date`, `search_before_date`, "
        "the filters",
        "carries over; an argument the tool lacks is told to the caller, never dropped",
        "—",
        T + "test_retriever_tool_and_embeddings_arguments_carry_over",
    ),
    row(
        LP,
        "argument",
        "embeddings: `model`, `pplx_api_key`, `request_timeout`, `max_retries`; `client=` on any of the three",
        "carries over; `client=` refused",
        "for `client=`: `api_key=`, `base_url=`, `timeout=`, `max_retries=`",
        T + "test_retriever_tool_and_embeddings_arguments_carry_over",
        "`max_retries`: 6 → 2",
    ),
    # -- ChatOpenAI pointed at Perplexity -------------------------------------------------------------------
    row(
        OA,
        "default",
        "`ChatOpenAI(base_url=...)` with no `model`",
        "carries over: `perplexity/sonar` on the Agent API",
        "—",
        T + "test_the_defaults_that_differ",
        "`model`: `gpt-3.5-turbo` → `perplexity/sonar`",
    ),
    row(
        OA,
        "argument",
        "`openai_api_key`, `openai_api_base`, `model_name`, `request_timeout`, `max_completion_tokens`",
        "carries over: `api_key`, `base_url`, `model`, `timeout`, `max_tokens`",
        "—",
        T + "test_renamed_arguments",
    ),
    row(
        OA,
        "argument",
        "`stop_sequences=[...]`, `stop=[...]` (constructor or call)",
        "carries over as `stop`, on both APIs, but applied on the client: never sent; the answer is cut at the "
        "first stop sequence (a stream reads on, so usage and sources still arrive)",
        "—",
        "tests/integration_tests/test_one_setting_every_path.py::test_stop_is_applied_alike_whichever_way_it_comes",
    ),
    row(
        OA,
        "argument",
        "`model_kwargs={...}` (constructor, `model_copy`, `configurable_fields`, `init_chat_model`)",
        'refused before sending when an entry is a refused habit (`{"seed": 1}`, `{"parallel_tool_calls": False}`, '
        '`{"logprobs": True}`: the error names the replacement, as for the argument), a credential\'s name '
        '(`{"apikey": ...}`, never shown) or a field one of this package\'s parameters sets (`temperature`, `tools`: '
        "the error names the parameter, as `ChatOpenAI` refuses one); a carried habit is converted "
        '(`{"stream_options": {...}}` → `stream_usage`, `{"max_completion_tokens": 50}` → `max_tokens`); any other '
        "published field no parameter sets (`step_budget_reminder`; chat completions' `safe_search`) is sent as "
        "it is, and a field the API's published request lacks is refused, listing those it may carry. One path "
        "with `extra_body`, which differs only in taking an entry that names a parameter as that parameter",
        "a parameter for each setting; `extra_body={...}` for body fields with no parameter",
        T + "test_model_kwargs_entries_meet_the_habits_table",
    ),
    row(
        OA,
        "argument",
        "`extra_body={...}` (constructor, call or `.bind`)",
        "carries over: a Perplexity setting in it (`search_domain_filter`, `web_search_options`, ...) is "
        "checked and placed where the API takes it; other fields of the published request are sent as `model_kwargs`, "
        "and one it lacks is refused before sending",
        "—",
        T + "test_extra_body_carries_over_on_every_path",
    ),
    row(
        OA,
        "argument",
        "`use_responses_api=True`",
        'carries over: `api="agent"` (`False`: `api="chat_completions"`)',
        "—",
        T + "test_use_responses_api_picks_the_api",
    ),
    row(
        OA,
        "argument",
        '`stream_usage=False`; per call `stream_options={"include_usage": ...}`',
        "carries over: no `usage_metadata` on the stream's chunks when False (Perplexity always reports it)",
        "—",
        T + "test_stream_usage_and_stream_options",
    ),
    row(
        OA,
        "argument",
        '`output_version="responses/v1"`',
        "refused before sending (OpenAI's own Responses format)",
        '`output_version="v1"`: LangChain\'s standard content blocks (text, reasoning, citations as annotations)',
        T + "test_output_version",
    ),
    row(
        OA,
        "argument",
        '`reasoning={"effort": ...}` (constructor, call or `.bind`)',
        "carries over: the Agent API's `reasoning.effort`, chat completions' `reasoning_effort`; other keys "
        "(`summary`) are refused",
        "—",
        T + "test_reasoning_effort_dict_carries_over",
    ),
    row(
        OA,
        "argument",
        "`temperature`, `top_p`, `max_tokens`, `reasoning_effort`, `store`, `service_tier`, `prompt_cache_key`",
        "carries over (`store`, `service_tier` and `prompt_cache_key` on the Agent API)",
        "—",
        SHARED,
    ),
    row(
        OA,
        "argument",
        "`presence_penalty`, `frequency_penalty`",
        "carries over on chat completions (one or the other); refused on the Agent API",
        "—",
        SHARED,
    ),
    row(
        OA,
        "argument",
        "`n=2`",
        "carries over: two answers, from two requests (Perplexity has no `n`)",
        "—",
        T + "test_n_is_n_requests",
    ),
    row(
        OA,
        "call argument",
        "`bind_tools(tools, parallel_tool_calls=True / False)` (or per call)",
        "carries over for `True` and `None` (what Perplexity does; not sent); `False` is refused before sending",
        "handle every tool call of a turn",
        T + "test_parallel_tool_calls_true_is_what_perplexity_does",
    ),
    row(
        OA,
        "argument",
        "`parallel_tool_calls=...` given to the constructor (or in `model_kwargs` / `extra_body`)",
        "refused before sending, naming `bind_tools(tools, parallel_tool_calls=...)`, which takes `True` or `None` "
        "(`False` is not supported: Perplexity's model may call several tools in one turn)",
        "`bind_tools(tools, parallel_tool_calls=True)`, or leave it out",
        T + "test_parallel_tool_calls_outside_bind_tools_names_bind_tools",
    ),
    row(
        OA,
        "call argument",
        '`bind_tools(tools, tool_choice=...)`: `"auto"`, `"none"`, `"required"`, `"any"`, `True`, a tool\'s name, '
        '`{"type": "function", "function": {"name": ...}}`, `{"type": "function", "name": ...}`',
        'carries over on the Agent API, in Perplexity\'s shape: `"any"` and `True` become `"required"`; a name and '
        'both dict forms become `{"name": ...}` (a name no bound tool has is refused); `False` / `None` send none. '
        'On `api="chat_completions"` function tools are refused before sending (the Sonar models have none)',
        "the Agent API (the default) for function tools",
        "tests/integration_tests/test_habit_tools.py::test_every_tool_choice_form",
    ),
    row(
        OA,
        "call argument",
        "`bind_tools(tools, strict=True)`",
        "carries over on the Agent API: `strict: true` on each function tool, its schema closed "
        "(`additionalProperties: false`), as published",
        "—",
        "tests/unit_tests/test_tools_builtin_checks.py::test_strict_is_sent_on_function_tools_as_published",
    ),
    row(
        OA,
        "call argument",
        '`bind_tools(...)` on `api="chat_completions"`',
        "refused before sending, whichever way the tools come (`bind_tools`, a call's `tools=`, `.bind`)",
        '`api="agent"` (the default); for structured output, `with_structured_output`',
        "tests/integration_tests/test_one_setting_every_path.py::"
        "test_tools_on_the_sonar_surface_are_refused_whichever_way_they_come",
    ),
    row(
        OA,
        "call argument",
        '`with_structured_output(schema, method="json_schema" / "function_calling" / "json_mode")`',
        'carries over, parsed as `ChatOpenAI` parses it: `"json_schema"` sends a `json_schema` `response_format`; '
        '`"function_calling"` forces a function tool on the Agent API, and on `api="chat_completions"` (no function '
        'tools) sends a `json_schema` `response_format` instead, with a warning; `"json_mode"` sends a `json_schema` '
        "`response_format` too (Perplexity has no `json_object`): the schema given, or any object without one",
        "—",
        "tests/integration_tests/test_habit_structured_output.py::test_every_structured_output_form",
    ),
    row(
        OA,
        "argument",
        "`include=[...]`",
        "refused before sending (no `include` in the published Agent API)",
        "nothing: citations, search results and reasoning come back without asking",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        "`truncation=...`, `context_management=[...]`",
        "refused before sending",
        "`max_input_tokens=...`: older turns are compacted to fit",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        "`previous_response_id=...`",
        "refused before sending",
        "`use_previous_response_id=True`",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        "`logprobs`, `top_logprobs`",
        "refused before sending (Perplexity's published responses carry no logprobs)",
        "remove them",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        "`seed`, `logit_bias`, `verbosity`, `prediction`, `modalities`, `audio`, `user`",
        "refused before sending (not in Perplexity's published request models)",
        "remove them (`verbosity`: say it in `instructions` or a system message)",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        '`text={"format": ...}`',
        "refused before sending",
        "`with_structured_output(...)` or `response_format=...`",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        "`default_headers`, `default_query`",
        "refused before sending (Perplexity's published API takes neither)",
        "remove them; the key goes in `api_key`",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        "`http_client`, `http_async_client`, `client`, `async_client`, `root_client`, `http_socket_options`",
        "refused before sending (the package builds its own client)",
        "`api_key=`, `base_url=`, `timeout=`, `max_retries=`; a proxy from `HTTPS_PROXY`",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        "`openai_proxy`, `openai_organization`",
        "refused before sending",
        "`HTTPS_PROXY` for a proxy; Perplexity has no organizations",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        "`include_response_headers`, `disabled_params`, `prompt_cache_options`, `tiktoken_model_name`",
        "refused before sending",
        "`response_metadata` (id, model, usage, cost); nothing to disable; `prompt_cache_key`; `token_counter`",
        REFUSED,
    ),
    row(
        OA,
        "argument",
        "`OPENAI_API_KEY` in the environment",
        "refused before sending when no Perplexity key is set: `OPENAI_API_KEY` is never read (an OpenAI key must "
        "not reach another server), and the missing key's error says so",
        "`PPLX_API_KEY` (or `PERPLEXITY_API_KEY`)",
        T + "test_a_missing_key_says_openai_api_key_is_not_read",
    ),
    row(
        OA,
        "argument",
        "`OPENAI_BASE_URL` in the environment (a gateway)",
        "warned once per model (chat, search, embeddings) when neither `base_url=` nor `PPLX_BASE_URL` was given: "
        "it is not read, so requests go to Perplexity's server; the warning names `PPLX_BASE_URL` (not an error: "
        "apps using OpenAI and Perplexity side by side set both)",
        "`PPLX_BASE_URL` (or `base_url=`) for another server",
        T + "test_an_unread_openai_base_url_warns_once_per_model",
    ),
    row(
        OA,
        "argument",
        "a misspelt name (`temprature=`)",
        "refused before sending with \"Did you mean 'temperature'?\"; a near typo is matched against this "
        "package's names and other integrations' (`verbosty=` gets `verbosity`'s refusal and replacement, "
        "`openai_api_kye=` is told `openai_api_key` carries over as `api_key`), never an unrelated setting",
        "the name the hint gives",
        T + "test_did_you_mean_only_for_a_near_typo",
    ),
    row(
        OA,
        "argument",
        'a misspelt credential (`api_kye="..."`)',
        "refused before sending; the value is never shown",
        "`api_key=`",
        T + "test_an_unknown_arguments_credential_is_never_shown",
    ),
]
