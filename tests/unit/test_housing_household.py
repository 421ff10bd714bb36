"""The household as people say it, read once for the loan simulator's profile and the loan application."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.housing import household

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("무주택이에요", (0, False)),
        ("생애최초로 집 사요", (0, True)),  # 생애최초 is no home yet, and the first-home programmes apply
        ("1주택자인데 갈아타려고요", (1, False)),
        ("집 한 채 있는데 하나 더 사려고요", (1, False)),  # held now; adds_a_home says one more is bought
        ("집 2채 있어요", (2, False)),
        ("다주택자", (2, False)),
        ("연봉 6천", (None, False)),  # nothing said of homes: None, never a guess
    ],
)
def test_homes_the_household_has(text: str, expected: tuple[int | None, bool]) -> None:
    assert household.houses(text) == expected


def test_one_more_home_kept_beside_the_first_is_an_added_home_and_a_move_is_not() -> None:
    assert household.adds_a_home("집 한 채 있는데 하나 더 사려고요")
    assert not household.adds_a_home("지금 집 팔고 갈아타려고요")


def test_marriage_debts_income_and_children_only_as_said() -> None:
    assert household.marriage("결혼 3년차 부부") == (True, 3, False)
    assert household.marriage("저희 결혼한 지 2년 됐고") == (True, 2, False)
    assert household.marriage("결혼하고 5년 지났어요") == (True, 5, False)
    assert household.marriage("결혼했어요") == (True, None, False)
    assert household.marriage("내년에 결혼 예정") == (None, None, True)
    assert household.marriage("연봉 6천") == (None, None, False)
    assert household.says_no_debt("기존 대출은 없어요") and not household.says_no_debt("대출 2억")
    assert household.says_no_income("소득이 없어요")
    assert household.children("자녀 2명") == (2, False)
    assert household.children("신생아가 있어요") == (1, True)


@given(st.integers(19, 70), st.sampled_from(["만 {}살", "{}살", "만 {}세", "{}세", "만{}살"]),
       st.sampled_from(["", "이에요", "인데", " 직장인", "이고 연봉 4천"]))  # fmt: skip
def test_an_age_reads_back_in_any_sentence(years: int, said: str, after: str) -> None:
    assert household.age(f"저 {said.format(years)}{after} 청년 전세대출 돼요?") == years


@pytest.mark.parametrize("text", ["월세 50 살다가 이사", "보증금 1억에 월세 40 살고 있어요", "연봉 4천"])
def test_living_somewhere_is_no_age(text: str) -> None:
    assert household.age(text) is None


@pytest.mark.parametrize(
    ("text", "count"),
    [("10억 아파트 두 채째 사면", 1), ("집 두 채 있어요", 2), ("2채째 사려고요", 1), ("세 채째예요", 2)],
)
def test_homes_counted_in_words_and_the_nth_home_bought(text: str, count: int) -> None:
    assert household.houses(text) == (count, False)
