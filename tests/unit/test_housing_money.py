"""Korean money read from what people type (in 만원, and in 원 for contracts) and written back."""

from __future__ import annotations

import pytest

from services.housing.money import (
    AmountError,
    amounts_manwon,
    contract_amount,
    find_money,
    format_manwon,
    format_won,
    korean_amount_words,
    parse_manwon,
    parse_won,
)

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
        ("3억5천만원", 35000),
        ("3억5000만원", 35000),
        ("3억 5,000만 원", 35000),
        ("5천", 5000),
        ("4천", 4000),
        ("2천5백", 2500),
        ("5천만원", 5000),
        ("1,500만원", 1500),
        ("1,000만원", 1000),
        ("500만원", 500),
        ("75만 원", 75),
        ("천만원", 1000),
        ("1.5억", 15000),
        ("3.5억", 35000),
        ("2천5백만원", 2500),
        ("3천 500만원", 3500),
        ("15억원", 150000),
        ("315,000,000원", 31500),
        ("300,000,000원", 30000),
        ("３억", 30000),  # full-width digit
    ],
)
def test_reads_a_single_amount_in_manwon(text: str, manwon: int) -> None:
    assert parse_manwon(text) == manwon


@pytest.mark.parametrize("text", ["", "abc", "30평", "2년", "5%", "3월 1일", "1000", "5억~8억", "5000원"])
def test_parse_manwon_is_none_without_exactly_one_amount(text: str) -> None:
    assert parse_manwon(text) is None


@pytest.mark.parametrize(
    ("text", "amounts"),
    [
        ("보증금 1000에 월세 50", [1000, 50]),  # bare numbers after money words are 만원
        ("연봉 6천, 기존 대출 월 50만원", [6000, 50]),  # a comma that ends a clause ends the amount
        ("보증금 1000, 월세 50", [1000, 50]),
        ("보증금 1000 월세 50 원룸", [1000, 50]),  # 월 of 월세 is not a month after the number
        ("보증금 1000 월 50", [1000, 50]),
        ("보증금은 3월 15일에 보내요", []),
        ("보증금/월세 1000/50 원룸", [1000, 50]),
        ("보증금 2억 3000만원에 월세 50만원", [23000, 50]),
        ("전세금 3억인데 3억 5천으로 올려달래요", [30000, 35000]),
        ("전세 3억인데 집주인이 4천 올려달래요", [30000, 4000]),
        ("월세 50을 60으로 올린대요", [50, 60]),  # the new figure of a change is money too
        ("월세 50만원인데 10 올려달래요", [50, 10]),
        ("3억 2년 계약", [30000]),  # a number followed by another unit is not money
        ("3억 5천 2천5백만원", [35000, 2500]),
        ("30평 12층", []),
        ("1000명이 50층에 산다", []),
        ("2025년 3월 1일 계약", []),
        ("5천 세대 대단지", []),
        ("5% 올려달래요", []),
        ("보증금 " + "1" * 3000, []),  # absurdly long numbers are not amounts
    ],
)
def test_every_amount_in_order(text: str, amounts: list[int]) -> None:
    assert amounts_manwon(text) == amounts


def test_amounts_keep_the_won_and_where_they_were_written() -> None:
    [money] = find_money("관리비 12만 5,000원")
    assert (money.won, money.manwon, money.start) == (125_000, 12, 4)


@pytest.mark.parametrize(
    ("text", "won"),
    [
        ("3억 5천", 350_000_000),  # 5천 after 억 means 5천만
        ("3억5천만원", 350_000_000),
        ("3억 5000", 350_000_000),
        ("3.5억", 350_000_000),
        ("50만원", 500_000),
        ("75만 원", 750_000),
        ("1,000만원", 10_000_000),
        ("500,000원", 500_000),
        ("315,000,000원", 315_000_000),
        ("50", 500_000),  # a field's bare number is in 만원
        ("35000", 350_000_000),
        ("12억 3,456만 7,890원", 1_234_567_890),
        ("금 삼억오천만원정", 350_000_000),
        ("천만원", 10_000_000),
        ("일억", 100_000_000),
    ],
)
def test_parse_won(text: str, won: int) -> None:
    assert parse_won(text) == won


@pytest.mark.parametrize("text", ["", "원", "모름", "보증금"])
def test_parse_won_refuses_text_without_an_amount(text: str) -> None:
    with pytest.raises(AmountError):
        parse_won(text)


@pytest.mark.parametrize(
    ("won", "words"),
    [
        (0, "영"),
        (1, "일"),
        (10, "십"),
        (11, "십일"),
        (1_001, "천일"),
        (10_000, "일만"),
        (15_000, "일만오천"),
        (500_000, "오십만"),
        (10_000_000, "천만"),
        (100_000_000, "일억"),
        (350_000_000, "삼억오천만"),
        (315_000_000, "삼억천오백만"),
        (1_234_567_890, "십이억삼천사백오십육만칠천팔백구십"),
        (1_000_000_000_000, "일조"),
        (2_000_010_000, "이십억일만"),
    ],
)
def test_korean_amount_words(won: int, words: str) -> None:
    assert korean_amount_words(won) == words


def test_words_read_back_to_the_same_amount() -> None:
    for won in (0, 7, 10_000, 99_999, 100_000_000, 350_000_000, 1_234_567_890, 987_654_321_000):
        assert parse_won(f"{korean_amount_words(won)}원") == won


def test_negative_amounts_have_no_words() -> None:
    with pytest.raises(ValueError):
        korean_amount_words(-1)


def test_contract_amount_in_words_and_digits() -> None:
    assert contract_amount(350_000_000) == "금 삼억오천만원정(₩350,000,000)"
    assert contract_amount(500_000) == "금 오십만원정(₩500,000)"
    # 일천 and 일백, so no figure can be slipped in before them later; 십 as it is written.
    assert contract_amount(810_000_000) == "금 팔억일천만원정(₩810,000,000)"
    assert contract_amount(11_100_000) == "금 일천일백십만원정(₩11,100,000)"


@pytest.mark.parametrize(
    ("manwon", "text"),
    [
        (31500, "3억 1,500만원"),
        (69000, "6억 9,000만원"),
        (35000, "3억 5,000만원"),
        (173500, "17억 3,500만원"),
        (30000, "3억원"),
        (90000, "9억원"),
        (1200000, "120억원"),
        (4500, "4,500만원"),
        (50, "50만원"),
        (37.5, "375,000원"),  # a rent computed to the won
        (112.5, "1,125,000원"),  # over 100만원 too: rounding would lose 5,000원 a month
        (0.5, "5,000원"),
        (-3500, "-3,500만원"),  # a loss
        (31500.0000001, "3억 1,500만원"),
    ],
)
def test_money_is_written_one_way(manwon: float, text: str) -> None:
    assert format_manwon(manwon) == text


def test_won_are_written_the_same_way() -> None:
    assert format_won(315_000_000) == "3억 1,500만원"


def test_what_is_written_reads_back() -> None:
    for manwon in (31500, 69000, 30000, 4500, 50, 265000):
        assert parse_manwon(format_manwon(manwon)) == manwon


@pytest.mark.parametrize("text", ODD_INPUTS)
def test_odd_input_never_raises(text: object) -> None:
    find_money(text)
    parse_manwon(text)


def test_an_amount_before_the_verb_to_live_is_money_not_an_age():
    """'전세 3억6천 살고 있어요' lives on 3억 6천만원; '30살' is an age."""
    assert [m.won for m in find_money("전세 3억6천 살고 있어요")] == [360_000_000]
    assert find_money("30살 직장인이에요") == []
