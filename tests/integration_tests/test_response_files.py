"""A sandbox run's shared files (`GET /v1/responses/{id}/files`, `.../{file_id}/content`): listed from the answer
and downloaded, sync and async, from invoke, stream and background answers; the emulator serves them as
published (`ResponseFileListOutput`)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from langchain_perplexity_strict import ChatPerplexityStrict, PerplexityResponseFile, sandbox_tool
from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import published_schema
from tests.integration_tests.factory import KEY

QUESTION = "count the words of this question"
CONTENT = b"# Answer\n\nThe question has 6 words.\n"  # what the emulator's sandbox wrote and shared


def _model(emu: PerplexityEmulator, **kw: Any) -> ChatPerplexityStrict:
    return ChatPerplexityStrict(api_key=KEY, base_url=emu.base_url, **kw)  # type: ignore[arg-type]


def _get(emu: PerplexityEmulator, path: str, key: str = KEY) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(emu.base_url + path, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, dict(answer.headers.items()), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers.items()), error.read()


def _check(model: ChatPerplexityStrict, files: list[PerplexityResponseFile], answer: AIMessage) -> None:
    assert [(f.filename, f.bytes, f.response_id) for f in files] == [
        ("answer.md", len(CONTENT), answer.response_metadata["id"])
    ]
    assert files[0].download() == CONTENT


def test_invoke_answer_files_are_listed_and_downloaded(emu: PerplexityEmulator, tmp_path: Path) -> None:
    model = _model(emu)
    answer = model.bind_tools([sandbox_tool()]).invoke(QUESTION)
    files = model.response_files(answer)
    _check(model, files, answer)
    assert model.response_files(answer.response_metadata["id"]) == files  # by id too
    assert files[0].save(tmp_path) == tmp_path / "answer.md"
    assert (tmp_path / "answer.md").read_bytes() == CONTENT
    paths = [r.path for r in emu.requests if r.method == "GET"]
    assert paths[-1] == f"/v1/responses/{answer.response_metadata['id']}/files/{files[0].id}/content"


def test_stream_and_background_answers_have_their_files(emu: PerplexityEmulator) -> None:
    model = _model(emu)
    full: Any = None
    for chunk in model.bind_tools([sandbox_tool()]).stream(QUESTION):
        full = chunk if full is None else full + chunk
    _check(model, model.response_files(full), full)
    background = model.bind_tools([sandbox_tool()]).invoke(QUESTION, background=True)
    _check(model, model.response_files(background), background)


async def test_async_listing_and_download(emu: PerplexityEmulator, tmp_path: Path) -> None:
    model = _model(emu)
    answer = await model.bind_tools([sandbox_tool()]).ainvoke(QUESTION)
    files = await model.aresponse_files(answer)
    assert [f.filename for f in files] == ["answer.md"]
    assert await files[0].adownload() == CONTENT
    assert (await files[0].asave(tmp_path)).read_bytes() == CONTENT


def test_a_run_without_files_lists_none(emu: PerplexityEmulator) -> None:
    model = _model(emu)
    assert model.response_files(model.invoke("hi")) == []


def test_save_stays_in_its_directory(emu: PerplexityEmulator, tmp_path: Path) -> None:
    model = _model(emu)
    answer = model.bind_tools([sandbox_tool()]).invoke(QUESTION)
    (listed,) = model.response_files(answer)
    for name, written in (("../../evil.md", "evil.md"), ("a\\b\\c.md", "c.md"), ("..", listed.id)):
        odd = PerplexityResponseFile(
            listed.id, name, listed.bytes, listed.created_at, listed.response_id, _transport=model.transport
        )
        assert odd.save(tmp_path) == tmp_path / written


def test_bad_answers_and_surfaces_are_refused_before_sending(emu: PerplexityEmulator) -> None:
    model = _model(emu)
    for bad in (HumanMessage("hi"), AIMessage("no id"), "", None, 5):
        with pytest.raises(ValueError, match="expected an AIMessage this model returned"):
            model.response_files(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="response files exist on api='agent' only"):
        _model(emu, api="chat_completions", model="sonar").response_files("resp_1")
    assert emu.requests == []


def test_unknown_and_other_keys_runs_are_not_found(emu: PerplexityEmulator) -> None:
    answer = _model(emu).bind_tools([sandbox_tool()]).invoke(QUESTION)
    with pytest.raises(Exception, match=r"agent files API answered HTTP 404"):
        _model(emu).response_files("resp_unknown")
    other = ChatPerplexityStrict(api_key="another-key", base_url=emu.base_url)  # type: ignore[arg-type]
    with pytest.raises(Exception, match=r"HTTP 40[134]"):
        other.response_files(answer)
    (listed,) = _model(emu).response_files(answer)
    missing = PerplexityResponseFile("file_missing", "x.md", 1, 0, listed.response_id, _transport=listed._transport)
    with pytest.raises(Exception, match=r"HTTP 404"):
        missing.download()
    with pytest.raises(RuntimeError, match="was not listed by a model"):
        PerplexityResponseFile("f", "x", 1, 0, "resp").download()


def test_the_emulator_serves_the_published_shapes(emu: PerplexityEmulator) -> None:
    answer = _model(emu).bind_tools([sandbox_tool()]).invoke(QUESTION)
    response_id = answer.response_metadata["id"]
    status, _, body = _get(emu, f"/v1/responses/{response_id}/files")
    listed = json.loads(body)
    assert status == 200
    published_schema.validate("ResponseFileListOutput", listed)
    file_id = listed["data"][0]["id"]
    status, headers, body = _get(emu, f"/v1/responses/{response_id}/files/{file_id}/content")
    assert (status, body) == (200, CONTENT)
    assert headers["Content-Disposition"] == 'attachment; filename="answer.md"'
    assert headers["Content-Type"].startswith("text/markdown")
    assert _get(emu, f"/v1/responses/{response_id}/files", key="")[0] == 401
