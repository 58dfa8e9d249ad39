"""Stage 3 of a call: build the request body, once, from the normalized messages and the plan.

`_agent` and `_chat` write the two surfaces' bodies; `_parameter_table` declares every parameter.
"""
