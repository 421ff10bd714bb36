"""Korean numerals in words ('삼천만원', '이억', '천오백', '오십'), read where text is made readable.

People write amounts in words as well as in digits ("계약금은 삼천만원이요", "보증금 천오백에 월세 육십"),
and contracts always do ("금 삼억오천만원정"). `spoken_to_digits` rewrites such numerals into digits with
their 만·억 kept ("삼억오천" -> "3억5000", "삼천만원" -> "3000만원"), so every reader of amounts, areas and
counts reads them as it reads digits. A run of numeral syllables is a number only where it cannot be a
word: it starts a word, is well formed (units falling, as numbers are said), and is followed by a unit, a
particle or the end of the word. "이사", "천천히", "인천", "만기", "이십대" and "천이 넘는" stay as written.
"""

from __future__ import annotations

import re

DIGIT_WORDS = "영일이삼사오육칠팔구"
SMALL_UNITS = {"십": 10, "백": 100, "천": 1000}
BIG_UNITS = {"만": 10**4, "억": 10**8, "조": 10**12}

_RUN = re.compile(r"(?<![가-힣\d])[일이삼사오육칠팔구십백천만억]+")
# What may follow a numeral: money and area units, the particles and endings people put after an amount,
# or anything that is not Hangul. 이 and 일 are also words (a particle, a day), so a numeral ending in them
# needs money right after it ("천이 넘는" is 1,000, never 1,002).
_AFTER = re.compile(
    r"(?:원|평|세대|에|으로|로|이요|이에요|예요|요|인|입니|이었|였|이라|이면|이고|짜리|까지|부터|밖에|이하|이상|이내"
    r"|미만|넘게|가량|정도|쯤|선|씩|전에|을|를|은|는|이|가|도|[^가-힣]|$)"
)


def words_value(words: str) -> list[tuple[int, str]] | None:
    """Numerals in words as their sections: '삼억오천만' -> [(3, '억'), (5000, '만')], '천오백' ->
    [(1500, '')]; None when the syllables are not a number as Korean says one (units out of order, a
    digit twice)."""
    sections: list[tuple[int, str]] = []
    section, digit, last_small, last_big = 0, None, 10**5, 10**13
    for c in words:
        if c in SMALL_UNITS:
            if SMALL_UNITS[c] >= last_small or digit == 0:
                return None
            section += (1 if digit is None else digit) * SMALL_UNITS[c]
            digit, last_small = None, SMALL_UNITS[c]
        elif c in BIG_UNITS:
            value = section + (digit or 0)
            if BIG_UNITS[c] >= last_big or (value == 0 and sections):
                return None
            sections.append((value or 1, c))
            section, digit, last_small, last_big = 0, None, 10**5, BIG_UNITS[c]
        elif digit is not None:
            return None
        else:
            digit = DIGIT_WORDS.index(c)
    if section or digit:
        sections.append((section + (digit or 0), ""))
    return sections or None


def words_won(text: str) -> int:
    """An amount in words, in 원: '삼억오천만원' -> 350,000,000. Without 원 it follows the digits' habits:
    '오십' is 50만원 and '삼억오천' 3억 5천만원 (what follows 억 is 만원)."""
    sections = words_value("".join(c for c in text if c in DIGIT_WORDS or c in SMALL_UNITS or c in BIG_UNITS))
    if not sections:
        return 0
    total = sum(value * BIG_UNITS[unit] for value, unit in sections if unit)
    tail = sections[-1][0] if not sections[-1][1] else 0
    last_big = next((BIG_UNITS[unit] for _, unit in reversed(sections) if unit), 0)
    if "원" not in text and last_big in (0, BIG_UNITS["억"]):
        tail *= 10**4
    return total + tail


def spoken_to_digits(text: str) -> str:
    """Every numeral in words that is a number where it stands, written in digits (see the module)."""
    return _RUN.sub(lambda m: _as_digits(m[0], text, m.end()), text)


def _as_digits(run: str, text: str, end: int) -> str:
    # The longest well-formed start of the run that is followed by what a number is followed by; the
    # rest of the run is the sentence going on ("삼천이요": 삼천, then 이요).
    for length in range(len(run), 0, -1):
        words, after = run[:length], run[length:] + text[end:]
        sections = words_value(words)
        if sections is None or not any(c in SMALL_UNITS or c in BIG_UNITS for c in words):
            continue
        if any(c in SMALL_UNITS or c in BIG_UNITS for c in run[length:]):
            continue  # what is left would be a number of its own: the run is no number ("이천이십오년")
        if all(c in BIG_UNITS for c in words):
            continue  # "만 34세", "억 단위": a unit alone is no amount
        if words == "이만" and not after.startswith("원"):
            continue  # "이만 줄입니다", "이만큼": a word
        if words[-1] in "일이" and not re.match(r"원|만|억", after):
            continue
        if _AFTER.match(after):
            return _digits(sections, won=after.startswith("원")) + run[length:]
    return run


def _digits(sections: list[tuple[int, str]], won: bool) -> str:
    """'3억5000' for 삼억오천 (after 억, digits are 만원, as people write them), unless won follow a 만 or 억
    amount ("일억일원"), which only the whole figure in digits says exactly."""
    if won and len(sections) > 1 and not sections[-1][1]:
        return str(sum(value * BIG_UNITS.get(unit, 1) for value, unit in sections))
    return "".join(f"{value}{unit}" for value, unit in sections)
