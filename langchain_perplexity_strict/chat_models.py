"""`ChatPerplexityStrict`: Perplexity as a LangChain chat model that never sends a history Perplexity refuses."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator, Sequence
from contextlib import aclosing, closing
from copy import deepcopy
from dataclasses import replace
from operator import itemgetter
from types import SimpleNamespace
from typing import Any, Literal, NamedTuple, cast

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.chat_models import (
    BaseChatModel,
    LangSmithParams,
)
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult, LLMResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import get_config_list
from langchain_core.tools import BaseTool
from pydantic import ConfigDict, model_validator
from typing_extensions import Self

from langchain_perplexity_strict import _batches
from langchain_perplexity_strict._accepts import check_known
from langchain_perplexity_strict._continuation import Planner, account_tag, forgot_the_response
from langchain_perplexity_strict._cost import deferred_budgets, requesting
from langchain_perplexity_strict._once import OncePerOwner, calling
from langchain_perplexity_strict._profile import call_profile, call_rules, model_profile
from langchain_perplexity_strict._redact import redact, shown
from langchain_perplexity_strict._request._agent import model_and_preset
from langchain_perplexity_strict._request._habits import check_parallel_tool_calls
from langchain_perplexity_strict._request._input import BodyInput
from langchain_perplexity_strict._request._model_arguments import (
    CopiedFields,
    KeptBinding,
    call_arguments,
    held,
    known_arguments,
    stop_list,
)
from langchain_perplexity_strict._request._parameter_table import PARAMETERS, PerplexityParameters, check_parameters
from langchain_perplexity_strict._request._structured_output import (
    Method,
    pydantic_class,
    response_format,
    structured_runnable,
)
from langchain_perplexity_strict._request._tools import bound_tools, tools_refusal
from langchain_perplexity_strict._request._unset import over
from langchain_perplexity_strict._response._answer import Answer, add_usage, aemit, emit
from langchain_perplexity_strict._surfaces import ERROR_HINTS, SURFACES, PreparedCall, Surface
from langchain_perplexity_strict._switched import MOVED
from langchain_perplexity_strict._transport import Fallback, RunSettings, encode_body, timeout_seconds
from langchain_perplexity_strict._transport._guard import leaving_together, together
from langchain_perplexity_strict._transport._response_files import PerplexityResponseFile, alist_files, list_files
from langchain_perplexity_strict._transport._resume import StreamFollower, StreamScope
from langchain_perplexity_strict.errors import refused_before_sending
from langchain_perplexity_strict.normalize._compaction import MessageCounter, compaction_warning, count_tokens
from langchain_perplexity_strict.normalize._normalizer import NormalizationResult, prepare

_SETTING_NAMES = tuple(PARAMETERS)
_WARNINGS = OncePerOwner()
_NOT_IN_A_BATCH = {
    "api": (
        ("agent",),
        "Perplexity's Batch API runs Agent API requests (/v1/responses) only; use api='agent', the default.",
    ),
    "background": (
        (None, False),
        "a batch already runs on Perplexity's side, each line to its end; leave background unset.",
    ),
    "use_previous_response_id": (
        (None, False),
        "each batch line is a whole conversation, with no stored response to continue; leave it unset.",
    ),
    "n": ((None, 1), "a batch line gives one answer; repeat the input in the list for several."),
}
"""Settings a batch line cannot carry: the values it takes, and why."""

_NOT_IN_THE_CACHE_KEY = frozenset(
    {"api_key", "cache", "callbacks", "verbose", "tags", "metadata", "rate_limiter", "name", "disable_streaming"}
)
"""Fields that change neither the request nor how its answer is read."""

_STATE_FIELDS = itemgetter(
    *_SETTING_NAMES,
    *("model", "model_kwargs", "api", "base_url", "timeout", "rules", "profile", "max_input_tokens"),
    *("token_counter", "custom_get_token_ids"),
)
"""The fields a `_CallState` is derived from."""


class _CallState(NamedTuple):
    """What a call derives from the model's fields and its settings, before any message."""

    key: tuple[Any, ...]  # the fields it was derived from
    settings: dict[str, Any]
    """Parameters by name, plus `model` and `model_kwargs`; never changed once built."""
    surface: Surface
    explicit: bool  # the caller chose the model
    profile: dict[str, Any]
    rules: Sequence[Any]
    budget: int | None
    counter: Any
    notices: tuple[str, ...]
    stops: tuple[str, ...]
    n: int
    run: RunSettings
    shown: dict[str, Any]  # the identifying parameters, redacted


def _key_part(value: Any) -> Any:
    """A cache-key part JSON cannot write: a Pydantic class by its schema, else its repr."""
    if isinstance(value, type) and hasattr(value, "model_json_schema"):
        return [value.__qualname__, value.model_json_schema()]
    return repr(value)


class ChatPerplexityStrict(PerplexityParameters, BaseChatModel):
    """Perplexity chat model that normalizes every conversation, which Perplexity might refuse with a 400, first.

    Requests go through `ChatOpenAI`'s clients; sources, usage and cost land in LangChain's standard places.

    Setup: `pip install .` and set `PPLX_API_KEY`. Offline, point `base_url` at
    `langchain_perplexity_strict.testing.PerplexityEmulator`.

    Key init args: `model`, `api` (`"agent"` or `"chat_completions"`), `api_key`,
    `base_url`, sampling and search parameters, `n`, `stop`, `max_input_tokens`, `rules`.

    Instantiate and invoke:

    ```python
    from langchain_perplexity_strict import ChatPerplexityStrict

    model = ChatPerplexityStrict(model="perplexity/sonar")
    message = model.invoke([("human", "What is new in Python 3.13?")])
    message.content  # the answer, with [1] [2] citation markers
    message.additional_kwargs["citations"]  # the URLs
    ```

    Stream, async, tools and structured output: as in `ChatOpenAI` (README); built-in tools: docs/built-in-tools.md.

    Usage: `message.usage_metadata`; `message.response_metadata` holds `cost`, `model_name`, `id`, `finish_reason`.
    """

    model: str = "perplexity/sonar"
    """Agent API model slug, or a Sonar name (mapped by Perplexity's table)."""
    api: Literal["agent", "chat_completions"] = "agent"
    """`"agent"` (`/v1/responses`) or `"chat_completions"` (legacy Sonar)."""

    model_config = ConfigDict(populate_by_name=True, arbitrary_types_allowed=True)

    _error_hints = ERROR_HINTS

    @model_validator(mode="before")
    @classmethod
    def _known_arguments(cls, values: Any) -> Any:
        """Refuse unknown arguments; map aliases; check each parameter as given, before pydantic coerces it."""
        return known_arguments(values, cls.model_fields)

    @model_validator(mode="after")
    def _validate(self) -> Self:
        check_parameters(self._settings(), self.api)
        MessageCounter(self.token_counter)  # refused now, not at the first call
        if self.n > 1 and self.streaming:
            msg = f"n={self.n} cannot be streamed (streaming=True returns one answer); set streaming=False or n=1."
            raise ValueError(msg)
        return self

    @property
    def _llm_type(self) -> str:
        return "perplexity-strict"

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return True

    @classmethod
    def get_lc_namespace(cls) -> list[str]:
        return ["langchain_perplexity_strict", "chat_models"]

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return dict(self._state().shown)

    def _get_llm_string(self, stop: list[str] | None = None, **kwargs: Any) -> str:
        """The cache key from the fields as they are now; langchain-core's skips excluded fields."""
        values = self.__dict__
        fields = {k: values[k] for k in type(self).model_fields if k not in _NOT_IN_THE_CACHE_KEY}
        key = {"type": self._llm_type, "model": fields, "input_budget": self.input_budget, "stop": stop, **kwargs}
        return json.dumps(redact(key), sort_keys=True, default=_key_part)

    def _get_invocation_params(self, stop: list[str] | None = None, **kwargs: Any) -> dict[str, Any]:
        """What traces see of a call: langchain-core's, with the call's credentials (a bound MCP tool's) hidden."""
        params = super()._get_invocation_params(stop=stop, **kwargs)
        return redact(params) if kwargs or stop is not None else params  # the model's are redacted already

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        """langchain-core's, under Perplexity's name and with the model's own stop sequences."""
        stops = stop if stop is not None else self.stop
        params = super()._get_ls_params(stop=stop_list(stops) if stops is not None else None, **kwargs)
        params["ls_provider"] = "perplexity"
        return params

    def get_num_tokens_from_messages(self, messages: list[BaseMessage], tools: Sequence[Any] | None = None) -> int:
        """Tokens in `messages` by compaction's counter."""
        return count_tokens(messages, self.counter, tools)

    def get_num_tokens(self, text: str) -> int:
        return self.get_num_tokens_from_messages([HumanMessage(text)])

    @property
    def counter(self) -> Any:
        """The token counter: `token_counter`, else `custom_get_token_ids`."""
        ids = self.custom_get_token_ids
        return self.token_counter if self.token_counter is not None or ids is None else SimpleNamespace(encode=ids)

    @model_validator(mode="wrap")
    @classmethod
    def _derived_profile(cls, values: Any, handler: Any) -> Any:
        """`profile`, unless given: the named model's on this surface, not counted as given so copies derive theirs."""
        model = handler(values)
        if isinstance(values, dict) and values.get("profile") is None:
            explicit = "model" in model.model_fields_set
            model.__dict__["profile"] = model_profile(model._settings(), model.api, explicit, model.rules)
            model.__pydantic_fields_set__.discard("profile")
        return model

    def call_profile(self, **kwargs: Any) -> dict[str, Any]:
        """A call's profile: the given `profile` keys over those derived for the call's model."""
        settings = {**self._settings(), **kwargs}
        explicit = "model" in self.model_fields_set or "model" in kwargs
        given = self.profile if "profile" in self.model_fields_set else None
        return call_profile(given, settings, self.api, explicit, self.rules)

    def _settings(self) -> dict[str, Any]:
        fields = self.__dict__
        values = {name: fields[name] for name in _SETTING_NAMES if fields[name] is not None}
        return {**values, "model": self.model, "model_kwargs": self.model_kwargs}

    @property
    def surface(self) -> Surface:
        """The API this model calls: its path, body builder and readers."""
        return SURFACES[self.api]

    @property
    def supports_function_tools(self) -> bool:
        """Whether this model sends function tools (surface and profile allow them)."""
        return tools_refusal(self.surface.function_tools, self._state().profile) is None

    @property
    def input_budget(self) -> int | None:
        """The compaction budget: `max_input_tokens`, else the profile's."""
        return self._state().budget

    def _state(self, kwargs: dict[str, Any] | None = None) -> _CallState:
        """What a call derives from the fields and its settings `kwargs` (checked here); kept while the fields stay."""
        fields = self.__dict__
        key = (*_STATE_FIELDS(fields), len(self.__pydantic_fields_set__))
        kept = fields.get("_call_state")
        if not kwargs and kept is not None and kept.key == key:
            return kept
        kwargs = kwargs or {}
        settings = {**self._settings(), **kwargs}
        if kwargs:  # the model's own were checked at construction
            check_parameters(settings, self.api)
        surface, profile = SURFACES[self.api], self.call_profile(**kwargs)
        budget = profile.get("max_input_tokens") if self.max_input_tokens is None else self.max_input_tokens or None
        identifying = {"model": self.model, "api": self.api, "base_url": self.base_url, **settings}
        state = _CallState(
            key,
            settings,
            surface,
            "model" in self.model_fields_set or "model" in kwargs,
            profile,
            call_rules(surface, self.rules, profile),
            budget,
            self.counter,
            surface.notices(settings),
            tuple(stop_list(settings.get("stop"))),
            int(settings.get("n", 1)),
            RunSettings(settings.get("stream_chunk_timeout"), settings["max_resumes"], timeout_seconds(self.timeout)),
            {} if kwargs else deepcopy(redact(identifying)),  # copied: no later change in place reaches traces
        )
        if not kwargs:
            fields["_call_state"] = state
        return state

    def normalize(self, messages: LanguageModelInput) -> NormalizationResult:
        """What this model would send for `messages`, and what the rules changed."""
        history, state = self._convert_input(messages).to_messages(), self._state()
        return prepare(history, rules=state.rules, budget=state.budget, counter=state.counter).result

    def response_files(self, answer: BaseMessage | str) -> list[PerplexityResponseFile]:
        """The files an Agent API run shared; `answer`: an `AIMessage` this model returned, or its response id."""
        return list_files(self.transport, self._response_id(answer))

    async def aresponse_files(self, answer: BaseMessage | str) -> list[PerplexityResponseFile]:
        """Async `response_files`."""
        return await alist_files(self.transport, self._response_id(answer))

    def _response_id(self, answer: Any) -> str:
        if self.surface.encode_items is None:
            msg = f"response files exist on api='agent' only (this model's api is {self.api!r})."
            raise ValueError(msg)
        response_id = answer.response_metadata.get("id") if isinstance(answer, BaseMessage) else answer
        if not isinstance(response_id, str) or not response_id:
            msg = (
                f"answer={shown(answer, 'answer')}: expected an AIMessage this model returned (with "
                "response_metadata['id']) or a response id string such as 'resp_...'."
            )
            raise ValueError(msg)
        return response_id

    def request_body(
        self, messages: LanguageModelInput, *, stop: list[str] | None = None, stream: bool = False, **kwargs: Any
    ) -> dict[str, Any]:
        """The exact JSON body this model would send for `messages`; nothing is sent."""
        return self._prepare(self._convert_input(messages).to_messages(), stop, kwargs, stream=stream).body

    def _prepare(self, messages: list[BaseMessage], stop: Any, kwargs: dict[str, Any], *, stream: bool) -> PreparedCall:
        """Check the arguments, normalize, plan and build the body; nothing is sent."""
        try:
            if kwargs or stop is not None:
                call, state, parse_as = self._call_arguments(stop, kwargs)
            else:  # nothing to sort or check: the model's settings were checked when it was built
                call, state, parse_as = {}, self._state(), None
            if stream and state.n > 1:
                msg = f"n={state.n} cannot be streamed: stream returns one answer; use invoke or batch."
                raise ValueError(msg)
            settings, surface = state.settings, state.surface
            planner = self._planner(state) if settings.get("use_previous_response_id") else None
            conversation = prepare(
                messages,
                rules=state.rules,
                budget=state.budget,
                counter=state.counter,
                keep_whole=planner.keep_whole if planner else None,
            )
            if conversation.compaction is not None:
                _WARNINGS.warn(self, "compaction", compaction_warning(conversation.compaction))
            for notice in state.notices:
                _WARNINGS.warn(self, notice, notice)
            context = planner.context(conversation) if planner else None
            request = BodyInput(conversation.messages, settings, call, stream, state.explicit, context, state.profile)
            body = surface.build_body(request)
            fallback = None
            if context is not None and context.continuation is not None:
                fallback = Fallback(
                    forgot_the_response,
                    lambda: encode_body(surface.build_body(replace(request, plan=replace(context, continuation=None)))),
                )
            requesting()
            data = encode_body(body)
        except (ValueError, TypeError) as error:
            if type(error) not in (ValueError, TypeError):
                raise
            raise refused_before_sending(error) from None
        return PreparedCall(
            surface,
            body,
            data,
            state.stops,
            state.n,
            self.output_version or "v0",
            conversation.compaction,
            context,
            fallback,
            state.run,
            parse_as,
            stream_usage=settings.get("stream_usage") is not False,
            background=body.get("background") is True,
        )

    def _call_arguments(self, stop: Any, kwargs: dict[str, Any]) -> tuple[dict[str, Any], _CallState, Any]:
        """The call's tools, tool choice and response format, its state, and the class to parse into."""
        call, kwargs = call_arguments(kwargs, self.api)
        parse_as = pydantic_class(call.get("response_format"))
        if call.get("response_format") is not None:
            call["response_format"] = response_format(call["response_format"])
        if "model_kwargs" in kwargs:
            kwargs["model_kwargs"] = {**self.model_kwargs, **kwargs["model_kwargs"]}
        if stop is not None:
            kwargs["stop"] = stop
        state = self._state(over(held(self), kwargs, "the model"))
        if "tools" in call or "tool_choice" in call:  # converted as `bind_tools` converts them
            refusal = tools_refusal(state.surface.function_tools, state.profile)
            tools, choice = bound_tools(call.pop("tools", None), call.pop("tool_choice", None), refusal=refusal)
            call.update({k: v for k, v in (("tools", tools), ("tool_choice", choice)) if v is not None})
        return call, state, parse_as

    def _planner(self, state: _CallState) -> Planner | None:
        """A continuation planner, when the surface can continue."""
        surface = state.surface
        if surface.encode_items is None:
            return None
        target = model_and_preset(state.settings, state.explicit)
        owner = {"target": target, "server": self.base_url, "account": account_tag(self.api_key)}
        return Planner(owner, surface.encode_items, state.budget, state.counter)

    def _answer(self, prepared: PreparedCall, fell_back: bool = False) -> Answer:
        answer = Answer(
            output_version=prepared.output_version,
            stops=prepared.stops,
            context=prepared.context,
            raise_on_length=self.raise_on_length,
            parse_as=prepared.parse_as,
            stream_usage=prepared.stream_usage,
        )
        if prepared.compaction is not None:
            answer.metadata["compaction"] = prepared.compaction
        if prepared.context is not None and prepared.context.continuation is not None:
            answer.metadata["continuation"] = prepared.context.continuation.note(fell_back=fell_back)
        return answer

    def _read(self, prepared: PreparedCall, data: dict[str, Any], fell_back: bool = False) -> ChatGeneration:
        answer = self._answer(prepared, fell_back)
        prepared.surface.reader(answer).read(data)
        message = answer.message()
        return ChatGeneration(message=message, generation_info={"finish_reason": answer.metadata.get("finish_reason")})

    def _result(self, generations: list[ChatGeneration]) -> ChatResult:
        metadata = generations[0].message.response_metadata
        llm_output = {"model_name": metadata.get("model_name"), "model_provider": "perplexity"}
        if metadata.get("token_usage"):
            llm_output["token_usage"] = metadata["token_usage"]
        return ChatResult(generations=generations, llm_output=llm_output)

    def _combine_llm_outputs(self, llm_outputs: list[dict | None]) -> dict:
        """`generate().llm_output` as `ChatOpenAI` gives it: summed `token_usage` and `model_name`."""
        token_usage: dict[str, Any] = {}
        model_name = None
        for output in llm_outputs:
            if not output:
                continue
            token_usage = add_usage(token_usage, output.get("token_usage") or {})
            model_name = model_name or output.get("model_name")
        return {"token_usage": token_usage, "model_name": model_name or self.model}

    def generate(self, *args: Any, **kwargs: Any) -> LLMResult:
        """`BaseChatModel.generate`, each run's budget checked when its request is sent."""
        with deferred_budgets():
            return super().generate(*args, **kwargs)

    async def agenerate(self, *args: Any, **kwargs: Any) -> LLMResult:
        with deferred_budgets(), calling():
            return await super().agenerate(*args, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prepared = self._prepare(messages, stop, kwargs, stream=False)

        def one(_: int = 0) -> ChatGeneration:
            return self._read(prepared, *prepared.send(self.transport))

        return self._result([one()] if prepared.n == 1 else together(one, prepared.n))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        prepared = self._prepare(messages, stop, kwargs, stream=True)
        follower: StreamFollower | None = None
        try:  # opened within, so a Ctrl-C cancels a named run
            follower, fell_back = prepared.open_stream(self.transport)
            answer = self._answer(prepared, fell_back)
            follower.metadata = answer.metadata
            reader = prepared.surface.reader(answer)
            with closing(cast(Generator[dict[str, Any], None, None], follower.events())) as events:
                for event in events:
                    for chunk in reader.feed(event):
                        yield emit(chunk, run_manager)
                    if answer.stopped and prepared.background:  # else usage and sources follow a stop
                        break
            for chunk in reader.finish() if not answer.finished else ():  # after a terminal event: nothing
                yield emit(chunk, run_manager)
        finally:
            if follower is not None:
                follower.close()  # cancels a background run the caller left

    def batch(self, inputs: list[Any], config: Any = None, **kwargs: Any) -> list[Any]:
        """`Runnable.batch`, whose threads leave with the caller on Ctrl-C and warn at its line."""
        with leaving_together(), calling():
            return super().batch(inputs, config, **kwargs)

    async def abatch(self, inputs: list[Any], config: Any = None, **kwargs: Any) -> list[Any]:
        with calling():
            return await super().abatch(inputs, config, **kwargs)

    def batch_as_completed(self, inputs: Sequence[Any], config: Any = None, **kwargs: Any) -> Iterator[Any]:
        """`Runnable.batch_as_completed`, whose threads leave with the caller on Ctrl-C."""
        with leaving_together():
            yield from super().batch_as_completed(inputs, config, **kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prepared = self._prepare(messages, stop, kwargs, stream=False)

        async def one() -> ChatGeneration:
            return self._read(prepared, *await prepared.asend(self.transport))

        if prepared.n == 1:
            return self._result([await one()])
        return self._result(list(await asyncio.gather(*(one() for _ in range(prepared.n)))))

    async def astream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[AIMessageChunk]:
        """`BaseChatModel.astream`, closed when the caller closes it, not by the event loop."""
        scope, inner = StreamScope(), super().astream(input, config, stop=stop, **kwargs)
        try:
            async for chunk in inner:
                yield chunk
        finally:
            await scope.close(inner)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        prepared = self._prepare(messages, stop, kwargs, stream=True)
        follower, fell_back = await prepared.aopen_stream(self.transport)
        answer = self._answer(prepared, fell_back)
        follower.metadata = answer.metadata
        reader = prepared.surface.reader(answer)
        try:
            async with aclosing(cast(AsyncGenerator[dict[str, Any], None], follower.events())) as events:
                async for event in events:
                    for chunk in reader.feed(event):
                        yield await aemit(chunk, run_manager)
                    if answer.stopped and prepared.background:
                        break
            for chunk in reader.finish() if not answer.finished else ():
                yield await aemit(chunk, run_manager)
        finally:
            await follower.close()

    def _batch_request(
        self, inputs: Sequence[LanguageModelInput], config: Any, kwargs: dict[str, Any], models: Sequence[Any] | None
    ) -> tuple[list[bytes], dict[str, str], str | None, _batches.Reader, tuple[str, ...]]:
        """Everything `submit_batch` sends, each input's line built as `invoke` builds it, before sending."""
        call = dict(kwargs)
        meta = _batches.check_metadata(call.pop("metadata", None))
        key = call.pop("idempotency_key", None)
        _batches.check_key(key)
        if not isinstance(inputs, Sequence) or isinstance(inputs, (str, bytes)):
            kind = type(inputs).__name__
            msg = f"submit_batch: inputs must be a list of model inputs, as batch() takes them; got {kind}."
            raise TypeError(msg)
        get_config_list(config, len(inputs))  # one config per input, as batch() requires
        if not inputs:
            msg = "submit_batch: no inputs; a batch needs at least one (Perplexity refuses an empty file)."
            raise ValueError(msg)
        stop = call.pop("stop", None)
        builders = list(models) if models is not None else [self] * len(inputs)
        for model in {id(m): m for m in builders}.values():
            settings = {**model._settings(), **call, "api": model.api}
            for name, (accepted, why) in _NOT_IN_A_BATCH.items():
                if settings.get(name) not in accepted:
                    raise ValueError(f"submit_batch: {name}={settings[name]!r}: {why}")
        lines = [
            _batches.line(i, m._prepare(m._convert_input(x).to_messages(), stop, dict(call), stream=False).data)
            for i, (m, x) in enumerate(zip(builders, inputs, strict=True))
        ]
        return lines, meta, key, *self._batch_reader(stop, call)

    def _batch_reader(self, stop: Any, call: dict[str, Any]) -> tuple[_batches.Reader, tuple[str, ...]]:
        """A batch line's reader, as `invoke` reads, and the stop sequences to record."""
        template = self._prepare([HumanMessage("-")], stop, call, stream=False)

        def read(body: dict[str, Any], recorded: tuple[str, ...]) -> AIMessage:
            prepared = template if stop is not None else replace(template, stops=recorded)
            return cast(AIMessage, self._read(prepared, body).message)

        return read, template.stops

    def submit_batch(
        self,
        inputs: Sequence[LanguageModelInput],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        metadata: dict[str, str] | None = None,
        idempotency_key: str | None = None,
        **kwargs: Any,
    ) -> _batches.BatchJob:
        """Send `inputs` through Perplexity's Batch API (docs/batches.md); each line is what `invoke` would post.

        `job.results()` gives each input's `AIMessage` or `PerplexityBatchError`, in order. `idempotency_key` makes
        a resubmission return the batches already created.
        """
        return self._submit_batch(inputs, config, {"metadata": metadata, "idempotency_key": idempotency_key, **kwargs})

    def _submit_batch(
        self, inputs: Sequence[Any], config: Any, kwargs: dict[str, Any], models: Sequence[Any] | None = None
    ) -> _batches.BatchJob:
        return _batches.submit(self.transport, *self._batch_request(inputs, config, kwargs, models))

    async def asubmit_batch(
        self,
        inputs: Sequence[LanguageModelInput],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        metadata: dict[str, str] | None = None,
        idempotency_key: str | None = None,
        **kwargs: Any,
    ) -> _batches.BatchJob:
        """Async twin of `submit_batch`."""
        return await self._asubmit_batch(
            inputs, config, {"metadata": metadata, "idempotency_key": idempotency_key, **kwargs}
        )

    async def _asubmit_batch(
        self, inputs: Sequence[Any], config: Any, kwargs: dict[str, Any], models: Sequence[Any] | None = None
    ) -> _batches.BatchJob:
        return await _batches.asubmit(self.transport, *self._batch_request(inputs, config, kwargs, models))

    def get_batch(self, batch_id: str, config: RunnableConfig | None = None, **kwargs: Any) -> _batches.BatchJob:
        """The batch job `batch_id` names, its answers read by this model."""
        return _batches.get(self.transport, batch_id, self._batch_reader(kwargs.pop("stop", None), kwargs)[0])

    async def aget_batch(self, batch_id: str, config: RunnableConfig | None = None, **kwargs: Any) -> _batches.BatchJob:
        """Async twin of `get_batch`."""
        return await _batches.aget(self.transport, batch_id, self._batch_reader(kwargs.pop("stop", None), kwargs)[0])

    def bind(self, **kwargs: Any) -> KeptBinding:
        return KeptBinding(bound=self, kwargs=kwargs, config={})

    def with_config(self, config: RunnableConfig | None = None, **kwargs: Any) -> Runnable:
        """langchain-core's, as a `KeptBinding`, so batches get the config."""
        return self.bind().with_config(config, **kwargs)

    def configurable_fields(self, **kwargs: Any) -> Any:
        """langchain-core's, with values set by `model_copy` (`CopiedFields`)."""
        return CopiedFields(default=self, fields=cast(Any, super().configurable_fields(**kwargs)).fields)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable | BaseTool],
        *,
        tool_choice: dict | str | bool | None = None,
        parallel_tool_calls: bool | None = None,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools in any form LangChain accepts, and an optional `tool_choice`.

        Built-in tools are checked against Perplexity's shapes. `parallel_tool_calls=False`
        is refused: the Agent API cannot honour it.
        """
        check_parallel_tool_calls(parallel_tool_calls)
        refusal = tools_refusal(self.surface.function_tools, self.call_profile(**kwargs))
        formatted, choice = bound_tools(tools, tool_choice, strict=strict, refusal=refusal)
        if choice is not None:
            kwargs["tool_choice"] = choice
        return self.bind(tools=formatted, **kwargs)

    def with_structured_output(
        self,
        schema: dict[str, Any] | type | None = None,
        *,
        method: Method | None = None,
        include_raw: bool = False,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | Any]:
        """Answer as an instance of `schema`, by `response_format` or a forced tool call.

        `json_mode` sends a schema: Perplexity has no JSON mode.
        """
        own = dict.fromkeys(("schema", "method", "include_raw", "strict", "tools"))  # `tools=`: as ChatOpenAI takes it
        check_known(kwargs, own, "with_structured_output", {})
        tools = kwargs.pop("tools", None)  # bound beside the response format, as ChatOpenAI does
        if method is None:  # by the profile
            profile = self._state().profile
            tools_only = not profile.get("structured_output", True) and profile.get("tool_calling")
            method = "function_calling" if tools_only else "json_schema"
        return structured_runnable(self, schema, method, include_raw=include_raw, strict=strict, tools=tools)


def __getattr__(name: str) -> Any:
    """`from langchain_perplexity_strict.chat_models import ChatPerplexity` (a switched import) says what to use."""
    if name == "ChatPerplexity":
        msg = f"ChatPerplexity is langchain-perplexity's: {MOVED[name]}."
        raise ImportError(msg, name=__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
