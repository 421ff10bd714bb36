"""Numbers as Koreans write them about housing: money in 억/천/만, areas in 평 and m², percents, dates, terms.

Every function takes any text and returns None or an empty result when it finds nothing it can read;
none of them raises. Money comes back in 만원 (10,000 KRW) as integers.

Area rules (the listings' areas are supply area, 공급면적):
- "N평대" is [N, N+10) 평; "N평" alone is [N-1, N+1) 평, one 평 either side of what was said, since
  listings round and people round more; "N평 이상/이하" is a one-sided bound.
- An area written in m² ("84㎡", "84제곱미터", "전용 59") is read as exclusive area (전용면적), the
  figure Korean listings have had to quote in m² since 2009, and turned into the supply band it implies
  at the usual 전용률 of 70–80 %: 84 m² -> [105, 120) m². "공급 112㎡" is supply area, ±5 %.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from typing import Literal

PYEONG_M2 = 400 / 121  # 1 평 in m²
MAX_CHARS = 4000  # longer text is cut: the gateway takes questions of up to 2,000 characters
MAX_DIGITS = 12  # longer digit runs are not amounts anyone means (and int() refuses huge ones)
EXCLUSIVE_SHARE = (0.70, 0.80)  # 전용률 range of apartments: exclusive / supply area

MoneyRole = Literal["price", "monthly_rent", "fee", "income"]


@dataclass(frozen=True)
class Money:
    """One amount in the text: `role` is what it pays for, from the money word nearest before it."""

    manwon: int
    start: int
    end: int
    role: MoneyRole = "price"


@dataclass(frozen=True)
class Bounds:
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True)
class PriceBounds:
    """The price or deposit asked (매매가, 전세금, 보증금) and the monthly rent asked (월세), in 만원."""

    price: Bounds = Bounds()
    monthly_rent: Bounds = Bounds()


@dataclass(frozen=True)
class SizeBand:
    """A supply-area band in m², `max_m2` exclusive, and the words it was read from."""

    min_m2: float | None
    max_m2: float | None
    text: str


def normalize(text: object) -> str:
    """NFKC (full-width digits and signs), tildes unified, and "5~8억" spelled "5억~8억". Hangul jamo
    ("ㅎㅇ") and ㎡ are kept as typed, so words and sizes can be quoted back as written."""
    if not isinstance(text, str):
        return ""
    text = "".join(c if _kept_as_typed(c) else unicodedata.normalize("NFKC", c) for c in text[:MAX_CHARS])
    text = text.replace("∼", "~").replace("〜", "~")
    return _SHARED_UNIT.sub(lambda m: f"{m[1]}{m[4]}{m[2]}{m[3]}{m[4]}", text)


_SHARED_UNIT = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(\s*[~\-–]\s*)(\d+(?:\.\d+)?)\s*(억|천만|만|평)(?!\d)")


def _kept_as_typed(c: str) -> bool:
    return c == "㎡" or "\u3130" <= c <= "\u318f"


def _number(digits: str) -> float | None:
    digits = re.sub(r"[\s,]", "", digits)
    if not digits or len(digits) > MAX_DIGITS:
        return None
    try:
        return float(digits)
    except ValueError:
        return None


# ---- money -------------------------------------------------------------------------------------------

# A count of 만원 below 1억: "5천", "2천5백", "3,500", "500".
_SUB = (
    r"(?:\d+(?:\.\d+)?\s*천(?:\s*\d+\s*백)?(?:\s*\d+(?![\d.]|\s*[천백억]))?"
    r"|\d+\s*백(?:\s*\d+)?|\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
)
# Words after a number that make it something other than money.
_NOT_MONEY = r"[\d,.]|\s*(?:평|㎡|m|제곱|%|퍼|프로|년|개월|월|일|층|호|동|세|명|분|개|번|살|차|억|km|시)"
_AMOUNT = re.compile(
    rf"(?<![\d.,])(?P<eok>\d+(?:\.\d+)?)\s*억(?:\s*(?P<eok_sub>{_SUB})(?!{_NOT_MONEY})(?:\s*만)?)?(?:\s*원)?"
    rf"|(?<![\d.,])(?P<man>{_SUB})\s*만(?!기|료|큼|약|족|나)(?:\s*원)?"
    r"|(?<![가-힣\d])(?P<unit_only>천|백)\s*만\s*원"
    r"|(?<![\d.,])(?P<won>\d{1,3}(?:,\d{3}){2,}|\d{6,})\s*원"
)
# Bare numbers are 만원 right after a money word: "보증금 1000에 월세 50", "1000/50".
_MONEY_WORD = r"(?:연봉|연소득|소득|보증금|전세금|전세|월세|매매가|매매|예산|차임|임대료|관리비|가격|금액|월)"
_BARE_CONTEXT = re.compile(rf"{_MONEY_WORD}\s*(?:은|는|이|가|을|를|도|만)?\s*$")
_BARE = re.compile(rf"(?<![\d.,])(?P<sub>{_SUB})(?!{_NOT_MONEY}|\s*원)")
_SLASH_PAIR = re.compile(r"(?<![\d.,])(\d{2,6})\s*/\s*(\d{1,4})(?![\d.,/])")
_ROLE_WORD = re.compile(
    r"(연봉|연소득|소득|월급|월세|차임|임대료|월(?=\s*\d)|관리비|보증금|전세금?|매매가?|예산|가격|금액)"
)


def _sub_value(text: str) -> float | None:
    """A count of 만원 written like "2천5백", "5천", "3,500"."""
    if len(text) > 2 * MAX_DIGITS:
        return None
    thousands = re.search(r"(\d+(?:\.\d+)?)\s*천", text)
    hundreds = re.search(r"(\d+)\s*백", text)
    if not thousands and not hundreds:
        return _number(text)
    rest = re.sub(r"\d+(?:\.\d+)?\s*[천백]", "", text)
    parts = [
        (_number(thousands[1]) or 0) * 1000 if thousands else 0,
        (_number(hundreds[1]) or 0) * 100 if hundreds else 0,
        _number(rest) or 0,
    ]
    return sum(parts)


def _amount_value(m: re.Match[str]) -> float | None:
    if m["eok"]:
        eok = _number(m["eok"])
        sub = _sub_value(m["eok_sub"]) if m["eok_sub"] else 0
        return None if eok is None or sub is None else eok * 10000 + sub
    if m["man"]:
        return _sub_value(m["man"])
    if m["unit_only"]:
        return 1000 if m["unit_only"] == "천" else 100
    won = _number(m["won"])
    return None if won is None or won < 10000 else won / 10000


def _role_before(text: str, start: int) -> MoneyRole:
    words = _ROLE_WORD.findall(re.split(r"[,.?!\n]", text[:start])[-1])
    if not words:
        return "price"
    last = words[-1]
    if last == "관리비":
        return "fee"
    if last in ("연봉", "연소득", "소득", "월급"):
        return "income"
    return "monthly_rent" if last in ("월세", "차임", "임대료", "월") else "price"


def find_money(text: str) -> list[Money]:
    """Every money amount in the order written; bare numbers count only after a money word."""
    text = normalize(text)
    found: list[Money] = []
    for m in _AMOUNT.finditer(text):
        value = _amount_value(m)
        if value is not None and round(value) > 0:
            found.append(Money(round(value), m.start(), m.end(), _role_before(text, m.start())))
    found += _bare_money(text, [(f.start, f.end) for f in found])
    return sorted(found, key=lambda f: f.start)


def _bare_money(text: str, taken: list[tuple[int, int]]) -> list[Money]:
    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    found: list[Money] = []
    for m in _SLASH_PAIR.finditer(text):
        if free(m.start(), m.end()) and _BARE_CONTEXT.search(text[max(0, m.start() - 12) : m.start()]):
            found.append(Money(int(m[1]), m.start(1), m.end(1), "price"))
            found.append(Money(int(m[2]), m.start(2), m.end(2), "monthly_rent"))
            taken.append((m.start(), m.end()))
    for m in _BARE.finditer(text):
        value = _sub_value(m["sub"])
        context = text[max(0, m.start() - 12) : m.start()]
        if value and free(m.start(), m.end()) and _BARE_CONTEXT.search(context):
            found.append(Money(round(value), m.start(), m.end(), _role_before(text, m.start())))
    return found


def parse_money(text: str) -> int | None:
    """The one amount a short text states ("3억 5천", "5천만원", "1,000만원"), in 만원; None when the
    text holds no amount or several."""
    amounts = find_money(text)
    return amounts[0].manwon if len(amounts) == 1 else None


def format_manwon(manwon: int) -> str:
    """35000 -> "3억 5,000만원", 30000 -> "3억원", 50 -> "50만원"."""
    eok, rest = divmod(manwon, 10000)
    if eok and rest:
        return f"{eok:,}억 {rest:,}만원"
    return f"{eok:,}억원" if eok else f"{rest:,}만원"


# ---- money bounds -------------------------------------------------------------------------------------

_PARTICLE = r"\s*(?:원)?\s*(?:이|가|을|를|은|는|도)?\s*"
_QUALIFIER = re.compile(
    _PARTICLE
    + r"(?P<q>이하|까지|이내|안쪽|안으로|안에서|아래|밑|미만|이상|넘는|넘게|넘은|넘어|초과|부터|정도|쯤|"
    r"내외|안팎|전후|가량)"
)
_DECADE = re.compile(r"대(?=$|\s|[의에가는를로인도이])")  # "3억대": that 억 and the next
_RANGE_LINK = re.compile(r"\s*(?:원)?\s*(?:~|-|–|에서|부터)\s*$")
_UPPER = {
    "이하": 0,
    "까지": 0,
    "이내": 0,
    "안쪽": 0,
    "안으로": 0,
    "안에서": 0,
    "아래": 0,
    "밑": 0,
    "미만": -1,
}
_LOWER = {"이상": 0, "부터": 0, "넘는": 1, "넘게": 1, "넘은": 1, "넘어": 1, "초과": 1}


def price_bounds(text: str) -> PriceBounds:
    """The price/deposit and monthly-rent ranges asked: "10억 이하", "5억~8억", "5억에서 8억 사이",
    "8억 넘는", "3억대", "3억 정도" (±10 %), or one lone amount (both ends equal to it)."""
    text = normalize(text)
    amounts = find_money(text)
    return PriceBounds(
        price=_bounds_of(text, [a for a in amounts if a.role == "price"]),
        monthly_rent=_bounds_of(text, [a for a in amounts if a.role == "monthly_rent"]),
    )


def _bounds_of(text: str, amounts: list[Money]) -> Bounds:
    for first, second in zip(amounts, amounts[1:], strict=False):
        if _RANGE_LINK.match(text[first.end : second.start]):
            return Bounds(min(first.manwon, second.manwon), max(first.manwon, second.manwon))
    qualified = [b for b in (_qualified(text, a) for a in amounts) if b]
    if qualified:  # "5억 이상 8억 이하": the first lower and the first upper bound
        lows = [b.low for b in qualified if b.low is not None]
        highs = [b.high for b in qualified if b.high is not None]
        return Bounds(lows[0] if lows else None, highs[0] if highs else None)
    if len(amounts) == 1:
        return Bounds(amounts[0].manwon, amounts[0].manwon)
    return Bounds()  # several unqualified amounts are a change ("3억을 3억 5천으로"), not a range


def _qualified(text: str, amount: Money) -> Bounds | None:
    after = text[amount.end : amount.end + 12]
    value = amount.manwon
    if _DECADE.match(after):
        step = 10 ** (len(str(value)) - len(str(value).rstrip("0")))
        return Bounds(value, value + step - 1)
    m = _QUALIFIER.match(after)
    if not m:
        return None
    word = m["q"]
    if word in _UPPER:
        return Bounds(None, value + _UPPER[word])
    if word in _LOWER:
        return Bounds(value + _LOWER[word], None)
    return Bounds(round(value * 0.9), round(value * 1.1))


# ---- sizes --------------------------------------------------------------------------------------------

_PYEONG = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*평(?:형)?\s*(대)?(?:\s*(이상|이하|미만|넘는|초과))?")
_PYEONG_RANGE = re.compile(
    r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*평(?:형)?\s*~\s*(\d{1,3}(?:\.\d+)?)\s*평(?:형)?(대)?"
)
_SQUARE_M = re.compile(
    r"(?P<kind>전용|공급)?(?:\s*면적)?\s*(?<![\d.])(?P<n>\d{1,3}(?:\.\d+)?)\s*(?P<unit>㎡|m2|m\b|제곱미터|제곱|평방미터|sqm)?"
    r"(?:\s*(?P<side>이상|이하|미만|넘는|초과))?"
)


def parse_size(text: str) -> SizeBand | None:
    """The area asked, as a supply-area band in m² (see the module's rules); None when none is named."""
    text = normalize(text)
    return _pyeong_band(text) or _square_metre_band(text)


def _band(low: float | None, high: float | None, words: str) -> SizeBand:
    return SizeBand(None if low is None else round(low, 2), None if high is None else round(high, 2), words)


def _one_sided(low: float, high: float, side: str | None) -> tuple[float | None, float | None]:
    if side in ("이상", "넘는", "초과"):
        return low, None
    if side in ("이하", "미만"):
        return None, high
    return low, high


def _pyeong_band(text: str) -> SizeBand | None:
    m = _PYEONG_RANGE.search(text)
    if m:
        low, high = _number(m[1]), _number(m[2])
        if low is not None and high is not None:
            return _band(low * PYEONG_M2, (high + (10 if m[3] else 1)) * PYEONG_M2, m[0].strip())
    m = _PYEONG.search(text)
    n = _number(m[1]) if m else None
    if not m or not n:
        return None
    low, high = (n, n + 10) if m[2] else (n - 1, n + 1)
    if m[3]:
        low, high = _one_sided(n, n, m[3])
        return _band(
            None if low is None else low * PYEONG_M2, None if high is None else high * PYEONG_M2, m[0]
        )
    return _band(low * PYEONG_M2, high * PYEONG_M2, m[0].strip())


def _square_metre_band(text: str) -> SizeBand | None:
    for m in _SQUARE_M.finditer(text):
        if not (m["unit"] or m["kind"] == "전용"):
            continue  # a bare number is an area only after 전용 ("전용 59")
        n = _number(m["n"])
        if not n:
            continue
        if m["kind"] == "공급":
            low, high = n * 0.95, n * 1.05
        else:
            low, high = n / EXCLUSIVE_SHARE[1], n / EXCLUSIVE_SHARE[0]
        one_low, one_high = _one_sided(low, high, m["side"])
        return _band(one_low, one_high, m[0].strip())
    return None


# ---- percents, dates, terms ---------------------------------------------------------------------------

_PERCENT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*(?:%|퍼센트|퍼|프로)")
_DATE = re.compile(r"(?<!\d)(\d{4})\s*(?:년|[.\-/])\s*(\d{1,2})\s*(?:월|[.\-/])\s*(\d{1,2})(?!\d)\s*일?")
_TERM = re.compile(
    r"(?<![\d.])(?:(\d{1,2})\s*년(?:\s*(\d{1,2})\s*개월)?|(\d{1,3})\s*개월)(?!\s*(?:전(?!세|월|입|환)|후|된|차|째|도|생|만에))"
)


def parse_percent(text: str) -> float | None:
    """The first percentage written: "5%", "5퍼센트", "5프로" -> 5.0."""
    m = _PERCENT.search(normalize(text))
    return _number(m[1]) if m else None


def find_dates(text: str) -> list[str]:
    """Full dates written ("2025년 3월 1일", "2025.3.1", "2025-03-01") as ISO strings; impossible dates
    ("2025년 2월 30일") are left out."""
    found = []
    for m in _DATE.finditer(normalize(text)):
        try:
            found.append(date(int(m[1]), int(m[2]), int(m[3])).isoformat())
        except ValueError:
            continue
    return found


def parse_term_months(text: str) -> int | None:
    """A term in months: "2년" -> 24, "1년 6개월" -> 18, "6개월" -> 6. Ages ("10년 된") and times ago
    ("3년 전") are not terms."""
    m = _TERM.search(normalize(text))
    if not m:
        return None
    if m[3]:
        return int(m[3]) or None
    return int(m[1]) * 12 + int(m[2] or 0) or None
