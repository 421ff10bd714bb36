"""The day the person asked travels with the plan: the planner reads the question's dates against it and
tells every step, so a team reads '내일' as the planner did, and a replay of the same events reads the
same days."""

from __future__ import annotations

from datetime import date

import pytest

from contracts.steps import plan_inputs
from services.planner.handlers import said_on
from services.planner.plan_rules import plan_by_rules

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
