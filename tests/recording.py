"""`make record`: record real Perplexity exchanges for a fixed set of calls, as VCR cassettes, secrets scrubbed.

With a key (`PPLX_API_KEY` or `PERPLEXITY_API_KEY`) and Perplexity's base URL, each
call in `CALLS` is made through the package once, and vcrpy records its HTTP
exchange into `tests/cassettes/recorded/<name>.yaml`, beside `<name>.json`:
what the package read from it then (text, tool calls, sources, usage, cost).
`tests/integration_tests/test_recorded.py` replays every cassette through the
package, offline, and checks it reads the same.

The cassettes are LangChain's (langchain-tests' `base_vcr_config()`: vcrpy, YAML,
`authorization` / `x-api-key` / `api-key` headers replaced); this adds what a
Perplexity exchange can also carry: the key anywhere in a body, a URL or a
header, cookies, and Perplexity's request ids. `make record` refuses the
emulator and any other server, as `make smoke` does (`why_not_perplexity`):
recordings are evidence of what Perplexity sends, so nothing else may write them.
"""

from __future__ import annotations

import functools
import json
import operator
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import vcr
from langchain_core.messages import BaseMessage
from langchain_tests.conftest import base_vcr_config
from pydantic import BaseModel, Field

from langchain_perplexity_strict import ChatPerplexityStrict

DIRECTORY = Path(__file__).parent / "cassettes" / "recorded"
"""Where `make record` writes; committed cassettes here are replayed by the test suite."""
PLACEHOLDER = "PLACEHOLDER"
SECRET_HEADERS = ("authorization", "x-api-key", "api-key", "cookie", "set-cookie", "x-request-id", "cf-ray")
SECRET_PARAMETERS = ("api_key", "key", "token", "access_token")
MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "body")
"""How a replayed request finds its recording: the same call sends the same body."""


class City(BaseModel):
    """A city and the country it is in."""

    city: str = Field(description="the city's name")
    country: str = Field(description="the country's name")


def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"sunny in {city}"


def _stream(model: Any, prompt: str) -> BaseMessage:
    return functools.reduce(operator.add, model.stream(prompt))  # type: ignore[no-any-return]


CALLS: dict[str, tuple[dict[str, Any], Callable[[Any], BaseMessage]]] = {
    "invoke_search": ({}, lambda m: m.invoke("What is the official website of the Rust language? One sentence.")),
    "stream_search": ({}, lambda m: _stream(m, "What is the official website of the Rust language? One sentence.")),
    "tool_call": ({}, lambda m: m.bind_tools([get_weather]).invoke('What is the weather in "Paris"? Use get_weather.')),
    "structured_output": (
        {},
        lambda m: m.with_structured_output(City, include_raw=True).invoke("Name the capital of France.")["raw"],
    ),
}
"""The fixed set of calls: name → (model settings beyond `MODEL`, the call)."""
MODEL: dict[str, Any] = {"model": "perplexity/sonar", "max_tokens": 512, "max_retries": 0}


def cassette_config(secret: str) -> dict[str, Any]:
    """vcrpy's settings: langchain-tests' base, with every place a secret can hide scrubbed."""
    config = base_vcr_config()
    config.pop("cassette_library_dir", None)
    config["filter_headers"] = [(name, PLACEHOLDER) for name in SECRET_HEADERS]
    config["filter_query_parameters"] = [(name, PLACEHOLDER) for name in SECRET_PARAMETERS]
    config["match_on"] = list(MATCH_ON)
    config.pop("allow_playback_repeats", None)  # a cassette's option, not the recorder's: each request plays once
    config["before_record_request"] = functools.partial(_scrub_request, secret=secret)
    config["before_record_response"] = functools.partial(_scrub_response, secret=secret)
    return config


def _scrub_text(value: Any, secret: str) -> Any:
    if not secret:
        return value
    if isinstance(value, bytes):
        return value.replace(secret.encode(), PLACEHOLDER.encode())
    if isinstance(value, str):
        return value.replace(secret, PLACEHOLDER)
    return value


def _scrub_request(request: Any, *, secret: str) -> Any:
    request.uri = _scrub_text(request.uri, secret)
    request.body = _scrub_text(request.body, secret)
    for name in list(request.headers):
        request.headers[name] = _scrub_text(request.headers[name], secret)
    return request


def _scrub_response(response: dict[str, Any], *, secret: str) -> dict[str, Any]:
    headers = response.get("headers") or {}
    for name in list(headers):
        if name.lower() in SECRET_HEADERS:
            del headers[name]
        else:
            headers[name] = [_scrub_text(v, secret) for v in headers[name]]
    body = response.get("body") or {}
    if "string" in body:
        body["string"] = _scrub_text(body["string"], secret)
    if "content" in body:
        body["content"] = _scrub_text(body["content"], secret)
    return response


def reading(message: BaseMessage) -> dict[str, Any]:
    """What the package read from an exchange, in the terms a user reads it."""
    kwargs, metadata = message.additional_kwargs, message.response_metadata
    return {
        "text": message.text,
        "tool_calls": [{"name": c["name"], "args": c["args"]} for c in getattr(message, "tool_calls", [])],
        "citations": kwargs.get("citations", []),
        "search_result_urls": [r.get("url") for r in kwargs.get("search_results", [])],
        "usage": getattr(message, "usage_metadata", None),
        "cost": metadata.get("cost"),
        "model_name": metadata.get("model_name"),
        "status": metadata.get("status"),
    }


def model(base_url: str, api_key: str, settings: Mapping[str, Any]) -> ChatPerplexityStrict:
    return ChatPerplexityStrict(api_key=api_key, base_url=base_url, **{**MODEL, **settings})  # type: ignore[arg-type]


def record(directory: Path, base_url: str, api_key: str) -> list[str]:
    """Record every call in `CALLS` against `base_url` into `directory`; returns the names recorded.

    No check of the server here: `main` refuses anything but Perplexity (tests call this on the emulator).
    """
    directory.mkdir(parents=True, exist_ok=True)
    recorder = vcr.VCR(**cassette_config(api_key))
    for name, (settings, call) in CALLS.items():
        cassette = directory / f"{name}.yaml"
        cassette.unlink(missing_ok=True)
        with recorder.use_cassette(str(cassette), record_mode="all"):
            message = call(model(base_url, api_key, settings))
        (directory / f"{name}.json").write_text(
            json.dumps({"base_url": base_url, "reading": reading(message)}, indent=1, sort_keys=True) + "\n"
        )
    leaked = [p.name for p in directory.iterdir() if api_key and api_key in p.read_text(errors="replace")]
    if leaked:
        msg = f"the key survived scrubbing in {leaked}; nothing may be committed from {directory}"
        raise RuntimeError(msg)
    return list(CALLS)


def replay(directory: Path, name: str) -> dict[str, Any]:
    """Replay one recorded call through the package, offline (a request the cassette lacks raises); its reading."""
    recorded = json.loads((directory / f"{name}.json").read_text())
    settings, call = CALLS[name]
    recorder = vcr.VCR(**cassette_config(""))
    with recorder.use_cassette(str(directory / f"{name}.yaml"), record_mode="none"):
        message = call(model(recorded["base_url"], "replayed-key", settings))
    return reading(message)


def main() -> int:
    """`make record`: refuses unless a key is set and the base URL is Perplexity's (not the emulator)."""
    from langchain_perplexity_strict.cli._which_server import configured_base_url, why_not_perplexity

    reason = why_not_perplexity()
    if reason is not None:
        print(f"make record: refused, it records only Perplexity's live API: {reason}", file=sys.stderr)
        return 2
    key = os.environ.get("PPLX_API_KEY") or os.environ.get("PERPLEXITY_API_KEY") or ""
    names = record(DIRECTORY, configured_base_url(), key)
    print(f"make record: recorded {', '.join(names)} into {DIRECTORY}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
