"""`POST /v1/decisions`: typed questions about a state, answered with probabilities (deterministic).

Requests are checked as the published `DecisionsRequestInput` (`model`,
`state`, `questions`: each a `DecisionNoulQuestionInput`,
`DecisionChoiceQuestionInput` or `DecisionScoreQuestionInput`), unknown fields
refused. Answers have the shape of `DecisionsResponseOutput`: a `noul`
question gets the probability of true; a `choice` question the most likely
option, every option's probability and a confidence; a `score` question the
probability of each level of its rubric (keyed "0", "1", ... in the rubric's
order, with the level in `legend`), the probability-weighted level as
`score`, and a confidence. The probabilities are drawn from a hash of the
state and the question, so the same request gets the same answer.
Standard library only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from langchain_perplexity_strict.testing.agent_schema import ERROR_TYPE, STR, MapOf, Obj, Spec, Tagged
from langchain_perplexity_strict.testing.errors import invalid

MODELS = ("pplx-decider-v1-27b",)
"""The decision model Perplexity's decisions quickstart names (docs.perplexity.ai/docs/decisions/quickstart)."""


@dataclass(frozen=True)
class _Json(Spec):
    """`Union[str, dict[str, Any], list[Any]]` in the published models (`nullable`: `None` too)."""

    nullable: bool = False

    def check(self, value: Any, path: str) -> None:
        if value is None and self.nullable:
            return
        if not isinstance(value, (str, dict, list)):
            raise invalid(ERROR_TYPE, f"{path} must be a string, an object or a list", path)


@dataclass(frozen=True)
class _Rubric(Spec):
    """`list[Union[str, dict, list]]`: a score question's levels, lowest first."""

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise invalid(ERROR_TYPE, f"{path} must be a list", path)
        for i, level in enumerate(value):
            JSON.check(level, f"{path}[{i}]")


JSON = _Json()
QUESTION = Tagged(
    {
        "noul": Obj(
            {"type": STR, "instructions": JSON, "criteria": Obj({"true": JSON, "false": JSON})}, frozenset({"type"})
        ),
        "choice": Obj(
            {"type": STR, "instructions": JSON, "criteria": MapOf(_Json(nullable=True))},
            frozenset({"type", "criteria"}),
        ),
        "score": Obj({"type": STR, "instructions": JSON, "criteria": _Rubric()}, frozenset({"type", "criteria"})),
    }
)
REQUEST = Obj({"model": STR, "state": JSON, "questions": MapOf(QUESTION)}, frozenset({"model", "state", "questions"}))


def _draws(seed: str, count: int) -> list[float]:
    """`count` positive numbers from `seed`, summing to 1."""
    digest = hashlib.blake2b(seed.encode(), digest_size=64).digest()
    raw = [1 + digest[i % 64] + (i // 64) for i in range(count)]
    total = sum(raw)
    return [round(r / total, 6) for r in raw]


def _answer(state: Any, name: str, question: dict[str, Any]) -> dict[str, Any]:
    seed = json.dumps([state, name, question], sort_keys=True)
    kind = question["type"]
    if kind == "noul":
        return {"type": "noul", "noul": _draws(seed, 2)[0]}
    if kind == "choice":
        options = list(question["criteria"])
        probabilities = dict(zip(options, _draws(seed, len(options)), strict=True))
        best = max(options, key=lambda o: probabilities[o]) if options else ""
        return {
            "type": "choice",
            "choice": best,
            "confidence": probabilities.get(best, 0.0),
            "probabilities": probabilities,
        }
    levels = question["criteria"]
    draws = _draws(seed, len(levels))
    probabilities = {str(i): p for i, p in enumerate(draws)}
    return {
        "type": "score",
        "score": round(sum(i * p for i, p in enumerate(draws)), 6),
        "confidence": max(draws, default=0.0),
        "probabilities": probabilities,
        "legend": {str(i): level for i, level in enumerate(levels)},
    }


def answer_decisions(body: Any) -> dict[str, Any]:
    """`DecisionsResponseOutput` for a request, after checking it as `DecisionsRequestInput`."""
    REQUEST.check(body, "")
    if body["model"] not in MODELS:
        raise invalid("invalid_model", f"unknown model {body['model']!r}; decisions serve {', '.join(MODELS)}", "model")
    answers = {name: _answer(body["state"], name, q) for name, q in body["questions"].items()}
    tokens = len(json.dumps(body["state"]).split()) + 8 * len(answers)
    return {"answers": answers, "model": body["model"], "usage": {"input_tokens": tokens, "output_tokens": 0}}


ROUTES = {"/v1/decisions": answer_decisions}
