"""The planner with an LLM endpoint: the real openai client against the fake OpenAI server. One merged
planning call when it answers well, rules on anything else, small talk and follow-ups without a call,
and every call recorded."""

from __future__ import annotations

import pytest

from contracts.values import Intent, IntentType
from services.planner.plan_rules import PriorTurn
from services.planner.planning import plan
from services.platform.llm import LlmClient, LlmSettings
from tests.fake_openai import FakeOpenAI, Reply, fake_openai_fixture  # noqa: F401  (fixture: fake_openai)

pytestmark = pytest.mark.integration

COMPOUND = "강남구 아파트 전세 시세 알려주고 깡통전세 위험도도 분석해줘"
GOOD_ANSWER = {
    "intent": "RISK_ANALYSIS",
    "confidence": 0.86,
    "keywords": ["전세 시세", "깡통전세"],
    "steps": [
        {
            "id": "search-market",
            "team": "search",
            "task": "강남구 아파트 전세 시세 조회",
            "focus": ["market"],
        },
        {
            "id": "analyze-risk",
            "team": "analysis",
            "task": "강남구 아파트 깡통전세 위험도 분석",
            "focus": ["jeonse_risk"],
            "depends_on": ["search-market"],
        },
    ],
}


@pytest.fixture
async def llm(fake_openai: FakeOpenAI):
    client = LlmClient(LlmSettings(OPENAI_BASE_URL=fake_openai.base_url, JIPSA_LLM_TIMEOUT_S=1))
    yield client
    await client.close()


async def test_one_structured_call_plans_a_compound_question(llm, fake_openai: FakeOpenAI) -> None:
    fake_openai.script(Reply.json(GOOD_ANSWER), call_point="planning")
    planned = await plan(llm, COMPOUND, None, "run1")
    assert planned.mode == "llm" and planned.plan.intent.type == IntentType.RISK_ANALYSIS
    assert [s.step_id for s in planned.plan.steps] == ["search-market", "analyze-risk"]
    assert planned.plan.steps[1].depends_on == ["search-market"] and planned.plan.strategy == "sequential"
    # numbers and places come from the rules extractor, never from the model
    assert planned.plan.steps[0].inputs["entities"]["gu"] == ["강남구"]
    (record,) = planned.llm_calls
    assert record.outcome == "ok" and not record.fallback_used and record.call_point == "planning"
    assert len(fake_openai.requests_for("planning")) == 1


async def test_the_models_reading_is_checked_and_the_rules_reading_kept(llm, fake_openai: FakeOpenAI) -> None:
    # The model reads 월세 where the question says 전세, and misses 아파트: both recorded, neither planned.
    reading = {
        "gu": ["강남구"],
        "deal_type": "monthly",
        "lease_kinds_named": ["deposit"],
        "market_level_asked": True,
    }
    fake_openai.script(Reply.json({**GOOD_ANSWER, "reading": reading}), call_point="planning")
    planned = await plan(llm, COMPOUND, None, "run7")
    assert planned.mode == "llm"
    entities = planned.plan.intent.entities
    assert entities.deal_type == "jeonse" and entities.property_types == ["apartment"]
    assert [(d.field, d.rules, d.llm) for d in planned.disagreements] == [
        ("property_types", ["apartment"], []),
        ("deal_type", "jeonse", "monthly"),
    ]
    schema = fake_openai.requests_for("planning")[0].body["response_format"]["json_schema"]["schema"]
    assert "TurnReading" in schema["$defs"]  # the reading is asked for as structured output


@pytest.mark.parametrize(
    "reply",
    [Reply.text("{not json"), Reply.json({"intent": "RISK_ANALYSIS"}), Reply.error(500), Reply.error(429)],
    ids=["malformed", "off-schema", "server-error", "rate-limited"],
)
async def test_any_failure_of_the_call_falls_back_to_rules(llm, fake_openai: FakeOpenAI, reply) -> None:
    fake_openai.script(reply, reply, call_point="planning")
    planned = await plan(llm, COMPOUND, None, "run2")
    assert planned.mode == "rules" and {s.team.value for s in planned.plan.steps} == {"search", "analysis"}
    (record,) = planned.llm_calls
    assert record.fallback_used and record.outcome in ("invalid_output", "error")


async def test_a_slow_endpoint_times_out_into_rules(llm, fake_openai: FakeOpenAI) -> None:
    fake_openai.script(Reply.json(GOOD_ANSWER, delay_s=5), Reply.json(GOOD_ANSWER, delay_s=5))
    planned = await plan(llm, COMPOUND, None, "run3")
    assert planned.mode == "rules" and planned.llm_calls[0].outcome == "timeout"


async def test_a_plan_that_does_not_validate_falls_back(llm, fake_openai: FakeOpenAI) -> None:
    cyclic = {**GOOD_ANSWER, "steps": [{**s, "depends_on": ["analyze-risk"]} for s in GOOD_ANSWER["steps"]]}
    fake_openai.script(Reply.json(cyclic), call_point="planning")
    planned = await plan(llm, COMPOUND, None, "run4")
    assert planned.mode == "rules"
    (record,) = planned.llm_calls
    assert record.outcome == "invalid_output" and record.fallback_used


async def test_small_talk_and_follow_ups_need_no_call(llm, fake_openai: FakeOpenAI) -> None:
    greeting = await plan(llm, "안녕하세요!", None, "run5")
    previous = PriorTurn(
        query="강남구 아파트 전세 시세 알려줘", intent=Intent(type="MARKET_INQUIRY", confidence=0.9)
    )
    follow_up = await plan(llm, "그럼 서초구는?", previous, "run6")
    assert greeting.plan.intent.type == IntentType.IRRELEVANT and greeting.llm_calls == ()
    assert follow_up.plan.intent.type == IntentType.MARKET_INQUIRY and follow_up.llm_calls == ()
    assert follow_up.plan.steps[0].inputs["entities"]["gu"] == ["서초구"]
    assert fake_openai.requests_for("planning") == []
