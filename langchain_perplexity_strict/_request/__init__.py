"""Stage 3 of a call: build the request body, once, from the normalized messages and the plan.

`_parameter_table` declares every parameter once (field and table row together);
`_agent` and `_chat` write the two surfaces' bodies; `_parts` is the content
mapping both share; `_tools` and `_structured_output` shape `tools`,
`tool_choice` and `response_format`; `_model_names` holds the model tables.
Nothing here sends a request or reads a response.
"""
