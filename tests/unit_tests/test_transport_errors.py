"""The transport's error translation: Perplexity's error type and message, and what to do, without I/O."""

from __future__ import annotations

import httpx
import openai
import pytest

from langchain_perplexity_strict._transport import raise_perplexity_error


def _status_error(
    cls: type[openai.APIStatusError], status: int, body: dict, headers: dict[str, str] | None = None
) -> openai.APIStatusError:
    request = httpx.Request("POST", "http://x/v1/responses")
    return cls("raw", response=httpx.Response(status, request=request, json=body, headers=headers), body=body)


@pytest.mark.parametrize(
    ("headers", "who"), [({}, "Perplexity"), ({"x-perplexity-emulator": "1"}, "Perplexity emulator")]
)
def test_an_error_names_who_answered(headers: dict[str, str], who: str) -> None:
    """Perplexity's own errors say Perplexity; the emulator's (which names itself in a header) say the emulator."""
    body = {"error": {"message": "unknown model 'x'", "type": "invalid_model"}}
    with pytest.raises(openai.BadRequestError) as info:
        raise_perplexity_error(_status_error(openai.BadRequestError, 400, body, headers), "agent")
    assert str(info.value).startswith(f"{who} agent API answered HTTP 400 (invalid_model): unknown model 'x'")


def test_errors_carry_perplexitys_type_and_message() -> None:
    body = {"error": {"message": 'invalid request body: json: unknown field "x"', "type": "invalid_request"}}
    with pytest.raises(Exception, match=r"HTTP 400 \(invalid_request\): invalid request body") as info:
        raise_perplexity_error(_status_error(openai.BadRequestError, 400, body), "agent")
    assert isinstance(info.value, openai.BadRequestError)


def test_an_error_type_gets_the_hint_it_is_handed_and_none_of_the_transports_own() -> None:
    """The surfaces own their hints (`_surfaces.ERROR_HINTS`); the transport adds what it is handed, by type."""
    body = {"error": {"message": "Sonar is now the Agent API.", "type": "chat_completions_not_available"}}
    error = _status_error(openai.PermissionDeniedError, 403, body)
    with pytest.raises(openai.PermissionDeniedError, match=r"Agent API\. Do this instead\.$"):
        raise_perplexity_error(error, "chat_completions", {"chat_completions_not_available": "Do this instead."})
    with pytest.raises(openai.PermissionDeniedError, match=r"Sonar is now the Agent API\.$"):
        raise_perplexity_error(error, "chat_completions")


def test_a_connection_error_says_where_and_why() -> None:
    """openai says only "Connection error."; the message names the server and the cause, the type is kept."""
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/responses")
    try:
        raise openai.APIConnectionError(request=request) from httpx.ConnectError("[Errno 111] Connection refused")
    except openai.APIConnectionError as error:
        with pytest.raises(openai.APIConnectionError) as info:
            raise_perplexity_error(error, "agent")
    assert str(info.value) == (
        "Could not connect to the Perplexity agent API at http://127.0.0.1:1: [Errno 111] Connection refused"
    )


def test_a_timeout_keeps_its_type_and_message() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/responses")
    with pytest.raises(openai.APITimeoutError, match="timed out"):
        raise_perplexity_error(openai.APITimeoutError(request=request), "agent")


def test_a_connection_broken_after_sending_is_not_called_a_failed_connect() -> None:
    """A reset once the request was written may have reached Perplexity: the message says so."""
    from langchain_perplexity_strict import ChatPerplexityStrict
    from langchain_perplexity_strict.testing import Fault, PerplexityEmulator

    with PerplexityEmulator() as emu:
        emu.inject(Fault("drop"))
        model = ChatPerplexityStrict(api_key="k", base_url=emu.base_url, max_retries=0)  # type: ignore[arg-type]
        with pytest.raises(Exception, match=r"^The connection to the Perplexity agent API at .* broke after sending"):
            model.invoke("hi")
