"""Amounts in Korean text read into won, and written back as a contract writes them."""

from __future__ import annotations

import pytest

from services.document.money import AmountError, contract_amount, korean_amount_words, parse_won

pytestmark = pytest.mark.unit


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


@pytest.mark.parametrize(
    ("text", "won"),
    [
        ("3억 5천", 350_000_000),  # 5천 after 억 means 5천만
        ("3억5천만원", 350_000_000),
        ("3억 5000", 350_000_000),
        ("3.5억", 350_000_000),
        ("50만원", 500_000),
        ("1,000만원", 10_000_000),
        ("500,000원", 500_000),
        ("50", 500_000),  # a bare number is in 만원
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
