"""Stage 5 of a call: read Perplexity's JSON into a LangChain message; it knows nothing of request building.

`_agent` and `_chat` read each surface into an `Answer` (`_answer`), which makes the message or chunks.
"""
