"""The reading of what a turn says of the person's situation and asks of it (services/housing/reading.py),
as the planner reads it into QueryEntities: generated phrasings inside sentences, and the examples the
teams answer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.housing.entities import extract_entities

DEBTS = st.sampled_from(["근저당", "선순위", "대출", "융자", "빚"])
PARTICLES = st.sampled_from(["", "은", "이", "도", "는"])
BEFORE = st.sampled_from(["", "전세 3억인데 ", "매매 5억 아파트에 전세 4억, ", "집주인 말로는 "])
AFTER = st.sampled_from(["", " 괜찮을까요?", " 위험한가요", "."])


@settings(deadline=None)  # the first reading loads the gazetteer
@given(BEFORE, DEBTS, PARTICLES, st.sampled_from(["", "하나도 ", "전혀 "]), AFTER)
def test_a_debt_said_to_be_absent_is_read_as_none_said(
    before: str, debt: str, particle: str, stress: str, after: str
) -> None:
    reading = extract_entities(f"{before}{debt}{particle} {stress}없대요{after}")
    assert reading.debt_spoken_of and reading.no_debt_said


@settings(deadline=None)  # the first reading loads the gazetteer
@given(BEFORE, DEBTS, st.integers(1, 9), AFTER)
def test_a_debt_stated_is_spoken_of_and_not_denied(
    before: str, debt: str, thousands: int, after: str
) -> None:
    reading = extract_entities(f"{before}{debt} {thousands}천만원 있어요{after}")
    assert reading.debt_spoken_of and not reading.no_debt_said


@settings(deadline=None)  # the first reading loads the gazetteer
@given(
    st.integers(1, 99),
    st.sampled_from(["", ".5"]),
    st.sampled_from(["연봉 6천인데 ", "", "소득 5천, "]),
    AFTER,
)
def test_a_dsr_named_is_read_in_percent(ratio: int, fraction: str, before: str, after: str) -> None:
    reading = extract_entities(f"{before}DSR {ratio}{fraction}% 적용되면 얼마까지 빌려요{after}")
    assert reading.dsr_percent == float(f"{ratio}{fraction}")
    assert reading.loan_limit_asked


@settings(deadline=None)  # the first reading loads the gazetteer
@given(st.sampled_from(["0", "100", "250"]))
def test_a_dsr_outside_what_a_ratio_can_be_is_none(ratio: str) -> None:
    assert extract_entities(f"DSR {ratio}% 적용하면?").dsr_percent is None


@pytest.mark.parametrize(
    "query",
    [
        "전세 2억8천인데 HUG 전세보증금 반환보증 가입 되나요?",
        "보증보험 들 수 있을까요",
        "SGI 보증 가입 가능해요?",
    ],
)
def test_a_guarantee_asked_about_is_read(query: str) -> None:
    assert extract_entities(query).guarantee_asked


@pytest.mark.parametrize(
    ("query", "asked"),
    [
        ("연봉 6천이면 대출 한도 얼마예요?", True),
        ("8억 집 살 때 최대 얼마까지 대출 받을 수 있어요?", True),
        ("대출 이자 월 얼마 나와요? 3억 30년", False),
        ("강남구 아파트 전세 시세 알려줘", False),
    ],
)
def test_a_loan_limit_asked_is_read(query: str, asked: bool) -> None:
    assert extract_entities(query).loan_limit_asked is asked
