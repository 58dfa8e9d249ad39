"""``ChatPerplexityStrict``: Perplexity as a LangChain chat model that never sends a history Perplexity refuses."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from operator import itemgetter
from typing import Any, Literal, cast

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.chat_models import BaseChatModel, LangSmithParams
from langchain_core.language_models.model_profile import ModelProfile
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.output_parsers import (
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    PydanticOutputParser,
    PydanticToolsParser,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from langchain_core.tools import BaseTool
from langchain_core.utils import from_env, secret_from_env
from langchain_core.utils.function_calling import (
    convert_to_json_schema,
    convert_to_openai_tool,
)
from langchain_core.utils.pydantic import is_basemodel_subclass
from langchain_openai import ChatOpenAI
from pydantic import ConfigDict, Field, PrivateAttr, SecretStr, model_validator
from typing_extensions import Self

from langchain_perplexity_strict.compaction import compact_messages
from langchain_perplexity_strict.data._profiles import PROFILES
from langchain_perplexity_strict.models import RESERVED_FUNCTION_NAMES
from langchain_perplexity_strict.normalizer import (
    NormalizationResult,
    normalize_messages,
)
from langchain_perplexity_strict.parameters import PARAMETERS, check_parameters
from langchain_perplexity_strict.request_rules import (
    TOOL_KWARGS,
    agent_request,
    chat_completions_request,
    encode_body,
)
from langchain_perplexity_strict.response_mapping import (
    AgentStream,
    Answer,
    ChatStream,
    read_agent_response,
    read_chat_completion,
)
from langchain_perplexity_strict.rules import DEFAULT_RULES, Change
from langchain_perplexity_strict.transport import (
    Transport,
    aiterate_batches,
    iterate_batches,
)

DEFAULT_BASE_URL = "https://api.perplexity.ai"
_SETTING_NAMES = tuple(PARAMETERS)
# Keyword arguments a call may carry besides the parameters above.
_CALL_KWARGS = (*TOOL_KWARGS, "response_format")


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
    api: Literal["agent", "chat_completions"] = "agent"
    api_key: SecretStr | None = Field(
        default_factory=secret_from_env(["PPLX_API_KEY", "PERPLEXITY_API_KEY"], default=None),
    )
    base_url: str = Field(default_factory=from_env("PPLX_BASE_URL", default=DEFAULT_BASE_URL))
    """The server root (``PPLX_BASE_URL``, else ``https://api.perplexity.ai``); each surface's path is derived."""
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    stop: list[str] | str | None = None
    n: int = 1
    streaming: bool = False
    timeout: float | None = None
    max_retries: int = 2
    # Agent API
    preset: str | None = None
    models: list[str] | None = None
    max_steps: int | None = None
    web_search: bool | None = None
    """Add the ``web_search`` tool (Agent API; on unless set to False)."""
    max_search_results: int | None = None
    # Both surfaces
    reasoning_effort: str | None = None
    language_preference: str | None = None
    search_domain_filter: list[str] | None = None
    search_recency_filter: str | None = None
    search_after_date_filter: str | None = None
    search_before_date_filter: str | None = None
    last_updated_after_filter: str | None = None
    last_updated_before_filter: str | None = None
    search_context_size: str | None = None
    user_location: dict[str, Any] | None = None
    # Chat completions (Sonar)
    top_k: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    search_mode: str | None = None
    return_images: bool | None = None
    return_related_questions: bool | None = None
    disable_search: bool | None = None
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Extra body fields, sent as they are (Perplexity validates them)."""
    max_input_tokens: int | None = None
    """Token budget for the conversation (seed 004 compaction); defaults to the model
    profile's input limit, off when unknown; 0 turns compaction off."""
    token_counter: Any = Field(default=None, exclude=True)
    """Counts tokens for compaction: text or messages -> int, or an object with
    ``encode``; defaults to langchain-core's approximate counter (works offline)."""
    rules: Sequence[Any] = Field(default=DEFAULT_RULES, exclude=True)
    """The normalizer's rules, in order (each a :class:`~langchain_perplexity_strict.rules.Rule`)."""

    model_config = ConfigDict(populate_by_name=True, arbitrary_types_allowed=True)

    _transport: Transport | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _validate(self) -> Self:
        if self.api not in ("agent", "chat_completions"):
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
        if self.api == "chat_completions" and self.n > 1 and self.streaming:
            msg = f"n={self.n} cannot be streamed; set streaming=False or n=1."
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
        """The ``ChatOpenAI`` (pointed at Perplexity) that carries the requests."""
        if self._transport is None:
            root = self.base_url.rstrip("/")
            chat_openai = ChatOpenAI(
                model=self.model,
                api_key=self.api_key,
                base_url=root + "/v1" if self.api == "agent" else root,
                use_responses_api=self.api == "agent",
                max_retries=self.max_retries,
                timeout=self.timeout,
            )
            self._transport = Transport(chat_openai, self.api)
        return self._transport

    @property
    def input_budget(self) -> int | None:
        """The compaction budget in tokens: ``max_input_tokens``, else the profile's, else None."""
        if self.max_input_tokens is not None:
            return self.max_input_tokens or None
        return (self.profile or {}).get("max_input_tokens")

    def normalize(self, messages: LanguageModelInput) -> NormalizationResult:
        """What this model would send for ``messages`` (compacted, then normalized), and the report.

        Positions in the report are those of ``messages``.
        """
        if isinstance(messages, list) and all(isinstance(m, BaseMessage) for m in messages):
            history = messages
        else:
            history = self._convert_input(messages).to_messages()
        budget = self.input_budget
        if not budget:
            return normalize_messages(history, rules=self.rules)
        compacted = compact_messages(history, budget, token_counter=self.token_counter)
        if not compacted.changes:  # it fits (the usual case): positions are unchanged
            return normalize_messages(compacted.messages, rules=self.rules)
        normalized = normalize_messages(compacted.messages, rules=self.rules)
        kept = compacted.kept
        remapped = [Change(c.rule, tuple(kept[i] for i in c.sources), c.reason) for c in normalized.changes]
        return NormalizationResult(normalized.messages, [*compacted.changes, *remapped])

    def request_body(
        self, messages: LanguageModelInput, *, stop: list[str] | None = None, stream: bool = False, **kwargs: Any
    ) -> dict[str, Any]:
        """The exact JSON body this model would send for ``messages``; nothing is sent."""
        payload, _, _, _ = self._prepare(self._convert_input(messages).to_messages(), stop, kwargs, stream=stream)
        return payload

    def _prepare(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        *,
        stream: bool,
    ) -> tuple[dict[str, Any], bytes, Callable[[], Answer], int]:
        """Normalize, check and build the request body (as JSON and as the bytes to send); nothing is sent here."""
        kwargs = dict(kwargs)
        kwargs.pop("ls_structured_output_format", None)
        kwargs.pop("stream_usage", None)
        call = {k: kwargs.pop(k) for k in _CALL_KWARGS if k in kwargs}
        settings = {**self._settings(), **kwargs}
        if kwargs:  # the model's own settings were checked at construction
            check_parameters(settings, self.api)
        unknown = sorted(k for k in kwargs if k not in PARAMETERS)
        if unknown:
            msg = (
                f"{unknown[0]}={kwargs[unknown[0]]!r} is not a parameter of ChatPerplexityStrict "
                f"(api={self.api!r}); call-time parameters are: {', '.join(sorted(PARAMETERS))}, "
                f"{', '.join(_CALL_KWARGS)}."
            )
            raise ValueError(msg)
        if call.get("tools") and self.api == "chat_completions":
            raise ValueError(_NO_SONAR_TOOLS)
        configured_stop = settings.pop("stop", None)
        stops = _as_list(stop if stop is not None else configured_stop)
        n = int(settings.pop("n", 1))
        if stream and n > 1:
            msg = f"n={n} cannot be streamed: stream returns one answer; use invoke or batch."
            raise ValueError(msg)
        normalized = self.normalize(messages).messages
        build = agent_request if self.api == "agent" else chat_completions_request
        payload = build(self.transport.chat_openai, normalized, settings, call, stream=stream)
        body = encode_body(payload)
        output_version = self.output_version or "v0"
        api = self.api

        def new_answer() -> Answer:
            return Answer(api=api, output_version=output_version, stops=stops)

        return payload, body, new_answer, n

    def _read(self, answer: Answer, data: dict[str, Any]) -> ChatGeneration:
        (read_agent_response if self.api == "agent" else read_chat_completion)(answer, data)
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

    def _stream_mapper(self, answer: Answer) -> AgentStream | ChatStream:
        return AgentStream(answer) if self.api == "agent" else ChatStream(answer)

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
        _, body, new_answer, n = self._prepare(messages, stop, kwargs, stream=False)

        def one(_: int) -> ChatGeneration:
            return self._read(new_answer(), self.transport.create(body))

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
        _, body, new_answer, _ = self._prepare(messages, stop, kwargs, stream=True)
        answer = new_answer()
        mapper = self._stream_mapper(answer)
        stream = self.transport.stream(body)
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
        _, body, new_answer, n = self._prepare(messages, stop, kwargs, stream=False)

        async def one() -> ChatGeneration:
            return self._read(new_answer(), await self.transport.acreate(body))

        return self._result(list(await asyncio.gather(*(one() for _ in range(n)))))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        _, body, new_answer, _ = self._prepare(messages, stop, kwargs, stream=True)
        answer = new_answer()
        mapper = self._stream_mapper(answer)
        stream = await self.transport.astream(body)
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
        """Bind function tools (sent in the Agent API's shape) and an optional ``tool_choice``.

        ``tool_choice``: ``"auto"``, ``"none"``, ``"required"`` (or ``"any"``),
        a tool name, or ``True`` for the only tool.
        """
        if self.api == "chat_completions":
            raise ValueError(_NO_SONAR_TOOLS)
        formatted = []
        for tool in tools:
            if isinstance(tool, dict) and tool.get("type") not in (None, "function"):
                formatted.append(tool)  # a built-in tool such as {"type": "fetch_url"}
                continue
            converted = convert_to_openai_tool(tool, strict=strict)
            name = converted["function"]["name"]
            if name in RESERVED_FUNCTION_NAMES:
                msg = (
                    f"tools: function name {name!r} is reserved by Perplexity for a built-in tool "
                    f"(reserved: {', '.join(sorted(RESERVED_FUNCTION_NAMES))}); rename the tool."
                )
                raise ValueError(msg)
            formatted.append(converted)
        names = [t["function"]["name"] for t in formatted if "function" in t]
        if tool_choice is not None:
            kwargs["tool_choice"] = _tool_choice(tool_choice, names)
        if parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
        return super().bind(tools=formatted, **kwargs)

    def with_structured_output(
        self,
        schema: dict[str, Any] | type,
        *,
        method: Literal["json_schema", "function_calling", "json_mode"] = "json_schema",
        include_raw: bool = False,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | Any]:
        """Answer as an instance of ``schema``.

        ``json_schema`` (default) sends Perplexity's top-level ``response_format``
        (never OpenAI's ``text.format``, which Perplexity refuses); ``<think>``
        text is moved to reasoning before parsing. ``function_calling`` forces a
        tool call (Agent API only). ``json_mode`` asks for any JSON object:
        Perplexity has no JSON mode, so it is a ``json_schema`` of ``{"type": "object"}``.
        """
        if kwargs:
            msg = f"with_structured_output: unexpected arguments {sorted(kwargs)}."
            raise ValueError(msg)
        is_pydantic = isinstance(schema, type) and is_basemodel_subclass(schema)
        if method == "function_calling" and self.api == "chat_completions":
            warnings.warn(
                "with_structured_output(method='function_calling'): the Sonar chat-completions "
                "models have no function tools, so the schema is sent as a json_schema "
                "response_format instead (the parsed result is the same).",
                UserWarning,
                stacklevel=2,
            )
            method = "json_schema"
        output_parser: Runnable
        llm: Runnable
        if method in ("json_schema", "json_mode"):
            # Perplexity has no JSON mode; json_mode asks for any JSON object.
            json_schema = convert_to_json_schema(schema) if method == "json_schema" else {"type": "object"}
            name = json_schema.get("title") or "response"
            body_schema = {k: v for k, v in json_schema.items() if k not in ("title", "description")}
            response_format: dict[str, Any] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": body_schema},
            }
            if strict is not None:
                response_format["json_schema"]["strict"] = strict
            llm = self.bind(
                response_format=response_format,
                ls_structured_output_format={
                    "kwargs": {"method": method, "strict": strict},
                    "schema": json_schema,
                },
            )
            output_parser = (
                PydanticOutputParser(pydantic_object=cast(Any, schema)) if is_pydantic else JsonOutputParser()
            )
        elif method == "function_calling":
            tool_name = convert_to_openai_tool(schema)["function"]["name"]
            llm = self.bind_tools(
                [schema],
                tool_choice=tool_name,
                parallel_tool_calls=False,
                strict=strict,
            ).bind(
                ls_structured_output_format={
                    "kwargs": {"method": method, "strict": strict},
                    "schema": convert_to_openai_tool(schema),
                },
            )
            output_parser = (
                PydanticToolsParser(tools=[cast(Any, schema)], first_tool_only=True)
                if is_pydantic
                else JsonOutputKeyToolsParser(key_name=tool_name, first_tool_only=True)
            )
        else:
            msg = f"method={method!r} is not supported; use 'json_schema' (default), 'function_calling' or 'json_mode'."
            raise ValueError(msg)
        if not include_raw:
            return llm | output_parser
        parser_assign = RunnablePassthrough.assign(
            parsed=itemgetter("raw") | output_parser, parsing_error=lambda _: None
        )
        parser_none = RunnablePassthrough.assign(parsed=lambda _: None)
        parser_with_fallback = parser_assign.with_fallbacks([parser_none], exception_key="parsing_error")
        return RunnableMap(raw=llm) | parser_with_fallback


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


def _as_list(stop: list[str] | str | None) -> list[str]:
    if stop is None:
        return []
    return [stop] if isinstance(stop, str) else list(stop)


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
