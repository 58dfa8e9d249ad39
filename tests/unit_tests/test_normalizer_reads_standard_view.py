"""The normalizer reads an answer as LangChain's standard view shows it (`AIMessage.content_blocks`).

What a message says can sit outside `content`: in `additional_kwargs` or in a
provider's own block shapes, which langchain-core's block translators
(`langchain_core/messages/block_translators/`, picked by
`response_metadata["model_provider"]`) turn into standard blocks. Each such
part is kept (a refusal and cited text as the turn's text) or left out by a
named rule the report records (reasoning; another provider's server tools;
an image, a file or audio in an assistant turn; citations and sources), never
dropped silently or as "no content".

Forms (provider x field):
- any provider / none: `additional_kwargs["refusal"]` (ChatOpenAI's chat
  completions refusal; not in `content_blocks` without the openai translator)
- openai: `additional_kwargs["refusal"]`; Responses v0.3 list content with
  `url_citation` annotations plus `additional_kwargs["reasoning"]` and
  `["refusal"]`; v1 content (`output_version="v1"`: reasoning, cited text, refusal)
- deepseek / xai / ollama (no translator): `additional_kwargs["reasoning_content"]`,
  with text and alone
- groq: `reasoning_content` and `executed_tools` (server tools)
- anthropic: `thinking`, `server_tool_use`, `web_search_tool_result`, text with `citations`
- google_genai: `thinking` and text; `additional_kwargs["audio"]`
- bedrock_converse: `reasoning_content` blocks
- perplexity (this package's v0 answer): `reasoning_content`
- no provider: an image in an assistant turn
- citations (the text sent as written, each source named in the report):
  anthropic `web_search_result_location` and `char_location` (`cited_text`),
  also with no provider (stored before `model_provider`); openai `url_citation`
  in Responses v0.3 and `responses/v1` content; langchain v1 `citation`
  annotations; xai `additional_kwargs["citations"]`; this package's answers
  (v0 `[n]` markers with `citations` and `search_results`, v0 `url_citation`
  `annotations`, v1 content)

Restoration paths, each form through each: as built; `messages_to_dict` /
`messages_from_dict`; `convert_to_messages` of a role dict; `dumpd` + `load`;
a LangGraph checkpoint (`JsonPlusSerializer().dumps_typed` / `loads_typed`);
stream chunks added together (`AIMessageChunk` sum) and `message_chunk_to_message`
of the sum. Checked for each: the text sent, the report's lines, the
caller's message unchanged, normalizing again changes nothing, and the Agent
API and chat completions bodies (valid under the published models) carry the
kept text and none of what was left out.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from langchain_core.load import dumpd, load
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    convert_to_messages,
    message_chunk_to_message,
    messages_from_dict,
    messages_to_dict,
)
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from langchain_perplexity_strict import ChatPerplexityStrict, normalize_messages
from tests import published_schema

REFUSAL = "I can't help with that."
THOUGHT = "secret chain of thought"
REASONING = "reasoning block(s) 'reasoning' left out (reasoning is not sent back)"
REFUSED = "'refusal' sent as text"
SERVER = "content block(s) 'server_tool_call', 'server_tool_result' left out"
NOT_SENT = "nothing is left, so the message is not sent"
CITE = "https://cite.example/page"
CITED = f"citation(s) '{CITE}' left out (a request carries no citations; the text is sent as written)"
CITED_U = "citation(s) 'https://u.example' left out"
SOURCES = [
    {"id": 1, "url": "https://a.example", "title": "A", "snippet": "a"},
    {"id": 2, "url": "https://b.example", "title": "B", "snippet": "b"},
]
CITED_AB = "citation(s) 'https://a.example', 'https://b.example' left out"
AGENT = ChatPerplexityStrict(model="perplexity/sonar", api="agent", api_key="unused", max_input_tokens=0)
CHAT = ChatPerplexityStrict(model="sonar", api="chat_completions", api_key="unused", max_input_tokens=0)


class Form(NamedTuple):
    """An answer, the text it is sent as (None: not sent), the report lines it gives, what must not be sent."""

    message: AIMessage
    text: str | None
    report: tuple[str, ...]
    withheld: tuple[str, ...] = ()


def _meta(provider: str, **more: Any) -> dict[str, Any]:
    return {"model_provider": provider, **more}


FORMS: dict[str, Form] = {
    "refusal kwargs, no provider": Form(AIMessage("", additional_kwargs={"refusal": REFUSAL}), REFUSAL, (REFUSED,)),
    "openai refusal kwargs": Form(
        AIMessage("", additional_kwargs={"refusal": REFUSAL}, response_metadata=_meta("openai")), REFUSAL, (REFUSED,)
    ),
    "openai responses v0.3": Form(
        AIMessage(
            [
                {
                    "type": "text",
                    "text": "Cited. ",
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url": "https://u.example",
                            "start_index": 0,
                            "end_index": 5,
                            "title": "u",
                        }
                    ],
                }
            ],
            additional_kwargs={
                "refusal": REFUSAL,
                "reasoning": {
                    "id": "rs_1",
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": THOUGHT}],
                },
            },
            response_metadata=_meta("openai"),
        ),
        "Cited. " + REFUSAL,
        (REFUSED, REASONING, CITED_U),
        (THOUGHT, "https://u.example"),
    ),
    "openai v1 content": Form(
        AIMessage(
            [
                {"type": "reasoning", "reasoning": THOUGHT},
                {"type": "text", "text": "Cited. ", "annotations": [{"type": "citation", "url": "https://u.example"}]},
                {"type": "refusal", "refusal": REFUSAL},
            ],
            response_metadata=_meta("openai", output_version="v1"),
        ),
        "Cited. " + REFUSAL,
        (REFUSED, REASONING, CITED_U),
        (THOUGHT, "https://u.example"),
    ),
    "deepseek reasoning_content": Form(
        AIMessage("Answer.", additional_kwargs={"reasoning_content": THOUGHT}, response_metadata=_meta("deepseek")),
        "Answer.",
        (REASONING,),
        (THOUGHT,),
    ),
    "reasoning_content alone": Form(
        AIMessage("", additional_kwargs={"reasoning_content": THOUGHT}), None, (REASONING, NOT_SENT), (THOUGHT,)
    ),
    "groq reasoning and executed tools": Form(
        AIMessage(
            "Answer.",
            additional_kwargs={
                "reasoning_content": THOUGHT,
                "executed_tools": [{"type": "search", "arguments": "{}", "output": "tool output", "index": 0}],
            },
            response_metadata=_meta("groq"),
        ),
        "Answer.",
        (REASONING, SERVER),
        (THOUGHT, "tool output"),
    ),
    "anthropic thinking, server tools, citations": Form(
        AIMessage(
            [
                {"type": "thinking", "thinking": THOUGHT, "signature": "sig"},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                {
                    "type": "text",
                    "text": "Cited.",
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": "https://u.example",
                            "title": "u",
                            "cited_text": "c",
                            "encrypted_index": "e",
                        }
                    ],
                },
            ],
            response_metadata=_meta("anthropic"),
        ),
        "Cited.",
        (REASONING, SERVER, CITED_U),
        (THOUGHT, "https://u.example"),
    ),
    "google_genai thinking": Form(
        AIMessage(
            [{"type": "thinking", "thinking": THOUGHT}, {"type": "text", "text": "Answer."}],
            response_metadata=_meta("google_genai"),
        ),
        "Answer.",
        (REASONING,),
        (THOUGHT,),
    ),
    "google_genai audio kwargs": Form(
        AIMessage("", additional_kwargs={"audio": b"RIFF"}, response_metadata=_meta("google_genai")),
        None,
        ("content block(s) 'audio' left out", NOT_SENT),
    ),
    "bedrock_converse reasoning_content": Form(
        AIMessage(
            [
                {"type": "reasoning_content", "reasoning_content": {"text": THOUGHT, "signature": "s"}},
                {"type": "text", "text": "Answer."},
            ],
            response_metadata=_meta("bedrock_converse"),
        ),
        "Answer.",
        (REASONING,),
        (THOUGHT,),
    ),
    "perplexity v0 answer with reasoning": Form(
        AIMessage("Answer.", additional_kwargs={"reasoning_content": THOUGHT}, response_metadata=_meta("perplexity")),
        "Answer.",
        (REASONING,),
        (THOUGHT,),
    ),
    "image in an assistant turn": Form(
        AIMessage([{"type": "text", "text": "See."}, {"type": "image", "url": "https://img.example/x.png"}]),
        "See.",
        ("content block(s) 'image' left out",),
        ("https://img.example/x.png",),
    ),
}


def _anthropic_web(**metadata: Any) -> AIMessage:
    citation = {
        "type": "web_search_result_location",
        "url": CITE,
        "title": "t",
        "encrypted_index": "x",
        "cited_text": "the cited words",
    }
    return AIMessage([{"type": "text", "text": "T", "citations": [citation]}], response_metadata=metadata)


def _url_citation(**more: Any) -> dict[str, Any]:
    return {"type": "url_citation", "url": CITE, "title": "t", "start_index": 0, "end_index": 1, **more}


def _own_v0() -> AIMessage:
    """This package's v0 answer: `[n]` markers, its `citations` and `search_results`."""
    kwargs = {"citations": [r["url"] for r in SOURCES], "search_results": SOURCES}
    return AIMessage("Both [1][2].", additional_kwargs=kwargs, response_metadata=_meta("perplexity"))


def _own_v1() -> AIMessage:
    """This package's v1 answer: its v0 message's `content_blocks` (as `_response._render` builds it)."""
    v0 = _own_v0()
    return v0.model_copy(
        update={"content": v0.content_blocks, "response_metadata": _meta("perplexity", output_version="v1")}
    )


FORMS |= {
    "anthropic web_search_result_location": Form(
        _anthropic_web(**_meta("anthropic")), "T", (CITED,), (CITE, "the cited words")
    ),
    "anthropic citations, no provider": Form(_anthropic_web(), "T", (CITED,), (CITE, "the cited words")),
    "anthropic char_location": Form(
        AIMessage(
            [
                {
                    "type": "text",
                    "text": "T",
                    "citations": [
                        {
                            "type": "char_location",
                            "cited_text": "quoted words",
                            "document_index": 0,
                            "document_title": "Doc",
                            "start_char_index": 0,
                            "end_char_index": 12,
                        }
                    ],
                }
            ],
            response_metadata=_meta("anthropic"),
        ),
        "T",
        ("citation(s) 'Doc' left out",),
        ("quoted words",),
    ),
    "openai responses v0.3 url_citation": Form(
        AIMessage([{"type": "text", "text": "T", "annotations": [_url_citation()]}], response_metadata=_meta("openai")),
        "T",
        (CITED,),
        (CITE,),
    ),
    "openai responses/v1 url_citation": Form(
        AIMessage(
            [{"type": "text", "text": "T", "annotations": [_url_citation()], "id": "msg_1"}],
            response_metadata=_meta("openai", output_version="responses/v1"),
        ),
        "T",
        (CITED,),
        (CITE,),
    ),
    "langchain v1 citation": Form(
        AIMessage(
            [{"type": "text", "text": "T", "annotations": [{"type": "citation", "url": CITE, "cited_text": "T"}]}],
            response_metadata={"output_version": "v1"},
        ),
        "T",
        (CITED,),
        (CITE,),
    ),
    "xai citations kwargs": Form(
        AIMessage("T", additional_kwargs={"citations": [CITE]}, response_metadata=_meta("xai")), "T", (CITED,), (CITE,)
    ),
    "perplexity v0 answer with sources": Form(
        _own_v0(), "Both [1][2].", (CITED_AB,), ("https://a.example", "https://b.example")
    ),
    "perplexity v0 url_citation annotations": Form(
        AIMessage("T", additional_kwargs={"annotations": [_url_citation()]}, response_metadata=_meta("perplexity")),
        "T",
        (CITED,),
        (CITE,),
    ),
    "perplexity v1 answer with sources": Form(
        _own_v1(), "Both [1][2].", (CITED_AB,), ("https://a.example", "https://b.example")
    ),
}


def _halves(value: Any) -> tuple[Any, Any]:
    """A string split in two (as a stream delivers it); anything else whole in the first chunk."""
    if isinstance(value, str) and len(value) > 1:
        return value[: len(value) // 2], value[len(value) // 2 :]
    return value, "" if isinstance(value, str) else None


def _chunks(message: AIMessage) -> AIMessageChunk:
    """The answer as two stream chunks added together (string fields split between them)."""
    first, second = _halves(message.content)
    kwargs = {k: _halves(v) for k, v in message.additional_kwargs.items()}
    head = AIMessageChunk(
        content=first,
        additional_kwargs={k: v[0] for k, v in kwargs.items()},
        response_metadata=message.response_metadata,
    )
    tail = AIMessageChunk(
        content=second if second is not None else [],
        additional_kwargs={k: v[1] for k, v in kwargs.items() if v[1] is not None},
        chunk_position="last",
    )
    return head + tail


def _checkpoint(message: AIMessage) -> BaseMessage:
    serde = JsonPlusSerializer()
    return serde.loads_typed(serde.dumps_typed(message))  # type: ignore[no-any-return]


def _role_dict(message: AIMessage) -> BaseMessage:
    as_dict = {"role": "assistant", "content": message.content, **message.additional_kwargs}
    restored = convert_to_messages([as_dict])[0]
    return restored.model_copy(update={"response_metadata": dict(message.response_metadata)})


PATHS: dict[str, Callable[[AIMessage], BaseMessage]] = {
    "as built": lambda m: m,
    "messages_to_dict": lambda m: messages_from_dict(messages_to_dict([m]))[0],
    "convert_to_messages": _role_dict,
    "dumpd + load": lambda m: load(dumpd(m), allowed_objects="core"),
    "langgraph checkpoint": _checkpoint,
    "stream chunks added": _chunks,
    "message_chunk_to_message": lambda m: message_chunk_to_message(_chunks(m)),
}


def _sent_text(messages: list[BaseMessage]) -> str | None:
    answers = [m for m in messages if isinstance(m, AIMessage)]
    assert len(answers) <= 1
    if not answers:
        return None
    assert isinstance(answers[0].content, str)
    return answers[0].content


UNWRITABLE = {("google_genai audio kwargs", "dumpd + load")}
"""Google's audio is bytes, which `dumpd` does not write (langchain-core's limit, not a path a history takes)."""


@pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")
@pytest.mark.parametrize(
    ("form", "path"), [pytest.param(f, p, id=f"{f}-{p}") for f in FORMS for p in PATHS if (f, p) not in UNWRITABLE]
)
def test_what_the_standard_view_shows_is_kept_or_named(form: str, path: str) -> None:
    message, text, report, withheld = FORMS[form]
    restored = PATHS[path](message)
    history = [HumanMessage("Question?"), restored, HumanMessage("Follow-up?")]
    before = copy.deepcopy(history)
    result = normalize_messages(history)
    assert history == before  # the caller's messages are not mutated
    assert _sent_text(result.messages) == text
    lines = [c.reason for c in result.changes if 1 in c.sources and c.rule == "canonical_messages"]
    assert len(lines) == 1, result.report()
    for fragment in report:
        assert fragment in lines[0], result.report()
    assert "has no content" not in result.report()
    again = normalize_messages(result.messages)
    assert not again.changed, again.report()
    for model, check in ((AGENT, published_schema.agent_request), (CHAT, published_schema.chat_request)):
        body = model.request_body(history)
        check(body)
        sent = json.dumps(body, ensure_ascii=False)
        assert text is None or json.dumps(text, ensure_ascii=False) in sent
        for part in withheld:
            assert part not in sent


def test_a_refusal_in_another_turns_place_keeps_the_turns_alternating() -> None:
    """The refusal turn is sent, so the user turns around it are not merged into one."""
    history = [HumanMessage("a"), AIMessage("", additional_kwargs={"refusal": REFUSAL}), HumanMessage("b")]
    result = normalize_messages(history)
    assert [m.type for m in result.messages] == ["human", "ai", "human"]
    assert not any(c.rule == "merge_adjacent_turns" for c in result.changes)
