"""``ChatPerplexityStrict``: Perplexity as a LangChain chat model that never sends a history Perplexity refuses."""

from __future__ import annotations

import asyncio
import difflib
import warnings
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.chat_models import BaseChatModel, LangSmithParams
from langchain_core.language_models.model_profile import ModelProfile
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils import from_env, secret_from_env
from langchain_openai import ChatOpenAI
from pydantic import ConfigDict, Field, PrivateAttr, SecretStr, model_validator
from typing_extensions import Self

from langchain_perplexity_strict.body import encode_body
from langchain_perplexity_strict.compaction import MessageCounter, compact_messages
from langchain_perplexity_strict.data._profiles import PROFILES
from langchain_perplexity_strict.normalizer import (
    NormalizationResult,
    normalize_messages,
)
from langchain_perplexity_strict.parameters import PARAMETERS, UNSUPPORTED, check_parameters
from langchain_perplexity_strict.response_mapping import Answer
from langchain_perplexity_strict.rules import DEFAULT_RULES, Change
from langchain_perplexity_strict.structured_output import output_parser, response_format, with_raw
from langchain_perplexity_strict.surfaces import SURFACES
from langchain_perplexity_strict.tools import function_names, openai_tool
from langchain_perplexity_strict.transport import (
    Transport,
    aiterate_batches,
    iterate_batches,
)

DEFAULT_BASE_URL = "https://api.perplexity.ai"
_SETTING_NAMES = tuple(PARAMETERS)
# Keyword arguments a call may carry besides the parameters above.
_CALL_KWARGS = ("tools", "tool_choice", "response_format")
# Passed by LangChain itself (structured output tracing, stream_usage) or by callers
# used to ChatOpenAI (parallel_tool_calls, which the published Agent API lacks): not sent.
_IGNORED_KWARGS = ("ls_structured_output_format", "stream_usage", "parallel_tool_calls")
# Names other integrations use for a field of this one.
ALIASES = {
    "max_output_tokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
    "model_name": "model",
    "pplx_api_key": "api_key",
    "perplexity_api_key": "api_key",
    "request_timeout": "timeout",
}


@dataclass(frozen=True)
class PreparedCall:
    """A checked, normalized call, ready to send: the body as JSON and as the bytes posted."""

    body: dict[str, Any]
    data: bytes
    stops: tuple[str, ...]
    n: int
    output_version: str


class ChatPerplexityStrict(BaseChatModel):
    """Perplexity chat model that normalizes every conversation before sending it.

    Every call runs the messages through :func:`normalize_messages` (so a
    late system message, two user messages in a row, a trailing assistant
    message or an assistant greeting never cause a 400), then through the
    request rules of the chosen surface, then out through ``ChatOpenAI``'s
    client; citations, search results, usage, cost and reasoning come back in
    LangChain's standard places.

    Setup:
        ``pip install langchain-perplexity-strict`` and set ``PPLX_API_KEY``
        (or ``PERPLEXITY_API_KEY``).

    Key init args:
        model: Agent API slug (default ``perplexity/sonar``) or a Sonar name.
        api: ``"agent"`` (default, ``/v1/responses``) or ``"chat_completions"``
            (the legacy Sonar surface, ended by Perplexity on 2026-09-27).
        api_key, base_url: key and server root (``https://api.perplexity.ai``).
        temperature, top_p, max_tokens, stop, n: as in ChatOpenAI; ``stop`` and
            ``n`` are implemented on the client.
        web_search: add the ``web_search`` tool on the Agent API (default on).
        preset, models, max_steps, reasoning_effort, search filters: Perplexity's knobs.
        rules: the normalizer's rules (default ``DEFAULT_RULES``).

    Instantiate:
        .. code-block:: python

            from langchain_perplexity_strict import ChatPerplexityStrict

            model = ChatPerplexityStrict(model="perplexity/sonar")

    Invoke:
        .. code-block:: python

            message = model.invoke([("human", "What is new in Python 3.13?")])
            message.content  # the answer, with [1] [2] citation markers
            message.additional_kwargs["citations"]  # the URLs
            message.additional_kwargs["search_results"]  # Perplexity's records

    Stream:
        .. code-block:: python

            for chunk in model.stream("Summarize today's news", stop=["\\n\\n"]):
                print(chunk.text, end="")
            # the last chunk carries citations, search_results and usage

    Async:
        .. code-block:: python

            message = await model.ainvoke("hi")
            async for chunk in model.astream("hi"):
                ...

    Tool calling:
        .. code-block:: python

            model.bind_tools([get_weather]).invoke("weather in Paris?").tool_calls

    Structured output:
        .. code-block:: python

            model.with_structured_output(Answer).invoke("...")  # json_schema, top-level response_format

    Token usage:
        ``message.usage_metadata`` (reasoning and citation tokens in the details);
        ``message.response_metadata["cost"]`` holds Perplexity's cost breakdown.

    Response metadata:
        ``model_name`` (the served model), ``id``, ``status`` / ``finish_reason``,
        ``model_provider`` ``"perplexity"``.
    """

    model: str = "perplexity/sonar"
    """Agent API model slug (``GET /v1/models``), or a Sonar name (mapped to the Agent API by Perplexity's table)."""
    api: Literal["agent", "chat_completions"] = "agent"
    """``"agent"`` (``/v1/responses``, the live API) or ``"chat_completions"`` (legacy Sonar, for gateways)."""
    api_key: SecretStr | None = Field(
        default_factory=secret_from_env(["PPLX_API_KEY", "PERPLEXITY_API_KEY"], default=None),
    )
    """Perplexity API key (``PPLX_API_KEY`` or ``PERPLEXITY_API_KEY`` when not given)."""
    base_url: str = Field(default_factory=from_env("PPLX_BASE_URL", default=DEFAULT_BASE_URL))
    """The server root (``PPLX_BASE_URL``, else ``https://api.perplexity.ai``); each surface's path is derived."""
    temperature: float | None = None
    """Sampling temperature."""
    top_p: float | None = None
    """Nucleus sampling."""
    max_tokens: int | None = None
    """Answer length limit (``max_output_tokens`` on the Agent API; defaulted for ``anthropic/*``, which need it)."""
    stop: list[str] | str | None = None
    """Stop sequences, applied on the client (neither surface takes them on the Agent API)."""
    n: int = 1
    """Answers per call, as ``n`` concurrent requests (Perplexity has no ``n``)."""
    streaming: bool = False
    """Stream under ``invoke`` too (one answer only)."""
    timeout: float | None = None
    """Request timeout in seconds (``ChatOpenAI``'s)."""
    max_retries: int = 2
    """Retries on 429 and 5xx (``ChatOpenAI``'s)."""
    preset: str | None = None
    """Agent API preset (``fast``, ``low``, ``medium``, ...; an open set); without ``model``, it picks the model."""
    effort: str | None = None
    """Agent API ``effort``, which supersedes ``preset``."""
    models: list[str] | None = None
    """Agent API fallback models (1 to 5)."""
    max_steps: int | None = None
    """Agent API step limit (1 to 100)."""
    instructions: str | None = None
    """Agent API ``instructions`` (with a preset, they replace the preset's prompt)."""
    store: bool | None = None
    """Agent API ``store``."""
    prompt_cache_key: str | None = None
    """Agent API ``prompt_cache_key``."""
    service_tier: str | None = None
    """Agent API ``service_tier``: auto, default, flex, priority or fast."""
    web_search: bool | None = None
    """Add the ``web_search`` tool (Agent API; on unless set to False)."""
    search_max_tokens: int | None = None
    """The ``web_search`` tool's ``max_tokens`` (Agent API)."""
    search_max_tokens_per_page: int | None = None
    """The ``web_search`` tool's ``max_tokens_per_page`` (Agent API)."""
    search_type: str | None = None
    """Search type: web or fast (Agent API); fast, pro or auto (chat completions)."""
    reasoning_effort: str | None = None
    """Reasoning effort (``reasoning.effort`` on the Agent API)."""
    language_preference: str | None = None
    """Answer language."""
    search_domain_filter: list[str] | None = None
    """At most 20 domains to search (``-`` prefix excludes)."""
    search_recency_filter: str | None = None
    """hour, day, week, month or year."""
    search_after_date_filter: str | None = None
    """Published after, MM/DD/YYYY."""
    search_before_date_filter: str | None = None
    """Published before, MM/DD/YYYY."""
    last_updated_after_filter: str | None = None
    """Updated after, MM/DD/YYYY."""
    last_updated_before_filter: str | None = None
    """Updated before, MM/DD/YYYY."""
    search_context_size: str | None = None
    """low, medium or high."""
    user_location: dict[str, Any] | None = None
    """Where the user is: some of city, country, region, latitude, longitude."""
    top_k: int | None = None
    """Chat completions only."""
    presence_penalty: float | None = None
    """Chat completions only."""
    frequency_penalty: float | None = None
    """Chat completions only."""
    search_mode: str | None = None
    """Chat completions only: web, academic or sec."""
    return_images: bool | None = None
    """Chat completions only."""
    return_related_questions: bool | None = None
    """Chat completions only."""
    disable_search: bool | None = None
    """Chat completions only (on the Agent API, ``web_search=False``)."""
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra body fields, sent as they are (Perplexity validates them)."""
    max_input_tokens: int | None = None
    """Token budget for the conversation: older turns are compacted to fit. Defaults to the model
    profile's input limit, off when unknown; 0 turns compaction off."""
    token_counter: Any = Field(default=None, exclude=True)
    """Counts tokens for compaction: text or messages -> int, or an object with
    ``encode``; defaults to langchain-core's approximate counter (works offline)."""
    rules: Sequence[Any] = Field(default=DEFAULT_RULES, exclude=True)
    """The normalizer's rules, in order (each a :class:`~langchain_perplexity_strict.rules.Rule`)."""

    model_config = ConfigDict(populate_by_name=True, arbitrary_types_allowed=True)

    _transport: Transport | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _known_arguments(cls, values: Any) -> Any:
        """Refuse an argument that is not a field (a typo would otherwise be ignored); map known aliases."""
        if not isinstance(values, dict):
            return values
        values = dict(values)
        for alias, name in ALIASES.items():
            if alias in values and name not in values:
                values[name] = values.pop(alias)
        accepted = set(cls.model_fields) | {f.alias for f in cls.model_fields.values() if f.alias}
        unknown = sorted(k for k in values if k not in accepted)
        if unknown:
            name = unknown[0]
            close = difflib.get_close_matches(name, sorted(accepted), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            where = f" ({UNSUPPORTED[name]})" if name in UNSUPPORTED else ""
            msg = (
                f"{name}={values[name]!r} is not an argument of ChatPerplexityStrict{where}.{hint} "
                f"Accepted: {', '.join(sorted(n for n in cls.model_fields if not n.startswith('_')))}."
            )
            raise ValueError(msg)
        return values

    @model_validator(mode="after")
    def _validate(self) -> Self:
        if self.api not in SURFACES:
            msg = f"api={self.api!r} is not a Perplexity surface: use 'agent' or 'chat_completions'."
            raise ValueError(msg)
        if self.api_key is None or not self.api_key.get_secret_value():
            msg = (
                "api_key: no key given, and neither PPLX_API_KEY nor PERPLEXITY_API_KEY is set. "
                "Pass api_key=... (for offline tests, any key works against "
                "langchain_perplexity_strict.testing.PerplexityEmulator)."
            )
            raise ValueError(msg)
        check_parameters(self._settings(), self.api)
        if self.n > 1 and self.streaming:
            msg = f"n={self.n} cannot be streamed (streaming=True returns one answer); set streaming=False or n=1."
            raise ValueError(msg)
        # Built now, as ChatOpenAI builds its clients: creating the HTTP client loads the
        # TLS trust store (tens of ms, blocking), which must not happen inside a request.
        _ = self.transport
        return self

    # -- LangChain plumbing ----------------------------------------------------------------

    @property
    def _llm_type(self) -> str:
        return "perplexity-strict"

    @property
    def lc_secrets(self) -> dict[str, str]:
        return {"api_key": "PPLX_API_KEY"}

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return True

    @classmethod
    def get_lc_namespace(cls) -> list[str]:
        return ["langchain_perplexity_strict", "chat_models"]

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "api": self.api,
            "base_url": self.base_url,
            **self._settings(),
        }

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        model = kwargs.get("model") or self.model
        params = LangSmithParams(ls_provider="perplexity", ls_model_name=model, ls_model_type="chat")
        temperature = kwargs.get("temperature", self.temperature)
        if temperature is not None:
            params["ls_temperature"] = temperature
        max_tokens = kwargs.get("max_tokens", self.max_tokens)
        if max_tokens is not None:
            params["ls_max_tokens"] = max_tokens
        stops = _as_list(stop if stop is not None else self.stop)
        if stops:
            params["ls_stop"] = stops
        return params

    def get_num_tokens_from_messages(self, messages: list[BaseMessage], tools: Sequence[Any] | None = None) -> int:
        """Tokens in ``messages``, by the counter compaction uses (``token_counter``; approximate by default).

        Works offline: no tokenizer is downloaded. With the default counter, ``tools`` are counted too.
        """
        if self.token_counter is None:
            return count_tokens_approximately(messages, tools=list(tools) if tools else None)
        count = MessageCounter(self.token_counter)
        return sum(count(m) for m in messages)

    def get_num_tokens(self, text: str) -> int:
        """Tokens in ``text``, by the same counter as :meth:`get_num_tokens_from_messages`."""
        return self.get_num_tokens_from_messages([HumanMessage(text)])

    def _resolve_model_profile(self) -> ModelProfile | None:
        profile = PROFILES.get(self.model)
        return ModelProfile(**profile) if profile else None  # type: ignore[typeddict-item]

    # -- the steps of every call ----------------------------------------------------------------

    def _settings(self) -> dict[str, Any]:
        fields = self.__dict__  # every setting is a field; read once per call, so read directly
        values = {name: fields[name] for name in _SETTING_NAMES if fields[name] is not None}
        values["model"] = self.model
        values["model_kwargs"] = self.model_kwargs
        return values

    @property
    def transport(self) -> Transport:
        """The ``ChatOpenAI`` (pointed at Perplexity) that carries the requests.

        Rebuilt when the settings it was built from change (``model_copy(update=...)``
        keeps private state, so a copy with another key or server must not reuse it).
        """
        key = (self.api, self.base_url, self.api_key, self.timeout, self.max_retries)
        if self._transport is None or self._transport.key != key:
            root = self.base_url.rstrip("/")
            surface = SURFACES[self.api]
            chat_openai = ChatOpenAI(
                model=self.model,
                api_key=self.api_key,
                base_url=root + surface.base_path,
                use_responses_api=self.api == "agent",
                max_retries=self.max_retries,
                timeout=self.timeout,
            )
            self._transport = Transport(chat_openai, self.api, surface.path, key)
        return self._transport

    @property
    def input_budget(self) -> int | None:
        """The compaction budget in tokens: ``max_input_tokens``, else the profile's, else None."""
        if self.max_input_tokens is not None:
            return self.max_input_tokens or None
        return (self.profile or {}).get("max_input_tokens")

    def normalize(self, messages: LanguageModelInput) -> NormalizationResult:
        """What this model would send for ``messages`` (normalized, compacted to the budget), and the report.

        The whole history is normalized first, so each message's role is decided by
        everything before it, as on every other turn; compaction then trims the
        normalized history, and the rules run once more on what is left (a cut can
        leave, say, an assistant turn first). Positions in the report are those of
        ``messages``.
        """
        if isinstance(messages, list) and all(isinstance(m, BaseMessage) for m in messages):
            history = messages
        else:
            history = self._convert_input(messages).to_messages()
        normalized = normalize_messages(history, rules=self.rules)
        budget = self.input_budget
        if not budget:
            return normalized
        compacted = compact_messages(normalized.messages, budget, token_counter=self.token_counter)
        if not compacted.changes:  # it fits (the usual case)
            return normalized
        origin = normalized.sources

        def caller(positions: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(s for p in positions for s in origin[p])

        again = normalize_messages(compacted.messages, rules=self.rules)
        kept = compacted.kept
        changes = [
            *normalized.changes,
            *(Change(c.rule, caller(c.sources), c.reason) for c in compacted.changes),
            *(Change(c.rule, caller(tuple(kept[i] for i in c.sources)), c.reason) for c in again.changes),
        ]
        sources = [caller(tuple(kept[i] for i in s)) for s in again.sources]
        return NormalizationResult(again.messages, changes, sources)

    def request_body(
        self, messages: LanguageModelInput, *, stop: list[str] | None = None, stream: bool = False, **kwargs: Any
    ) -> dict[str, Any]:
        """The exact JSON body this model would send for ``messages``; nothing is sent."""
        return self._prepare(self._convert_input(messages).to_messages(), stop, kwargs, stream=stream).body

    def _prepare(
        self,
        messages: list[BaseMessage],
        stop: Any,
        kwargs: dict[str, Any],
        *,
        stream: bool,
    ) -> PreparedCall:
        """Check the call's arguments, normalize, and build the body (as JSON and as bytes); nothing is sent."""
        kwargs = dict(kwargs)
        for ignored in _IGNORED_KWARGS:
            kwargs.pop(ignored, None)
        call = {k: kwargs.pop(k) for k in _CALL_KWARGS if k in kwargs}
        unknown = sorted(k for k in kwargs if k not in PARAMETERS)
        if unknown:
            msg = (
                f"{unknown[0]}={kwargs[unknown[0]]!r} is not a parameter of ChatPerplexityStrict "
                f"(api={self.api!r}); call-time parameters are: {', '.join(sorted(PARAMETERS))}, "
                f"{', '.join(_CALL_KWARGS)}."
            )
            raise ValueError(msg)
        settings = {**self._settings(), **kwargs}
        if stop is not None:
            settings["stop"] = stop
        if kwargs or stop is not None:  # the model's own settings were checked at construction
            check_parameters(settings, self.api)
        surface = SURFACES[self.api]
        if call.get("tools") and not surface.function_tools:
            raise ValueError(_NO_SONAR_TOOLS)
        stops = tuple(_as_list(settings.pop("stop", None)))
        n = int(settings.pop("n", 1))
        if stream and n > 1:
            msg = f"n={n} cannot be streamed: stream returns one answer; use invoke or batch."
            raise ValueError(msg)
        normalized = self.normalize(messages).messages
        body = surface.build_body(
            normalized, settings, call, stream=stream, model_explicit="model" in self.model_fields_set
        )
        return PreparedCall(body, encode_body(body), stops, n, self.output_version or "v0")

    def _answer(self, prepared: PreparedCall) -> Answer:
        return Answer(api=self.api, output_version=prepared.output_version, stops=prepared.stops)

    def _read(self, prepared: PreparedCall, data: dict[str, Any]) -> ChatGeneration:
        answer = self._answer(prepared)
        SURFACES[self.api].read_response(answer, data)
        message = answer.message()
        return ChatGeneration(
            message=message,
            generation_info={"finish_reason": answer.metadata.get("finish_reason")},
        )

    def _result(self, generations: list[ChatGeneration]) -> ChatResult:
        first = generations[0].message
        return ChatResult(
            generations=generations,
            llm_output={
                "model_name": first.response_metadata.get("model_name"),
                "model_provider": "perplexity",
            },
        )

    # -- sync --------------------------------------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.streaming and self.n == 1:
            chunks = list(self._stream(messages, stop, run_manager, **kwargs))
            return ChatResult(generations=[_merge_chunks(chunks)])
        prepared = self._prepare(messages, stop, kwargs, stream=False)
        n = prepared.n

        def one(_: int) -> ChatGeneration:
            return self._read(prepared, self.transport.create(prepared.data))

        if n == 1:
            return self._result([one(0)])
        # Perplexity has no `n`: n answers are n concurrent requests.
        with ThreadPoolExecutor(max_workers=min(n, 16)) as pool:
            return self._result(list(pool.map(one, range(n))))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        prepared = self._prepare(messages, stop, kwargs, stream=True)
        answer = self._answer(prepared)
        mapper = SURFACES[self.api].stream_reader(answer)
        stream = self.transport.stream(prepared.data)
        try:
            for batch, ended in iterate_batches(stream, self.api):
                for event in batch:
                    for chunk in mapper.feed(event):
                        yield self._emit(chunk, run_manager)
                if not ended:  # what arrived together goes out as one chunk (at the end, the final one)
                    for chunk in answer.take_text():
                        yield self._emit(chunk, run_manager)
                if answer.stopped:
                    break  # the stop matched: the rest is unwanted, and the connection is closed below
            for chunk in mapper.finish():
                yield self._emit(chunk, run_manager)
        finally:
            stream.close()

    @staticmethod
    def _emit(chunk: AIMessageChunk, run_manager: CallbackManagerForLLMRun | None) -> ChatGenerationChunk:
        generation = ChatGenerationChunk(message=chunk)
        if run_manager:
            run_manager.on_llm_new_token(generation.text, chunk=generation)
        return generation

    # -- async -------------------------------------------------------------------------------------

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.streaming and self.n == 1:
            chunks = [c async for c in self._astream(messages, stop, run_manager, **kwargs)]
            return ChatResult(generations=[_merge_chunks(chunks)])
        prepared = self._prepare(messages, stop, kwargs, stream=False)

        async def one() -> ChatGeneration:
            return self._read(prepared, await self.transport.acreate(prepared.data))

        return self._result(list(await asyncio.gather(*(one() for _ in range(prepared.n)))))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        prepared = self._prepare(messages, stop, kwargs, stream=True)
        answer = self._answer(prepared)
        mapper = SURFACES[self.api].stream_reader(answer)
        stream = await self.transport.astream(prepared.data)
        try:
            async for batch, ended in aiterate_batches(stream, self.api):
                chunks = [chunk for event in batch for chunk in mapper.feed(event)]
                if not ended:  # what arrived together goes out as one chunk (at the end, the final one)
                    chunks += answer.take_text()
                for chunk in chunks:
                    generation = ChatGenerationChunk(message=chunk)
                    if run_manager:
                        await run_manager.on_llm_new_token(generation.text, chunk=generation)
                    yield generation
                if answer.stopped:
                    break
            for chunk in mapper.finish():
                generation = ChatGenerationChunk(message=chunk)
                if run_manager:
                    await run_manager.on_llm_new_token(generation.text, chunk=generation)
                yield generation
        finally:
            await stream.close()

    # -- tools and structured output ----------------------------------------------------------------

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable | BaseTool],
        *,
        tool_choice: dict | str | bool | None = None,
        parallel_tool_calls: bool | None = None,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools in any form LangChain accepts, and an optional ``tool_choice``.

        Functions go through ``convert_to_openai_tool`` (as ``ChatOpenAI`` does);
        Perplexity's built-in tools (``{"type": "fetch_url"}``, ...) pass as given.
        ``tool_choice``: ``"auto"``, ``"none"``, ``"required"`` (or ``"any"``), a
        tool name, or ``True`` for the only tool. ``parallel_tool_calls`` is
        accepted for compatibility and not sent: the published Agent API has no such field.
        """
        if not SURFACES[self.api].function_tools:
            raise ValueError(_NO_SONAR_TOOLS)
        formatted = [openai_tool(tool, strict=strict) for tool in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = _tool_choice(tool_choice, function_names(formatted))
        return super().bind(tools=formatted, **kwargs)

    def with_structured_output(
        self,
        schema: dict[str, Any] | type | None = None,
        *,
        method: Literal["json_schema", "function_calling", "json_mode"] = "json_schema",
        include_raw: bool = False,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | Any]:
        """Answer as an instance of ``schema``.

        ``json_schema`` (default) sends Perplexity's ``response_format`` (never
        OpenAI's ``text.format``, which the Agent API refuses); ``<think>`` text is
        moved to reasoning before parsing. ``json_mode`` sends the same response
        format: Perplexity has no JSON mode, but it enforces a JSON schema, so the
        given schema (or, without one, any JSON object) is what it honours.
        ``function_calling`` forces a tool call (Agent API; on chat completions it
        falls back to ``json_schema`` with a warning).
        """
        if kwargs:
            msg = f"with_structured_output: unexpected arguments {sorted(kwargs)}."
            raise ValueError(msg)
        if method not in ("json_schema", "function_calling", "json_mode"):
            msg = f"method={method!r} is not supported; use 'json_schema' (default), 'function_calling' or 'json_mode'."
            raise ValueError(msg)
        if schema is None and method != "json_mode":
            msg = f"with_structured_output(method={method!r}) needs a schema; only json_mode works without one."
            raise ValueError(msg)
        if method == "function_calling" and not SURFACES[self.api].function_tools:
            warnings.warn(
                "with_structured_output(method='function_calling'): the Sonar chat-completions "
                "models have no function tools, so the schema is sent as a json_schema "
                "response_format instead (the parsed result is the same).",
                UserWarning,
                stacklevel=2,
            )
            method = "json_schema"
        llm: Runnable
        if method == "function_calling":
            tool = openai_tool(schema, strict=strict)
            llm = self.bind_tools([tool], tool_choice=tool["function"]["name"], strict=strict).bind(
                ls_structured_output_format={"kwargs": {"method": method, "strict": strict}, "schema": tool},
            )
        else:
            fmt, json_schema = response_format(schema, strict)
            llm = self.bind(
                response_format=fmt,
                ls_structured_output_format={"kwargs": {"method": method, "strict": strict}, "schema": json_schema},
            )
        return with_raw(llm, output_parser(schema, method), include_raw)


_NO_SONAR_TOOLS = (
    "tools: Perplexity's Sonar chat-completions models have no client-side function tools; "
    "use api='agent' (the default) for tool calling."
)


def _tool_choice(choice: dict | str | bool, names: list[str]) -> Any:
    if choice is True:
        if len(names) != 1:
            msg = f"tool_choice=True needs exactly one tool, got {len(names)}: pass a tool name."
            raise ValueError(msg)
        return {"type": "function", "function": {"name": names[0]}}
    if choice == "any":
        return "required"
    if isinstance(choice, str) and choice not in ("auto", "none", "required"):
        if choice not in names:
            msg = f"tool_choice={choice!r} names no bound tool; bound tools: {', '.join(names) or 'none'}."
            raise ValueError(msg)
        return {"type": "function", "function": {"name": choice}}
    return choice


def _as_list(stop: Any) -> list[str]:
    """Stop sequences as a list; a value of the wrong type is refused by the parameter check, not here."""
    if isinstance(stop, str):
        return [stop]
    return list(stop) if isinstance(stop, (list, tuple)) else []


def _merge_chunks(chunks: list[ChatGenerationChunk]) -> ChatGeneration:
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    message = merged.message
    return ChatGeneration(
        message=AIMessage(
            content=message.content,
            additional_kwargs=message.additional_kwargs,
            response_metadata=message.response_metadata,
            tool_calls=getattr(message, "tool_calls", []),
            invalid_tool_calls=getattr(message, "invalid_tool_calls", []),
            usage_metadata=getattr(message, "usage_metadata", None),
            id=message.id,
        ),
        generation_info=merged.generation_info,
    )
