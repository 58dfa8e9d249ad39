"""`PerplexityDecision`: Perplexity's Decisions API (`POST /v1/decisions`) as a LangChain Runnable.

Typed questions about a state, answered with probabilities (docs.perplexity.ai/docs/decisions/quickstart).
Shapes: the published `DecisionsRequestInput` and `DecisionsResponseOutput`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator
from typing_extensions import NotRequired, TypedDict

from langchain_perplexity_strict._accepts import NON_BLANK, Accepts, check, suggestion
from langchain_perplexity_strict._connection_settings import PerplexitySettings
from langchain_perplexity_strict._transport import encode_body
from langchain_perplexity_strict.errors import PerplexityResponseError

DECISIONS_PATH = "/v1/decisions"
DEFAULT_DECISION_MODEL = "pplx-decider-v1-27b"
"""The decision model of Perplexity's decisions quickstart."""

Json = StrictStr | dict[str, Any] | list[Any]
"""What a state, instructions and criteria may be."""


class NoulCriteria(TypedDict, total=False):
    """`DecisionNoulCriteriaInput`: what true and what false mean."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    true: Json | None
    false: Json | None


class NoulQuestion(TypedDict):
    """`DecisionNoulQuestionInput`: a yes/no question."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    type: Literal["noul"]
    criteria: NotRequired[NoulCriteria | None]
    instructions: NotRequired[Json | None]


class ChoiceQuestion(TypedDict):
    """`DecisionChoiceQuestionInput`: one of the options `criteria` names."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    type: Literal["choice"]
    criteria: dict[str, Json | None]
    instructions: NotRequired[Json | None]


class ScoreQuestion(TypedDict):
    """`DecisionScoreQuestionInput`: a level of the rubric `criteria`."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    type: Literal["score"]
    criteria: list[Json]
    instructions: NotRequired[Json | None]


Question = Annotated[NoulQuestion | ChoiceQuestion | ScoreQuestion, Field(discriminator="type")]

_SHAPES = (
    "(the published DecisionQuestionInput: {'type': 'noul', 'instructions': ..., 'criteria': {'true': ..., "
    "'false': ...}}, {'type': 'choice', 'criteria': {option: description}}, {'type': 'score', 'criteria': "
    "[lowest, ..., highest]})"
)
ACCEPTS = {
    "model": Accepts("a decision model name, neither empty nor blank, such as pplx-decider-v1-27b", NON_BLANK),
    "questions": Accepts(
        f"a dict of question names to noul, choice or score questions {_SHAPES}", dict[StrictStr, Question]
    ),
    "state": Accepts("a string, a dict or a list (or a message, document or prompt value, sent as its text)", Json),
}
"""Each setting's rule, per `DecisionsRequestInput`."""
_QUESTION = Accepts(f"a noul, choice or score question {_SHAPES}", Question)


def check_setting(name: str, value: Any) -> None:
    """`check` by `ACCEPTS`, naming the first wrong question."""
    if name == "questions" and isinstance(value, dict):
        for key, question in value.items():
            if isinstance(key, str):
                check(f"questions[{key!r}]", question, _QUESTION)
    check(name, value, ACCEPTS[name])


class PerplexityDecisionResult(BaseModel):
    """The published `DecisionsResponseOutput`: one answer dict per question name, model, usage."""

    answers: dict[str, dict[str, Any]]
    model: str
    usage: dict[str, Any] = Field(default_factory=dict)

    model_config = ConfigDict(extra="allow", protected_namespaces=())

    def __getitem__(self, name: str) -> dict[str, Any]:
        """The answer to the question `name`."""
        return self.answers[name]


def state_of(value: Any) -> Any:
    """What is sent as `state`: a message, document or prompt value as its text."""
    if isinstance(value, BaseMessage):
        return value.text
    if isinstance(value, Document):
        return value.page_content
    if isinstance(value, PromptValue):
        return value.to_string()
    return value


def _read(answer: Any, asked: dict[str, Any]) -> PerplexityDecisionResult:
    answers = answer.get("answers") if isinstance(answer, dict) else None
    if not isinstance(answers, dict) or not all(isinstance(a, dict) for a in answers.values()):
        msg = f"Perplexity's {DECISIONS_PATH} answered no answers (DecisionsResponseOutput): {str(answer)[:200]}"
        raise PerplexityResponseError(msg)
    missing = sorted(set(asked) - set(answers))
    if missing:
        msg = f"Perplexity's {DECISIONS_PATH} answered no answer to {', '.join(missing)}"
        raise PerplexityResponseError(msg)
    return PerplexityDecisionResult.model_validate({**answer, "model": answer.get("model") or ""})


class PerplexityDecision(PerplexitySettings, RunnableSerializable[Any, PerplexityDecisionResult]):
    """Perplexity's Decisions API as a Runnable: the input is the state to judge, the output the answers.

    ```python
    from langchain_perplexity_strict import PerplexityDecision

    triage = PerplexityDecision(
        questions={
            "urgent": {"type": "noul", "instructions": "Does this need a reply today?"},
            "team": {"type": "choice", "criteria": {"billing": "money, invoices", "tech": "errors, crashes"}},
            "severity": {"type": "score", "criteria": ["cosmetic", "annoying", "blocking"]},
        }
    )
    result = triage.invoke("I was charged twice and the app crashes at login.")
    result["urgent"]["noul"]  # probability of true
    result["team"]["choice"], result["team"]["probabilities"]
    ```

    `questions=` and `model=` may be given per call too.
    """

    questions: dict[str, Any]
    """Question name -> a `noul`, `choice` or `score` question."""
    model: str = DEFAULT_DECISION_MODEL

    model_config = ConfigDict(extra="forbid", populate_by_name=True, protected_namespaces=())

    @field_validator("questions", "model", mode="before")
    @classmethod
    def _as_given(cls, value: Any, info: Any) -> Any:
        check_setting(info.field_name, value)
        return value

    def _body(self, value: Any, overrides: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
        unknown = sorted(set(overrides) - {"questions", "model"})
        if unknown:
            msg = f"{unknown[0]}: not a per-call setting of PerplexityDecision; accepted: questions, model."
            raise TypeError(msg + suggestion(unknown[0], ("questions", "model"), {})[0])
        for name, setting in overrides.items():
            check_setting(name, setting)
        state = state_of(value)
        check("state", state, ACCEPTS["state"])
        questions = overrides.get("questions", self.questions)
        body = {"model": overrides.get("model", self.model), "state": state, "questions": questions}
        return encode_body(body), questions

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> PerplexityDecisionResult:
        """Ask the questions about `input`, the state."""

        def decide(value: Any) -> PerplexityDecisionResult:
            body, asked = self._body(value, kwargs)
            return _read(self.transport.post(DECISIONS_PATH, body, api="decisions"), asked)

        return self._call_with_config(decide, input, config, run_type="chain")

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> PerplexityDecisionResult:

        async def decide(value: Any) -> PerplexityDecisionResult:
            body, asked = self._body(value, kwargs)
            return _read(await self.transport.apost(DECISIONS_PATH, body, api="decisions"), asked)

        return await self._acall_with_config(decide, input, config, run_type="chain")
