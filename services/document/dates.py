"""Dates of a lease (계약기간, 잔금일) read from Korean text, and a term's end from its length."""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

# 2025-03-01, 2025.3.1, 2025. 3. 1., 2025/3/1, 2025년 3월 1일, 25년 3월 1일
DATE = re.compile(
    r"(?<!\d)(\d{4}|\d{2})\s*(?:년\s*|[-./]\s*)(\d{1,2})\s*(?:월\s*|[-./]\s*)(\d{1,2})(?:\s*일)?(?!\d)"
)
# '2년', '24개월', '1년 6개월'; a year of four digits or one followed by 월 is a date, not a length.
TERM = re.compile(r"(?<!\d)(?:(\d{1,2})\s*년(?!\s*\d{1,2}\s*월)(?:\s*(\d{1,2})\s*개월)?|(\d{1,3})\s*개월)")


class DateError(ValueError):
    """The text holds no calendar date."""


def find_dates(text: str) -> list[tuple[int, date]]:
    """Every valid date in the text with where it starts; impossible ones (2월 30일) are left out."""
    found = []
    for match in DATE.finditer(text):
        year, month, day = (int(g) for g in match.groups())
        try:
            found.append((match.start(), date(year + 2000 if year < 100 else year, month, day)))
        except ValueError:
            continue
    return found


def parse_date(text: str) -> date:
    dates = find_dates(text)
    if not dates:
        raise DateError(f"날짜를 읽을 수 없습니다: {text!r} (예: 2025-03-01 또는 2025년 3월 1일)")
    return dates[0][1]


def term_months(text: str) -> int | None:
    """The length of a term in months, or None when the text states none."""
    match = TERM.search(text)
    if not match:
        return None
    years, extra, months = match.groups()
    return int(years) * 12 + int(extra or 0) if years else int(months)


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
