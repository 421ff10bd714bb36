"""Dates and terms as people write them about a lease or a loan."""

from __future__ import annotations

import re
from datetime import date

from services.housing.text import normalize

_DATE = re.compile(r"(?<!\d)(\d{4})\s*(?:년|[.\-/])\s*(\d{1,2})\s*(?:월|[.\-/])\s*(\d{1,2})(?!\d)\s*일?")
_TERM = re.compile(
    r"(?<![\d.])(?:(\d{1,2})\s*년(?:\s*(\d{1,2})\s*개월)?|(\d{1,3})\s*개월)(?!\s*(?:전(?!세|월|입|환)|후|된|차|째|도|생|만에))"
)


def find_dates(text: object) -> list[str]:
    """Full dates written ("2025년 3월 1일", "2025.3.1", "2025-03-01") as ISO strings; impossible dates
    ("2025년 2월 30일") are left out."""
    found = []
    for m in _DATE.finditer(normalize(text)):
        try:
            found.append(date(int(m[1]), int(m[2]), int(m[3])).isoformat())
        except ValueError:
            continue
    return found


def parse_term_months(text: object) -> int | None:
    """A term in months: "2년" -> 24, "1년 6개월" -> 18, "6개월" -> 6. Ages ("10년 된") and times ago
    ("3년 전") are not terms."""
    m = _TERM.search(normalize(text))
    if not m:
        return None
    if m[3]:
        return int(m[3]) or None
    return int(m[1]) * 12 + int(m[2] or 0) or None
