"""The day the person asked travels with the plan: the planner reads the question's dates against it and
tells every step, so a team reads '내일' as the planner did, and a replay of the same events reads the
same days."""

from __future__ import annotations

from datetime import date

import pytest

from contracts.steps import plan_inputs
from services.planner.handlers import said_on
from services.planner.plan_rules import plan_by_rules
from services.planner.planning import plan
from services.platform.llm import LlmClient, LlmSettings

pytestmark = pytest.mark.unit

SALE = (
    "매매계약서 작성해줘. 매도인 윤서준, 매수인 장하은, 서울 강남구 도곡로 200 아파트, 매매대금 12억, "
    "계약금 1억2천은 내일 주고 잔금 10억8천은 내년 2월 28일에 줘요"
)


def test_the_questions_dates_are_read_against_the_day_asked() -> None:
    plan = plan_by_rules(SALE, today=date(2026, 11, 28))
    entities = plan_inputs(plan.steps[0].inputs).entities
    assert entities.dates == ["2026-11-29", "2027-02-28"]


def test_every_step_carries_the_day_asked_and_reads_it_back_typed() -> None:
    plan = plan_by_rules(
        "강남구 아파트 전세 시세와 위험도 분석해줘 다음 달 말 입주", today=date(2026, 11, 28)
    )
    steps = said_on(plan.steps, date(2026, 11, 28))
    assert len(steps) >= 2
    assert {plan_inputs(step.inputs).said_on for step in steps} == {date(2026, 11, 28)}
    assert [plan_inputs(s.inputs).query for s in steps] == [plan_inputs(s.inputs).query for s in plan.steps]


async def test_the_planner_reads_a_turn_once_against_its_own_day_so_a_replay_reads_the_same() -> None:
    llm = LlmClient(LlmSettings(OPENAI_BASE_URL=None))  # rules: no endpoint
    asked, later = date(2026, 11, 28), date(2026, 12, 5)
    first, replayed = [await plan(llm, SALE, None, "r1", asked) for _ in range(2)]
    assert first.plan.intent.entities.dates == ["2026-11-29", "2027-02-28"]
    assert replayed.plan.intent.entities == first.plan.intent.entities
    # the same words on another day are another reading: '내일' is that day's tomorrow
    assert (await plan(llm, SALE, None, "r2", later)).plan.intent.entities.dates[0] == "2026-12-06"
    await llm.close()
