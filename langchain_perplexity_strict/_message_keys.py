"""The keys this package writes on an answer and reads back when the answer returns in a later history.

They live below every stage because the reader writes them and the request
builder and the continuation planner read them: one name for both sides.
"""

THOUGHT_SIGNATURES = "thought_signatures"
"""`AIMessage.additional_kwargs` key: `{call_id: thought_signature}` of the calls of a thinking model,
echoed on the `function_call` items as Perplexity's migration guide asks."""

CONTEXT_KEY = "perplexity_context"
"""`response_metadata` key of an answer's continuation record (see `_continuation`)."""
