"""Stage 5 of a call: read Perplexity's JSON into a LangChain message; it knows nothing of request building.

`_agent` and `_chat` read each surface into an `Answer` (`_answer`); `_render` makes the message or chunks;
`_stop`, `_think` and `_usage` filter stops, split `<think>` and read usage.
"""
