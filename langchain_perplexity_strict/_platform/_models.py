"""`list_models`: the models Perplexity serves (`GET /v1/models`), on the search and embeddings classes' transport.

The answer is the published `ModelListOutput` (OpenAI's list format:
`{"object": "list", "data": [ModelOutput...]}`, each model `id`, `object:
"model"`, `created`, `owned_by`), read into `PerplexityModelInfo` objects that
keep any field Perplexity adds. The connection settings are the chat model's
(`api_key`, `base_url`, `timeout`, `max_retries`, with their environment
variables and aliases), checked as the search and embeddings classes check them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from langchain_perplexity_strict._connection_settings import PerplexityConnection
from langchain_perplexity_strict.errors import PerplexityResponseError

MODELS_PATH = "/v1/models"


class PerplexityModelInfo(BaseModel):
    """One model Perplexity serves (the published `ModelOutput`); a field Perplexity adds is kept."""

    id: StrictStr
    """The slug to pass as `model=` (`openai/gpt-5.1`, `perplexity/sonar`, ...)."""
    object: StrictStr = "model"
    created: StrictInt
    """When the model was added (Unix seconds)."""
    owned_by: StrictStr
    """The provider (`openai`, `anthropic`, `perplexity`, ...)."""

    model_config = ConfigDict(extra="allow", frozen=True)


class _Models(PerplexityConnection):
    _api_name: ClassVar[str] = "models"


_Models.__name__ = "list_models"  # what a refusal names (`list_models: no key given ...`)


def _read(answer: Any) -> list[PerplexityModelInfo]:
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list):
        msg = f"Perplexity's GET {MODELS_PATH} answered no list of models (ModelListOutput): {str(answer)[:200]}"
        raise PerplexityResponseError(msg)
    try:
        return [PerplexityModelInfo.model_validate(item) for item in data]
    except ValidationError as error:
        msg = f"Perplexity's GET {MODELS_PATH} answered a model that is not a published ModelOutput: {error}"
        raise PerplexityResponseError(msg) from None


def list_models(**connection: Any) -> list[PerplexityModelInfo]:
    """The models Perplexity serves (`GET /v1/models`), in the order it lists them.

    `connection`: the chat model's connection settings (`api_key`, `base_url`, `timeout`,
    `max_retries`; `PPLX_API_KEY` / `PERPLEXITY_API_KEY` and `PPLX_BASE_URL` when not given),
    checked before anything is sent. `[m.id for m in list_models()]` are the names `model=` takes.
    """
    return _read(_Models(**connection)._get(MODELS_PATH))


async def alist_models(**connection: Any) -> list[PerplexityModelInfo]:
    """Async `list_models`."""
    return _read(await _Models(**connection)._aget(MODELS_PATH))
