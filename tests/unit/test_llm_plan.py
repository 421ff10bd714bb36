"""Plans from one LLM answer: entities from rules, house inputs, and validation that sends bad answers
back to rules."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from contracts.entities import DealType, PropertyType, QueryEntities
from contracts.planner import ReadingDisagreement
from contracts.steps import plan_inputs
from contracts.values import IntentType, StepFocus, Team
from services.housing.entities import extract_entities
from services.planner.followup import PriorTurn
from services.planner.llm_plan import (
    InvalidPlan,
    PlannedStep,
    PlanningAnswer,
    TurnReading,
    disagreements,
    plan_from_llm,
)
from services.planner.plan_rules import plan_by_rules

pytestmark = pytest.mark.unit
I = IntentType  # noqa: E741
QUERY = "강남구 아파트 전세 3억 이하 시세와 위험도 분석해줘"


def answer(*steps: PlannedStep, intent: IntentType = I.RISK_ANALYSIS) -> PlanningAnswer:
    return PlanningAnswer(intent=intent, confidence=0.8, keywords=["위험도"], steps=list(steps))


SEARCH = PlannedStep(
    id="search-market", team=Team.SEARCH, task="강남구 아파트 전세 시세 조회", focus=[StepFocus.MARKET]
)
RISK = PlannedStep(
    id="analyze-risk",
    team=Team.ANALYSIS,
    task="강남구 아파트 깡통전세 위험도 분석",
    focus=[StepFocus.JEONSE_RISK],
    depends_on=["search-market"],
)


def test_a_good_answer_becomes_a_plan_with_rules_entities() -> None:
    plan = plan_from_llm(answer(SEARCH, RISK), QUERY, None)
    assert plan.intent.type is I.RISK_ANALYSIS and plan.intent.keywords == ["위험도"]
    assert plan.intent.entities.price_max_manwon == 30000  # read by rules, not by the model
    assert [s.step_id for s in plan.steps] == ["search-market", "analyze-risk"]
    assert plan.steps[1].inputs == {
        "query": QUERY,
        "focus": ["jeonse_risk"],
        "entities": plan.intent.entities.model_dump(mode="json", exclude_defaults=True),
    }
    assert plan.strategy == "sequential" and plan.estimated_total_s > 0
    assert plan.steps[0].timeout_s > 0


def test_steps_listed_out_of_order_are_put_in_run_order() -> None:
    plan = plan_from_llm(answer(RISK, SEARCH), QUERY, None)
    assert [s.step_id for s in plan.steps] == ["search-market", "analyze-risk"]


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ((SEARCH, SEARCH), "used twice"),
        ((RISK,), "unknown step"),
        ((SEARCH, RISK.model_copy(update={"depends_on": ["analyze-risk"]})), "itself"),
        (
            (
                SEARCH.model_copy(update={"depends_on": ["analyze-risk"]}),
                RISK,
            ),
            "cycle",
        ),
        ((SEARCH.model_copy(update={"team": Team.DOCUMENT}),), "does not do focus"),
    ],
)
def test_invalid_steps_raise_invalid_plan(steps: tuple[PlannedStep, ...], message: str) -> None:
    with pytest.raises(InvalidPlan) as raised:
        plan_from_llm(answer(*steps), QUERY, None)
    assert any(message in e for e in raised.value.errors)


def test_an_intent_that_needs_teams_must_have_steps() -> None:
    with pytest.raises(InvalidPlan, match="needs at least one step"):
        plan_from_llm(answer(), QUERY, None)


def test_guidance_intents_take_no_steps() -> None:
    assert plan_from_llm(answer(intent=I.IRRELEVANT), "안녕", None).steps == []
    with pytest.raises(InvalidPlan, match="guidance"):
        plan_from_llm(answer(SEARCH, intent=I.UNCLEAR), "집", None)


def test_the_answer_schema_refuses_what_an_llm_gets_wrong() -> None:
    with pytest.raises(ValidationError):
        PlannedStep(id="Search Market!", team=Team.SEARCH, task="시세 조회", focus=[StepFocus.MARKET])
    with pytest.raises(ValidationError):
        PlannedStep(id="s", team=Team.SEARCH, task="시세 조회", focus=[])
    with pytest.raises(ValidationError):
        PlanningAnswer.model_validate({"intent": "SMALL_TALK", "confidence": 0.5})
    with pytest.raises(ValidationError):
        PlanningAnswer.model_validate({"intent": "UNCLEAR", "confidence": 1.5})


def test_the_schema_tells_the_model_what_each_field_means() -> None:
    schema = PlanningAnswer.model_json_schema()
    assert "first request" in schema["properties"]["intent"]["description"]
    step_props = schema["$defs"]["PlannedStep"]["properties"]
    assert all(step_props[name].get("description") for name in ("id", "team", "task", "focus", "depends_on"))


def test_a_follow_up_answer_uses_the_merged_entities() -> None:
    first = plan_by_rules(QUERY)
    plan = plan_from_llm(answer(SEARCH, RISK), "서초구는요?", PriorTurn(first.context_query, first.intent))
    assert plan.intent.entities.gu == ["서초구"] and plan.intent.entities.price_max_manwon == 30000
    assert plan.steps[0].inputs["previous_query"] == QUERY


@pytest.mark.parametrize("query", ["", "🙂", "x" * 2000])
def test_odd_queries_still_plan(query: str) -> None:
    plan = plan_from_llm(answer(SEARCH), query, None)
    assert plan_inputs(plan.steps[0].inputs).query == query


def test_the_models_reading_is_checked_against_the_rules_and_each_difference_named() -> None:
    rules = extract_entities("송파구 잠실역 근처 아파트 전세 보증보험 가입 되나요?")
    agreeing = TurnReading(
        gu=["송파구"],
        stations=["잠실역"],
        property_types=[PropertyType.APARTMENT],
        deal_type=DealType.JEONSE,
        guarantee_asked=True,
        lease_kinds_named=["deposit"],  # 전세 names the deposit
    )
    assert disagreements(agreeing, rules) == []
    assert disagreements(None, rules) == []  # no reading given: nothing to check
    otherwise = agreeing.model_copy(update={"deal_type": DealType.MONTHLY, "guarantee_asked": False})
    assert disagreements(otherwise, rules) == [
        ReadingDisagreement(field="deal_type", rules="jeonse", llm="monthly"),
        ReadingDisagreement(field="guarantee_asked", rules=True, llm=False),
    ]


def test_places_named_in_another_order_are_the_same_reading() -> None:
    rules = extract_entities("강남구랑 서초구 아파트 시세 비교")
    reversed_places = TurnReading(
        gu=list(reversed(rules.gu)), property_types=rules.property_types, market_level_asked=True
    )
    assert rules.gu == ["강남구", "서초구"] and disagreements(reversed_places, rules) == []


def test_the_models_reading_holds_no_amount_size_or_date() -> None:
    asked = set(TurnReading.model_fields)
    assert asked <= set(QueryEntities.model_fields)
    assert not {n for n in asked if n.endswith(("_manwon", "_m2")) or n in ("amounts", "dates", "since_last")}
    for name in asked:  # each field as the reading describes it
        assert TurnReading.model_fields[name].description == QueryEntities.model_fields[name].description
        assert TurnReading.model_fields[name].annotation == QueryEntities.model_fields[name].annotation
