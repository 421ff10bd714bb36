"""Amounts and their roles as people phrase them: the figures given, the change asked, the range asked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.housing.amounts import Bounds, given_figures, parse_percent, price_bounds, read_amounts
from services.housing.entities import asked_bounds_text, extract_entities

pytestmark = pytest.mark.unit

ROLE_FIELDS = (
    "deposit",
    "monthly_rent",
    "requested_deposit",
    "requested_monthly_rent",
    "sale_price",
    "loan",
    "senior_debt",
    "income",
)


def roles(text: str) -> dict[str, int]:
    """The role fields the question fills, by name without _manwon."""
    e = extract_entities(text)
    return {f: v for f in ROLE_FIELDS if (v := getattr(e, f"{f}_manwon")) is not None}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("보증금 1000에 월세 50", {"deposit": 1000, "monthly_rent": 50}),
        ("매매 4억 아파트에 전세 3억6천이면 위험한가요?", {"sale_price": 40000, "deposit": 36000}),
        ("전세 3억인데 집주인이 4천 올려달래요, 되나요?", {"deposit": 30000, "requested_deposit": 34000}),
        ("전세금 3억을 3억 5천으로 올려달래요", {"deposit": 30000, "requested_deposit": 35000}),
        ("월세 50을 60으로 올린대요", {"monthly_rent": 50, "requested_monthly_rent": 60}),
        # the new figure bare, with words between: the rent's unit carries over
        ("월세 60 내는데 재계약하면서 65로 올린대요", {"monthly_rent": 60, "requested_monthly_rent": 65}),
        (
            "전세 보증금 4억2천인데 재계약하면서 집주인이 5천 더 올려달래요",
            {"deposit": 42000, "requested_deposit": 47000},
        ),
        ("원룸 보증금 500에 월세 40으로 계약하는데 복비", {"deposit": 500, "monthly_rent": 40}),
        ("연봉 6천에 5억짜리 아파트 사려면 대출 얼마나", {"income": 6000, "sale_price": 50000}),
        (
            "근저당 2억 잡힌 집 매매가 5억 전세 2억5천",
            {"senior_debt": 20000, "sale_price": 50000, "deposit": 25000},
        ),
        # phrasings of each role beyond the brief's
        ("보증금/월세 1000/50 원룸 구해요", {"deposit": 1000, "monthly_rent": 50}),
        ("반전세 보증금 1억에 월 30이면 괜찮나요", {"deposit": 10000, "monthly_rent": 30}),
        ("보증금 2억에서 2억 1000만원으로 올린대요", {"deposit": 20000, "requested_deposit": 21000}),
        ("월세 50만원인데 10만원 인상한대요", {"monthly_rent": 50, "requested_monthly_rent": 60}),
        ("전세 4억인데 2천 깎아준대요", {"deposit": 40000, "requested_deposit": 38000}),
        ("집값 8억에 주담대 4억 받으면 이자가", {"sale_price": 80000, "loan": 40000}),
        ("3억 대출 받으려면 연소득이 얼마", {"loan": 30000}),
        ("월급 300인데 대출 2억 가능할까요", {"income": 3600, "loan": 20000}),  # 월급 × 12
        (
            "시세 6억인 집에 융자 3억 있는데 전세 2억 들어가도 돼요?",
            {"sale_price": 60000, "senior_debt": 30000, "deposit": 20000},
        ),
        ("대출 2억 낀 빌라 전세 1억 5천", {"senior_debt": 20000, "deposit": 15000}),
        ("전세자금대출 2억 받을 수 있나요", {"loan": 20000}),
        ("관리비 20만원 포함인가요", {}),  # a fee has no role field
        # a lease figure changed by an amount: 빼 takes it out, and the role word alone names what changes
        ("보증금 3억에서 1억 빼고 나머지는 월세로", {"deposit": 30000, "requested_deposit": 20000}),
        ("전세 3억인데, 보증금 4천 올려달래요", {"deposit": 30000, "requested_deposit": 34000}),
        ("보증금에서 8천만원 빼주고 그만큼 월세로", {}),  # a cut of a deposit not said: no deposit
        # the part turned into rent leaves the deposit as if taken out of it
        ("전세 4억인데 그중 1억 5천을 월세로 바꾸재요", {"deposit": 40000, "requested_deposit": 25000}),
        ("월세 10만원 올린대요", {}),  # an increase by 10, not a rent of 10
        ("5% 올려달래요", {}),
        ("강남구 아파트 매매 10억 이하", {}),  # a bound asks for a range; it is no figure given
    ],
)
def test_amounts_take_their_roles_from_the_phrasing(text: str, expected: dict[str, int]) -> None:
    assert roles(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("연봉 6천에 기존 대출 월 50만원", [("income", 6000), ("debt_payment", 50)]),
        ("월 50만원 갚고 있는 대출 있고 연봉 5천", [("debt_payment", 50), ("income", 5000)]),
        ("부부 합쳐서 연 7천 벌어요", [("income", 7000)]),  # what is earned a year is income
        ("둘이 6천 정도 벌고 있어요", [("income", 6000)]),
        ("신용대출 3천 있고 마이너스통장 2천", [("debt", 3000), ("debt", 2000)]),
        ("순자산 3억, 재산세 50만원", [("assets", 30000), ("holding_cost", 50)]),
        ("관리비 월 10만원", [("fee", 10)]),  # 월 after a role word says per month
        ("반전세 보증금 1억에 월 30", [("deposit", 10000), ("monthly_rent", 30)]),
        ("기존 대출 없음 무주택 서울 8억 아파트", [("price", 80000)]),  # a role said to be absent
        ("월세 받는 오피스텔 3억", [("price", 30000)]),  # the role word describes the 오피스텔
        ("전세 끼고 10억 아파트 사면 보증금 5억", [("price", 100000), ("deposit", 50000)]),
    ],
)
def test_roles_of_the_persons_finances(text: str, expected: list[tuple[str, int]]) -> None:
    assert [(a.role, a.manwon) for a in read_amounts(text)] == expected


def test_a_percent_is_no_amount() -> None:
    e = extract_entities("5% 올려달래요")
    assert e.percent == 5.0 and e.amounts_manwon == []


def test_an_amount_alone_is_just_an_amount() -> None:
    e = extract_entities("3억 5천")
    assert e.amounts_manwon == [35000] and roles("3억 5천") == {}


def test_a_change_without_an_amount_before_it_gives_no_requested_figure() -> None:
    [raise_by] = read_amounts("집주인이 4천 올려달래요")
    assert raise_by.manwon == 4000 and given_figures([raise_by]).requested_deposit is None
    assert (raise_by.change, raise_by.base, raise_by.fact) == ("by", None, False)  # no figure as it is


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("10억 이하", None, 100000),
        ("10억원 이하로", None, 100000),
        ("5억~8억", 50000, 80000),
        ("5~8억", 50000, 80000),
        ("5억에서 8억 사이", 50000, 80000),
        ("8억 미만", None, 79999),
        ("8억 이상", 80000, None),
        ("8억 넘는 아파트", 80001, None),
        ("8억이 넘는", 80001, None),
        ("5억 이상 8억 이하", 50000, 80000),
        ("3억대 전세", 30000, 39999),
        ("10억대", 100000, 199999),
        ("3억 정도", 27000, 33000),
        ("전세 3억", 30000, 30000),
        ("3억을 3억 5천으로", None, None),  # a change, not a range
        ("전세 3억인데 4천 올려달래요", None, None),
        ("연봉 6천만원에 관리비 20만원", None, None),  # incomes and fees are not prices
        ("3억 대출 받으려면", None, None),  # a loan is not a price, and 대출 is not 3억대
    ],
)
def test_price_bounds(text: str, low: int | None, high: int | None) -> None:
    assert price_bounds(text).price == Bounds(low, high)


@pytest.mark.parametrize(
    ("text", "deposit", "rent"),
    [
        ("보증금 1000에 월세 50만원 이하", Bounds(1000, 1000), Bounds(None, 50)),
        ("역삼동 원룸 보증금 1000 이하 월세 60 이하로 찾아줘", Bounds(None, 1000), Bounds(None, 60)),
        ("월세 40~60 원룸", Bounds(), Bounds(40, 60)),
    ],
)
def test_monthly_rent_bounds_are_kept_apart_from_the_deposit(
    text: str, deposit: Bounds, rent: Bounds
) -> None:
    bounds = price_bounds(text)
    assert (bounds.price, bounds.monthly_rent) == (deposit, rent)


def test_percents() -> None:
    assert parse_percent("5% 인상") == 5.0
    assert parse_percent("5퍼센트") == 5.0
    assert parse_percent("2.5프로") == 2.5
    assert parse_percent("3억") is None


@pytest.mark.parametrize(
    "text",
    ["", "   ", "🏠", "ㅋㅋㅋ", "x" * 2000, "9" * 5000 + "억", "억억억", "올려올려", "3억을" * 500, None, 42],
)
def test_odd_input_never_raises(text: object) -> None:
    given_figures(read_amounts(text))
    price_bounds(text)
    parse_percent(text)


def test_the_ends_of_a_range_are_no_figures_given() -> None:
    e = extract_entities("월세 40~60 원룸")
    assert (e.monthly_rent_min_manwon, e.monthly_rent_max_manwon) == (40, 60)
    assert e.monthly_rent_manwon is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("역삼동 원룸 보증금 1000 이하 월세 60 이하로 찾아줘", "보증금 1,000만원 이하, 월세 60만원 이하"),
        ("월세 원룸 보증금 500 이상", "보증금 500만원 이상"),  # never read as a rent
        ("강남구 아파트 매매 10억 이하", "10억원 이하"),
        ("5억~8억 아파트", "5억원~8억원"),
        ("강남구 아파트 시세", ""),
        ("강남구 아파트 전세 10억 넘는 곳", "10억원 초과"),  # kept as 100,001만원, said as asked
        ("전세 5억 미만 아파트", "5억원 미만"),
        ("월세 100 넘는 오피스텔", "월세 100만원 초과"),
    ],
)
def test_the_ranges_asked_are_written_with_their_names(text: str, words: str) -> None:
    assert asked_bounds_text(extract_entities(text)) == words


# How a landlord's demand is reported without a raise word: the new figure, not the one that stands.
DEMANDS = st.sampled_from(["달라는데", "달래요", "달란다", "으로 해 달래요", "로 하재요", "받겠대요"])


@given(
    st.sampled_from([("월세", "monthly_rent"), ("보증금", "deposit")]),
    st.integers(10, 900),
    st.integers(1, 90),
    DEMANDS,
)
def test_a_figure_demanded_is_the_figure_asked_for_not_the_one_that_stands(
    kind: tuple[str, str], current: int, raise_by: int, demand: str
) -> None:
    word, role = kind
    asked = current + raise_by
    ending = demand if demand[0] in "으로" else f" {demand}"
    alone = given_figures(read_amounts(f"집주인이 {word}를 {asked}{ending} 가능한가요?"))
    assert (getattr(alone, f"requested_{role}"), getattr(alone, role)) == (asked, None)
    both = given_figures(read_amounts(f"지금 {word} {current}인데 {asked}{ending}"))
    assert (getattr(both, f"requested_{role}"), getattr(both, role)) == (asked, current)


@given(
    st.integers(1, 30), st.integers(0, 9), st.sampled_from(["살고 있는데", "사는데", "사요", "거주 중이에요"])
)
def test_the_deposit_of_a_monthly_lease_lived_in_is_a_figure_not_a_cut(
    eok: int, cheon: int, living: str
) -> None:
    written = f"{eok}억{cheon}천" if cheon else f"{eok}억"
    figures = given_figures(read_amounts(f"서울 빌라에 보증금 {written} 월세로 {living}"))
    assert figures.deposit == eok * 10000 + cheon * 1000


@given(
    st.sampled_from([("월세", "monthly_rent"), ("보증금", "deposit")]),
    st.integers(10, 900),
    st.integers(1, 90),
    st.sampled_from(["더 달래요", "더 달라는데", "만원 더 달래요", " 더 받겠대요"]),
)
def test_so_much_more_demanded_raises_the_figure_that_stands(
    kind: tuple[str, str], current: int, more: int, demand: str
) -> None:
    word, role = kind
    figures = given_figures(
        read_amounts(f"지금 {word} {current}인데 {more}{demand if demand[0] != '더' else ' ' + demand}")
    )
    assert (getattr(figures, role), getattr(figures, f"requested_{role}")) == (current, current + more)
