"""The keys this package writes on an answer and reads back when the answer returns in a later history."""

THOUGHT_SIGNATURES = "thought_signatures"
"""`additional_kwargs` key: `{call_id: thought_signature}`, echoed per Perplexity's migration guide."""

CONTEXT_KEY = "perplexity_context"
"""`response_metadata` key of an answer's continuation record."""

MCP_APPROVAL_REQUESTS = "mcp_approval_request"
"""`additional_kwargs` key of a v0 answer's `mcp_approval_request` items."""

MODEL_PROVIDER = "perplexity"
"""`response_metadata["model_provider"]`: the name of the block translator."""
