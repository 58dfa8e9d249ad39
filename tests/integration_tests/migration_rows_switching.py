"""docs/migration.md's rows for what a switching langchain-perplexity 1.4.2 app meets (format: `migration_doc.KEYS`).

Written from a stranger's switch of a 1.4.2 app by docs/migration.md: `web_search_options`' 1.4.2 key, search
switched off beside search settings, the search tool's unknown arguments, structured output's methods and
options, `streaming`, `model_kwargs`, tools on chat completions and the Sonar names on the Agent API. Each row
names the test that checks it (tests/integration_tests/test_switching.py).
"""

from __future__ import annotations

from tests.integration_tests.migration_doc import row

T = "tests/integration_tests/test_switching.py::"
LP = "langchain-perplexity"
OA = "ChatOpenAI"


_SONAR = {
    "sonar": ('`model="perplexity/sonar"` with the `web_search` tool', '`model="perplexity/sonar"`'),
    "sonar-pro": ('`effort="low"` (no `model`: the effort level picks it) with web search', '`effort="low"`'),
    "sonar-reasoning-pro": ('`effort="low"` (no `model`) with web search', '`effort="low"`'),
    "sonar-deep-research": ('`effort="medium"` (no `model`) with web search', '`effort="medium"`'),
}

ROWS: list[dict[str, str]] = [
    row(
        LP,
        "argument",
        '`web_search_options={"image_search_relevance_enhanced": True}` (1.4.2\'s `WebSearchOptions` key; '
        "constructor, call, `.bind`, `model_copy`)",
        "carries over on chat completions only: sent as Perplexity's published "
        "`web_search_options.image_results_enhanced_relevance`. On the Agent API refused before sending, the "
        "error naming `web_search_options['image_search_relevance_enhanced']` and the published name (the Agent "
        "API has no such field)",
        "on the Agent API, bind the `image_search` tool for images; on chat completions, nothing "
        "(or the published `image_results_enhanced_relevance` key)",
        T + "test_image_search_relevance_enhanced_is_refused_on_the_agent_api_naming_the_key_as_written",
    ),
    row(
        LP,
        "argument",
        '`disable_search=True` (or `web_search=False`, or `tool_choice="none"`) beside search settings '
        "(`search_domain_filter`, recency, dates, `search_context_size`, `user_location`, "
        "`web_search_options`, ...), on any path",
        "refused before sending on the Agent API, naming the switch and the settings (nothing would carry "
        "them: they were dropped silently). Chat completions take both fields, so both are sent",
        "remove the search settings, or the switch; with `web_search=False`, bind `web_search_tool()` to carry them",
        T + "test_search_off_with_search_settings_is_refused_on_the_agent_api",
    ),
    row(
        OA,
        "argument",
        '`extra_body={"disable_search": True, "search_domain_filter": [...]}`',
        "refused before sending on the Agent API, naming both (the entries are taken as the settings they "
        "name); chat completions send both, as published",
        "remove the search settings, or `disable_search`",
        T + "test_search_off_with_search_settings_is_refused_on_the_agent_api",
    ),
    row(
        LP,
        "call argument",
        '`PerplexitySearchResults().invoke({"query": "q", "max_result": 2})` (an argument the tool lacks)',
        'refused before sending: a direct call raises `ValueError` naming the argument, with "Did you mean '
        "'max_results'?\" (a bad value or combination raises too). In an agent (a `ToolCall`), the model gets "
        "the same words back as the tool's answer, so it can call again",
        '`{"query": "q", "max_results": 2}`',
        T + "test_a_direct_call_with_an_unknown_argument_raises_with_the_hint",
    ),
    row(
        LP,
        "entry point",
        '`with_structured_output(Schema, method="function_calling")` on the Agent API',
        "carries over: the same parsed result, but sent as a function tool named after the schema with "
        '`tool_choice={"name": ...}` (1.4.2 sent a `json_schema` response format for every method); on chat '
        "completions, a `json_schema` response format with a warning (Sonar has no function tools)",
        '— (`method="json_schema"`, the default, sends the response format as 1.4.2 did)',
        T + "test_function_calling_on_the_agent_api_sends_a_forced_function_tool",
    ),
    row(
        LP,
        "entry point",
        '`with_structured_output(Schema)` (default method) or `method="json_schema"`',
        "carries over: a `json_schema` response format on both APIs, parsed to the Pydantic class (a dict for "
        "a TypedDict or JSON schema)",
        "—",
        T + "test_structured_output_methods_and_options",
        "`response_format.json_schema` also carries `name` (the schema's) and, for a Pydantic class, "
        "`strict: true` (1.4.2 sent the schema alone)",
    ),
    row(
        LP,
        "entry point",
        '`with_structured_output(method="json_mode")` (with or without a schema)',
        "carries over: Perplexity has no JSON mode; without a schema, a `json_schema` format that admits any "
        "object (parsed to a dict), with one, that schema (1.4.2 required one)",
        "—",
        T + "test_structured_output_methods_and_options",
    ),
    row(
        LP,
        "entry point",
        "`with_structured_output(..., include_raw=True)`",
        'carries over: `{"raw": AIMessage, "parsed": ..., "parsing_error": None}`, on both APIs',
        "—",
        T + "test_structured_output_methods_and_options",
    ),
    row(
        LP,
        "entry point",
        "`with_structured_output(..., strict=True or False)`",
        "carries over: sent as `response_format.json_schema.strict` (1.4.2 ignored it)",
        "—",
        T + "test_structured_output_methods_and_options",
    ),
    row(
        LP,
        "entry point",
        "`with_structured_output({...JSON schema dict...})`",
        "carries over: a `json_schema` response format named by the schema's `title`, parsed to a dict",
        "—",
        T + "test_structured_output_methods_and_options",
    ),
    row(
        LP,
        "argument",
        "`streaming=True`",
        "carries over: `invoke` streams (`stream: true`) and returns the one merged `AIMessage`, on both APIs",
        "—",
        T + "test_streaming_true_streams_under_invoke",
    ),
    row(
        LP,
        "argument",
        "`model_kwargs={...}` (a published field the package has no parameter for)",
        "carries over: sent as given (`step_budget_reminder` on the Agent API, `num_search_results` on chat "
        "completions). A field a parameter sets is refused before sending, naming it: "
        '`model_kwargs={"top_p": 0.5}` → pass `top_p=0.5`',
        "the parameter (`top_p=...`, `search_domain_filter=...`) for any field that has one",
        T + "test_model_kwargs_pass_a_published_field_and_refuse_a_parameters",
    ),
    row(
        LP,
        "entry point",
        '`bind_tools([...])` or `create_agent(model, tools)` on `api="chat_completions"` (1.4.2 switched to the '
        "Responses API on its own when a tool was bound)",
        "refused before sending: Sonar chat completions have no function tools; the error names `api='agent'`",
        '`ChatPerplexityStrict()` (`api="agent"`, the default) for tools and agents',
        T + "test_tools_on_chat_completions_are_refused_naming_the_agent_api",
    ),
    *(
        row(
            LP,
            "default",
            f'`model="{name}"` on the Agent API',
            f"carries over: sent as {becomes}, per Perplexity's Sonar migration table, warned once per model",
            f"{instead} (silences the warning)",
            T + f"test_each_sonar_name_maps_on_the_agent_api[{name}]",
            f"`model`: `{name}` → {instead}",
        )
        for name, (becomes, instead) in _SONAR.items()
    ),
]
