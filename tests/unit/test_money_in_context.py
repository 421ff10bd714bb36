"""An amount reads back to the same 만원 figure whatever form it is written in and whatever word of the
sentence follows it ("3억6천 살고", "1억 2,500 정도", "월 50 내고"); an age stays an age. The written forms
are generated from the figure here, so the test states the expectation without the reader's help."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.housing.amounts import read_amounts
from services.housing.money import find_money

pytestmark = pytest.mark.unit

# Words that follow an amount in everyday sentences.
FOLLOWING = st.sampled_from(
    [
        "살고",
        "살아요",
        "살 집",
        "살던 집",
        "살다가",
        "살지만",
        "살기로 했어요",
        "살려고요",
        "사는데",
        "내고",
        "냈어요",
        "있는데",
        "있어요",
        "짜리",
        "이에요",
        "인데요",
        "정도",
        "쯤",
        "으로",
        "에",
        "이고",
        "받고",
        "들어가",
        "남았어요",
        "이라서",
        "이면",
        "부터",
        "까지",
        "에서",
        "밖에",
        "이상",
        "넘게",
        "가량",
        "주고",
        "빌렸어요",
        "모았어요",
        "일 때",
        "일시불로",
        "세입자로",
        "세 놓으려고",
        "전에",
        "씩",
        "입니다",
        "였는데",
    ]  # fmt: skip
)
CONTEXT = st.sampled_from(["보증금 ", "전세금 ", "매매가 ", "대출 ", "전세 ", "예산 "])
SPACE = st.sampled_from(["", " "])
EOK = st.integers(1, 30)


def cheon(thousands: int) -> str:
    return f"{thousands}천"


# (the amount as written, its 만원), in the forms people use.
WRITTEN = st.one_of(
    st.builds(lambda e, k: (f"{e}억{cheon(k)}", e * 10000 + k * 1000), EOK, st.integers(1, 9)),  # 3억6천
    st.builds(
        lambda e, k: (f"{e}억 {cheon(k)}만원", e * 10000 + k * 1000), EOK, st.integers(1, 9)
    ),  # 3억 6천만원
    st.builds(lambda e, d: (f"{e}.{d}억", e * 10000 + d * 1000), EOK, st.integers(1, 9)),  # 3.6억
    st.builds(lambda m: (f"{m:,}만원", m), st.integers(1, 99999)),  # 36,000만원
    st.builds(  # 3억6천5백
        lambda e, k, b: (f"{e}억{cheon(k)}{b}백", e * 10000 + k * 1000 + b * 100),
        EOK,
        st.integers(1, 9),
        st.integers(1, 9),
    ),
    st.builds(lambda e, m: (f"{e}억 {m:,}", e * 10000 + m), EOK, st.integers(1000, 9999)),  # 1억 2,500
    st.builds(lambda e, m: (f"{e}억{m}", e * 10000 + m), EOK, st.integers(1000, 9999)),  # 3억6000
    st.builds(lambda k: (cheon(k), k * 1000), st.integers(1, 9)),  # 2천
    st.builds(lambda k, b: (f"{cheon(k)}{b}백", k * 1000 + b * 100), st.integers(1, 9), st.integers(1, 9)),
    st.builds(lambda m: (f"{m}만원", m), st.integers(1, 9999)),  # 500만원
    st.builds(lambda k: (f"{cheon(k)}만", k * 1000), st.integers(1, 9)),  # 5천만
    st.builds(lambda e: (f"{e}억", e * 10000), EOK),
)


@given(CONTEXT, WRITTEN, SPACE, FOLLOWING)
def test_an_amount_reads_back_whatever_word_follows_it(
    context: str, written: tuple[str, int], space: str, following: str
) -> None:
    text, manwon = written
    assert [m.manwon for m in find_money(f"{context}{text}{space}{following}")] == [manwon]


# After a short number some words make it a day, an age or years ("월 30일", "30살", "3년 전"), so these are
# left out for a monthly rent: "월 50 살 집" reads as 50살 as much as 50만원.
SHORT_AMBIGUOUS = {"살 집", "일 때", "일시불로", "세입자로", "세 놓으려고"}


@given(st.integers(1, 999), SPACE, FOLLOWING.filter(lambda word: word not in SHORT_AMBIGUOUS))
def test_a_monthly_rent_after_월_reads_back(rent: int, space: str, following: str) -> None:
    assert [m.manwon for m in find_money(f"월 {rent}{space}{following}")] == [rent]


@given(WRITTEN, st.integers(1, 99))
def test_an_age_beside_an_amount_is_not_money(written: tuple[str, int], age: int) -> None:
    text, manwon = written
    assert [m.manwon for m in find_money(f"{age}살 직장인인데 보증금 {text} 있어요")] == [manwon]
    assert [m.manwon for m in find_money(f"보증금 {text}에 {age}살 직장인")] == [manwon]


@pytest.mark.parametrize(
    "text", ["30살", "서른 살", "30살이고 전세 구해요", "30세 이상", "5천 세대", "1천 명"]
)
def test_ages_and_counts_are_not_money(text: str) -> None:
    assert find_money(text) == []


@pytest.mark.parametrize(
    ("text", "manwon"),
    [
        ("전세 보증금 3억6천 살고 있는데 5% 올리면 최대 얼마", [36000]),
        ("보증금 3억 2025년 3월 입주", [30000]),  # a year after the amount is a year
        ("3억 5천 2024년에 계약", [35000]),
        ("보증금 1억 1203호", [10000]),  # an address
    ],
)
def test_money_beside_dates_and_addresses(text: str, manwon: list[int]) -> None:
    assert [m.manwon for m in find_money(text)] == manwon


# The deposit of a monthly lease in the forms people use, under 1억 and over it.
DEPOSIT = st.one_of(
    st.builds(lambda m: (str(m), m), st.integers(100, 9999)),  # 1000
    st.builds(lambda m: (f"{m:,}", m), st.integers(1000, 9999)),  # 1,000
    st.builds(lambda k: (cheon(k), k * 1000), st.integers(1, 9)),  # 5천
    st.builds(lambda e: (f"{e}억", e * 10000), st.integers(1, 3)),  # 1억
    st.builds(lambda m: (f"{m}만원", m), st.integers(100, 9999)),  # 500만원
)
JOINED = st.sampled_from(["에 ", "에", "에다 ", "에다가 "])


@given(DEPOSIT, JOINED, st.data(), SPACE, FOLLOWING.filter(lambda word: word not in SHORT_AMBIGUOUS))
def test_a_bare_rent_joined_to_its_deposit_reads_as_the_rent(
    deposit: tuple[str, int], joined: str, data: st.DataObject, space: str, following: str
) -> None:
    """ "보증금 1000에 70 내고": the smaller bare number after the deposit is the monthly rent."""
    written, manwon = deposit
    rent = data.draw(st.integers(1, min(manwon - 1, 999)))
    text = f"보증금 {written}{joined}{rent}{space}{following}"
    read = read_amounts(text)
    assert [(a.manwon, a.role) for a in read[:2]] == [(manwon, "deposit"), (rent, "monthly_rent")], text
