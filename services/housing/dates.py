"""Dates and terms as people write them about a lease or a loan, and a term's calendar arithmetic.

A date is read as people say it: written in full ("2025년 3월 1일", "2025.3.1"), or against the day the
person spoke ("오늘", "내일", "다음 달 말", "이번 주 금요일", "내년 3월 1일", "3일 뒤", "12월 20일"). That
reference day is always handed in (the turn's own time, `korean_day` of its event's occurred_at), never
read from a clock here, so a replay of the same events reads the same dates. Without one only dates written
in full are read.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from services.housing.text import normalize

# Korea keeps UTC+9 all year (no daylight saving), so a fixed offset is Asia/Seoul without a tz database.
KOREA = timezone(timedelta(hours=9), "Asia/Seoul")

# 2025-03-01, 2025.3.1, 2025. 3. 1., 2025/3/1, 2025년 3월 1일, 25년 3월 1일
DATE = re.compile(
    r"(?<!\d)(\d{4}|\d{2})\s*(?:년\s*|[-./]\s*)(\d{1,2})\s*(?:월\s*|[-./]\s*)(\d{1,2})(?:\s*일)?(?!\d)"
)
# '2년', '24개월', '1년 6개월'. Not a term: a year followed by its month ("25년 3월"), an age ("10년 된"),
# a time ago ("3년 전") or a day counted from now ("6개월 뒤").
_TERM = re.compile(
    r"(?<![\d.])(?:(\d{1,2})\s*년(?!\s*\d{1,2}\s*월)(?:\s*(\d{1,2})\s*개월)?|(\d{1,3})\s*개월)"
    r"(?!\s*(?:전(?!세|월|입|환)|후|뒤|된|됐|되었|넘었|지났|차|째|도|생|만에))"
)
# A contract clause about the lease term (임대차 기간, or from one day ...).
# A clause states a term when it speaks of 기간 or runs from one point to another ("…부터 …까지"); a
# lapse counted from a day ("잔금일로부터 1개월이 지난 후 전입신고") is not a term.
_TERM_CLAUSE = re.compile(r"기간|부터[^.\n]*까지")

# Where in a month a day is said to fall: 'N일', 말/말일/그믐 (its last day), 초 (its first), 중순 (the 15th);
# not 말고 ('올해 말고 내년'), 말씀 or 초과.
_EDGE = r"말일|말(?![고씀])|그믐|초(?!과)|중순"
_IN_MONTH = rf"(?:(?P<day>\d{{1,2}})\s*일(?!\s*(?:간|동안|뒤|후|전|째))|(?P<part>{_EDGE}))"
_YEARS = {
    "재작년": -2,
    "작년": -1,
    "지난해": -1,
    "올해": 0,
    "금년": 0,
    "내년": 1,
    "명년": 1,
    "내후년": 2,
    "후년": 2,
}
# How many months ('다음 달') or weeks ('다음 주') on from the reference day's.
_SHIFTS = {"지난": -1, "저번": -1, "이번": 0, "이": 0, "다음": 1, "담": 1, "다다음": 2}
_MONTH_WORDS = {"지난달": -1, "이달": 0, "금월": 0, "내달": 1, "익월": 1}
_DAYS = {
    "오늘": 0,
    "금일": 0,
    "내일모레": 2,
    "내일": 1,
    "모레": 2,
    "글피": 3,
    "어제": -1,
    "그저께": -2,
    "그제": -2,
}
_WEEKDAYS = "월화수목금토일"  # date.weekday(): Monday is 0
_NATIVE = {
    "한": 1,
    "두": 2,
    "세": 3,
    "석": 3,  # 석 달
    "네": 4,
    "넉": 4,  # 넉 달
    "다섯": 5,
    "여섯": 6,
    "일곱": 7,
    "여덟": 8,
    "아홉": 9,
    "열": 10,
}
_NAMED_SPANS = {
    "하루": 1,
    "이틀": 2,
    "사흘": 3,
    "나흘": 4,
    "닷새": 5,
    "엿새": 6,
    "이레": 7,
    "일주일": 7,
    "열흘": 10,
    "보름": 15,
}
_UNIT_DAYS = {"일": 1, "주": 7, "주일": 7}
_UNIT_MONTHS = {"달": 1, "개월": 1, "년": 12}


def _alternatives(words: dict[str, int]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))  # longest first: 내후년 before 후년


_NOT_IN_WORD = r"(?<![가-힣])"
_YEAR_DAY = re.compile(
    rf"{_NOT_IN_WORD}(?P<year>{_alternatives(_YEARS)})\s*(?P<month>\d{{1,2}})\s*월\s*{_IN_MONTH}"
)
_YEAR_END = re.compile(rf"{_NOT_IN_WORD}(?:(?P<year>{_alternatives(_YEARS)})\s*|연)말(?![고씀])")
_MONTH_DAY = re.compile(rf"(?<![\d년.\-/])(?P<month>\d{{1,2}})\s*월\s*{_IN_MONTH}")
_RELATIVE_MONTH = re.compile(
    rf"{_NOT_IN_WORD}(?:(?P<rel>{_alternatives(_SHIFTS)})\s*달|(?P<word>{_alternatives(_MONTH_WORDS)}))"
    rf"\s*{_IN_MONTH}"
)
# '월말', '월초' (this month's), and '말일' alone; not 매월 말일, which is every month's.
_THIS_MONTH = re.compile(
    rf"{_NOT_IN_WORD}(?:월(?P<part>말|초)(?![고씀과])|(?<!매월 )(?<!매달 )(?<!매월)(?<!매달)말일)"
)
_DAY_WORD = re.compile(rf"{_NOT_IN_WORD}(?:{_alternatives(_DAYS)})")
_WEEKDAY = re.compile(
    rf"{_NOT_IN_WORD}(?:(?P<rel>{_alternatives(_SHIFTS)})\s*주\s*)?(?P<weekday>[{_WEEKDAYS}])요일"
)
_SPAN = re.compile(
    rf"{_NOT_IN_WORD}(?:(?P<count>\d{{1,3}}|{_alternatives(_NATIVE)})\s*(?P<unit>주일|주|일|달|개월|년)"
    rf"|(?P<named>{_alternatives(_NAMED_SPANS)}))\s*(?:뒤|후|있다가|지나서)"
)


class DateError(ValueError):
    """The text holds no calendar date."""


@dataclass(frozen=True)
class SpokenDate:
    """A date the text states, where its words start and end, and the calendar day they mean."""

    start: int
    end: int
    day: date


def korean_day(moment: datetime) -> date:
    """The day in Korea at a moment: the reference day of what was said then."""
    return moment.astimezone(KOREA).date()


def spoken_dates(text: str, today: date | None = None) -> list[SpokenDate]:
    """Every date the text states, in order; with `today`, dates said relative to it too. Impossible days
    (2월 30일) are left out. Where two readings overlap ("다음 달 15일" holds "15일"), the one that starts
    first, then the longer, is the date."""
    readers = _READERS if today is not None else _READERS[:1]
    found = [
        SpokenDate(m.start(), m.end(), day)
        for pattern, read in readers
        for m in pattern.finditer(text)
        if (day := _resolved(read, m, today or date.min)) is not None  # without today: full dates only
    ]
    taken: list[SpokenDate] = []
    for candidate in sorted(found, key=lambda d: (d.start, d.start - d.end)):
        if not taken or candidate.start >= taken[-1].end:
            taken.append(candidate)
    return taken


def find_dates(text: object, today: date | None = None) -> list[str]:
    """The dates the text states ("2025년 3월 1일", "2025.3.1", and against `today` "내일", "다음 달 말")
    as ISO strings."""
    return [spoken.day.isoformat() for spoken in spoken_dates(normalize(text), today)]


def parse_date(text: str, today: date | None = None) -> date:
    dates = spoken_dates(normalize(text), today)
    if not dates:
        raise DateError(
            f"날짜를 읽을 수 없습니다: {text!r} (예: 2025-03-01, 2025년 3월 1일, 내일, 다음 달 말)"
        )
    return dates[0].day


def without_dates(text: str, today: date | None = None) -> str:
    """The text with every date it states blanked out, so a length read after it ("부터 2년") is not taken
    from a date's words."""
    for spoken in reversed(spoken_dates(text, today)):
        text = f"{text[: spoken.start]} {text[spoken.end :]}"
    return text


def _resolved(read: Callable[[re.Match[str], date], date], match: re.Match[str], today: date) -> date | None:
    try:
        return read(match, today)
    except (ValueError, OverflowError):  # 2월 30일, or a span past the calendar's end
        return None


def _written_in_full(m: re.Match[str], _today: date) -> date:
    year, month, day = (int(g) for g in m.groups())
    return date(year + 2000 if year < 100 else year, month, day)


def _in_month(year: int, month: int, m: re.Match[str]) -> date:
    """The day of a month the words name: 'N일', 말 (the last day), 초 (the 1st), 중순 (the 15th)."""
    if m["day"]:
        return date(year, month, int(m["day"]))
    last = calendar.monthrange(year, month)[1]
    return date(year, month, {"초": 1, "중순": 15}.get(m["part"], last))


def _year_day(m: re.Match[str], today: date) -> date:
    return _in_month(today.year + _YEARS[m["year"]], int(m["month"]), m)


def _year_end(m: re.Match[str], today: date) -> date:
    return date(today.year + _YEARS.get(m["year"] or "올해", 0), 12, 31)


def _month_day(m: re.Match[str], today: date) -> date:
    """A month and day without a year ("12월 20일") mean the next such day on or after the reference day:
    people name a coming day so; a day of this year already past is next year's (2월 29일, the next leap
    year's)."""
    for year in range(today.year, today.year + 9):
        try:
            day = _in_month(year, int(m["month"]), m)
        except ValueError:
            continue
        if day >= today:
            return day
    raise ValueError(m.group())


def _relative_month(m: re.Match[str], today: date) -> date:
    """'다음 달 말', '이번 달 15일', '익월 초': that day of the month so many months on."""
    shift = _SHIFTS[m["rel"]] if m["rel"] else _MONTH_WORDS[m["word"]]
    month = add_months(today.replace(day=1), shift)
    return _in_month(month.year, month.month, m)


def _this_month(m: re.Match[str], today: date) -> date:
    """'월초' is this month's first day; '월말' and '말일' alone its last."""
    last = calendar.monthrange(today.year, today.month)[1]
    return today.replace(day=1 if m["part"] == "초" else last)


def _day_word(m: re.Match[str], today: date) -> date:
    return today + timedelta(days=_DAYS[m.group().strip()])


def _weekday(m: re.Match[str], today: date) -> date:
    """'이번 주 금요일', '다음 주 화요일': that day of the week (Monday to Sunday) so many weeks from this
    one; a weekday alone ('금요일') is the next one on or after today."""
    weekday = _WEEKDAYS.index(m["weekday"])
    if m["rel"] is None:
        return today + timedelta(days=(weekday - today.weekday()) % 7)
    monday = today - timedelta(days=today.weekday())
    return monday + timedelta(weeks=_SHIFTS[m["rel"]], days=weekday)


def _span(m: re.Match[str], today: date) -> date:
    """'3일 뒤', '2주 후', '한 달 뒤', '1년 뒤', '이틀 뒤': so long after today. A span before ('6개월 전') is
    not read: people count it back from another day ('만료 6개월 전'), rarely from today."""
    if m["named"]:
        return today + timedelta(days=_NAMED_SPANS[m["named"]])
    count = int(m["count"]) if m["count"].isdigit() else _NATIVE[m["count"]]
    if m["unit"] in _UNIT_MONTHS:
        return add_months(today, count * _UNIT_MONTHS[m["unit"]])
    return today + timedelta(days=count * _UNIT_DAYS[m["unit"]])


# The date written in full first: it is the one reader that needs no reference day.
_READERS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str], date], date]], ...] = (
    (DATE, _written_in_full),
    (_YEAR_DAY, _year_day),
    (_YEAR_END, _year_end),
    (_MONTH_DAY, _month_day),
    (_RELATIVE_MONTH, _relative_month),
    (_THIS_MONTH, _this_month),
    (_DAY_WORD, _day_word),
    (_WEEKDAY, _weekday),
    (_SPAN, _span),
)


def parse_term_months(text: object) -> int | None:
    """A term in months: "2년" -> 24, "1년 6개월" -> 18, "6개월" -> 6; None when the text states none."""
    m = _TERM.search(normalize(text))
    if not m:
        return None
    if m[3]:
        return int(m[3]) or None
    return int(m[1]) * 12 + int(m[2] or 0) or None


def clause_term_months(clause: str) -> int | None:
    """The lease term a contract clause about 기간 states, in whole months: from one date to the other
    ("2025년 3월 1일부터 2027년 2월 28일까지" -> 24), else its length ("1년으로 한다" -> 12)."""
    if not _TERM_CLAUSE.search(clause):
        return None
    dates = spoken_dates(clause)
    if len(dates) >= 2:
        return int(months_between(dates[0].day, dates[1].day))
    return parse_term_months(without_dates(clause))


def add_months(start: date, months: int) -> date:
    month_index = start.month - 1 + months
    year, month = start.year + month_index // 12, month_index % 12 + 1
    return date(year, month, min(start.day, calendar.monthrange(year, month)[1]))


def term_end(start: date, months: int) -> date:
    """The last day of a term: 2년 from 2025-03-01 ends on 2027-02-28 (the day before the anniversary)."""
    return add_months(start, months) - timedelta(days=1)


def months_between(start: date, end: date) -> float:
    """Whole months from start to the day after end, plus the part of a month left (for the 2-year test)."""
    after = end + timedelta(days=1)
    months = (after.year - start.year) * 12 + after.month - start.month
    if add_months(start, months) > after:
        months -= 1
    return months + (after - add_months(start, months)).days / 31
