"""`PerplexityDecision` (`POST /v1/decisions`): the published `Decision*` models are the contract, on the emulator.

Every body sent validates as `DecisionsRequestInput` and every answer as `DecisionsResponseOutput` (extra fields
forbidden); the emulator refuses what those models refuse; bad settings are refused before sending, on the
constructor and per call alike; invoke, ainvoke, batch, abatch and a chain all answer.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.messages import HumanMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda

from langchain_perplexity_strict import PerplexityDecision, PerplexityDecisionResult
from langchain_perplexity_strict.errors import PerplexityResponseError
from langchain_perplexity_strict.testing import Fault, PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import KEY

QUESTIONS: dict[str, Any] = {
    "urgent": {
        "type": "noul",
        "instructions": "Does this need a reply today?",
        "criteria": {"true": "a blocker", "false": {"examples": ["a question"]}},
    },
    "bare_noul": {"type": "noul", "criteria": {"true": "yes"}},
    "team": {
        "type": "choice",
        "criteria": {"billing": "money, invoices", "tech": ["errors", "crashes"], "other": None},
        "instructions": {"pick": "one"},
    },
    "severity": {"type": "score", "criteria": ["cosmetic", {"level": "annoying"}, ["blocking", "data loss"]]},
}
BAD_QUESTIONS: list[Any] = [
    "urgent?",
    ["urgent"],
    {"q": {"type": "maybe"}},
    {"q": {"instructions": "no type"}},
    {"q": {"type": "choice"}},
    {"q": {"type": "choice", "criteria": ["a", "b"]}},
    {"q": {"type": "score", "criteria": {"low": "a"}}},
    {"q": {"type": "score", "criteria": [1, 2]}},
    {"q": {"type": "noul", "criteria": {"yes": "x"}}},
    {"q": {"type": "noul", "threshold": 0.5}},
    {"q": {"type": "noul", "instructions": 3}},
    {1: {"type": "noul"}},
]


@pytest.fixture
def decide(emu: PerplexityEmulator) -> Iterator[PerplexityDecision]:
    yield PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=QUESTIONS)  # type: ignore[arg-type]


def _check_answers(result: PerplexityDecisionResult) -> None:
    assert isinstance(result, PerplexityDecisionResult)
    published_schema.validate("DecisionsResponseOutput", result.model_dump())
    assert set(result.answers) == set(QUESTIONS)
    assert 0 <= result["urgent"]["noul"] <= 1
    team = result["team"]
    assert set(team["probabilities"]) == {"billing", "tech", "other"}
    assert team["choice"] == max(team["probabilities"], key=team["probabilities"].get)
    assert abs(sum(team["probabilities"].values()) - 1) < 1e-3
    assert len(result["severity"]["probabilities"]) == 3


async def test_every_call_mode_sends_a_published_request_and_reads_a_published_answer(
    emu: PerplexityEmulator, decide: PerplexityDecision
) -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "Ticket: {text}")])
    results = [
        decide.invoke("I was charged twice"),
        await decide.ainvoke({"ticket": 7, "text": "crash at login"}),
        *decide.batch(["a", ["b", {"c": 1}]]),
        *(await decide.abatch([HumanMessage("from a message"), Document(page_content="from a document")])),
        (RunnableLambda(lambda text: text.upper()) | decide).invoke("in a chain"),
        (prompt | decide).invoke({"text": "from a prompt"}),
    ]
    for result in results:
        _check_answers(result)
    sent = [r for r in emu.requests if r.path == "/v1/decisions"]
    assert len(sent) == len(results)
    for request in sent:
        published_schema.validate("DecisionsRequestInput", request.body)
        assert request.body["questions"] == QUESTIONS and request.body["model"] == "pplx-decider-v1-27b"
    states = [r.body["state"] for r in sent]
    assert {"ticket": 7, "text": "crash at login"} in states and ["b", {"c": 1}] in states
    assert {"from a message", "from a document", "IN A CHAIN", "Human: Ticket: from a prompt"} <= {
        s for s in states if isinstance(s, str)
    }


def test_the_same_request_gets_the_same_answer(decide: PerplexityDecision) -> None:
    assert decide.invoke("same").answers == decide.invoke("same").answers


@pytest.mark.parametrize("questions", BAD_QUESTIONS)
def test_questions_outside_the_published_models_are_refused_before_sending_on_every_path(
    emu: PerplexityEmulator, decide: PerplexityDecision, questions: Any
) -> None:
    if isinstance(questions, dict) and all(isinstance(k, str) for k in questions):  # JSON would make 1 a "1"
        assert not published_schema.verdict(
            "DecisionsRequestInput", {"model": "m", "state": "s", "questions": questions}
        )
    with pytest.raises(ValueError, match=r"questions(\[.*\])?=.*noul, choice or score question"):
        PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=questions)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"questions(\[.*\])?=.*noul, choice or score question"):
        decide.invoke("x", questions=questions)
    with pytest.raises(ValueError, match=r"questions(\[.*\])?=.*noul, choice or score question"):
        decide.bind(questions=questions).invoke("x")
    assert emu.requests == []


@pytest.mark.parametrize("state", [5, 1.5, None, True, b"bytes"])
def test_a_state_outside_the_published_models_is_refused_before_sending(
    emu: PerplexityEmulator, decide: PerplexityDecision, state: Any
) -> None:
    with pytest.raises(ValueError, match=r"state=.*a string, a dict or a list"):
        decide.invoke(state)
    assert emu.requests == []


def test_other_settings_are_checked(emu: PerplexityEmulator, decide: PerplexityDecision) -> None:
    with pytest.raises(ValueError, match="model=5"):
        PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=QUESTIONS, model=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="temperature"):
        PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=QUESTIONS, temperature=0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="temperature: not a per-call setting"):
        decide.invoke("x", temperature=0)
    with pytest.raises(ValueError, match="timeout"):
        PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=QUESTIONS, timeout=-1)
    one = {"only": {"type": "noul", "instructions": "Is it spam?"}}
    assert set(decide.invoke("x", questions=one).answers) == {"only"}
    assert emu.requests[-1].body["questions"] == one


def test_errors_are_translated(emu: PerplexityEmulator, decide: PerplexityDecision) -> None:
    with pytest.raises(Exception, match=r"decisions API answered HTTP 400 \(invalid_model\)"):
        decide.invoke("x", model="pplx-unknown")
    emu.inject(Fault("malformed_json"))
    with pytest.raises(PerplexityResponseError):
        decide.invoke("x")


@pytest.mark.parametrize(
    "body",
    [
        {"model": "pplx-decider-v1-27b", "state": "s", "questions": QUESTIONS},
        {"model": "pplx-decider-v1-27b", "state": {"a": [1]}, "questions": {}},
        {"model": "pplx-decider-v1-27b", "state": "s", "questions": {"q": {"type": "noul", "criteria": None}}},
        *({"model": "pplx-decider-v1-27b", "state": "s", "questions": q} for q in BAD_QUESTIONS if isinstance(q, dict)),
        {"model": "pplx-decider-v1-27b", "state": 5, "questions": {}},
        {"model": "pplx-decider-v1-27b", "questions": {}},
        {"model": "pplx-decider-v1-27b", "state": "s", "questions": {}, "temperature": 0},
    ],
)
def test_the_emulator_judges_as_the_published_models(emu: PerplexityEmulator, body: dict[str, Any]) -> None:
    request = urllib.request.Request(
        emu.base_url + "/v1/decisions",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request) as answer:
            status, payload = answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        status, payload = error.code, json.loads(error.read())
    if 1 in body.get("questions", {}):
        return  # JSON has no integer keys: the emulator sees "1", a name like any other
    assert (status == 200) == published_schema.verdict("DecisionsRequestInput", body), payload
    if status == 200:
        published_schema.validate("DecisionsResponseOutput", payload)
        assert set(payload["answers"]) == set(body["questions"])


def test_the_wrong_question_is_named(emu: PerplexityEmulator, decide: PerplexityDecision) -> None:
    wrong = {**QUESTIONS, "team": {"type": "choice", "criteria": ["billing", "tech"]}}
    with pytest.raises(ValueError, match=r"questions\['team'\]=\{'type': 'choice'"):
        PerplexityDecision(api_key=KEY, base_url=emu.base_url, questions=wrong)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"questions\['team'\]="):
        decide.invoke("x", questions=wrong)
    assert emu.requests == []
