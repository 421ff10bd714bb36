"""Money as a contract writes it (금액): read from Korean text, written in digits and in words.

Amounts are whole won (원) throughout the document service: a contract states 관리비 or 차임 to the
won, so 만원 (the unit listings use) would lose precision.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

DIGIT_WORDS = "영일이삼사오육칠팔구"
SMALL_UNITS = {"십": 10, "백": 100, "천": 1000}
BIG_UNITS = {"만": 10**4, "억": 10**8, "조": 10**12}
MANWON = 10**4

# A number (1,000 / 3.5 / 삼) or a unit; other characters are skipped.
TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[영일이삼사오육칠팔구십백천만억조]|원")
# Hangul an amount written out in words may hold ('금 삼억오천만원정'); any other Hangul means the
# text is a sentence, where 이 or 일 are words, not digits ('많이' is not 2).
SPOKEN_AMOUNT = re.compile(r"^[\s\d,.금영일이삼사오육칠팔구십백천만억조원정]+$")


class AmountError(ValueError):
    """The text holds no amount that can be read without guessing."""


def parse_won(text: str) -> int:
    """Read an amount such as '3억 5천', '3억5천만원', '1,000만원', '3.5억', '삼억오천만원정', '50'.

    Two habits of Korean housing talk are honoured: a bare number is in 만원 (보증금 1000, 월세 50),
    and a trailing 천/백 after 억 without 만 means 천만/백만 ('3억 5천' is 3억 5천만원). A number
    followed by 원 is taken as won.
    """
    tokens = TOKEN.findall(text.replace(" ", ""))
    if not SPOKEN_AMOUNT.match(text):
        tokens = [t for t in tokens if t not in DIGIT_WORDS]
    if all(t == "원" for t in tokens):
        raise AmountError(f"금액을 읽을 수 없습니다: {text!r}")
    won, biggest_unit, tail, says_won = _fold(tokens)
    if biggest_unit == 0 and not says_won:
        return int(tail * MANWON)  # bare number: 만원
    if biggest_unit == BIG_UNITS["억"] and not says_won:
        return int(won + tail * MANWON)
    return int(won + tail)


def _fold(tokens: list[str]) -> tuple[Decimal, int, Decimal, bool]:
    """Sum the tokens: won above the last big unit, the last big unit seen, the part below it."""
    total, section, current = Decimal(0), Decimal(0), None
    last_big, says_won = 0, False
    for token in tokens:
        if token == "원":
            says_won = True
        elif token in SMALL_UNITS:
            section += (current if current is not None else 1) * SMALL_UNITS[token]
            current = None
        elif token in BIG_UNITS:
            section += current or 0
            total += (section or 1) * BIG_UNITS[token]
            section, current, last_big = Decimal(0), None, BIG_UNITS[token]
        else:
            current = _number(token)
    return total, last_big, section + (current or 0), says_won


def _number(token: str) -> Decimal:
    if token in DIGIT_WORDS:
        return Decimal(DIGIT_WORDS.index(token))
    try:
        return Decimal(token.replace(",", ""))
    except InvalidOperation as bad:
        raise AmountError(f"숫자를 읽을 수 없습니다: {token!r}") from bad


def korean_amount_words(won: int) -> str:
    """350_000_000 -> '삼억오천만'. 일 is written before 만/억/조 (일억, 일만) as contracts do, so
    nothing can be prefixed to the amount later; before 십/백/천 it is dropped, as Korean reads."""
    if won < 0:
        raise ValueError("금액은 0 이상이어야 합니다")
    if won == 0:
        return "영"
    words = []
    for unit_name, unit in (("조", 10**12), ("억", 10**8), ("만", 10**4), ("", 1)):
        group, won = divmod(won, unit)
        if group:
            words.append(_group_words(group) + unit_name)
    return "".join(words)


def _group_words(group: int) -> str:
    """A number below 10,000 in words: 3456 -> '삼천사백오십육', 1 -> '일'."""
    words = []
    for unit_name, unit in (("천", 1000), ("백", 100), ("십", 10)):
        digit, group = divmod(group, unit)
        if digit:
            words.append(("" if digit == 1 else DIGIT_WORDS[digit]) + unit_name)
    if group:
        words.append(DIGIT_WORDS[group])
    return "".join(words)


def contract_amount(won: int) -> str:
    """How the 표준계약서 writes a sum: '금 삼억오천만원정(₩350,000,000)'."""
    return f"금 {korean_amount_words(won)}원정(₩{won:,})"
