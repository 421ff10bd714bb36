"""The LLM adapter with the real `openai` client against the scripted fake OpenAI server."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import openai
import pytest
from pydantic import BaseModel

from services.platform.llm import LlmClient, LlmSettings, Prompt
from tests.fake_openai import FakeOpenAI, Reply, fake_embedding, fake_openai_fixture  # noqa: F401

pytestmark = pytest.mark.integration

QUERY = {"query": "강남구 아파트 전세 시세 알려줘"}
RUN_ID = "run-llm-test"
Connect = Callable[..., LlmClient]


class Answer(BaseModel):
    intent: str
    confidence: float


FALLBACK = Answer(intent="UNCLEAR", confidence=0.0)
GOOD = {"intent": "MARKET_INQUIRY", "confidence": 0.9}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read the environment: a developer's real endpoint must not leak into these tests."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "JIPSA_LLM_", "JIPSA_EMBEDDING_")):
            monkeypatch.delenv(name)


@pytest.fixture
async def connect(fake_openai: FakeOpenAI) -> AsyncIterator[Connect]:
    """Clients on the fake server (override any setting by its variable name), closed afterwards."""
    made: list[LlmClient] = []

    def make(**overrides: Any) -> LlmClient:
        options = {"OPENAI_BASE_URL": fake_openai.base_url, "JIPSA_LLM_TIMEOUT_S": 5, **overrides}
        made.append(LlmClient(LlmSettings(**options)))
        return made[-1]

    yield make
    for client in made:
        await client.close()


async def plan(llm: LlmClient) -> Any:
    return await llm.structured("planning", QUERY, Answer, run_id=RUN_ID, fallback=lambda: FALLBACK)


async def test_a_good_answer_is_validated_and_recorded(fake_openai: FakeOpenAI, connect: Connect) -> None:
    fake_openai.script(Reply.json(GOOD), call_point="planning")
    result = await plan(connect())
    assert result.used_llm and result.value == Answer(**GOOD)
    record = result.record
    assert (record.outcome, record.fallback_used, record.error) == ("ok", False, None)
    assert (record.prompt_tokens, record.completion_tokens) == (11, 7)
    assert (record.call_point, record.prompt_name, record.run_id) == ("planning", "planning", RUN_ID)
    assert record.prompt_hash == Prompt.load("planning").hash and record.model == "gpt-4o-mini"
    [request] = fake_openai.requests_for("planning")
    assert request.response_format["type"] == "json_schema"
    assert QUERY["query"] in request.messages[1]["content"]


@pytest.mark.parametrize(
    "reply", [Reply.text('{"intent": "MARKET_'), Reply.json({"intent": "X"})], ids=["malformed", "mismatch"]
)
async def test_invalid_output_falls_back_without_retry(
    fake_openai: FakeOpenAI,
    connect: Connect,
    reply: Reply,
) -> None:
    fake_openai.script(reply, Reply.json(GOOD))
    result = await plan(connect())
    assert not result.used_llm and result.value is FALLBACK
    assert (result.record.outcome, result.record.fallback_used) == ("invalid_output", True)
    assert result.record.error and result.record.prompt_tokens == 11
    assert len(fake_openai.requests) == 1


async def test_a_fenced_json_answer_is_accepted(fake_openai: FakeOpenAI, connect: Connect) -> None:
    fake_openai.script(Reply.text('```json\n{"intent": "LOAN_CONSULT", "confidence": 0.5}\n```'))
    assert (await plan(connect())).value == Answer(intent="LOAN_CONSULT", confidence=0.5)


async def test_429_then_success_is_retried(fake_openai: FakeOpenAI, connect: Connect) -> None:
    fake_openai.script(Reply.error(429, retry_after=0), Reply.json(GOOD))
    result = await plan(connect())
    assert result.record.outcome == "ok" and result.value == Answer(**GOOD)
    assert len(fake_openai.requests) == 2


async def test_429_always_gives_up_after_max_attempts(fake_openai: FakeOpenAI, connect: Connect) -> None:
    fake_openai.set_default(Reply.error(429, retry_after=0))
    result = await plan(connect(JIPSA_LLM_MAX_ATTEMPTS=3))
    assert (result.record.outcome, result.value) == ("error", FALLBACK)
    assert "429" in result.record.error
    assert len(fake_openai.requests) == 3


async def test_5xx_is_retried_with_backoff(fake_openai: FakeOpenAI, connect: Connect) -> None:
    fake_openai.script(Reply.error(503), Reply.json(GOOD))
    assert (await plan(connect())).record.outcome == "ok"
    assert len(fake_openai.requests) == 2


async def test_other_4xx_falls_back_at_once(fake_openai: FakeOpenAI, connect: Connect) -> None:
    fake_openai.script(Reply.error(401, "bad key"), Reply.json(GOOD))
    result = await plan(connect())
    assert (result.record.outcome, result.value) == ("error", FALLBACK)
    assert len(fake_openai.requests) == 1


async def test_a_slow_reply_times_out_within_the_deadline(fake_openai: FakeOpenAI, connect: Connect) -> None:
    fake_openai.set_default(Reply.json(GOOD, delay_s=10))
    started = time.monotonic()
    # Deadline 2 s: the first attempt times out at 1 s and the second starts after a 0.25 s backoff
    # with 0.75 s left. (With 0.3 s attempts, a first one that took 0.35 s on a loaded machine left too
    # little of the deadline for a second, rightly, and the test counted one request.)
    result = await plan(connect(JIPSA_LLM_TIMEOUT_S=1.0, JIPSA_LLM_MAX_ATTEMPTS=2))
    assert (result.record.outcome, result.value) == ("timeout", FALLBACK)
    assert len(fake_openai.requests) == 2
    assert time.monotonic() - started < 5  # the deadline, not the fake's 10 s per reply


async def test_not_configured_never_reaches_the_network(fake_openai: FakeOpenAI) -> None:
    llm = LlmClient(LlmSettings())
    result = await plan(llm)
    assert (result.record.outcome, result.record.model, result.value) == ("not_configured", None, FALLBACK)
    assert result.record.prompt_hash == Prompt.load("planning").hash
    assert fake_openai.requests == []
    assert await llm.embed(["전세"]) is None


async def test_a_missing_variable_raises_even_without_an_endpoint() -> None:
    with pytest.raises(ValueError, match="missing"):
        await LlmClient(LlmSettings()).structured(
            "planning", {}, Answer, run_id=RUN_ID, fallback=lambda: FALLBACK
        )


async def test_model_overrides_per_call_point_and_role_reach_the_server(
    fake_openai: FakeOpenAI,
    connect: Connect,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JIPSA_LLM_MODEL_PLANNING", "planner-model")
    monkeypatch.setenv("JIPSA_LLM_MODEL_STRONG", "strong-model")
    fake_openai.script(Reply.json(GOOD), Reply.text("## 답변"))
    llm = connect()
    assert (await plan(llm)).record.model == "planner-model"
    variables = {"query": "q", "intent": "LEGAL_CONSULT", "step_results": [], "failed_steps": []}
    await llm.text("response_synthesis", variables, run_id=RUN_ID, fallback=lambda: "rules")
    assert [r.model for r in fake_openai.requests] == ["planner-model", "strong-model"]


async def test_text_answers_are_markdown_and_empty_ones_fall_back(
    fake_openai: FakeOpenAI, connect: Connect
) -> None:
    fake_openai.script(Reply.text("  **전세가율** 70%  "), Reply.text("   "), call_point="response_synthesis")
    llm = connect()
    variables = {"query": "q", "intent": "MARKET_INQUIRY", "step_results": [{"x": 1}], "failed_steps": []}
    first = await llm.text("response_synthesis", variables, run_id=RUN_ID, fallback=lambda: "rules")
    second = await llm.text("response_synthesis", variables, run_id=RUN_ID, fallback=lambda: "rules")
    assert (first.value, first.record.outcome) == ("**전세가율** 70%", "ok")
    assert (second.value, second.record.outcome) == ("rules", "invalid_output")
    assert all(r.response_format is None for r in fake_openai.requests)


async def test_servers_without_json_schema_get_json_object_mode(
    fake_openai: FakeOpenAI, connect: Connect
) -> None:
    fake_openai.json_schema_supported = False
    fake_openai.script(Reply.json(GOOD), Reply.json(GOOD))
    llm = connect()
    assert (await plan(llm)).record.outcome == "ok"
    assert (await plan(llm)).record.outcome == "ok"
    kinds = [r.response_format["type"] for r in fake_openai.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert "JSON Schema" in fake_openai.requests[-1].messages[0]["content"]


async def test_embeddings_round_trip(fake_openai: FakeOpenAI, connect: Connect) -> None:
    texts = ["강남구 아파트 전세", "강남구 아파트 전세 시세", "임대차계약서"]
    vectors = await connect(JIPSA_EMBEDDING_MODEL="fake-e5").embed(texts)
    assert vectors is not None and len(vectors) == 3
    for vector, text in zip(vectors, texts, strict=True):
        assert vector == pytest.approx(fake_embedding(text))
    similar, unrelated = (sum(a * b for a, b in zip(vectors[0], v, strict=True)) for v in vectors[1:])
    assert similar > unrelated
    [request] = fake_openai.requests_for("embeddings")
    assert request.model == "fake-e5"


async def test_a_failing_embedding_endpoint_gives_none(fake_openai: FakeOpenAI, connect: Connect) -> None:
    fake_openai.script(Reply.error(400), call_point="embeddings")
    llm = connect(OPENAI_BASE_URL=None, JIPSA_EMBEDDING_URL=fake_openai.base_url)
    assert await llm.embed(["전세"]) is None
    assert await llm.embed(["전세"]) == [pytest.approx(fake_embedding("전세"))]


async def test_a_bug_in_the_fallback_reaches_the_caller(connect: Connect) -> None:
    with pytest.raises(ZeroDivisionError):
        await LlmClient(LlmSettings()).structured(
            "planning", QUERY, Answer, run_id=RUN_ID, fallback=lambda: 1 / 0
        )


async def test_the_fake_speaks_base64_embeddings_and_lists_models(fake_openai: FakeOpenAI) -> None:
    """What other OpenAI clients ask for by default (the SDK's own default is base64)."""
    async with openai.AsyncOpenAI(base_url=fake_openai.base_url, api_key="x", max_retries=0) as sdk:
        response = await sdk.embeddings.create(model="any", input=["전세"])
        models = await sdk.models.list()
    assert response.data[0].embedding == pytest.approx(fake_embedding("전세"), abs=1e-6)
    assert [m.id for m in models.data] == ["fake-model"]
