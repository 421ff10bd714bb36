"""Korean money, sizes, percents, dates and terms as people write them about housing."""

from __future__ import annotations

import pytest

from services.planner import korean_numbers as kn

pytestmark = pytest.mark.unit

ODD_INPUTS = [
    "",
    "   ",
    "🏠🏠🏠",
    "ㅋㅋㅋ",
    "x" * 2000,
    "9" * 5000 + "억",
    "억억억",
    "만원",
    "3억" * 700,
    None,
    42,
]


@pytest.mark.parametrize(
    ("text", "manwon"),
    [
        ("3억", 30000),
        ("3억 5천", 35000),
        ("3억5000만원", 35000),
        ("3억 5,000만 원", 35000),
        ("5천만원", 5000),
        ("1,000만원", 1000),
        ("500만원", 500),
        ("천만원", 1000),
        ("3.5억", 35000),
        ("2천5백만원", 2500),
        ("3천 500만원", 3500),
        ("15억원", 150000),
        ("300,000,000원", 30000),
        ("３억", 30000),  # full-width digit
    ],
)
def test_reads_a_single_amount_in_manwon(text: str, manwon: int) -> None:
    assert kn.parse_money(text) == manwon


@pytest.mark.parametrize("text", ["", "abc", "30평", "2년", "5%", "3월 1일", "1000", "5억~8억", "5000원"])
def test_parse_money_is_none_without_exactly_one_amount(text: str) -> None:
    assert kn.parse_money(text) is None


def test_every_amount_in_order_for_a_change_of_rent() -> None:
    assert [m.manwon for m in kn.find_money("전세금 3억을 3억 5천으로 올려달래요")] == [30000, 35000]


def test_bare_numbers_are_manwon_only_after_a_money_word() -> None:
    found = kn.find_money("보증금 1000에 월세 50")
    assert [(m.manwon, m.role) for m in found] == [(1000, "price"), (50, "monthly_rent")]
    assert kn.find_money("1000명이 50층에 산다") == []
    assert kn.find_money("2025년 3월 1일 계약") == []


def test_slash_pair_after_deposit_words_is_deposit_and_rent() -> None:
    found = kn.find_money("보증금/월세 1000/50 원룸")
    assert [(m.manwon, m.role) for m in found] == [(1000, "price"), (50, "monthly_rent")]


def test_a_number_followed_by_another_unit_is_not_money() -> None:
    assert [m.manwon for m in kn.find_money("3억 2년 계약")] == [30000]
    assert [m.manwon for m in kn.find_money("3억 5천 2천5백만원")] == [35000, 2500]


def test_income_and_fees_are_not_prices() -> None:
    bounds = kn.price_bounds("연봉 6천만원에 관리비 20만원")
    assert bounds.price == kn.Bounds()
    assert [m.role for m in kn.find_money("연봉 6천만원에 관리비 20만원")] == ["income", "fee"]


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("10억 이하", None, 100000),
        ("10억원 이하로", None, 100000),
        ("5억~8억", 50000, 80000),
        ("5~8억", 50000, 80000),
        ("5억에서 8억 사이", 50000, 80000),
        ("8억 미만", None, 79999),
        ("8억 이상", 80000, None),
        ("8억 넘는 아파트", 80001, None),
        ("8억이 넘는", 80001, None),
        ("5억 이상 8억 이하", 50000, 80000),
        ("3억대 전세", 30000, 39999),
        ("10억대", 100000, 199999),
        ("3억 정도", 27000, 33000),
        ("전세 3억", 30000, 30000),
        ("3억을 3억 5천으로", None, None),
    ],
)
def test_price_bounds(text: str, low: int | None, high: int | None) -> None:
    assert kn.price_bounds(text).price == kn.Bounds(low, high)


def test_monthly_rent_bounds_are_kept_apart_from_the_deposit() -> None:
    bounds = kn.price_bounds("보증금 1000에 월세 50만원 이하")
    assert bounds.price == kn.Bounds(1000, 1000)
    assert bounds.monthly_rent == kn.Bounds(None, 50)


def test_a_loan_word_after_an_amount_is_not_a_range() -> None:
    assert kn.price_bounds("3억 대출 받으려면").price == kn.Bounds(30000, 30000)


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("30평대", 30 * kn.PYEONG_M2, 40 * kn.PYEONG_M2),
        ("30평형대 아파트", 30 * kn.PYEONG_M2, 40 * kn.PYEONG_M2),
        ("25평", 24 * kn.PYEONG_M2, 26 * kn.PYEONG_M2),
        ("30~40평", 30 * kn.PYEONG_M2, 41 * kn.PYEONG_M2),
        ("84㎡", 84 / 0.8, 84 / 0.7),
        ("84m2", 84 / 0.8, 84 / 0.7),
        ("84m²", 84 / 0.8, 84 / 0.7),
        ("84제곱미터", 84 / 0.8, 84 / 0.7),
        ("전용 59", 59 / 0.8, 59 / 0.7),
        ("공급 112㎡", 112 * 0.95, 112 * 1.05),
    ],
)
def test_sizes_become_supply_area_bands(text: str, low: float, high: float) -> None:
    band = kn.parse_size(text)
    assert band is not None
    assert band.min_m2 == pytest.approx(low, abs=0.01)
    assert band.max_m2 == pytest.approx(high, abs=0.01)


def test_thirty_pyeong_band_matches_the_listings_readme() -> None:
    band = kn.parse_size("30평대")
    assert (band.min_m2, band.max_m2) == (99.17, 132.23)


def test_size_text_is_what_the_person_wrote() -> None:
    assert kn.parse_size("역삼동 84㎡ 아파트").text == "84㎡"
    assert kn.parse_size("30평대로 다시").text == "30평대"


def test_one_sided_sizes() -> None:
    above = kn.parse_size("20평 이상")
    assert above.min_m2 == pytest.approx(20 * kn.PYEONG_M2, abs=0.01) and above.max_m2 is None


@pytest.mark.parametrize("text", ["", "강남구 아파트", "59", "3억", "2년"])
def test_no_size_when_none_is_named(text: str) -> None:
    assert kn.parse_size(text) is None


def test_percent_dates_and_terms() -> None:
    assert kn.parse_percent("5% 인상") == 5.0
    assert kn.parse_percent("5퍼센트") == 5.0
    assert kn.parse_percent("2.5프로") == 2.5
    assert kn.find_dates("2025년 3월 1일부터 2025.03.31까지") == ["2025-03-01", "2025-03-31"]
    assert kn.find_dates("2025년 2월 30일") == []  # no such day
    assert kn.parse_term_months("2년 계약") == 24
    assert kn.parse_term_months("1년 6개월") == 18
    assert kn.parse_term_months("2년 전세 계약") == 24
    assert kn.parse_term_months("10년 된 아파트") is None
    assert kn.parse_term_months("3년 전에 샀어요") is None
    assert kn.parse_term_months("2025년") is None


def test_format_manwon() -> None:
    assert kn.format_manwon(35000) == "3억 5,000만원"
    assert kn.format_manwon(30000) == "3억원"
    assert kn.format_manwon(50) == "50만원"
    assert kn.format_manwon(1200000) == "120억원"


@pytest.mark.parametrize("text", ODD_INPUTS)
def test_odd_input_never_raises(text: object) -> None:
    kn.find_money(text)  # type: ignore[arg-type]
    kn.price_bounds(text)  # type: ignore[arg-type]
    kn.parse_size(text)  # type: ignore[arg-type]
    kn.parse_percent(text)  # type: ignore[arg-type]
    kn.find_dates(text)  # type: ignore[arg-type]
    kn.parse_term_months(text)  # type: ignore[arg-type]


def test_absurdly_long_numbers_are_not_amounts() -> None:
    assert kn.parse_money("9" * 5000 + "억") is None
    assert kn.find_money("보증금 " + "1" * 3000) == []
