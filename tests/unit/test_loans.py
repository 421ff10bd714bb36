"""The shipped loan data file validates, and dated rules are presented only while in force."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from contracts.entities import QueryEntities
from services.document.loan.applicant import LoanApplicant, applicant_from_text
from services.housing.entities import extract_entities
from services.housing.money import format_manwon
from services.search.loans import (
    LOAN_FILE,
    LoanBook,
    audiences_in,
    current_programs,
    load_loan_book,
    loan_result,
    select_entries,
    terms_answer,
    wanted_kinds,
)

pytestmark = pytest.mark.unit
TODAY = date(2025, 11, 1)


@pytest.fixture(scope="module")
def book() -> LoanBook:
    return load_loan_book()


def test_shipped_file_validates_and_names_every_required_programme(book: LoanBook) -> None:
    names = {e.name for e in book.entries}
    for needed in (
        "버팀목 전세자금대출",
        "신혼부부 전용 버팀목 전세자금대출",
        "청년 전용 버팀목 전세자금대출",
        "보금자리론",
    ):
        assert needed in names
    assert {"ltv", "dsr", "stress_dsr", "dti"} <= {e.kind for e in book.entries}
    assert all(e.source.title and e.source.date for e in book.entries)


def test_special_bogeumjari_is_never_current_after_its_end(book: LoanBook) -> None:
    special = next(e for e in book.entries if e.id == "special_bogeumjari")
    assert special.effective_to == date(2024, 1, 29)
    assert special in current_programs(date(2023, 6, 1), book)
    assert special not in current_programs(date(2024, 1, 30), book)
    assert special not in current_programs(TODAY, book)


def test_stress_dsr_phases_follow_each_other(book: LoanBook) -> None:
    phases = sorted((e for e in book.entries if e.kind == "stress_dsr"), key=lambda e: e.effective_from)
    assert [e.effective_from for e in phases] == [date(2024, 2, 26), date(2024, 9, 1), date(2025, 7, 1)]
    assert [e.id for e in current_programs(TODAY, book) if e.kind == "stress_dsr"] == ["stress_dsr_3"]


def test_one_ltv_rule_in_force_at_a_time(book: LoanBook) -> None:
    for day in (date(2024, 1, 1), date(2025, 7, 1), TODAY):
        assert len([e for e in current_programs(day, book) if e.kind == "ltv"]) == 1


def test_end_before_start_is_refused(tmp_path: Path) -> None:
    raw = json.loads(LOAN_FILE.read_text(encoding="utf-8"))
    raw["entries"][0]["effective_to"] = "2000-01-01"
    (tmp_path / "bad.json").write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(ValidationError, match="before"):
        load_loan_book(tmp_path / "bad.json")


@pytest.mark.parametrize(
    ("field", "value"),
    [("rate_min_pct", 9.0), ("effective_from", "2024-13-01"), ("kind", "mortgage"), ("audiences", [])],
)
def test_bad_entries_are_refused(tmp_path: Path, field: str, value: object) -> None:
    raw = json.loads(LOAN_FILE.read_text(encoding="utf-8"))
    raw["entries"][0][field] = value
    with pytest.raises(ValidationError):
        LoanBook.model_validate(raw)


def test_a_percent_limit_above_100_is_refused() -> None:
    raw = json.loads(LOAN_FILE.read_text(encoding="utf-8"))
    raw["entries"][0]["limits"][0] = {"label": "LTV", "value": 120, "unit": "%"}
    with pytest.raises(ValidationError, match="share"):
        LoanBook.model_validate(raw)


def test_words_pick_audiences_and_kinds() -> None:
    assert audiences_in("신혼부부인데 생애최초로 집 사요") == {"newlywed", "first_home"}
    assert audiences_in("강남 아파트 시세") == set()
    assert wanted_kinds("jeonse", "") == {"jeonse_loan"}
    assert "ltv" in wanted_kinds(None, "매매 대출 한도")
    assert wanted_kinds(None, "대출 알려줘") == {
        "jeonse_loan",
        "purchase_loan",
        "ltv",
        "dsr",
        "stress_dsr",
        "dti",
    }


def test_audience_programmes_come_first_and_others_audiences_stay_out(book: LoanBook) -> None:
    chosen = select_entries(current_programs(TODAY, book), {"jeonse_loan"}, {"youth"})
    assert [e.id for e in chosen] == ["youth_beotimmok", "beotimmok_jeonse"]


def test_loan_result_cites_sources_and_flags_an_ended_programme(book: LoanBook) -> None:
    result = loan_result(book, "특례보금자리론 받을 수 있나요?", "sale", TODAY)
    assert result.findings[0].startswith("특례보금자리론은(는) 2024-01-29에 종료")
    ids = [e["id"] for e in result.data["loan_products"]]
    assert "special_bogeumjari" not in ids and "bogeumjari" in ids and "dsr_borrower" in ids
    assert all("시행" in f.source for f in result.figures)
    assert any(f.label == "차주단위 DSR DSR 한도 (은행)" and f.value == 40 for f in result.figures)


def test_a_rule_asked_about_is_answered_by_what_it_means(book: LoanBook) -> None:
    # infra/seed/loans/loan_programs.json `terms`: each names its kind of entry; a question asking what a
    # rule is (or how two differ) is answered first by that, not by a count of the programmes in force
    assert {t.kind for t in book.terms} <= {e.kind for e in book.entries}
    both = terms_answer(book, "LTV랑 DSR 차이가 뭐에요? 둘 다 걸리면 뭐가 대출한도를 정하는 거예요")
    assert both is not None and both.startswith("LTV(담보인정비율)는 주택 가격 대비 대출금, DSR(")
    assert "가장 낮은 금액이 대출 한도" in both
    alone = terms_answer(book, "스트레스 DSR이 뭔가요?")
    assert alone is not None and alone.startswith("스트레스 DSR은")
    assert terms_answer(book, "LTV 70%면 얼마까지 빌려요?") is None  # a figure asked, not a meaning
    result = loan_result(book, "DTI가 무슨 뜻이에요?", None, TODAY)
    assert result.headline.startswith("DTI(총부채상환비율)는 연소득 대비")


def test_the_persons_own_figures_rule_programmes_out_and_say_why(book: LoanBook) -> None:
    # loan_programs.json: 버팀목 전세자금대출 임차보증금 상한 3억원 (수도권; 2억원 elsewhere: the larger cap
    # is taken, so 3억 5천 is over both); 디딤돌 needs 무주택 (house_count_max 0); 디딤돌 주택가격 상한 5억원
    jeonse = loan_result(book, "전세 3억 5천 버팀목 되나요? 연소득 4천", None, TODAY)
    assert jeonse.headline.startswith("말씀하신 조건으로는 버팀목 전세자금대출(임차보증금 상한 3억원)")
    owner = loan_result(book, "1주택자인데 디딤돌 되나요", None, TODAY)
    assert "내집마련 디딤돌 대출(무주택 요건)" in owner.headline and "받을 수 없습니다" in owner.headline
    pricey = loan_result(book, "연봉 6천 무주택인데 9억 아파트 사려면 디딤돌 돼요?", None, TODAY)
    assert "내집마련 디딤돌 대출(주택가격 상한 5억원)" in pricey.headline
    # a programme ruled out shows none of its figures; one the person's words do not rule out stays
    assert not any(f.label.startswith("내집마련 디딤돌 대출") for f in pricey.figures)
    fits = loan_result(book, "연봉 4천 무주택 5억 집 디딤돌 가능?", None, TODAY)
    assert fits.headline.startswith("내집마련 디딤돌 대출") and "막히는 요건은 없고" in fits.headline


def test_a_family_named_by_a_newlywed_is_answered_for_the_newlyweds_programme(book: LoanBook) -> None:
    # loan_programs.json: 버팀목 전세자금대출 연소득 상한 5,000만원; 신혼부부 전용 버팀목 7,500만원
    asked = loan_result(book, "신혼부부인데 전세 3억 구하면 버팀목 되나요? 합산 연봉 6500이에요", None, TODAY)
    assert asked.verdict
    assert "버팀목 전세자금대출(연소득 상한 5,000만원)을 받을 수 없습니다" in asked.headline
    assert "신혼부부 전용 버팀목 전세자금대출은 말씀하신 내용으로 막히는 요건은 없고" in asked.headline
    assert not loan_result(book, "전세자금대출 상품 알려줘", None, TODAY).verdict


def test_an_income_said_in_an_earlier_turn_rules_programmes_out(book: LoanBook) -> None:
    # "부부 합쳐서 연 7천 벌어요", then "버팀목 전세대출 받을 수 있을까요?": the planner's reading of
    # the second turn carries the income (QueryEntities.income_manwon); 버팀목 5,000만원 < 7,000 <=
    # 신혼부부 전용 7,500만원.
    question = "버팀목 전세대출 받을 수 있을까요?"
    asked = loan_result(book, question, None, TODAY, QueryEntities(income_manwon=7000))
    assert "버팀목 전세자금대출(연소득 상한 5,000만원)" in asked.headline
    assert "받을 수 없습니다" in asked.headline and "신혼부부 전용 버팀목 전세자금대출" in asked.headline
    assert "받을 수 없습니다" not in loan_result(book, question, None, TODAY).headline


def test_programmes_named_by_whom_they_are_for_are_answered_with_their_verdict(book: LoanBook) -> None:
    # loan_programs.json: 청년 전용 버팀목 전세자금대출 만 19~34세, 연소득 상한 5,000만원
    young = loan_result(book, "청년 전세대출 조건 알려줘 만 29살 연봉 3200", None, TODAY)
    assert young.verdict and young.headline.startswith("청년 전용 버팀목 전세자금대출은 말씀하신 내용으로")
    older = loan_result(book, "만 36살인데 청년 전세대출 돼요?", None, TODAY)
    assert "청년 전용 버팀목 전세자금대출(만 19~34세 요건)을 받을 수 없습니다" in older.headline


def test_families_asked_apart_are_set_side_by_side(book: LoanBook) -> None:
    # loan_programs.json: 내집마련 디딤돌 연소득 6,000만원·무주택·주택가격 5억원; 보금자리론 7,000만원·6억원
    asked = loan_result(book, "디딤돌이랑 보금자리론 차이가 뭐예요?", None, TODAY)
    assert asked.verdict and asked.headline == (
        "내집마련 디딤돌 대출(구입자금대출)은 연소득 6,000만원 이하·무주택·주택가격 5억원 이하, "
        "금리 연 2.35~3.95%입니다. "
        "보금자리론(구입자금대출)은 연소득 7,000만원 이하·주택가격 6억원 이하입니다."
    )
    apart = loan_result(book, "버팀목이랑 디딤돌 뭐가 달라요?", None, TODAY).headline
    assert apart.startswith("버팀목 전세자금대출은 연소득 5,000만원 이하·무주택")


@pytest.mark.parametrize(
    ("query", "kinds"),
    [
        ("버팀목 금리 얼마예요", {"jeonse_loan"}),
        ("디딤돌 조건 알려줘", {"purchase_loan", "ltv", "dsr", "stress_dsr", "dti"}),
        ("ltv 몇 퍼센트예요", {"purchase_loan", "ltv", "dsr", "stress_dsr", "dti"}),
    ],
)
def test_what_a_loan_is_for_is_read_as_the_loan_application_reads_it(query: str, kinds: set[str]) -> None:
    """One list of words (services/housing/vocabulary.py) for the loan search and the application."""
    assert wanted_kinds(None, query) == kinds
    purpose = "jeonse" if kinds == {"jeonse_loan"} else "purchase"
    assert applicant_from_text(query)["purpose"] == query
    assert LoanApplicant(purpose=query).purpose == purpose


def test_a_rate_asked_of_a_named_programme_is_answered_with_its_rate(book: LoanBook) -> None:
    # loan_programs.json: 내집마련 디딤돌 대출 연 2.35~3.95%; 보금자리론 carries no rate
    asked = loan_result(book, "디딤돌 이자율 어떻게 돼요", None, TODAY)
    assert asked.verdict and asked.headline.startswith("금리는 내집마련 디딤돌 대출 연 2.35~3.95%")
    unpriced = loan_result(book, "보금자리론 금리 얼마예요?", None, TODAY)
    assert "보금자리론(한국주택금융공사)의 금리는 가진 자료에 없습니다" in unpriced.headline
    # whether the person may have it is the other question
    assert "막히는 요건" in loan_result(book, "디딤돌 되나요? 금리는?", None, TODAY).headline


def _limit_headline(book: LoanBook, query: str) -> str:
    entities = extract_entities(query)
    return loan_result(book, query, "jeonse", TODAY, entities).headline


@given(deposit=st.integers(min_value=1_000, max_value=60_000).map(lambda d: d // 500 * 500))
def test_a_jeonse_limit_asked_is_each_programmes_cap_share_or_refusal_on_that_deposit(deposit: int) -> None:
    """'전세 N이면 전세대출 얼마까지 나와요?': 버팀목 in Seoul lends the lower of 1억 2,000만원 and 70% of the
    deposit, and nothing on a deposit over 3억 (loan_programs.json); the answer says so for any deposit."""
    book = load_loan_book()
    said = _limit_headline(book, f"전세 {format_manwon(deposit)}이면 전세대출 얼마까지 나와요?")
    general = said.split("버팀목 전세자금대출은 ", 1)[1].split(".")[0]
    if deposit > 30_000:
        assert general == "임차보증금 상한 3억원을 넘어 받을 수 없습니다"
    else:
        assert general.startswith(f"최대 {format_manwon(min(12_000, round(deposit * 0.7)))}(")


def test_a_jeonse_limit_names_whom_other_figures_rule_out(book: LoanBook) -> None:
    said = _limit_headline(book, "연봉 6천인데 전세 2억 대출 한도가 얼마예요?")
    assert "버팀목 전세자금대출은 연소득 상한 5,000만원에 걸립니다" in said
    assert "신혼부부 전용 버팀목 전세자금대출은 최대 1억 6,000만원(보증금의 80%)입니다" in said
    assert _limit_headline(book, "전세 2억 버팀목 되나요?").endswith("나머지 자격은 심사에서 확인합니다.")
