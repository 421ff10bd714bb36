"""Dates and terms as people write them about a lease or a loan, and a term's calendar arithmetic."""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from services.housing.text import normalize

# 2025-03-01, 2025.3.1, 2025. 3. 1., 2025/3/1, 2025년 3월 1일, 25년 3월 1일
DATE = re.compile(
    r"(?<!\d)(\d{4}|\d{2})\s*(?:년\s*|[-./]\s*)(\d{1,2})\s*(?:월\s*|[-./]\s*)(\d{1,2})(?:\s*일)?(?!\d)"
)
# '2년', '24개월', '1년 6개월'. Not a term: a year followed by its month ("25년 3월"), an age ("10년 된")
# or a time ago ("3년 전").
_TERM = re.compile(
    r"(?<![\d.])(?:(\d{1,2})\s*년(?!\s*\d{1,2}\s*월)(?:\s*(\d{1,2})\s*개월)?|(\d{1,3})\s*개월)"
    r"(?!\s*(?:전(?!세|월|입|환)|후|된|차|째|도|생|만에))"
)
# A contract clause about the lease term (임대차 기간, or from one day ...).
# A clause states a term when it speaks of 기간 or runs from one point to another ("…부터 …까지"); a
# lapse counted from a day ("잔금일로부터 1개월이 지난 후 전입신고") is not a term.
_TERM_CLAUSE = re.compile(r"기간|부터[^.\n]*까지")


class DateError(ValueError):
    """The text holds no calendar date."""


def dates_at(text: str) -> list[tuple[int, date]]:
    """Every valid date in the text with where it starts; impossible ones (2월 30일) are left out."""
    found = []
    for m in DATE.finditer(text):
        year, month, day = (int(g) for g in m.groups())
        try:
            found.append((m.start(), date(year + 2000 if year < 100 else year, month, day)))
        except ValueError:
            continue
    return found


def find_dates(text: object) -> list[str]:
    """Full dates written ("2025년 3월 1일", "2025.3.1", "2025-03-01") as ISO strings."""
    return [day.isoformat() for _, day in dates_at(normalize(text))]


def parse_date(text: str) -> date:
    dates = dates_at(text)
    if not dates:
        raise DateError(f"날짜를 읽을 수 없습니다: {text!r} (예: 2025-03-01 또는 2025년 3월 1일)")
    return dates[0][1]


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
    dates = dates_at(clause)
    if len(dates) >= 2:
        return int(months_between(dates[0][1], dates[1][1]))
    return parse_term_months(DATE.sub(" ", clause))


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
