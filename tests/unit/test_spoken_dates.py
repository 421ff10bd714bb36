"""Dates as people say them ("오늘", "다음 달 말", "이번 주 금요일", "내년 3월 1일", "3일 뒤"), read against
the day the person spoke. The expected days are computed here with plain datetime arithmetic, never by
the reader under test."""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.housing.dates import DateError, find_dates, korean_day, parse_date, spoken_dates

pytestmark = pytest.mark.unit

DAYS = st.dates(min_value=date(2000, 1, 1), max_value=date(2090, 12, 31))
WEEKDAYS = "월화수목금토일"
# What people write around a date in a contract sentence; none of it changes the day.
SAID = st.sampled_from(["{}", "계약금은 {} 주고", "잔금은 {}에 줘요", "입주는 {}부터요", "{}까지 보내주세요"])
# The native numbers before 달, each way people say them ("석 달", "넉 달" as much as "세 달", "네 달").
NATIVE = {1: ["한"], 2: ["두"], 3: ["세", "석"], 4: ["네", "넉"], 5: ["다섯"], 6: ["여섯"]}
# Spans of days named by a word of their own.
NAMED_DAYS = {
    "하루": 1,
    "이틀": 2,
    "사흘": 3,
    "나흘": 4,
    "닷새": 5,
    "엿새": 6,
    "이레": 7,
    "열흘": 10,
    "보름": 15,
}


def last_of_month(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def months_on(day: date, months: int) -> date:
    """The same day so many months on, the month's last day where it is shorter."""
    year, month = divmod(day.year * 12 + day.month - 1 + months, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def read(phrase: str, today: date, sentence: str = "{}") -> date:
    dates = find_dates(sentence.format(phrase), today)
    assert len(dates) == 1, (phrase, dates)
    return date.fromisoformat(dates[0])


@given(DAYS, st.sampled_from([("오늘", 0), ("내일", 1), ("모레", 2), ("글피", 3), ("어제", -1)]), SAID)
def test_a_day_named_by_its_word_counts_from_today(today: date, word: tuple[str, int], said: str) -> None:
    assert read(word[0], today, said) == today + timedelta(days=word[1])


@given(DAYS, st.integers(1, 400), st.sampled_from(["뒤", "후"]), SAID)
def test_days_after_today(today: date, days: int, after: str, said: str) -> None:
    assert read(f"{days}일 {after}", today, said) == today + timedelta(days=days)


@given(DAYS, st.integers(1, 10), SAID)
def test_weeks_after_today(today: date, weeks: int, said: str) -> None:
    assert read(f"{weeks}주 후", today, said) == today + timedelta(weeks=weeks)


@given(DAYS, st.sampled_from(sorted(NAMED_DAYS.items())), st.sampled_from(["뒤", "후"]), SAID)
def test_days_named_by_their_word_after_today(
    today: date, span: tuple[str, int], after: str, said: str
) -> None:
    assert read(f"{span[0]} {after}", today, said) == today + timedelta(days=span[1])


@given(DAYS, st.integers(1, 6), st.booleans(), st.integers(0, 1), SAID)
def test_months_after_today_keep_the_day_or_the_months_last(
    today: date, months: int, native: bool, way: int, said: str
) -> None:
    words = NATIVE[months]
    phrase = f"{words[way % len(words)]} 달 뒤" if native else f"{months}개월 후"
    assert read(phrase, today, said) == months_on(today, months)


@given(DAYS, SAID)
def test_the_end_and_the_start_of_next_month(today: date, said: str) -> None:
    first_of_next = (today.replace(day=28) + timedelta(days=4)).replace(day=1)
    assert read("다음 달 말", today, said) == last_of_month(first_of_next.year, first_of_next.month)
    assert read("다음 달 말일", today, said) == last_of_month(first_of_next.year, first_of_next.month)
    assert read("다음 달 초", today, said) == first_of_next
    assert read("말일", today, said) == last_of_month(today.year, today.month)


@given(DAYS, st.integers(1, 28), SAID)
def test_a_day_of_this_month_is_this_months_even_if_past(today: date, day: int, said: str) -> None:
    assert read(f"이번 달 {day}일", today, said) == today.replace(day=day)


@given(DAYS, st.integers(0, 6), st.sampled_from([("이번", 0), ("다음", 1), ("다다음", 2)]), SAID)
def test_a_weekday_of_this_or_a_later_week(
    today: date, weekday: int, week: tuple[str, int], said: str
) -> None:
    day = read(f"{week[0]} 주 {WEEKDAYS[weekday]}요일", today, said)
    # Weeks run Monday to Sunday, as ISO weeks do.
    assert day.weekday() == weekday
    assert day.isocalendar()[:2] == (today + timedelta(weeks=week[1])).isocalendar()[:2]


@given(DAYS, st.integers(0, 6))
def test_a_weekday_alone_is_the_next_one_from_today(today: date, weekday: int) -> None:
    day = read(f"{WEEKDAYS[weekday]}요일", today)
    assert day.weekday() == weekday and 0 <= (day - today).days < 7


@given(DAYS, st.integers(1, 12), st.integers(1, 28), SAID)
def test_next_years_day(today: date, month: int, day: int, said: str) -> None:
    assert read(f"내년 {month}월 {day}일", today, said) == date(today.year + 1, month, day)
    assert read(f"올해 {month}월 {day}일", today, said) == date(today.year, month, day)


@given(DAYS, st.integers(1, 12), st.integers(1, 28), SAID)
def test_a_month_and_day_without_a_year_is_the_next_such_day(
    today: date, month: int, day: int, said: str
) -> None:
    this_year = date(today.year, month, day)
    expected = this_year if this_year >= today else date(today.year + 1, month, day)
    assert read(f"{month}월 {day}일", today, said) == expected


@given(DAYS, st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31)), SAID)
def test_a_date_written_in_full_needs_no_reference_day(today: date, day: date, said: str) -> None:
    written = f"{day.year}년 {day.month}월 {day.day}일"
    assert read(written, today, said) == day
    assert find_dates(said.format(written)) == [day.isoformat()]


@given(st.text(max_size=300), DAYS)
def test_any_text_is_read_without_an_error(text: str, today: date) -> None:
    for iso in find_dates(text, today):
        date.fromisoformat(iso)
    try:
        parse_date(text, today)
    except DateError:
        pass  # no date in the text: the one error callers handle


def test_relative_words_need_a_reference_day() -> None:
    assert find_dates("계약금은 내일, 잔금은 다음 달 말") == []
    with pytest.raises(DateError):
        parse_date("다음 달 초")


def test_two_dates_in_a_sentence_each_read_once() -> None:
    today = date(2026, 11, 28)
    text = "계약금 1억2천은 내일 주고 잔금 10억8천은 내년 2월 28일에 줘요"
    assert [d.day for d in spoken_dates(text, today)] == [date(2026, 11, 29), date(2027, 2, 28)]


@pytest.mark.parametrize(
    "text",
    [
        "계약 만료 6개월 전부터",  # counted back from another day, not from today
        "재계약한지 3일 됐어요",
        "지금일단 알려줘",
        "2년 계약",
        "월세 50",
        "올해 말고 내년에 이사해요",
        "다음 달 말고 그다음 달",
        "월세는 매월 말일에 내요",  # every month's, no one day
        "월 25일 지급",
        "이번 달 초과 납부",
    ],
)
def test_words_that_are_no_date(text: str) -> None:
    assert find_dates(text, date(2026, 11, 28)) == []


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("월말", date(2026, 11, 30)),
        ("월초", date(2026, 11, 1)),
        ("연말", date(2026, 12, 31)),
        ("내년 말", date(2027, 12, 31)),
        ("익월 초", date(2026, 12, 1)),
        ("이달 말", date(2026, 11, 30)),
        ("다음달 15일", date(2026, 12, 15)),
        ("이틀 뒤", date(2026, 11, 30)),
        ("일주일 후", date(2026, 12, 5)),
        ("내일모레", date(2026, 11, 30)),
        ("2월 29일", date(2028, 2, 29)),  # the next 2월 29일 is in a leap year
    ],
)
def test_more_ways_a_day_is_said(text: str, day: date) -> None:
    assert parse_date(text, date(2026, 11, 28)) == day


def test_the_reference_day_is_the_day_in_korea() -> None:
    assert korean_day(datetime(2026, 11, 28, 14, 59, tzinfo=UTC)) == date(2026, 11, 28)
    assert korean_day(datetime(2026, 11, 28, 15, 0, tzinfo=UTC)) == date(2026, 11, 29)
