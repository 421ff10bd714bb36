"""Time since a lease event as people say it, for the one-year rule on increases (주택임대차보호법 제7조①
후단, 시행령 제8조②): 12 months or more and the rule no longer bars an increase."""

from __future__ import annotations

import pytest

from services.housing.elapsed import elapsed_since, months_since_last, months_text

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "event", "months", "under", "a_year_passed"),
    [
        ("재계약한지 6개월밖에 안 됐는데 보증금 또 올려달래요", "contract", 6, False, False),
        ("계약한지 8개월 됐어요", "contract", 8, False, False),
        ("올린 지 반년 됐는데 또 올려달래요", "increase", 6, False, False),
        ("1년 반 전에 올렸는데 또 올려달래요", "increase", 18, False, True),
        ("재계약 후 4개월 만에 또 올려달래요", "contract", 4, False, False),
        ("재계약하고 6개월밖에 안 됐는데", "contract", 6, False, False),
        ("갱신한 지 1년이 안 됐는데", "contract", 12, True, False),  # less than a year
        ("재계약한 지 1년 다 돼 가는데", "contract", 12, True, False),
        ("재계약한지 거의 1년", "contract", 12, True, False),
        ("계약한 지 1년 넘었어요", "contract", 12, False, True),
        ("계약한 지 일 년 됐는데", "contract", 12, False, True),
        ("재계약한 게 석 달 전인데", "contract", 3, False, False),
        ("보증금 올려준 지 두 달", "increase", 2, False, False),
        ("6개월 전에 전세 계약했어요", "contract", 6, False, False),
        ("이사 온 지 2년", "move_in", 24, False, True),
        ("3개월 전에 이사했는데", "move_in", 3, False, False),
    ],
)
def test_the_time_since_an_event(
    text: str, event: str, months: float, under: bool, a_year_passed: bool
) -> None:
    elapsed = months_since_last(text)
    assert elapsed is not None
    assert (elapsed.event, elapsed.months, elapsed.under) == (event, months, under)
    assert elapsed.at_least(12) is a_year_passed


@pytest.mark.parametrize(
    "text",
    [
        "2년 계약했는데",  # a term
        "만료 6개월 전에 갱신 요구했어요",  # a time to come
        "6개월 후에 만기예요",
        "부산 지 6개월",  # 산 inside a place name
        "작년에 재계약했어요",  # no duration
        "전세 3억인데 4천 올려달래요",
        "",
        None,
    ],
)
def test_what_is_no_time_since_an_event(text: object) -> None:
    assert elapsed_since(text) == []


def test_the_latest_event_counts_and_a_move_only_without_one() -> None:
    # 이사 온 지 2년, 재계약한 지 2달: the renewal is the later event, so 2 months.
    assert months_since_last("이사 온 지 2년 됐고 재계약한 지 2달 됐어요").months == 2
    assert months_since_last("이사 온 지 2년 됐어요").event == "move_in"


def test_the_event_is_named_as_said() -> None:
    assert months_since_last("갱신한 지 3개월").name == "갱신"
    assert months_since_last("재계약한지 6개월").name == "재계약"
    assert months_since_last("1년 반 전에 올렸어요").name == "직전 인상"


@pytest.mark.parametrize(("months", "words"), [(6, "6개월"), (12, "1년"), (18, "1년 6개월"), (24, "2년")])
def test_months_in_words(months: float, words: str) -> None:
    assert months_text(months) == words
