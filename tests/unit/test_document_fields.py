"""Lease fields from Korean sentences, earlier turns, listings and the person's answers."""

from __future__ import annotations

from datetime import date

import pytest

from contracts.results import ListingRow, StepResult
from services.document.common.fields import read_answer
from services.document.lease.fields import REQUIRED, collect_fields, fields_from_text, missing_fields
from services.housing.dates import months_between, term_end

pytestmark = pytest.mark.unit


def test_the_issue_example() -> None:
    fields, problems = collect_fields("보증금 3억 5천, 월세 50만원, 2025년 3월 1일부터 2년")
    assert problems == {}
    assert fields.deposit_won == 350_000_000
    assert fields.monthly_rent_won == 500_000
    assert fields.term_start == date(2025, 3, 1)
    assert fields.term_end == date(2027, 2, 28)


def test_a_full_contract_sentence() -> None:
    found = fields_from_text(
        "임대인 홍길동, 임차인 김영희. 소재지 서울특별시 강남구 역삼동 123-4 래미안아파트 101동 1203호. "
        "임차할 부분 101동 1203호 전부, 면적 84.97㎡. 보증금 3억 5천만원, 계약금 3500만원, "
        "중도금 1억 2025년 2월 1일, 잔금 2억 1500만원 2025년 3월 1일. 관리비 15만원. "
        "계약기간 2025.3.1 ~ 2027.2.28. 중개업소 행복공인중개사사무소"
    )
    assert found == {
        "landlord_name": "홍길동",
        "tenant_name": "김영희",
        "address": "서울특별시 강남구 역삼동 123-4 래미안아파트 101동 1203호",
        "leased_part": "101동 1203호 전부",
        "area_m2": 84.97,
        "deposit_won": 350_000_000,
        "down_payment_won": 35_000_000,
        "interim_payment_won": 100_000_000,
        "interim_payment_date": date(2025, 2, 1),
        "balance_won": 215_000_000,
        "balance_date": date(2025, 3, 1),
        "maintenance_fee_won": 150_000,
        "term_start": date(2025, 3, 1),
        "term_end": date(2027, 2, 28),
        "broker_office": "행복공인중개사사무소",
    }


def test_colloquial_monthly_rent() -> None:
    found = fields_from_text(
        "임대인은 홍길동이고 임차인은 이영희입니다. 서울 마포구 합정동 12-3 합정빌라 201호를 "
        "보증금 1000/50에 빌립니다. 매월 25일 지급, 관리비 7만원, 전용 10평"
    )
    assert found["landlord_name"] == "홍길동" and found["tenant_name"] == "이영희"
    assert found["address"] == "서울 마포구 합정동 12-3 합정빌라 201호"
    assert (found["deposit_won"], found["monthly_rent_won"]) == (10_000_000, 500_000)
    assert found["rent_day"] == 25 and found["maintenance_fee_won"] == 70_000
    assert found["area_m2"] == 33.06


def test_jeonse_with_interim_payment_and_special_terms() -> None:
    found = fields_from_text(
        "전세 계약서 작성해줘. 전세금 2억, 계약금 2천만원, 중도금 5천만원 2025년 2월 1일, "
        "잔금 1억 3천 2025-03-01. 2025년 3월 1일부터 24개월. 근저당 있음. "
        "특약: 반려동물 허용; 보증금은 종료일에 반환한다"
    )
    assert found["deposit_won"] == 200_000_000
    assert found["interim_payment_won"] == 50_000_000 and found["balance_won"] == 130_000_000
    assert found["term_months"] == 24 and found["mortgage"] is True
    # 특약 mention 보증금 but are read as 특약, not as the deposit.
    assert found["special_terms"] == ["반려동물 허용", "보증금은 종료일에 반환한다"]


def test_a_renewal_states_the_previous_price() -> None:
    found = fields_from_text("보증금을 3억에서 3억 3천으로 올려서 갱신하려고 해요")
    assert found == {"previous_deposit_won": 300_000_000, "deposit_won": 330_000_000, "renewal": True}
    assert fields_from_text("기존 월세 100만원, 월세 110만원으로 갱신")["previous_rent_won"] == 1_000_000


def test_other_parties_words() -> None:
    found = fields_from_text("집주인 박철수 세입자 최민수, 행복공인중개사사무소 중개")
    assert found == {
        "landlord_name": "박철수",
        "tenant_name": "최민수",
        "broker_office": "행복공인중개사사무소",
    }


@pytest.mark.parametrize(
    "text",
    [
        "임대차계약서 작성해줘",
        "전세 계약서 써줘",
        "안녕하세요",
        "임대인 정보는 나중에 줄게요",  # 정보 is not a name
        "임차인이 반려동물을 키워도 되나요",
        "임대인 측에서 원하면 임차인이 원하면",
        "보증금은 아직 몰라요",
        "강남구 아파트",  # too vague to be the home's address
    ],
)
def test_nothing_is_invented_from_vague_text(text: str) -> None:
    found = fields_from_text(text)
    assert not {"landlord_name", "tenant_name", "address", "deposit_won", "term_start"} & found.keys(), found


def test_impossible_dates_are_not_read() -> None:
    assert "term_start" not in fields_from_text("2025년 2월 30일부터 2년")


def test_values_out_of_range_are_dropped_from_text_and_reported_from_answers() -> None:
    fields, problems = collect_fields(
        "월세 50만원 매월 40일, 면적 0㎡", answers={"rent_day": "45", "term_months": "0"}
    )
    assert fields.rent_day is None and fields.area_m2 is None
    assert set(problems) == {"rent_day", "term_months"}


def test_answers_override_and_are_parsed_by_field() -> None:
    fields, problems = collect_fields(
        "보증금 3억, 2025년 3월 1일부터 2년",
        answers={
            "landlord_name": "홍길동",
            "tenant_name": " 김영희 ",
            "address": "서울특별시 강남구 역삼동 123-4",
            "deposit_won": "3억 5천만원",
            "down_payment_won": "3500만원",
            "term_start": "2025년 4월 1일",
            "rent_day": "매월 25일",
            "area_m2": "25평",
            "special_terms": "반려동물 허용\n주차 1대",
        },
    )
    assert problems == {}
    assert (fields.landlord_name, fields.tenant_name) == ("홍길동", "김영희")
    assert fields.deposit_won == 350_000_000 and fields.down_payment_won == 35_000_000
    assert fields.term_start == date(2025, 4, 1) and fields.term_end == date(2027, 3, 31)
    assert fields.rent_day == 25 and fields.area_m2 == 82.64
    assert fields.special_terms == ["반려동물 허용", "주차 1대"]


def test_term_end_may_be_answered_as_a_length() -> None:
    fields, _ = collect_fields("2025-03-01부터", answers={"term_end": "2년"})
    assert fields.term_end == date(2027, 2, 28)
    fields, _ = collect_fields("2025-03-01부터", answers={"term_end": "2027-03-31"})
    assert fields.term_end == date(2027, 3, 31)


def test_unreadable_answers_are_reported_not_guessed() -> None:
    fields, problems = collect_fields(
        "", answers={"deposit_won": "많이", "term_start": "다음 달", "rent_day": "월급날", "unknown": "x"}
    )
    assert set(problems) == {"deposit_won", "term_start", "rent_day"}
    assert fields.deposit_won is None and fields.term_start is None


def test_sources_in_order_listing_then_earlier_turns_then_query() -> None:
    listing = ListingRow(
        listing_id="c-1",
        kind="complex",
        property_type="apartment",
        gu="강남구",
        dong="역삼동",
        name="래미안",
        area_min_m2=84.0,
        area_max_m2=84.0,
    )
    fields, _ = collect_fields(
        "월세는 60만원으로 할게요",
        previous_queries=["보증금 1억, 월세 50만원", "임대인 홍길동"],
        dependency_results={"s1": StepResult(listings=[listing])},
    )
    assert fields.address == "서울특별시 강남구 역삼동 래미안" and fields.area_m2 == 84.0
    assert fields.deposit_won == 100_000_000 and fields.monthly_rent_won == 600_000
    assert fields.landlord_name == "홍길동"


def test_missing_fields_are_the_required_ones_plus_what_the_others_need() -> None:
    fields, _ = collect_fields("월세 50만원, 중도금 1천만원")
    assert missing_fields(fields) == [*REQUIRED, "rent_day", "interim_payment_date"]


def test_term_arithmetic() -> None:
    assert term_end(date(2025, 3, 1), 24) == date(2027, 2, 28)
    assert term_end(date(2024, 1, 31), 1) == date(2024, 2, 28)
    assert months_between(date(2025, 3, 1), date(2027, 2, 28)) == 24
    assert months_between(date(2025, 3, 1), date(2026, 2, 28)) == 12


@pytest.mark.parametrize("said", ["매달 말일", "매월 말일", "매월 마지막 날", "지급일은 월말"])
def test_the_last_day_of_the_month_is_a_rent_day(said: str) -> None:
    """'매달 말일 지급': the contract says 매월 말일 (kept as 31, the last day of every month)."""
    found = fields_from_text(f"월세 계약. 보증금 3천, 월세 120 {said} 지급")
    assert found["rent_day"] == 31
    assert read_answer("rent_day", said) == {"rent_day": 31}


def test_amounts_written_in_words_fill_the_lease() -> None:
    # 보증금 천만원 = 10,000,000원, 월세 육십 = 600,000원 (a bare 월세 is 만원), 계약금 백만원 = 1,000,000원
    found = fields_from_text("임대인 박서준, 임차인 김하늘, 보증금 천만원, 월세 육십, 계약금 백만원, 1년")
    assert (found["deposit_won"], found["monthly_rent_won"], found["down_payment_won"]) == (
        10_000_000,
        600_000,
        1_000_000,
    )
