"""The keys this package writes on an answer and reads back when the answer returns in a later history.

They live below every stage because the reader writes them and the request
builder and the continuation planner read them: one name for both sides.
"""

THOUGHT_SIGNATURES = "thought_signatures"
"""`AIMessage.additional_kwargs` key: `{call_id: thought_signature}` of the calls of a thinking model,
echoed on the `function_call` items as Perplexity's migration guide asks."""

CONTEXT_KEY = "perplexity_context"
"""`response_metadata` key of an answer's continuation record (see `_continuation`)."""

MCP_APPROVAL_REQUESTS = "mcp_approval_request"
"""`AIMessage.additional_kwargs` key of a v0 answer's `mcp_approval_request` items (the item type, as for
every server item); the request builder sends them back with the app's approval responses."""

MODEL_PROVIDER = "perplexity"
"""`response_metadata["model_provider"]` of this package's answers: the name its block translator is registered
under in langchain-core (`_response._blocks`, registered by `registration`)."""
