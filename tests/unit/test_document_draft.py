"""The document step without servers: ask for what is missing, then write the contract once answered;
the DOCX is read back with python-docx and every field is found in its tables."""

from __future__ import annotations

import io
import zipfile

import pytest
from docx import Document

from contracts.steps import StepInputs
from services.document.bootstrap import CITABLE, DocumentSettings
from services.document.common.artifacts import DOCX, MARKDOWN
from services.document.common.citations import load_statutes
from services.document.handlers import draft_document
from services.document.lease.draft import draft_lease
from services.platform.team import StepWork

pytestmark = pytest.mark.unit

QUERY = "임대차계약서 작성해줘. 보증금 3억 5천, 월세 50만원, 2025년 3월 1일부터 2년"
ANSWERS = {
    "landlord_name": "홍길동",
    "tenant_name": "김영희",
    "address": "서울특별시 강남구 역삼동 123-4 래미안아파트 101동 1203호",
    "down_payment_won": "3500만원",
    "rent_day": "25",
}


@pytest.fixture(scope="module")
def statutes():
    return load_statutes(DocumentSettings().corpus_path, CITABLE)


def step(query: str = QUERY, **inputs) -> StepWork:
    return StepWork(
        run_id="r1",
        step_id="document",
        task="임대차계약서 작성",
        inputs=StepInputs.model_validate({"query": query, "focus": ["lease_contract"], **inputs}),
        dependency_results={},
        attempt=1,
        session_id="s1",
    )


def test_missing_fields_are_asked_and_no_document_is_made(statutes) -> None:
    draft = draft_lease(step(), statutes)
    fields = [q.field for q in draft.result.questions]
    assert fields == ["landlord_name", "tenant_name", "address", "down_payment_won", "rent_day"]
    assert all(q.label and q.hint for q in draft.result.questions)
    assert draft.artifacts == [] and draft.result.documents == []
    assert "임대인 성명" in draft.result.headline and "5가지" in draft.result.headline
    assert draft.result.data["lease_fields"]["deposit_won"] == 350_000_000


def test_unreadable_answers_and_blocking_problems_are_asked_again(statutes) -> None:
    answers = {**ANSWERS, "down_payment_won": "나중에", "term_end": "2026-02-28"}
    draft = draft_lease(step(answers=answers), statutes)
    asked = {q.field: q.hint for q in draft.result.questions}
    assert set(asked) == {"down_payment_won"}  # a term under 2 years is written, with a warning
    assert "읽을 수 없습니다" in asked["down_payment_won"]


def test_answered_step_writes_the_contract(statutes) -> None:
    draft = draft_lease(step(answers=ANSWERS), statutes)
    assert draft.result.questions == []
    assert [a.media_type for a in draft.artifacts] == [DOCX, MARKDOWN]
    markdown = draft.result.data["markdown"]
    assert draft.artifacts[1].content == markdown.encode()
    for expected in (
        "# 주택임대차 표준계약서",
        "금 삼억오천만원정(₩350,000,000)",
        "제13조(중개대상물확인설명서 교부)",
    ):
        assert expected in markdown
    assert any("잔금은 보증금에서 계약금을 뺀" in f for f in draft.result.findings)
    assert any(f.startswith("권장 특약") for f in draft.result.findings)


def test_the_same_contract_gives_the_same_bytes(statutes) -> None:
    first = draft_lease(step(answers=ANSWERS), statutes).artifacts
    second = draft_lease(step(answers=ANSWERS), statutes).artifacts
    assert [a.sha256 for a in first] == [a.sha256 for a in second]


def docx_cells(content: bytes) -> list[str]:
    document = Document(io.BytesIO(content))
    return [cell.text for table in document.tables for row in table.rows for cell in row.cells]


def test_every_field_is_in_the_docx_tables(statutes) -> None:
    query = (
        "임대인 홍길동, 임차인 김영희. 소재지 서울특별시 강남구 역삼동 123-4 래미안아파트 101동 1203호. "
        "임차할 부분 101동 1203호 전부, 면적 84.97㎡. 보증금 3억 5천만원, 계약금 3500만원, "
        "중도금 1억 2025년 2월 1일, 잔금 2억 1500만원 2025년 3월 1일. 월세 50만원 매월 25일. 관리비 15만원. "
        "계약기간 2025.3.1 ~ 2027.2.28. 중개업소 행복공인중개사사무소. 특약: 반려동물 허용; 주차 1대"
    )
    draft = draft_lease(step(query), statutes)
    assert draft.result.questions == []
    docx = draft.artifacts[0]
    assert zipfile.is_zipfile(io.BytesIO(docx.content))
    cells = "\n".join(docx_cells(docx.content))
    for expected in (
        "홍길동",
        "김영희",
        "서울특별시 강남구 역삼동 123-4 래미안아파트 101동 1203호",
        "101동 1203호 전부",
        "84.97㎡",
        "금 삼억오천만원정(₩350,000,000)",
        "금 삼천오백만원정(₩35,000,000)은 계약시에 지불",
        "금 일억원정(₩100,000,000)은 2025년 2월 1일에 지불하며",
        "금 이억일천오백만원정(₩215,000,000)은 2025년 3월 1일에 지불한다",
        "금 오십만원정(₩500,000)은 매월 25일에 지불한다",
        "(정액) 금 십오만원정(₩150,000)",
        "2025년 3월 1일부터 2027년 2월 28일까지 (24개월)",
        "반려동물 허용",
        "주차 1대",
        "행복공인중개사사무소",
        "보증금 있는 월세",
    ):
        assert expected in cells, expected


@pytest.mark.parametrize("focus", [[], ["lease_contract"]])
def test_a_sale_contract_is_a_sale_never_a_lease(statutes, focus: list[str]) -> None:
    """Without a focus, or with the lease's (the one a model's plan knows), a 매매 is written as a sale."""
    inputs = StepInputs.model_validate({"query": "아파트 매매계약서 작성해줘", "focus": focus})
    draft = draft_document(StepWork("r", "d", "매매계약서", inputs, {}, 1, "s"), statutes)
    assert draft.result.data["document"] == "sales_contract"
    assert {"seller_name", "buyer_name", "price_won"} <= {q.field for q in draft.result.questions}


def test_citations_come_from_the_corpus(statutes) -> None:
    answers = {**ANSWERS, "special_terms": "임차인은 계약갱신요구권을 행사하지 않는다"}
    draft = draft_lease(step(answers=answers), statutes)
    cited = {c.article_id: c for c in draft.result.citations}
    assert "주택임대차보호법/제10조" in cited
    assert "임차인에게 불리한 것은 그 효력이 없다" in cited["주택임대차보호법/제10조"].text


def test_a_follow_up_asking_for_the_contract_reads_the_earlier_questions_figures(statutes) -> None:
    # "강남구 역삼동 아파트 전세 보증금 3억" then "그럼 계약서 써줘": the deposit was said in the earlier turn
    # (the planner's previous_query); the lease asks for what neither turn said, never for the deposit
    follow_up = step("그럼 임대차계약서 써줘", previous_query="강남구 역삼동 아파트 전세 보증금 3억")
    asked = {q.field for q in draft_lease(follow_up, statutes).result.questions}
    assert "deposit_won" not in asked and asked
    alone = {q.field for q in draft_lease(step("그럼 임대차계약서 써줘"), statutes).result.questions}
    assert "deposit_won" in alone
