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


DEPOSIT_WORDS = st.sampled_from(["보증금", "전세금", "전세"])
RENT_WORDS = st.sampled_from(["월세", "월차임", "차임"])
RAISES = st.sampled_from(
    ["올려달래요", "올린대요", "인상한대요", "올려 달라는데 돼요?", "증액 요구를 받았어요"]
)
EOKS = st.integers(1, 9)


@settings(deadline=None)
@given(DEPOSIT_WORDS, EOKS, st.integers(1, 9), RAISES)
def test_a_raise_by_an_amount_is_read_as_a_change_of_the_deposit_said(
    word: str, eok: int, thousands: int, verb: str
) -> None:
    reading = extract_entities(f"{word} {eok}억인데 {thousands}천 {verb}")
    now, change = reading.amounts
    assert (now.manwon, now.role, now.change) == (eok * 10_000, "deposit", None)
    assert (change.manwon, change.role, change.change, change.base) == (
        thousands * 1_000,
        "deposit",
        "by",
        eok * 10_000,
    )
    assert reading.raise_asked and reading.lease_kinds_named == ["deposit"]


@settings(deadline=None)
@given(st.sampled_from([(DEPOSIT_WORDS, "deposit"), (RENT_WORDS, "monthly_rent")]), st.data(), RAISES)
def test_the_percent_a_raise_asks_raises_the_lease_figure_named_before_it(kind, data, verb: str) -> None:
    words, expected = kind
    word, percent = data.draw(words), data.draw(st.integers(1, 30))
    reading = extract_entities(f"{word} 그대로인 줄 알았는데 {percent}% {verb}")
    assert (reading.raise_percent, reading.raise_percent_of) == (float(percent), expected)


@settings(deadline=None)
@given(
    st.integers(1, 30),
    st.sampled_from(["넘는 거 아닌가요", "이내면 괜찮죠?", "까지만 되죠?", " 룰 있지 않아요?"]),
)
def test_a_percent_naming_the_cap_is_no_raise_asked(percent: int, cap_talk: str) -> None:
    reading = extract_entities(f"보증금 2억인데 {percent}% {cap_talk}")
    assert reading.raise_percent is None and reading.percent == float(percent)


@settings(deadline=None)
@given(
    st.sampled_from([("재계약한 지", "contract"), ("계약한지", "contract"), ("올린 지", "increase")]),
    st.integers(1, 23),
    st.sampled_from(["됐는데 또 올려달래요", "됐어요. 인상 가능한가요?"]),
)
def test_the_time_since_the_last_change_is_read_in_months(said, months: int, after: str) -> None:
    words, event = said
    since = extract_entities(f"{words} {months}개월 {after}").since_last
    assert since is not None and (since.event, since.months, since.under) == (event, float(months), False)


def test_a_deposit_turned_into_rent_is_a_conversion_asked_with_the_cut_it_makes() -> None:
    reading = extract_entities("보증금에서 8천 빼고 그만큼 월세로 돌리면 얼마예요?")
    assert reading.conversion_asked and reading.monthly_rent_spoken_of and not reading.raise_asked
    assert [(a.manwon, a.role, a.change) for a in reading.amounts] == [(8000, "deposit", "cut")]


@settings(deadline=None)
@given(
    st.sampled_from(["서초구에 아파트", "송파구 전세", "강남역 근처 오피스텔"]),
    st.sampled_from(["단지가 몇 개나 돼요?", "매물 수 알려줘", "몇 곳 있어요?", "개수가 궁금해요"]),
)
def test_a_count_asked_is_read(place: str, count: str) -> None:
    assert extract_entities(f"{place} {count}").count_asked


@pytest.mark.parametrize(
    ("query", "listings", "level", "rankings"),
    [
        ("서초구 아파트 매매 20억 이하로 있어요?", True, False, []),
        ("강남역 오피스텔 월세 100 이하면 시세가 어때요?", False, True, []),
        ("대치동 아파트 매매 제일 싼 거랑 제일 비싼 거", False, False, ["cheapest", "priciest"]),
    ],
)
def test_what_a_search_is_asked_beside_the_market_is_read(
    query: str, listings: bool, level: bool, rankings: list[str]
) -> None:
    reading = extract_entities(query)
    assert (reading.listings_asked, reading.market_level_asked) == (listings, level)
    assert reading.rankings_asked == rankings
