"""Offline testing support: a strict Perplexity emulator on loopback.

`PerplexityEmulator(**switches)` serves the Agent API (`POST /v1/responses`,
`/v1/agent`), chat completions, `GET /v1/models`, and the stored responses:
`GET /v1/responses/{id}` (the response as of now; `?stream=true&starting_after=N`
streams its events after `sequence_number` N) and `POST /v1/responses/{id}/cancel`.
Built-in tools (`web_search`, `fetch_url`, `image_search`, `people_search`,
`finance_search`, `sandbox`, `mcp`, `connector`) and skills answer with their
published output items and events; an `mcp` tool that needs approval ends the
response `requires_action` until an `mcp_approval_response` comes back.

Switches (see `PerplexityEmulator`): `run_duration`, `queue_time`,
`resumable_streams`, `unknown_output_items`, `event_delay`, `openai_events`,
`sonar_retired`, `sonar_function_tools`, `conversation_rules`, `track_roles`,
`api_key`, `agent_models`, `seed`.

`Fault(kind, ...)`, through `emu.inject(...)` (the next requests, one each) or
`emu.set_fault_rates({fault: p})`: `rate_limit`, `server_error`, `delay`,
`failed` (its `code`), `incomplete`, `malformed_json`, `context_overflow`
(Sonar's recorded 400), `error_body` (a `status` with a body in `form`: `json`, `typed` (type `code`),
`detail`, `html`, `text`, `empty`), and on streams `error_event` (an `error` event with `code`), `reset` / `cut_stream`
(after `after_events` events), `stall` (`seconds` of silence after
`after_events` events) and `idle_drop` (closed after `seconds` of silence).
`emu.requests` records each request; `RecordedRequest.kind` tells `create`,
`retrieve`, `resume`, `cancel` and `chat` apart. `ManualClock` (given as
`clock=`, or set as `emu.clock`) is a clock for runs and batches that the test
moves instead of waiting (`advance`, `per_request`, `autojump`). docs/emulator.md
has more.
"""

from langchain_perplexity_strict.testing.clock import ManualClock
from langchain_perplexity_strict.testing.conversation import ConversationRules
from langchain_perplexity_strict.testing.emulator import (
    Fault,
    PerplexityEmulator,
    RecordedRequest,
)

__all__ = ["ConversationRules", "Fault", "ManualClock", "PerplexityEmulator", "RecordedRequest"]
