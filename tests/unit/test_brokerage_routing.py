"""A question about the brokerage fee, in the words people use (복비, 중개비, 부동산 수수료, "부동산에 얼마
줘야"), is planned with the step that computes it and reaches the analysis tool that does; a question that
only names a broker is not."""

from __future__ import annotations

import pytest

from contracts.steps import StepInputs, plan_inputs
from services.analysis.tools import ANALYSIS_TEAM
from services.planner.followup import PriorTurn
from services.planner.plan_rules import plan_by_rules
from services.platform.team import StepWork
from services.platform.team_of_tools import choose_by_rules

pytestmark = pytest.mark.unit

ASKS_THE_FEE = [
    "매매 15억이면 중개보수 얼마",
    "보증금 2천에 월세 70 복비",
    "시골 빌라 4천5백에 매매하는데 중개비 얼마예요?",
    "전세 2억5천 계약하는데 부동산에 얼마 줘야 돼요?",
    "12억 아파트 매매 부동산 수수료 상한이 얼마예요",
    "원룸 보증금 1000 월세 50이면 중개사한테 얼마 드려야 해요?",
    "오피스텔 전세 2억 중개 수수료 계산해줘",
]
DOES_NOT = [
    "강남구 아파트 매매 시세 알려줘",
    "공인중개사 자격 시험은 어떻게 봐요?",
    "부동산에 가서 뭘 확인해야 해요?",
]


@pytest.mark.parametrize("query", ASKS_THE_FEE)
def test_a_fee_question_is_planned_with_the_fee_step_and_reaches_the_fee_tool(query: str) -> None:
    assert "compute-brokerage-fee" in [step.step_id for step in plan_by_rules(query).steps]
    work = StepWork("run-1", "a1", "분석", StepInputs(query=query), {}, 1)
    assert "brokerage_fee" in choose_by_rules(ANALYSIS_TEAM, work).names


@pytest.mark.parametrize("query", DOES_NOT)
def test_a_question_that_only_names_a_broker_computes_no_fee(query: str) -> None:
    assert "compute-brokerage-fee" not in [step.step_id for step in plan_by_rules(query).steps]


@pytest.mark.parametrize(
    ("before", "asked", "amounts"),
    [
        (
            "전세 4억짜리 아파트 계약하려고 해요",
            "그럼 복비는 얼마 나와요?",
            [40000],
        ),  # a statement, then the fee
        ("보증금 3000에 월세 100짜리 투룸 보고 있어요", "중개수수료는 최대 얼마예요?", [3000, 100]),
    ],
)
def test_a_fee_asked_without_an_amount_is_reckoned_on_the_turn_before(before, asked, amounts) -> None:
    first = plan_by_rules(before)
    plan = plan_by_rules(asked, PriorTurn(first.context_query, first.intent))
    (fee_step,) = [step for step in plan.steps if step.step_id == "compute-brokerage-fee"]
    assert plan_inputs(fee_step.inputs).entities.amounts_manwon == amounts


def test_a_fee_asked_with_its_own_amount_ignores_the_turn_before() -> None:
    first = plan_by_rules("전세 4억짜리 아파트 계약하려고 해요")
    plan = plan_by_rules("매매 15억이면 중개보수 얼마", PriorTurn(first.context_query, first.intent))
    (fee_step,) = [step for step in plan.steps if step.step_id == "compute-brokerage-fee"]
    assert plan_inputs(fee_step.inputs).entities.amounts_manwon == [150000]


def test_a_fee_asked_to_be_calculated_is_not_also_a_contract_review() -> None:
    # "계산해줘" asks for analysis; with no contract given, the analysis asked is the fee alone.
    steps = [step.step_id for step in plan_by_rules("보증금 500에 월세 40 복비 계산해줘").steps]
    assert steps == ["search-legal", "compute-brokerage-fee"]
    pasted = "이 계약서 특약 검토해주고 복비도 계산해줘\n특약1. 임차인은 전입신고를 하지 않는다."
    assert "review-contract" in [step.step_id for step in plan_by_rules(pasted).steps]
