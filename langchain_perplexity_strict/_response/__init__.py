"""Stage 5 of a call: read Perplexity's JSON into a LangChain message; it knows nothing of request building.

`_agent` and `_chat` read each surface's response and stream events into an
`Answer` (`_answer`: the text pipeline, sources, tool calls, usage) through its
methods; `_render` turns the answer into the message or the stream's chunks
(v0 and v1); `_stop` and `_think` are the stop-sequence filter and the
`<think>` splitter; `_usage` reads usage for both surfaces; `_records` makes a
search result readable by key and by attribute.
"""
