"""The sale contract (부동산매매계약서) without servers: 매매대금 = 계약금 + 중도금 + 잔금, the days in order
(계약일 ≤ 중도금일 ≤ 잔금일), the 특약 that protect the buyer suggested from the rule book, the review of a
pasted contract, and the contract written with its amounts in words and the 거래신고법 articles."""

from __future__ import annotations

import io
from datetime import date

import pytest
from docx import Document

from contracts.steps import StepInputs
from services.document.bootstrap import CITABLE, DocumentSettings
from services.document.common.artifacts import DOCX, MARKDOWN
from services.document.common.citations import load_statutes
from services.document.sale.checks import review_pasted_sale, review_sale
from services.document.sale.draft import draft_sale
from services.document.sale.fields import SaleFields, collect_sale_fields
from services.document.sale.rules import sale_rules
from services.platform.team import StepWork

pytestmark = pytest.mark.unit

SALE = SaleFields(
    seller_name="홍길동",
    buyer_name="김영희",
    address="서울특별시 마포구 아현동 123 래미안푸르지오 101동 1203호",
    area_m2=84.97,
    price_won=950_000_000,
    down_payment_won=95_000_000,
    interim_payment_won=300_000_000,
    interim_payment_date=date(2026, 4, 15),
    balance_won=555_000_000,
    balance_date=date(2026, 5, 29),
    contract_date=date(2026, 3, 20),
)
QUERY = "아파트 매매계약서 작성해줘. 매매대금 9억 5천만원, 계약금 9천500만원, 중도금 3억 2026년 4월 15일"
ANSWERS = {
    "seller_name": "홍길동",
    "buyer_name": "김영희",
    "address": "서울특별시 마포구 아현동 123 래미안푸르지오 101동 1203호",
    "area_m2": "84.97㎡",
    "contract_date": "2026-03-20",
    "balance_date": "2026년 5월 29일",
}
PASTED = """부동산매매계약서
매도인 홍길동, 매수인 김영희
제1조 매매대금 금 구억오천만원정
제2조 소유권 이전은 잔금일에 한다
특약사항:
1. 매도인은 잔금 수령과 동시에 소유권 이전 서류를 교부한다.
2. 현 시설 상태 그대로 매매하며 하자에 대하여 매도인은 책임지지 않는다.
"""


@pytest.fixture(scope="module")
def statutes():
    return load_statutes(DocumentSettings().corpus_path, CITABLE, sale_rules().paragraphs)


def step(query: str = QUERY, **inputs) -> StepWork:
    return StepWork(
        run_id="r1",
        step_id="sale",
        task="부동산매매계약서 작성",
        inputs=StepInputs.model_validate({"query": query, "focus": ["sales_contract"], **inputs}),
        dependency_results={},
        attempt=1,
        session_id="s1",
    )


def test_payments_that_do_not_add_up_to_the_price_are_asked_again() -> None:
    review = review_sale(SALE.model_copy(update={"balance_won": 500_000_000}))
    [error] = review.blocking
    assert error.field == "balance_won"
    assert "합(895,000,000원)" in error.message and "매매대금(950,000,000원)" in error.message


def test_a_missing_balance_is_what_the_price_leaves_and_is_said() -> None:
    review = review_sale(SALE.model_copy(update={"balance_won": None}))
    assert review.blocking == [] and review.fields.balance_won == 555_000_000
    assert any("매매대금에서 계약금과 중도금을 뺀" in f.message for f in review.findings)


def test_more_paid_before_the_balance_than_the_price_is_an_error_on_the_down_payment() -> None:
    review = review_sale(SALE.model_copy(update={"balance_won": None, "interim_payment_won": 900_000_000}))
    assert [f.field for f in review.blocking] == ["down_payment_won"]


@pytest.mark.parametrize(
    ("update", "field"),
    [
        ({"interim_payment_date": date(2026, 3, 1)}, "interim_payment_date"),  # before the contract
        ({"balance_date": date(2026, 4, 1)}, "balance_date"),  # before the interim payment
        (
            {
                "interim_payment_won": None,
                "interim_payment_date": None,
                "balance_won": 855_000_000,
                "balance_date": date(2026, 3, 19),
            },
            "balance_date",
        ),  # fmt: skip
    ],
)
def test_days_out_of_order_are_asked_again(update: dict, field: str) -> None:
    review = review_sale(SALE.model_copy(update=update))
    assert [f.field for f in review.blocking] == [field]
    assert "보다 앞섭니다" in review.blocking[0].message


def test_days_in_order_and_on_the_same_day_pass() -> None:
    same_day = SALE.model_copy(update={"interim_payment_date": date(2026, 5, 29)})
    assert review_sale(SALE).blocking == [] and review_sale(same_day).blocking == []


def test_protective_terms_are_suggested_unless_the_contract_says_them() -> None:
    suggested = review_sale(SALE).suggested_terms
    assert len(suggested) == 3
    assert any("근저당권" in t and "말소" in t for t in suggested)
    assert any("소유권 이전 등기에 필요한 모든 서류" in t for t in suggested)
    assert any("하자" in t for t in suggested)
    said = SALE.model_copy(update={"special_terms": ["매도인은 잔금일까지 근저당권을 말소한다"]})
    assert not any("근저당권" in t for t in review_sale(said).suggested_terms)


def test_the_land_permit_condition_is_suggested_only_in_a_permit_zone() -> None:
    zone = review_sale(SALE.model_copy(update={"land_permit_zone": True})).suggested_terms
    assert any("토지거래허가를 받는 것을 조건으로" in t for t in zone)
    assert not any("토지거래허가" in t for t in review_sale(SALE).suggested_terms)


def test_a_term_against_the_buyer_is_flagged_with_what_to_write_instead() -> None:
    terms = ["거래가격은 실거래가보다 낮게 신고한다"]
    [finding] = review_sale(SALE.model_copy(update={"special_terms": terms})).findings
    assert finding.severity == "warning" and "수정안" in finding.message
    assert finding.article_ids == ("부동산_거래신고_등에_관한_법률/제4조",)


def test_the_fields_are_read_from_a_sentence_and_never_invented() -> None:
    fields, problems = collect_sale_fields(
        "매도인 홍길동, 매수인 김영희. 매매가 9억 5천, 계약금 9500만원, 잔금 8억 5500만원 2026년 5월 29일. "
        "근저당 있는 집이고 토지거래허가구역이에요"
    )
    assert problems == {}
    assert (fields.seller_name, fields.buyer_name) == ("홍길동", "김영희")
    assert (fields.price_won, fields.down_payment_won, fields.balance_won) == (
        950_000_000,
        95_000_000,
        855_000_000,
    )
    assert fields.balance_date == date(2026, 5, 29) and fields.mortgage and fields.land_permit_zone
    assert fields.address is None and fields.contract_date is None and fields.area_m2 is None


def test_missing_fields_are_asked_and_nothing_is_written(statutes) -> None:
    draft = draft_sale(step(), statutes)
    asked = [q.field for q in draft.result.questions]
    assert asked == ["seller_name", "buyer_name", "address", "contract_date", "balance_date"]
    assert draft.result.needs_input and draft.artifacts == []
    assert draft.result.data["sale_fields"]["price_won"] == 950_000_000


def test_a_sale_said_with_relative_dates_is_written_for_the_days_they_mean(statutes) -> None:
    """dev-relative-date: '계약금 … 내일', '잔금 … 내년 2월 28일' read against the day asked (said_on)."""
    said = (
        "매매계약서 작성해줘. 매도인 윤서준, 매수인 장하은, 서울 강남구 도곡로 200 아파트, 매매대금 12억, "
        "계약금 1억2천은 내일 주고 잔금 10억8천은 내년 2월 28일에 줘요"
    )
    draft = draft_sale(step(said, said_on="2026-11-28"), statutes)
    assert draft.result.questions == [] and [a.media_type for a in draft.artifacts] == [DOCX, MARKDOWN]
    body = draft.artifacts[1].content.decode()
    assert "윤서준" in body and "장하은" in body and "도곡로 200" in body
    assert "계약일: 2026년 11월 29일" in body
    assert "금 십억팔천만원정(₩1,080,000,000)은 2027년 2월 28일에" in body


def test_the_answered_contract_is_written_with_words_articles_and_the_report_deadline(statutes) -> None:
    draft = draft_sale(step(answers=ANSWERS), statutes)
    assert draft.result.questions == []
    assert [a.media_type for a in draft.artifacts] == [DOCX, MARKDOWN]
    cells = "\n".join(
        cell.text
        for table in Document(io.BytesIO(draft.artifacts[0].content)).tables
        for row in table.rows
        for cell in row.cells
    )
    for expected in (
        "금 구억오천만원정(₩950,000,000)",
        "금 구천오백만원정(₩95,000,000)은 계약시(2026년 3월 20일)에 지불",
        "금 삼억원정(₩300,000,000)은 2026년 4월 15일에 지불하며",
        "금 오억오천오백만원정(₩555,000,000)은 2026년 5월 29일에 지불한다",
        "84.97㎡",
        "기한: 2026년 4월 19일까지",
        "부동산 거래신고 등에 관한 법률 제3조①(부동산 거래의 신고)",
    ):
        assert expected in cells, expected
    cited = {c.article_id: c for c in draft.result.citations}
    report = cited["부동산_거래신고_등에_관한_법률/제3조"]
    assert report.paragraph == 1 and "30일 이내" in report.text
    assert any(f.startswith("권장 특약") and "근저당권" in f for f in draft.result.findings)


def test_a_pasted_contract_without_a_mortgage_release_is_told_so_with_the_clause_to_add() -> None:
    findings = review_pasted_sale(PASTED)
    messages = [f.message for f in findings]
    missing = next(f for f in findings if "잔금 전 근저당 등 말소" in f.message)
    assert missing.severity == "warning" and "말소하지 않으면 매수인은 계약을 해제" in missing.message
    assert any("하자담보책임 면제" in m for m in messages)  # 2. is against the buyer
    assert not any("소유권 이전 서류 교부" in m for m in messages)  # 1. already says it


def test_a_pasted_sale_contract_is_reviewed_with_the_reporting_articles(statutes) -> None:
    draft = draft_sale(step(PASTED), statutes)
    assert draft.artifacts == [] and not draft.result.needs_input
    assert "매수인에게 불리하거나 빠진 부분" in draft.result.headline
    assert any("근저당" in f and "말소" in f for f in draft.result.findings)
    assert "부동산_거래신고_등에_관한_법률/제3조" in {c.article_id for c in draft.result.citations}
