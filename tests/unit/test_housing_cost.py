"""What a home costs to live in: the monthly outgoings the person names, added up over the period asked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.analysis.case import Case
from services.analysis.lease.housing_cost import housing_cost
from services.housing.entities import extract_entities
from services.housing.money import format_manwon
from services.planner.plan_rules import plan_by_rules

pytestmark = pytest.mark.unit


def cost(question: str) -> tuple[str, list[float]]:
    result = housing_cost(Case(question, extract_entities(question)))
    return result.headline or "", [f.value for f in result.figures]


# How people name a period, and its months.
PERIODS = {"1년이면": 12, "일 년이면": 12, "2년 동안": 24, "6개월이면": 6, "한 달에": 1}


@given(
    rent=st.integers(min_value=20, max_value=300),
    fee=st.integers(min_value=1, max_value=60),
    period=st.sampled_from(sorted(PERIODS)),
    ask=st.sampled_from(["총 얼마예요?", "얼마 나가요?", "얼마 내는 거예요?"]),
)
def test_rent_and_fee_are_added_over_the_period_asked(rent: int, fee: int, period: str, ask: str) -> None:
    headline, figures = cost(f"월세 {rent}에 관리비 {fee}면 {period} {ask}")
    months = PERIODS[period]
    assert figures[0] == rent + fee
    assert f"한 달 {format_manwon(rent + fee)}" in headline
    if months > 1:
        assert figures[1] == (rent + fee) * months
        assert headline.endswith(f"이면 {format_manwon((rent + fee) * months)}입니다.")


def test_the_deposit_is_no_cost_and_a_fee_not_said_is_asked_for() -> None:
    headline, figures = cost("보증금 3천 월세 70인데 관리비 포함 한 달 얼마 나가요?")
    assert headline == "관리비 금액이 없어 월세 70만원만 더하면 한 달 70만원입니다."
    assert figures == [70]
    result = housing_cost(Case("보증금 3천 월세 70인데", extract_entities("보증금 3천 월세 70인데")))
    assert any("돌려받는 돈" in f for f in result.findings)


def test_a_sum_of_ones_own_outgoings_is_planned_as_that_sum_alone() -> None:
    """'월세 60에 관리비 15면 1년이면 얼마' was answered with the 관리비 articles of 공동주택관리법."""
    plan = plan_by_rules("월세 60에 관리비 15면 1년이면 얼마 나가는 거예요?")
    assert [s.step_id for s in plan.steps] == ["compute-housing-cost"]
    market = plan_by_rules("강남구 월세 시세 얼마예요?")
    assert "compute-housing-cost" not in [s.step_id for s in market.steps]
