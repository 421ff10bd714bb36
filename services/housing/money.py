"""Korean money: read from what people type, written back one way, and written in words for contracts.

Reading. Every amount is read exactly, in 원, and handed out in 만원 (the unit of the listings and of every
figure in the product) or in 원 (the unit of a contract, which states 차임 to the won):
- with units: "3억", "3억 5천" and "3억 5000" (a number after 억 without 만 is 만원: 3억 5천만원),
  "3억5천만원", "1.5억", "1,500만원", "75만 원", "천만원", "315,000,000원", "12억 3,456만 7,890원";
- "5천", "2천5백": 천 alone is 천만원 in housing talk (a 5천원 deposit is nobody's), unless a unit that is
  not money follows ("5천 세대", "1천 명");
- a bare number only where money is being talked about: right after a money word ("보증금 1000에 월세
  50", "보증금/월세 1000/50"), as the rent joined to a deposit by 에 ("보증금 1000에 70 내고"), or as the new
  figure of a change to an amount just read ("월세 50을 60으로", "50만원인데 10 올려달래요"). Anywhere
  else a bare number is not money ("1000명", "2025년", "30평").
- numerals in words ("금 삼억오천만원정"), which only contracts use, are read by `parse_won`.
Nothing here raises on odd input except `parse_won`, whose callers ask for exactly one amount.

Writing. One format wherever a person reads money (`format_manwon`): the 억 part, then the 만 part with a
thousands separator, then 원: 31500 -> "3억 1,500만원", 69000 -> "6억 9,000만원", 30000 -> "3억원",
4500 -> "4,500만원"; an amount under 1,000만원 with won in it is written in won (37.5 -> "375,000원",
112.5 -> "1,125,000원"), as bills and rents are, so no reader takes "37만 5,000원" for 37만원 and 5,000원,
nor is 112.5 rounded to 112만원. Contracts write a
sum in words and digits (`contract_amount`): "금 삼억오천만원정(₩350,000,000)".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.housing.numerals import DIGIT_WORDS, words_won
from services.housing.text import MAX_DIGITS, normalize, number

MANWON = 10_000  # 원 in 1 만원
EOK = 10_000  # 만원 in 1 억

# Words after a number written with 천 or 백 that make it a count of something else ("5천 세대", "1천 명",
# "2천 평"), or digits that show it was cut short. Only these: nobody writes a date, an age, a floor or a
# time with 천 or 백, so after "3억6천" the words 살고, 일 때, 세입자로, 년 전 are the sentence going on.
_COUNTED = r"\d|[,.]\d|\s*(?:평|㎡|m|제곱|%|퍼|프로|세대|명|개(?!월)|가구|채|건|곳|km)"
# Words after a number in digits that make it something other than money: a count, an address
# ("1203호", "101동"), a year ("2025년", "3년"), and what only a short number is: a day, a month, an age, a
# floor, a time ("15일", "30세", "30살", "3층", "6개월"). A number of four digits or more ("3억6000", "1억
# 2,500") is none of those, so its 일 때, 세입자로 and 살고 are the sentence going on.
_NOT_MONEY = (
    r"\d|[,.]\d|\s*(?:평|㎡|m|제곱|%|퍼|프로|세대|호|동|명|개(?!월)|억|km|가구|채|건|곳)"
    r"|(?:(?<![\d,]{3})|(?<=(?:19|20)\d\d))\s*년"
    r"|(?<![\d,]{4})\s*(?:개월|월(?!세|차임|급|\s*\d+(?!\d|\s*일))|일|층|세|분|번|차|시|살(?![고아았면며던다지기려]))"
)
# A count of 만원 below 1억, written with 천 or 백 ("5천", "2천5백", "1천 500") or in digits ("3,500", "500");
# digits after 천 are its 만원 unless they are something else ("3억 5천 2024년").
_SUB_UNITS = rf"\d+(?:\.\d+)?\s*천(?:\s*\d+\s*백)?(?:\s*\d+(?!\s*[천백억]|{_NOT_MONEY}))?|\d+\s*백(?:\s*\d+)?"
_SUB_DIGITS = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?"
_SUB = rf"(?:{_SUB_UNITS}|{_SUB_DIGITS})"
# A count of 만원 below 1억 that is money where it stands; digits right before 천 or 백 are that amount's
# first figure, never an amount of their own (the 6 of "3억6천" is not 6만원).
_SUB_MONEY = rf"(?:(?:{_SUB_UNITS})(?!{_COUNTED})|(?:{_SUB_DIGITS})(?!\s*[천백]|{_NOT_MONEY}))"
# Won below 만 after a 만 amount: "12억 3,456만 7,890원".
_WON_TAIL = r"(?:\s*(?P<{name}>\d,\d{{3}}|\d{{1,4}})(?=\s*원))?"
_AMOUNT = re.compile(
    rf"(?<![\d.,])(?P<eok>\d+(?:\.\d+)?)\s*억"
    rf"(?:\s*(?P<eok_sub>{_SUB_MONEY})(?:\s*만{_WON_TAIL.format(name='eok_won')})?)?(?:\s*원)?"
    rf"|(?<![\d.,])(?P<man>{_SUB})\s*만(?!기|료|큼|약|족|나){_WON_TAIL.format(name='man_won')}(?:\s*원)?"
    r"|(?<![가-힣\d])(?P<unit_only>천|백)\s*만\s*원"
    r"|(?<![\d.,])(?P<won>\d{1,3}(?:,\d{3})+|\d+)\s*원(?!룸)"
    rf"|(?<![\d.,])(?P<cheon>\d+(?:\.\d+)?\s*천(?:\s*\d+\s*백)?)(?!\s*원|{_COUNTED})"
)
# Words after which a bare number is 만원.
_MONEY_WORDS = "|".join(
    (
        "연봉|연소득|소득|월급|보증금|전세금|전세|월세|매매가|매매|예산|계약금|중도금|잔금",
        "차임|임대료|관리비|가격|금액|대출|근저당|월",
    )
)
_BARE_CONTEXT = re.compile(rf"(?:{_MONEY_WORDS})\s*(?:은|는|이|가|을|를|도|만)?\s*$")
_BARE = re.compile(rf"(?<![\d.,])(?P<sub>{_SUB_MONEY})(?!\s*원(?!룸))")  # 원룸 is a one-room
_SLASH_PAIR = re.compile(r"(?<![\d.,])(\d{2,6})\s*/\s*(\d{1,4})(?![\d.,/])")
# "보증금 1000에 70": a smaller bare number joined to a deposit by 에 is the rent paid with it.
WITH_DEPOSIT = re.compile(r"\s*(?:만\s*원|원)?\s*에\s*(?:다가?)?\s*")
_DEPOSIT_BEFORE = re.compile(r"보증금\s*(?:은|는|이|가)?\s*$")
MAX_RENT_MANWON = 1000  # above any monthly rent in the listings: a larger bare figure is no rent
# The other end of a range: "월세 40~60".
_RANGE_LINK = re.compile(r"^\s*(?:만\s*원|원)?\s*[~\-–]\s*$")
# A change of an amount: "3억을 3억 5천으로", "50에서 60으로", "50 → 60"; the new figure follows the link.
CHANGE_LINK = re.compile(r"^\s*(?:만\s*원|원)?\s*(?:을|를|에서|→|->)\s*$")
CHANGE_TO = re.compile(r"^\s*(?:만\s*원|원)?\s*(?:으로|로)")
# An increase or a cut by the amount: "4천 올려달래요", "5천 더 올려", "10만원 인상", "2천 깎아".
RAISE_VERBS = "올려|올리|올린|올라|인상|증액"
CUT_VERBS = "내려|내리|깎|인하|감액"
# What a landlord demands, said without a raise word: "70 달라는데", "4억으로 하재요", "10만원 더 달래요".
DEMAND_VERBS = "달라|달래|달란|받겠|내라|내래|하재|하자고"
RAISE_BY = re.compile(
    rf"^\s*(?:만\s*원|원)?\s*(?:을|를|이|가|만|씩)?\s*(?:(?:더\s*)?(?:{RAISE_VERBS})|더\s*(?:{DEMAND_VERBS}))"
)
CUT_BY = re.compile(rf"^\s*(?:만\s*원|원)?\s*(?:을|를|이|가|만|씩)?\s*(?:더\s*)?(?:{CUT_VERBS})")
# The new figure of a raise or a cut: "3억 5천으로 올려달래요", "65로 올린대요", "1억으로 낮추고".
TO_RAISED = re.compile(
    rf"^\s*(?:만\s*원|원)?\s*(?:으로|로)\s*(?:더\s*)?(?:{RAISE_VERBS}|{CUT_VERBS}|낮춰|낮추)"
)

# The new figure demanded, with no raise word: "월세를 70 달라는데", "보증금 4억으로 하재요", "60 받겠대요".
DEMANDED = re.compile(rf"^\s*(?:만\s*원|원)?\s*(?:으로|로)?\s*(?:해\s*)?(?:{DEMAND_VERBS})")


@dataclass(frozen=True)
class Money:
    """One amount in a (normalized) text, exact in 원, with where it was written."""

    won: int
    start: int
    end: int

    @property
    def manwon(self) -> int:
        return round(self.won / MANWON)


def _sub_manwon(text: str) -> float | None:
    """A count of 만원 written like "2천5백", "5천", "3,500"."""
    if len(text) > 2 * MAX_DIGITS:
        return None
    thousands = re.search(r"(\d+(?:\.\d+)?)\s*천", text)
    hundreds = re.search(r"(\d+)\s*백", text)
    if not thousands and not hundreds:
        return number(text)
    rest = re.sub(r"\d+(?:\.\d+)?\s*[천백]", "", text)
    return (
        ((number(thousands[1]) or 0) * 1000 if thousands else 0)
        + ((number(hundreds[1]) or 0) * 100 if hundreds else 0)
        + (number(rest) or 0)
    )


def _won_of(m: re.Match[str]) -> float | None:
    if m["eok"]:
        eok = number(m["eok"])
        sub = _sub_manwon(m["eok_sub"]) if m["eok_sub"] else 0
        tail = number(m["eok_won"]) if m["eok_won"] else 0
        return None if eok is None or sub is None else (eok * EOK + sub) * MANWON + (tail or 0)
    if m["man"]:
        man = _sub_manwon(m["man"])
        tail = number(m["man_won"]) if m["man_won"] else 0
        return None if man is None else man * MANWON + (tail or 0)
    if m["unit_only"]:
        return (1000 if m["unit_only"] == "천" else 100) * MANWON
    if m["cheon"]:
        man = _sub_manwon(m["cheon"])
        return None if man is None else man * MANWON
    return number(m["won"])


def _with_units(text: str) -> list[Money]:
    found = []
    for m in _AMOUNT.finditer(text):
        won = _won_of(m)
        if won is not None and won > 0:
            found.append(Money(round(won), m.start(), m.end()))
    return found


def find_money(text: object) -> list[Money]:
    """Every amount of at least 1만원 in the order written (positions in `normalize(text)`)."""
    text = normalize(text)
    found = [m for m in _with_units(text) if m.manwon > 0]
    found += _slash_pairs(text, found)
    found += _bare_after_money_words(text, found)
    found += _bare_continuations(text, found)
    return sorted(found, key=lambda m: m.start)


def _free(found: list[Money], start: int, end: int) -> bool:
    return all(end <= m.start or start >= m.end for m in found)


def _bare_manwon(m: re.Match[str]) -> Money | None:
    value = _sub_manwon(m["sub"])
    return Money(round(value * MANWON), m.start(), m.end()) if value and round(value) > 0 else None


def _slash_pairs(text: str, found: list[Money]) -> list[Money]:
    """ "보증금/월세 1000/50": the deposit and the monthly rent, 만원."""
    pairs: list[Money] = []
    for m in _SLASH_PAIR.finditer(text):
        if _free(found + pairs, m.start(), m.end()) and _BARE_CONTEXT.search(
            text[max(0, m.start() - 12) : m.start()]
        ):
            pairs += [
                Money(int(m[1]) * MANWON, m.start(1), m.end(1)),
                Money(int(m[2]) * MANWON, m.start(2), m.end(2)),
            ]
    return [p for p in pairs if p.won > 0]


def _bare_after_money_words(text: str, found: list[Money]) -> list[Money]:
    bare: list[Money] = []
    for m in _BARE.finditer(text):
        context = text[max(0, m.start() - 12) : m.start()]
        if _free(found, m.start(), m.end()) and _BARE_CONTEXT.search(context):
            bare += [money] if (money := _bare_manwon(m)) else []
    return bare


def _bare_continuations(text: str, found: list[Money]) -> list[Money]:
    """Bare numbers that go on from the amount just before them: the new figure of a change ("50을
    60으로", "월세 60인데 65로 올린대요", "3억인데 4천 올려") or the other end of a range ("40~60")."""
    changes: list[Money] = []
    for m in _BARE.finditer(text):
        before = [f for f in found + changes if f.end <= m.start()]
        if not before or not _free(found + changes, m.start(), m.end()):
            continue
        between, after = text[max(f.end for f in before) : m.start()], text[m.end() :]
        is_target = (
            (CHANGE_LINK.match(between) and CHANGE_TO.match(after))
            or TO_RAISED.match(after)
            or DEMANDED.match(after)
        )
        goes_on = bool(
            is_target or _RANGE_LINK.match(between) or RAISE_BY.match(after) or CUT_BY.match(after)
        )
        if not goes_on and WITH_DEPOSIT.fullmatch(between):
            deposit = max(before, key=lambda f: f.end)
            goes_on = _rent_with(deposit, _sub_manwon(m["sub"]), text)
        if goes_on and not re.search(r"[,.?!\n]", between):
            changes += [money] if (money := _bare_manwon(m)) else []
    return changes


def bare_demands(text: object) -> list[tuple[int, bool]]:
    """Bare numbers said as a landlord's demand with no amount or money word before them: (만원, whether
    it is the new figure rather than a raise by it). "80으로 올려달래요", "90 달래요" -> (80, True),
    (90, True); "10 더 올려달래요" -> (10, False). Money only against a lease stated before
    (conversation.py)."""
    text = normalize(text)
    found = find_money(text)
    demands = []
    for m in _BARE.finditer(text):
        after = text[m.end() :]
        new_figure = bool(TO_RAISED.match(after) or DEMANDED.match(after))
        if _free(found, m.start(), m.end()) and (new_figure or RAISE_BY.match(after)):
            demands += [(money.manwon, new_figure)] if (money := _bare_manwon(m)) else []
    return demands


def could_be_rent_of(deposit_manwon: float, rent_manwon: float) -> bool:
    """Whether a figure beside a deposit is small enough to be the rent paid with it."""
    return rent_manwon < min(deposit_manwon, MAX_RENT_MANWON + 1)


def _rent_with(deposit: Money, rent: float | None, text: str) -> bool:
    """Whether a bare number after "보증금 X에" can be the rent paid with that deposit."""
    return (
        rent is not None
        and could_be_rent_of(deposit.won / MANWON, rent)
        and _DEPOSIT_BEFORE.search(text[max(0, deposit.start - 12) : deposit.start]) is not None
    )


def amounts_manwon(text: object) -> list[int]:
    """Every amount in the text in 만원, in order: "보증금 2억 3000만원에 월세 50만원" -> [23000, 50]."""
    return [m.manwon for m in find_money(text)]


def parse_manwon(text: object) -> int | None:
    """The one amount a short text states ("3억 5천", "5천만원", "1,000만원"), in 만원; None when the
    text holds no amount or several."""
    found = find_money(text)
    return found[0].manwon if len(found) == 1 else None


# ---- a contract's amounts, in 원 ----------------------------------------------------------------------

# Hangul an amount written out in words may hold ('금 삼억오천만원정'); any other Hangul means the
# text is a sentence, where 이 or 일 are words, not digits ('많이' is not 2).
_SPOKEN_AMOUNT = re.compile(
    r"^[\s,.금영일이삼사오육칠팔구십백천만억조원정]*[영일이삼사오육칠팔구십백천만억조][\s원정]*$"
)


class AmountError(ValueError):
    """The text holds no amount that can be read without guessing."""


def parse_won(text: str) -> int:
    """The first amount in a field's text, in 원: "3억 5천", "3억5천만원", "1,000만원", "3.5억",
    "500,000원", "금 삼억오천만원정". The text is known to be money, so a bare number is 만원 ("50",
    "35000"), as people write 보증금 and 월세. Raises AmountError when it holds none."""
    text = normalize(text)
    if _SPOKEN_AMOUNT.match(text):
        return words_won(text)
    if found := _with_units(text):
        return found[0].won
    bare = _BARE.search(text)
    value = _sub_manwon(bare["sub"]) if bare else None
    if value is None:
        raise AmountError(f"금액을 읽을 수 없습니다: {text!r}")
    return round(value * MANWON)


def korean_amount_words(won: int, *, formal: bool = False) -> str:
    """350_000_000 -> '삼억오천만'. 일 is written before 만/억/조 (일억, 일만); before 십/백/천 it is
    dropped, as Korean reads, unless `formal`: a contract writes 일천 and 일백 (금 일억일천만원정) so that
    no figure can be slipped in later (팔억천만 -> 팔억이천만); 십 stays bare (금 십오만원정), as written."""
    if won < 0:
        raise ValueError("금액은 0 이상이어야 합니다")
    if won == 0:
        return "영"
    words = []
    for unit_name, unit in (("조", 10**12), ("억", 10**8), ("만", 10**4), ("", 1)):
        group, won = divmod(won, unit)
        if group:
            words.append(_group_words(group, formal) + unit_name)
    return "".join(words)


def _group_words(group: int, formal: bool) -> str:
    """A number below 10,000 in words: 3456 -> '삼천사백오십육', 1 -> '일'."""
    words = []
    for unit_name, unit in (("천", 1000), ("백", 100), ("십", 10)):
        digit, group = divmod(group, unit)
        if digit:
            bare = digit == 1 and not (formal and unit_name != "십")
            words.append(("" if bare else DIGIT_WORDS[digit]) + unit_name)
    if group:
        words.append(DIGIT_WORDS[group])
    return "".join(words)


def contract_amount(won: int) -> str:
    """How the 표준계약서 writes a sum: '금 삼억오천만원정(₩350,000,000)'."""
    return f"금 {korean_amount_words(won, formal=True)}원정(₩{won:,})"


# ---- writing money for people -------------------------------------------------------------------------


def format_manwon(manwon: float) -> str:
    """The one way money is written for a person (see the module's doc): 31500 -> '3억 1,500만원'."""
    if manwon < 0:  # a loss: the sign in front, the amount read the usual way
        return "-" + format_manwon(-manwon)
    won = round(manwon * MANWON)
    if won % MANWON and manwon < 1000:  # a rent or fee with won in it
        return f"{won:,}원"
    eok, rest = divmod(round(manwon), EOK)
    if eok and rest:
        return f"{eok:,}억 {rest:,}만원"
    return f"{eok:,}억원" if eok else f"{rest:,}만원"


def format_won(won: int) -> str:
    """An amount held in 원 written the same way: 350_000_000 -> '3억 5,000만원'."""
    return format_manwon(won / MANWON)
