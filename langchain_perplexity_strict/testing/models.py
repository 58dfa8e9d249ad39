"""`GET /v1/models`: the models the emulator serves, as the published `ModelListOutput`.

OpenAI's list format (`{"object": "list", "data": [...]}`), each entry a
`ModelOutput` (`id`, `object: "model"`, `created`, `owned_by`: the slug's
provider). `created` is the emulator's own fixed date (docs/perplexity-rules.md).
Perplexity's models page says the list needs no key, so none is checked.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

PATHS = ("/v1/models", "/models")
CREATED = 1_767_225_600
"""2026-01-01 00:00 UTC: the emulator's `created` for every model (Perplexity publishes no dates)."""


def model_list(models: Iterable[str]) -> dict[str, Any]:
    """`ModelListOutput` for the served `models`."""
    data = [{"id": m, "object": "model", "created": CREATED, "owned_by": m.split("/")[0]} for m in models]
    return {"object": "list", "data": data}
