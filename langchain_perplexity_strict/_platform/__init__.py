"""Perplexity's platform endpoints beside the chat model: the models it serves and the Decisions API."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError, create_model

from langchain_perplexity_strict._connection_settings import PerplexityConnection
from langchain_perplexity_strict._platform._decisions import PerplexityDecision, PerplexityDecisionResult
from langchain_perplexity_strict.errors import PerplexityResponseError

__all__ = ["PerplexityDecision", "PerplexityDecisionResult", "PerplexityModelInfo", "alist_models", "list_models"]

MODELS_PATH = "/v1/models"


class PerplexityModelInfo(BaseModel):
    """One model Perplexity serves (the published `ModelOutput`); a field Perplexity adds is kept."""

    id: StrictStr
    """The slug to pass as `model=`."""
    object: StrictStr = "model"
    created: StrictInt
    owned_by: StrictStr

    model_config = ConfigDict(extra="allow", frozen=True)


_Models = create_model("list_models", __base__=PerplexityConnection)  # its name is what a refusal names


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
    """The models Perplexity serves (`GET /v1/models`); `connection`: the chat model's connection settings."""
    return _read(_Models(**connection).transport.get(MODELS_PATH, api="models"))


async def alist_models(**connection: Any) -> list[PerplexityModelInfo]:
    return _read(await _Models(**connection).transport.aget(MODELS_PATH, api="models"))
