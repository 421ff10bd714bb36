"""Conditions on complexes as people state them: households, completion year, walking minutes, and the
conditions no listing column can check. Generated in the ways people write them, inside sentences."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.entities import Ranking
from services.housing.constraints import read_constraints
from services.housing.entities import extract_entities

pytestmark = pytest.mark.unit
TODAY = date(2026, 11, 28)

_LEADS = st.sampled_from(["", "송파구 ", "강남구에 ", "잠실동 근처 ", "서초구에서 "])
_KINDS = st.sampled_from(["아파트", "아파트 전세", "아파트 매매 단지", "오피스텔 월세", "단지"])
_ENDS = st.sampled_from(["", " 알려줘", " 어디예요?", " 찾아주세요", " 몇 곳이에요?", " 보여줘"])

# comparator -> (low, high) of an inclusive range for figure n
_HOUSEHOLD_WORDS = {
    "넘는": lambda n: (n + 1, None),
    "초과": lambda n: (n + 1, None),
    "이상": lambda n: (n, None),
    "이상인": lambda n: (n, None),
    "이하": lambda n: (None, n),
    "미만": lambda n: (None, n - 1),
    "안 되는": lambda n: (None, n - 1),
}


def _written_counts(n: int) -> list[str]:
    forms = [f"{n:,}", str(n)]
    if n % 1000 == 0:
        forms.append(f"{n // 1000}천" if n > 1000 else "천")
    elif n % 100 == 0 and n > 1000:
        forms.append(f"{n // 1000}천{(n % 1000) // 100}백")
    return forms


@given(
    st.integers(1, 99)
    .map(lambda k: k * 100)
    .flatmap(lambda n: st.tuples(st.just(n), st.sampled_from(_written_counts(n)))),
    st.sampled_from(sorted(_HOUSEHOLD_WORDS)),
    _LEADS,
    _KINDS,
    _ENDS,
)
def test_a_household_bound_reads_back_in_any_sentence(
    figure: tuple[int, str], word: str, lead: str, kind: str, end: str
) -> None:
    n, written = figure
    wanted = read_constraints(f"{lead}{written}세대 {word} {kind}{end}", TODAY)
    assert (wanted.households_min, wanted.households_max) == _HOUSEHOLD_WORDS[word](n)


@given(
    st.integers(1, 30),
    st.sampled_from(["도보 {}분", "걸어서 {}분", "역에서 {}분 거리", "역까지 도보 {}분", "지하철 도보 {}분"]),
    st.sampled_from(["", " 이내", " 안쪽", " 이하", "까지", " 안"]),
    _LEADS,
    _KINDS,
)
def test_a_walk_reads_back_in_any_sentence(n: int, form: str, bound: str, lead: str, kind: str) -> None:
    wanted = read_constraints(f"{lead}{form.format(n)}{bound}인 {kind}", TODAY)
    assert wanted.walk_max_min == n


# What rules a bound out, after it: the complement of the bound is what the person asks for.
_RULED_OUT = st.sampled_from(["은 빼고", "는 제외하고", " 곳은 빼주세요", " 단지는 말고", " 건 싫어요"])


def _complement(low: int | None, high: int | None) -> tuple[int | None, int | None]:
    return (None, low - 1) if low is not None else (high + 1 if high is not None else None, None)


@given(
    st.integers(1, 99).map(lambda k: k * 100), st.sampled_from(sorted(_HOUSEHOLD_WORDS)), _RULED_OUT, _LEADS
)
def test_a_household_bound_ruled_out_asks_its_complement(n: int, word: str, out: str, lead: str) -> None:
    wanted = read_constraints(f"{lead}아파트 찾는데 {n:,}세대 {word}{out} 보여줘", TODAY)
    assert (wanted.households_min, wanted.households_max) == _complement(*_HOUSEHOLD_WORDS[word](n))


_YEAR_WORDS = {
    "이후에 준공된": lambda y: (y, None),
    "이후 지어진": lambda y: (y, None),
    "부터 입주한": lambda y: (y, None),
    "이전에 준공된": lambda y: (None, y),
    "전에 지어진": lambda y: (None, y - 1),
}


@given(st.integers(1975, 2025), st.sampled_from(sorted(_YEAR_WORDS)), _LEADS, _KINDS, _ENDS)
def test_a_completion_year_bound_reads_back(year: int, word: str, lead: str, kind: str, end: str) -> None:
    wanted = read_constraints(f"{lead}{year}년 {word} {kind}{end}", TODAY)
    assert (wanted.built_year_min, wanted.built_year_max) == _YEAR_WORDS[word](year)


_AGE_WORDS = {
    "준공 {}년 이내": lambda n: (TODAY.year - n, None),
    "지은 지 {}년 안 된": lambda n: (TODAY.year - n + 1, None),
    "준공 {}년 넘은": lambda n: (None, TODAY.year - n - 1),
    "준공 {}년 이상 된": lambda n: (None, TODAY.year - n),
}


@given(st.integers(1, 40), st.sampled_from(sorted(_AGE_WORDS)), _LEADS, _KINDS)
def test_an_age_counts_from_the_day_asked(n: int, form: str, lead: str, kind: str) -> None:
    wanted = read_constraints(f"{lead}{form.format(n)} {kind}", TODAY)
    assert (wanted.built_year_min, wanted.built_year_max) == _AGE_WORDS[form](n)


@given(st.integers(1, 40), st.sampled_from(sorted(_AGE_WORDS)), _RULED_OUT)
def test_an_age_ruled_out_asks_its_complement(n: int, form: str, out: str) -> None:
    wanted = read_constraints(f"송파구 아파트 중에 {form.format(n)}{out}", TODAY)
    assert (wanted.built_year_min, wanted.built_year_max) == _complement(*_AGE_WORDS[form](n))


def test_an_age_needs_the_day_asked() -> None:
    assert read_constraints("준공 10년 이내 아파트").built_year_min is None
    assert read_constraints("준공 10년 이내 아파트", date(2030, 1, 1)).built_year_min == 2020


@pytest.mark.parametrize(
    "text",
    [
        "전세 3억 아파트 2년 계약",
        "2025년 3월 1일 입주 예정인데 계약서 써줘",
        "보증금 1000에 월세 50 원룸",
        "전세금 5% 인상 제한이 언제까지인가요?",
        "10년 된 아파트 시세",
        "강남역 근처 30평대 아파트 매매 시세",
    ],
)
def test_money_dates_and_terms_are_no_conditions(text: str) -> None:
    wanted = read_constraints(text, TODAY)
    assert (wanted.households_min, wanted.households_max, wanted.built_year_min, wanted.built_year_max) == (
        None,
        None,
        None,
        None,
    )
    assert wanted.walk_max_min is None and wanted.said == ()


def test_words_by_convention_say_the_bound_used() -> None:
    wanted = read_constraints("송파구 대단지 역세권 신축 아파트", TODAY)
    assert (wanted.households_min, wanted.walk_max_min, wanted.built_year_min) == (1000, 10, 2021)
    assert any("1,000세대" in s for s in wanted.said) and any("10분" in s for s in wanted.said)


def test_an_explicit_figure_wins_over_a_convention() -> None:
    assert read_constraints("역세권 아파트, 역에서 3분 거리 이내만", TODAY).walk_max_min == 3


def test_conditions_the_listings_cannot_check_are_named() -> None:
    wanted = read_constraints("강남구 오피스텔 전세 주차 2대 되고 반려동물 가능한 남향", TODAY)
    assert wanted.not_in_data == ("주차", "반려동물", "향")


def test_the_entities_carry_the_conditions() -> None:
    entities = extract_entities("송파구 1,500세대 넘는 아파트 전세, 준공 10년 이내", today=TODAY)
    assert (entities.households_min, entities.completion_year_min) == (1501, 2016)
    assert entities.conditions_said == ["세대수 1,500세대 초과", "준공 10년 이내(준공 2016년 이후)"]


# A superlative in the ways people ask it -> the order it asks for.
_SUPERLATIVES = {
    "제일 싼": Ranking.CHEAPEST,
    "가장 저렴한": Ranking.CHEAPEST,
    "젤 싼": Ranking.CHEAPEST,
    "제일 비싼": Ranking.PRICIEST,
    "역에서 제일 가까운": Ranking.NEAREST,
    "지하철역까지 가장 가까운": Ranking.NEAREST,
    "세대수 제일 많은": Ranking.LARGEST,
    "가장 큰 단지인": Ranking.LARGEST,
    "세대수 제일 적은": Ranking.SMALLEST,
    "가장 작은 단지인": Ranking.SMALLEST,
    "지하철역 가까운 곳": Ranking.NEAREST,
    "제일 새": Ranking.NEWEST,
    "가장 최근에 지은": Ranking.NEWEST,
}


@given(st.sampled_from(sorted(_SUPERLATIVES)), _LEADS, _KINDS, _ENDS)
def test_a_superlative_asked_orders_what_is_found(said: str, lead: str, kind: str, end: str) -> None:
    text = f"{lead}{said} {kind}{end}"
    assert read_constraints(text, TODAY).ranked_by is _SUPERLATIVES[said], text
    assert extract_entities(text, today=TODAY).ranked_by is _SUPERLATIVES[said]


@pytest.mark.parametrize(
    "text",
    ["송파구 아파트 전세 알려줘", "가까운 역 근처 원룸", "싼 아파트 있어요?", "잠실엘스랑 리센츠 전세 비교"],
)
def test_no_superlative_no_order_asked(text: str) -> None:
    assert read_constraints(text, TODAY).ranked_by is None
