"""대출 신청 준비 without servers: the applicant's facts asked first, then the real loan search and analysis
read them (as the plan wires them), and the checklist is written from their results: the documents the
lender asks for, the programme that fits with its limit and rate band, the LTV/DSR outcome, and that the
bank decides."""

from __future__ import annotations

import asyncio
import io
from datetime import date

import pytest
from docx import Document

from contracts.steps import StepInputs
from services.analysis.bootstrap import load_library
from services.analysis.handlers import analyse
from services.document.common.artifacts import DOCX, MARKDOWN
from services.document.loan.applicant import collect_applicant, documents_for
from services.document.loan.draft import draft_loan_checklist
from services.platform.team import StepWork
from services.search.loans import default_book, loan_result

pytestmark = pytest.mark.unit

PURCHASE = "아파트 구입 대출 신청 서류 준비해줘"
ANSWERS = {
    "price_won": "6억",
    "income_won": "연봉 7천만원",
    "existing_debt_monthly_won": "0",
    "house_count": "무주택",
    "region": "서울 마포구",
}


def step(step_id: str, query: str, focus: str, dependencies: dict | None = None, **inputs) -> StepWork:
    return StepWork(
        run_id="r1",
        step_id=step_id,
        task="대출 신청 준비",
        inputs=StepInputs.model_validate({"query": query, "focus": [focus], **inputs}),
        dependency_results=dependencies or {},
        attempt=1,
        session_id="s1",
    )


def test_the_applicants_missing_facts_are_asked_never_assumed() -> None:
    draft = draft_loan_checklist(step("applicant", PURCHASE, "loan_application"))
    asked = [q.field for q in draft.result.questions]
    assert asked == ["price_won", "income_won", "existing_debt_monthly_won", "house_count", "region"]
    assert draft.result.needs_input and draft.artifacts == []


def test_the_answered_facts_are_given_to_the_analyses_in_the_simulators_terms() -> None:
    draft = draft_loan_checklist(step("applicant", PURCHASE, "loan_application", answers=ANSWERS))
    assert not draft.result.needs_input and draft.artifacts == []
    assert draft.result.data["applicant"] == {
        "income_manwon": 7000.0,
        "existing_debt_monthly_manwon": 0.0,
        "house_count": 0,
        "price_manwon": 60000.0,
        "gu": ["마포구"],
    }


def test_the_documents_follow_the_purpose_and_the_persons_facts() -> None:
    jeonse, _ = collect_applicant("신혼부부 전세대출 신청, 기존 대출 월 30만원")
    names = [d.name for d in documents_for(jeonse)]
    assert "확정일자를 받은 임대차계약서 원본" in names and "부동산거래계약 신고필증" not in names
    assert any("혼인관계증명서" in n for n in names) and any("부채증명서" in n for n in names)


def test_the_checklist_is_written_from_the_loan_analyses_results() -> None:
    applicant = draft_loan_checklist(step("applicant", PURCHASE, "loan_application", answers=ANSWERS)).result
    search = loan_result(default_book(), PURCHASE, "sale", date(2025, 10, 20))
    dependencies = {"ask-loan-applicant": applicant, "search-loan": search}
    analysed = {
        step_id: asyncio.run(analyse(step(step_id, PURCHASE, focus, dependencies), load_library()))
        for step_id, focus in (("simulate-loan", "loan_simulation"), ("match-policy", "policy"))
    }
    dependencies |= {k: v.result for k, v in analysed.items()}

    draft = draft_loan_checklist(step("checklist", PURCHASE, "loan_application", dependencies))
    assert [a.media_type for a in draft.artifacts] == [DOCX, MARKDOWN]
    text = "\n".join(
        cell.text
        for table in Document(io.BytesIO(draft.artifacts[0].content)).tables
        for row in table.rows
        for cell in row.cells
    )
    for expected in (
        "6억원",
        "7,000만원",
        "무주택",
        "서울 마포구",
        "부동산거래계약 신고필증",
        "대출 가능 금액",
    ):
        assert expected in text, expected
    limit = analysed["simulate-loan"].result.data["loan_simulation"]["limit_manwon"]
    assert limit > 0 and any(f.label == "대출 가능 금액" and f.value == limit for f in draft.result.figures)
    assert "은행" in draft.result.findings[0] and "정하며" in draft.result.findings[0]
    programmes = draft.result.data["programmes"]
    assert programmes and all(p["rate"].startswith("연 ") and p["limits"] for p in programmes)
    assert any("디딤돌" in p["name"] for p in programmes)


def test_a_jeonse_checklist_lists_the_jeonse_programmes_and_papers_without_a_mortgage_limit() -> None:
    query = "전세대출 신청하려면 뭐가 필요해요"
    answers = {"deposit_won": "3억", "income_won": "4천만원", "existing_debt_monthly_won": "0"}
    answers |= {"house_count": "무주택", "region": "서울 관악구"}
    applicant = draft_loan_checklist(step("applicant", query, "loan_application", answers=answers)).result
    assert applicant.data["applicant"]["deposit_manwon"] == 30000.0
    dependencies = {"ask-loan-applicant": applicant}
    dependencies["search-loan"] = loan_result(default_book(), query, "jeonse", date(2025, 10, 20))
    policy = asyncio.run(analyse(step("match-policy", query, "policy", dependencies), load_library()))
    dependencies["match-policy"] = policy.result

    draft = draft_loan_checklist(step("checklist", query, "loan_application", dependencies))
    markdown = draft.result.data["markdown"]
    assert "확정일자를 받은 임대차계약서 원본" in markdown and "부동산거래계약 신고필증" not in markdown
    assert "보증기관의 보증 한도" in markdown and draft.result.figures == []
    assert all("전세" in p["name"] for p in draft.result.data["programmes"])
