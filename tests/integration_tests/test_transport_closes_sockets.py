"""A program that calls the model and exits leaves no socket open (`python -X dev` shows none, as for ChatOpenAI).

The forms: invoke and stream (the sync pool, `_transport/_loops.sync_pool`, kept per server, timeout and key
for the process), ainvoke and astream (the running loop's pool, closed as `asyncio.run` ends), a README-like
program doing all four, run in a subprocess under `-X dev -W error::ResourceWarning` against the emulator
(which keeps connections alive, HTTP/1.1, as Perplexity does).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from langchain_perplexity_strict.testing import PerplexityEmulator
from tests.integration_tests.factory import KEY

ROOT = Path(__file__).parents[2]
CALLS = {
    "invoke": "model.invoke('hi')",
    "stream": "list(model.stream('hi'))",
    "ainvoke": "asyncio.run(model.ainvoke('hi'))",
    "astream": "asyncio.run(consume(model.astream('hi')))",
    "readme": "model.invoke('hi'); list(model.stream('hi')); asyncio.run(model.ainvoke('hi'))",
}


def _program(base_url: str, call: str) -> str:
    return textwrap.dedent(f"""
        import asyncio
        from langchain_perplexity_strict import ChatPerplexityStrict

        async def consume(chunks):
            return [c async for c in chunks]

        model = ChatPerplexityStrict(api_key={KEY!r}, base_url={base_url!r})
        {call}
        print("answered")
    """)


@pytest.mark.parametrize("way", sorted(CALLS))
def test_no_socket_is_left_open_at_exit(emu: PerplexityEmulator, way: str) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-c", _program(emu.base_url, CALLS[way])],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "answered" in done.stdout, done.stderr
    assert "ResourceWarning" not in done.stderr and "unclosed" not in done.stderr, done.stderr
