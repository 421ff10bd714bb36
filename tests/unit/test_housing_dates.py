"""Dates and terms of a lease, read once for the planner, the analysis and the document teams."""

from __future__ import annotations

from datetime import date

import pytest

from services.housing.dates import (
    DateError,
    SpokenDate,
    clause_term_months,
    find_dates,
    months_between,
    parse_date,
    parse_term_months,
    spoken_dates,
    term_end,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "text", ["2025-03-01", "2025.3.1", "2025. 3. 1.", "2025/3/1", "2025년 3월 1일", "25년 3월 1일"]
)
def test_every_way_a_date_is_written(text: str) -> None:
    assert parse_date(text) == date(2025, 3, 1)
    assert find_dates(f"입주는 {text}") == ["2025-03-01"]


def test_dates_keep_where_they_start_and_impossible_ones_are_dropped() -> None:
    assert spoken_dates("2025년 2월 30일, 2025년 3월 1일") == [SpokenDate(14, 25, date(2025, 3, 1))]
    with pytest.raises(DateError):
        parse_date("다음 달 초")


@pytest.mark.parametrize(
    ("text", "months"),
    [
        ("2년 계약", 24),
        ("1년 6개월", 18),
        ("6개월", 6),
        ("25년 3월부터 2년", 24),  # a year with its month is a date, the term comes after it
        ("10년 된 아파트", None),
        ("3년 전에 샀어요", None),
        ("결혼 3년차", None),
        ("결혼한 지 2년 됐고", None),  # time gone by is no term
        ("산 지 1년 넘었어요", None),
        ("0개월", None),
    ],
)
def test_term_months(text: str, months: int | None) -> None:
    assert parse_term_months(text) == months


@pytest.mark.parametrize(
    ("clause", "months"),
    [
        ("기간은 2025년 3월 15일부터 2027년 3월 14일까지", 24),
        ("임대차 기간은 2025년 3월 1일부터 2026년 2월 28일까지로 한다.", 12),
        ("임대차 기간은 2025년 3월 10일부터 2027년 3월 5일까지", 23),
        ("계약기간은 1년으로 한다", 12),
        ("계약기간은 1년 6개월로 한다", 18),
        ("2025년 3월 1일 인도", None),  # not a clause about the term
    ],
)
def test_the_term_a_contract_clause_states(clause: str, months: int | None) -> None:
    assert clause_term_months(clause) == months


def test_a_term_ends_the_day_before_its_anniversary() -> None:
    assert term_end(date(2025, 3, 1), 24) == date(2027, 2, 28)
    assert term_end(date(2024, 1, 31), 1) == date(2024, 2, 28)
    assert months_between(date(2025, 3, 1), date(2027, 2, 28)) == 24
    assert 23 < months_between(date(2025, 3, 1), date(2027, 2, 27)) < 24
