"""Recorded exchanges replay through the package; the recording path scrubs secrets and refuses the emulator.

`make record` (tests/recording.py), with a key and Perplexity's base URL, records
a fixed set of calls into tests/cassettes/recorded/ as VCR cassettes (vcrpy, as
langchain-tests' `enable_vcr_tests` records). Every cassette there is replayed
here, offline, and must read as it did when recorded. Without a key the same
recording path runs against the emulator, into a temporary directory (the
refusal is `main`'s, so only this test goes around it); those cassettes are
replayed after the emulator has stopped, so a replay that reached a server
would fail.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import vcr.request

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests import recording

KEY = "pplx-recording-secret-4f9c2e7a1b"
COMMITTED = sorted(p.stem for p in recording.DIRECTORY.glob("*.yaml") if p.with_suffix(".json").exists())
CASES = [("recorded", name) for name in COMMITTED] + [("emulator", name) for name in recording.CALLS]


@pytest.fixture(scope="module")
def emulator_recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("recorded")
    with PerplexityEmulator(api_key=KEY) as emu:
        assert recording.record(directory, emu.base_url, KEY) == list(recording.CALLS)
    return directory  # the emulator is gone: a replay can only answer from the cassette


@pytest.mark.parametrize(("source", "name"), CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_every_recorded_fixture_replays_through_the_package(emulator_recorded: Path, source: str, name: str) -> None:
    directory = recording.DIRECTORY if source == "recorded" else emulator_recorded
    recorded = json.loads((directory / f"{name}.json").read_text())["reading"]
    assert recording.replay(directory, name) == recorded
    assert recorded["text"] or recorded["tool_calls"]
    assert recorded["usage"]["total_tokens"] > 0 and recorded["status"] == "completed"
    if name == "tool_call":
        assert [c["name"] for c in recorded["tool_calls"]] == ["get_weather"]
    if name == "structured_output":
        assert set(json.loads(recorded["text"])) >= {"city", "country"}
    if name.endswith("_search"):
        assert recorded["citations"] and recorded["search_result_urls"]


def test_a_recording_keeps_no_secret(emulator_recorded: Path) -> None:
    files = sorted(emulator_recorded.iterdir())
    assert {p.suffix for p in files} == {".yaml", ".json"}
    for path in files:
        text = path.read_text()
        assert KEY not in text, path.name
    cassette = (emulator_recorded / "invoke_search.yaml").read_text()
    assert "authorization:\n      - PLACEHOLDER" in cassette


def test_the_scrubbers_reach_urls_bodies_and_response_headers() -> None:
    config = recording.cassette_config(KEY)
    request = vcr.request.Request(
        "POST", f"https://api.perplexity.ai/v1/responses?note={KEY}", json.dumps({"echo": KEY}), {"X-Key": KEY}
    )
    scrubbed = config["before_record_request"](request)
    assert KEY not in scrubbed.uri and KEY not in str(scrubbed.body) and KEY not in str(scrubbed.headers)
    response: dict[str, Any] = {
        "headers": {"Set-Cookie": ["session=1"], "X-Request-Id": ["req_1"], "X-Echo": [KEY]},
        "body": {"string": f'{{"error": "bad key {KEY}"}}'.encode()},
    }
    kept = config["before_record_response"](response)
    assert set(kept["headers"]) == {"X-Echo"} and kept["headers"]["X-Echo"] == [recording.PLACEHOLDER]
    assert KEY.encode() not in kept["body"]["string"]
    assert ("api_key", recording.PLACEHOLDER) in config["filter_query_parameters"]


@pytest.mark.parametrize("base", ["emulator", "other"])
def test_make_record_refuses_anything_but_perplexity(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], base: str
) -> None:
    monkeypatch.setattr(recording, "DIRECTORY", tmp_path / "recorded")
    monkeypatch.setenv("PPLX_API_KEY", KEY)
    with PerplexityEmulator(api_key=KEY) as emu:
        monkeypatch.setenv("PPLX_BASE_URL", emu.base_url if base == "emulator" else "http://127.0.0.1:9")
        assert recording.main() == 2
        assert emu.requests == [] or all(r.path in ("/v1/models", "/models") for r in emu.requests)
    assert "make record: refused" in capsys.readouterr().err
    assert not (tmp_path / "recorded").exists()
    monkeypatch.delenv("PPLX_API_KEY")
    monkeypatch.setenv("PPLX_BASE_URL", "https://api.perplexity.ai")
    assert recording.main() == 2  # no key: refused before anything is fetched
    assert "no PPLX_API_KEY" in capsys.readouterr().err


def test_make_record_runs_the_recorder() -> None:
    makefile = (Path(__file__).parents[2] / "Makefile").read_text()
    target = makefile.split("\nrecord:", 1)[1].split("\n\n", 1)[0]
    assert "tests/recording.py" in target
