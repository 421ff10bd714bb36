"""The planner's document steps beside the lease: a sale contract asked for plans draft-sale (a pasted one
is reviewed by review-sale-contract), a loan application plans its checklist with the applicant's facts
asked before the loan analyses that read them, and a lease still plans draft-lease."""

from __future__ import annotations

import pytest

from contracts.values import IntentType
from services.planner.plan_rules import plan_by_rules
from services.planner.steps import validate_steps

pytestmark = pytest.mark.unit

LOAN_STEPS = ["search-loan", "ask-loan-applicant", "simulate-loan", "match-policy", "prepare-loan-checklist"]


@pytest.mark.parametrize(
    "query", ["매매계약서 작성해줘", "아파트 매매 계약서 써줘", "매매가 9억 계약금 9천 매매계약서 만들어줘"]
)
def test_a_sale_contract_is_drafted_by_the_sale_step(query: str) -> None:
    plan = plan_by_rules(query)
    assert plan.intent.type is IntentType.CONTRACT_CREATION
    assert [s.step_id for s in plan.steps] == ["draft-sale"]
    assert plan.steps[0].inputs["focus"] == ["sales_contract"] and plan.steps[0].team.value == "document"


@pytest.mark.parametrize("query", ["임대차계약서 작성해줘", "전세 계약서 만들어줘", "월세 계약서 써줘"])
def test_a_lease_is_still_drafted_by_the_lease_step(query: str) -> None:
    assert [s.step_id for s in plan_by_rules(query).steps] == ["draft-lease"]


def test_a_pasted_sale_contract_is_reviewed_by_the_document_team() -> None:
    pasted = "이 매매계약서 특약 검토해줘\n매도인 홍길동, 매수인 김영희\n특약: 1. 현 시설 상태로 매매한다."
    plan = plan_by_rules(pasted)
    assert plan.intent.type is IntentType.CONTRACT_REVIEW
    assert [s.step_id for s in plan.steps] == ["review-sale-contract"]


def test_a_loan_application_plans_its_checklist_after_the_facts_and_the_analyses() -> None:
    plan = plan_by_rules("대출 신청 서류 준비")
    steps = {s.step_id: s for s in plan.steps}
    assert plan.intent.type is IntentType.LOAN_CONSULT and list(steps) == LOAN_STEPS
    assert "ask-loan-applicant" in steps["simulate-loan"].depends_on
    assert "ask-loan-applicant" in steps["match-policy"].depends_on
    assert set(steps["prepare-loan-checklist"].depends_on) == set(LOAN_STEPS[:4])
    assert validate_steps(plan.steps) == [] and plan.strategy == "dag"


def test_a_jeonse_loan_application_is_not_simulated_as_a_mortgage() -> None:
    plan = plan_by_rules("전세대출 신청하려면 뭐가 필요해요")
    assert plan.intent.type is IntentType.LOAN_CONSULT
    assert [s.step_id for s in plan.steps] == [s for s in LOAN_STEPS if s != "simulate-loan"]
    assert validate_steps(plan.steps) == []


def test_a_loan_question_that_asks_no_application_gets_no_checklist() -> None:
    steps = [s.step_id for s in plan_by_rules("대출 한도 조회하고 금리 비교해줘").steps]
    assert steps == ["search-loan", "simulate-loan"]


def test_a_loan_application_asked_as_a_checklist_is_the_loans_not_the_laws() -> None:
    """'체크리스트' is a legal word (주의사항, 확인할 것); a loan application's checklist is the loan's."""
    plan = plan_by_rules(
        "전세자금대출 신청 준비 체크리스트 만들어줘. 연봉 5천, 무주택이고 서울 마포구에 전세 3억 구해요"
    )
    assert plan.intent.type is IntentType.LOAN_CONSULT
    assert {"ask-loan-applicant", "prepare-loan-checklist"} <= {s.step_id for s in plan.steps}
