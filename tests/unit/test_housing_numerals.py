"""Amounts written in words ("계약금은 삼천만원이요", "보증금 천오백에 월세 육십") read as the same figures as
in digits, in whatever sentence they stand; words made of numeral syllables ("이사", "인천", "만기") stay
words. The words are generated from the figure by the contract writer (korean_amount_words), so the tests
state the expectation without the reader's help."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from services.housing.money import MANWON, find_money, korean_amount_words, parse_won
from services.housing.numerals import spoken_to_digits, words_value
from services.housing.text import normalize
from tests.unit.test_money_in_context import CONTEXT, FOLLOWING, SHORT_AMBIGUOUS, SPACE

pytestmark = pytest.mark.unit

# Everyday endings after an amount, some beginning with a numeral syllable ("이에요" after 삼천만원).
WORDS_FOLLOWING = st.one_of(FOLLOWING, st.sampled_from(["이요", "이에요", "이면", "이라", "이고"]))
# What is written against a numeral in words: particles and the copula. A verb ("살고", "내고") is spaced
# from a numeral in words ("오십 내고"), or "오십내고" could be a word.
PARTICLES = ("이", "인", "입", "였", "에", "으로", "짜리", "정도", "쯤", "부터", "까지", "밖에", "이상",
             "넘게", "가량", "씩", "전에")  # fmt: skip


def spaced(words: str, space: str, following: str) -> str:
    return f"{words}{space if following.startswith(PARTICLES) else ' '}{following}"


@given(CONTEXT, st.integers(1, 999_999), SPACE, WORDS_FOLLOWING)
def test_an_amount_in_words_with_원_reads_back(context: str, manwon: int, space: str, following: str) -> None:
    words = korean_amount_words(manwon * MANWON)  # 35000 -> 삼억오천만
    assert [m.manwon for m in find_money(f"{context}{words}원{space}{following}")] == [manwon]


# A bare count in words is a number from 십 up, and one ending in 일 or 이 (a day, a particle) only with
# money after it: "보증금 삼천이 살고" is no sentence anyone writes for 3,002만원.
BARE_COUNTS = st.integers(10, 9_999).filter(lambda n: n % 10 not in (1, 2))


@given(CONTEXT, BARE_COUNTS, SPACE, WORDS_FOLLOWING.filter(lambda w: not w.startswith("일")))  # 십일: 11
def test_a_count_of_만원_in_words_reads_as_digits_do(
    context: str, manwon: int, space: str, following: str
) -> None:
    # "보증금 천오백에", "월세 육십": a bare count after a money word is 만원, as "보증금 1500에" is.
    words = korean_amount_words(manwon)
    # "보증금 오십 세입자로" is as ambiguous as "보증금 50 세입자로" (an age: see test_money_in_context).
    assume(manwon >= 1000 or following not in SHORT_AMBIGUOUS)
    assert [m.manwon for m in find_money(context + spaced(words, space, following))] == [manwon]


@given(st.integers(1, 30), st.integers(1, 9))
def test_억_then_천_in_words_is_what_the_digits_say(eok: int, cheon: int) -> None:
    words = korean_amount_words(eok * 10**8) + korean_amount_words(cheon * 1000)  # 삼억오천
    assert [m.manwon for m in find_money(f"전세 {words} 살아요")] == [eok * 10_000 + cheon * 1000]


@pytest.mark.parametrize(
    ("text", "manwon"),
    [
        ("계약금은 삼천만원이요", [3000]),
        ("보증금 천오백에 월세 육십", [1500, 60]),
        ("보증금 천에 월세 오십이요", [1000, 50]),
        ("이억 오천에 전세 살아요", [25000]),
        ("계약금 삼천이요", [3000]),
        ("일억오천만원", [15000]),
    ],
)
def test_amounts_in_words(text: str, manwon: list[int]) -> None:
    assert [m.manwon for m in find_money(text)] == manwon


@pytest.mark.parametrize(
    "text",
    [
        "이사 가요",
        "천천히 알아볼게요",
        "인천 아파트",
        "만기가 다가와요",
        "이십대 직장인",
        "기억이 안 나요",
        "백화점 근처",
        "오십견",
        "십일월에 이사",
        "매월 십일에 내요",
        "천장이 높은 집",
        "이천이십오년",
        "이만 줄입니다",
        "임대인 이천수",
        "천호대로",
    ],
)
def test_words_of_numeral_syllables_stay_words(text: str) -> None:
    assert spoken_to_digits(text) == text


def test_areas_in_words_read_as_areas() -> None:
    assert normalize("삼십평대 아파트") == "30평대 아파트"


@pytest.mark.parametrize("words", ["천천", "십백", "삼삼", "만억", "백천"])
def test_syllables_out_of_order_are_no_number(words: str) -> None:
    assert words_value(words) is None


@given(st.integers(1, 10**12 - 1))
def test_a_contract_sum_in_words_reads_back(won: int) -> None:
    assert parse_won(f"금 {korean_amount_words(won)}원정") == won
