"""The demo, `make smoke` and the real-API tests tell the emulator from Perplexity, and never call it live."""

from __future__ import annotations

import runpy
import sys
import urllib.request
from pathlib import Path

import pytest

from langchain_perplexity_strict.cli import _which_server
from langchain_perplexity_strict.cli._which_server import PERPLEXITY_BASE_URL, describe, identify, why_not_perplexity
from langchain_perplexity_strict.testing import PerplexityEmulator

ROOT = Path(__file__).parents[2]


def test_every_emulator_response_names_the_emulator(emu: PerplexityEmulator) -> None:
    with urllib.request.urlopen(emu.base_url + "/v1/models") as response:
        assert response.headers["x-perplexity-emulator"] == "1"
    try:
        urllib.request.urlopen(urllib.request.Request(emu.base_url + "/v1/responses", data=b"{}"))
    except urllib.error.HTTPError as error:
        assert error.headers["x-perplexity-emulator"] == "1"
    else:
        pytest.fail("an unauthenticated request was answered")


def test_base_urls_are_told_apart(emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    assert identify(emu.base_url) == "emulator"
    assert identify("http://127.0.0.1:1") == "other"  # nothing listens: it says nothing about itself
    assert _which_server.is_perplexity_url(PERPLEXITY_BASE_URL + "/")
    assert not _which_server.is_perplexity_url("http://api.perplexity.ai")
    monkeypatch.setattr(_which_server, "says_emulator", lambda url: False)
    assert identify(PERPLEXITY_BASE_URL) == "perplexity"
    monkeypatch.setattr(_which_server, "says_emulator", lambda url: True)
    assert identify(PERPLEXITY_BASE_URL) == "emulator"  # the header wins over the URL


def test_only_perplexity_is_called_live() -> None:
    assert "live" in describe("perplexity", PERPLEXITY_BASE_URL)
    assert "live" not in describe("emulator", "http://127.0.0.1:8765")
    assert "not Perplexity" in describe("other", "http://example.test")


def test_live_needs_a_key_perplexitys_url_and_no_emulator_header(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "no PPLX_API_KEY" in str(why_not_perplexity())
    monkeypatch.setenv("PPLX_API_KEY", "k")
    monkeypatch.setenv("PPLX_BASE_URL", emu.base_url)
    assert f"PPLX_BASE_URL is {emu.base_url}" in str(why_not_perplexity())
    monkeypatch.delenv("PPLX_BASE_URL")
    monkeypatch.setattr(_which_server, "says_emulator", lambda url: True)
    assert "says it is the Perplexity emulator" in str(why_not_perplexity())
    monkeypatch.setattr(_which_server, "says_emulator", lambda url: False)
    assert why_not_perplexity() is None


def _export_emulator(emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key, and PPLX_BASE_URL at the emulator: what the README's offline step leaves in a shell."""
    monkeypatch.setenv("PPLX_API_KEY", "test-key")
    monkeypatch.setenv("PPLX_BASE_URL", emu.base_url)


def test_smoke_refuses_the_emulator(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make smoke`'s first step, `python tests/smoke_preflight.py`, run as a script in this process."""
    _export_emulator(emu, monkeypatch)
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(str(ROOT / "tests" / "smoke_preflight.py"), run_name="__main__")
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    assert err.strip() == (
        "make smoke: refused, it runs only against Perplexity's live API: "
        f"PPLX_BASE_URL is {emu.base_url}, not Perplexity's API ({PERPLEXITY_BASE_URL})"
    )


def test_the_real_api_tests_skip_the_emulator_even_with_a_key(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make smoke`'s pytest run of test_real_api.py, run by `pytest.main` in this process.

    The module decides at import whether Perplexity is live, so it is imported afresh under the
    emulator's environment (and this session's copy put back afterwards).
    """
    module = "tests.integration_tests.test_real_api"
    monkeypatch.setitem(sys.modules, module, sys.modules.get(module))  # restored after the test
    del sys.modules[module]
    for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS"):  # a run as `make smoke` starts it: no options from outside
        monkeypatch.delenv(name, raising=False)
    _export_emulator(emu, monkeypatch)
    monkeypatch.chdir(ROOT)
    status = pytest.main(["tests/integration_tests/test_real_api.py", "-q", "-rs", "-p", "no:randomly"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "2 skipped" in out and "passed" not in out
    assert f"not Perplexity's live API: PPLX_BASE_URL is {emu.base_url}" in out
    assert not emu.requests  # nothing was asked


def test_the_demo_names_the_emulator_behind_an_exported_key(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from langchain_perplexity_strict.cli._tour import run_demo

    monkeypatch.setenv("PPLX_API_KEY", "test-key")
    monkeypatch.setenv("PPLX_BASE_URL", emu.base_url)
    assert run_demo() == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Answers in this tour come from the local Perplexity emulator at {emu.base_url}")
    assert "live" not in out and "refused by the emulator" in out
    assert any(r.path == "/v1/responses" for r in emu.requests)


def test_the_demo_calls_perplexity_live_only_when_identified_so(
    emu: PerplexityEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from langchain_perplexity_strict.cli import _tour as demo

    monkeypatch.setenv("PPLX_API_KEY", "test-key")
    monkeypatch.setenv("PPLX_BASE_URL", emu.base_url)  # answers come from here; the label from `identify`
    monkeypatch.setattr(demo, "identify", lambda url: "perplexity")
    assert demo.run_demo() == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Answers in this tour come from Perplexity's live API ({emu.base_url})")
    assert "accepted by Perplexity" in out or "refused by Perplexity" in out
