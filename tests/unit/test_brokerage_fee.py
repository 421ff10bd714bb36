"""중개보수 (공인중개사법 제32조, 시행규칙 제20조·별표 1·서울특별시 조례): the amount and the rate a
person asking "복비 얼마" is told, and what every fee keeps to: never above the 한도액 nor above
거래금액 × 상한요율."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from contracts.entities import QueryEntities
from services.analysis.case import Case
from services.analysis.deal.brokerage_fee import (
    FeeCeiling,
    applicable_rate,
    brokerage_fee,
    lease_transaction_amount,
)
from services.analysis.rules.brokerage import HousingRates
from services.analysis.rules.rulebook import CORPUS
from services.analysis.rules.statutes import StatuteBook
from tests.unit.step_results import RULES, cited, figure, read_case

pytestmark = pytest.mark.unit
STATUTES = StatuteBook.load(CORPUS, laws={"공인중개사법", "공인중개사법 시행규칙"})
TODAY = date(2026, 11, 28)
HOUSING = RULES.brokerage.housing[-1]
AMOUNTS = st.integers(min_value=0, max_value=10_000_000)  # 만원: up to 1,000억
DEALS = st.sampled_from(["sale", "lease"])


def fee(query: str, **entities):
    return brokerage_fee(read_case(query, QueryEntities(**entities)), RULES.brokerage, STATUTES)


def fee_manwon(result) -> float:
    return figure(result, "중개보수 상한").value


def test_a_sale_of_15_eok_is_charged_at_most_0_7_percent_1050_manwon() -> None:
    # 150,000 × 0.7% = 1,050만원; no 한도액 from 15억 up.
    result = fee("매매 15억이면 중개보수 얼마", deal_type="sale", sale_price_manwon=150000)
    assert fee_manwon(result) == 1050
    assert (
        result.headline
        == "매매가 15억원이면 중개보수는 최대 1,050만원입니다(거래금액 15억원 × 상한요율 0.7%)."
    )
    assert any("쌍방" in f and "각각" in f and "부가가치세" in f for f in result.findings)
    assert cited(result) == {"공인중개사법/제32조", "공인중개사법_시행규칙/제20조"}


def test_a_monthly_lease_over_its_cap_is_charged_the_cap() -> None:
    # 2,000 + 70 × 100 = 9,000 → × 0.4% = 36만원, held to the 한도액 30만원.
    result = fee("보증금 2천에 월세 70 복비", deposit_manwon=2000, monthly_rent_manwon=70)
    assert figure(result, "중개보수 거래금액").value == 9000
    assert fee_manwon(result) == 30
    assert "최대 30만원" in result.headline and "36만원, 한도액 30만원" in result.headline


def test_a_small_monthly_lease_multiplies_the_rent_by_70_and_stays_under_its_cap() -> None:
    # 500 + 40 × 100 = 4,500 < 5,000 → 500 + 40 × 70 = 3,300; × 0.5% = 16.5만원 (한도액 20만원 not reached).
    result = fee("보증금 500에 월세 40이면 복비 얼마?", deposit_manwon=500, monthly_rent_manwon=40)
    assert figure(result, "중개보수 거래금액").value == 3300
    assert fee_manwon(result) == 16.5
    assert "최대 165,000원" in result.headline


def test_a_jeonse_of_3_eok_is_0_3_percent() -> None:
    # 30,000 × 0.3% = 90만원.
    result = fee("전세 3억이면 복비 얼마 나와요?", deal_type="jeonse", deposit_manwon=30000)
    assert fee_manwon(result) == 90
    assert result.headline.startswith("전세 보증금 3억원이면 중개보수는 최대 90만원입니다")


@pytest.mark.parametrize(
    ("deal", "amount", "rate", "fee_expected"),
    [
        ("sale", 20000, 0.004, 80),  # 2억 exactly: the 0.4% band (its neighbour's 0.5% capped at 80 agrees)
        ("sale", 90000, 0.005, 450),  # 9억 exactly: 0.5%, not 0.4% (360)
        ("sale", 120000, 0.006, 720),  # 12억 exactly: 0.6%
        ("sale", 4500, 0.006, 25),  # 27만원 held to 25만원
        ("lease", 60000, 0.004, 240),  # 6억 exactly: 0.4%, not 0.3% (180)
        ("lease", 5000, 0.004, 20),  # 5천 exactly: 0.4% (cap 30 not reached)
        ("lease", 4999, 0.005, 20),  # 24.995만원 held to 20만원
    ],
)
def test_band_edges_take_the_band_that_starts_there(deal, amount, rate, fee_expected) -> None:
    found = applicable_rate("housing", deal, amount, RULES.brokerage, TODAY)
    assert found is not None and found.max_rate == rate
    assert FeeCeiling(amount, found.max_rate, found.cap_manwon).fee_manwon == fee_expected


def test_a_qualifying_officetel_takes_the_officetel_rates() -> None:
    # 별표 2: 매매 0.5% (30,000 → 150만원), 임대차 0.4% (20,000 → 80만원); the 85㎡ condition is said.
    sale = fee(
        "오피스텔 매매 3억 중개수수료",
        property_types=["officetel"],
        deal_type="sale",
        sale_price_manwon=30000,
    )
    lease = fee(
        "오피스텔 전세 2억 복비", property_types=["officetel"], deal_type="jeonse", deposit_manwon=20000
    )
    assert (fee_manwon(sale), fee_manwon(lease)) == (150, 80)
    assert any("85㎡ 이하" in f for f in sale.findings)


def test_a_shop_is_capped_at_nine_per_thousand() -> None:
    # 상가 (제20조④ 제2호): 3,000 + 200 × 100 = 23,000; × 0.9% = 207만원 from each party.
    result = fee(
        "상가 보증금 3000 월세 200 중개수수료",
        property_types=["commercial"],
        deposit_manwon=3000,
        monthly_rent_manwon=200,
    )
    assert figure(result, "중개보수 거래금액").value == 23000
    assert figure(result, "중개보수 상한 (주택 외").value == 207


def test_a_home_priced_with_no_deal_named_is_reckoned_as_a_sale_and_as_a_jeonse() -> None:
    # 1억 5천: 매매 0.5% = 75만원, 전세 0.3% = 45만원.
    result = fee("1억 5천 빌라 중개비 얼마 드나요", property_types=["villa"], amounts_manwon=[15000])
    assert [f.value for f in result.figures if f.label.startswith("중개보수 상한")] == [75, 45]
    assert "매매가라면" in result.headline and "전세 보증금이라면" in result.headline
    # 75,000: 매매 2억~9억 0.4% and 임대차 6억~12억 0.4% agree on 300만원, said once.
    same = fee(
        "7억 5천 아파트 사는데 중개비 얼마 드나요", property_types=["apartment"], amounts_manwon=[75000]
    )
    assert same.headline == (
        "7억 5,000만원이면 매매가든 전세 보증금이든 중개보수는 최대 300만원입니다"
        "(거래금액 7억 5,000만원 × 상한요율 0.4%)."
    )


def test_an_amount_with_no_lease_role_is_not_a_deposit_for_the_fee() -> None:
    # 50만원 is an extra charge the broker asks for, not the lease's deposit: no 거래금액 to reckon.
    result = fee("복비 말고 중개사가 수고비로 50만원 따로 더 달래요.. 줘야 되는 건가요?")
    assert not result.figures and result.questions
    # a deposit-and-rent pair in order still reads as the lease: 1,000 + 50 × 100 = 6,000 ≥ 5,000.
    paired = fee("보증금 1000 월세 50 원룸 복비 계산")
    assert figure(paired, "중개보수 거래금액").value == 6000


def test_without_an_amount_the_person_is_asked_for_one() -> None:
    result = fee("복비는 어떻게 계산해요?")
    assert [q.field for q in result.questions] == ["deposit_manwon"]
    assert not result.figures


def test_a_day_before_the_table_came_into_force_gets_no_rate() -> None:
    # The 서울 조례 table holds from 2021-12-30; an earlier day's table is not in the data.
    case = Case("전세 3억 복비", QueryEntities(deposit_manwon=30000), {"as_of": "2021-06-01"})
    result = brokerage_fee(case, RULES.brokerage, STATUTES)
    assert figure(result, "중개보수 거래금액").value == 30000
    assert not [f for f in result.figures if f.label.startswith("중개보수 상한")]
    assert result.headline and "요율표는 자료에 없습니다" in result.headline


def test_a_rate_table_with_a_gap_at_the_bottom_is_refused() -> None:
    bands = [{"from_manwon": 5000, "max_rate": 0.004}]
    with pytest.raises(ValidationError):
        HousingRates.model_validate(
            {**HOUSING.model_dump(), "sale": bands, "lease": [b.model_dump() for b in HOUSING.lease]}
        )


@given(DEALS, AMOUNTS)
def test_the_fee_never_exceeds_the_cap_nor_amount_times_rate(deal, amount) -> None:
    found = applicable_rate("housing", deal, amount, RULES.brokerage, TODAY)
    assert found is not None
    ceiling = FeeCeiling(amount, found.max_rate, found.cap_manwon)
    assert ceiling.fee_manwon <= amount * found.max_rate + 1e-9
    assert found.cap_manwon is None or ceiling.fee_manwon <= found.cap_manwon
    if not ceiling.capped:  # cut to the 원, never by more than one
        assert amount * found.max_rate - ceiling.fee_manwon < 1 / 10_000


@given(DEALS, AMOUNTS, AMOUNTS)
def test_a_larger_amount_never_pays_less(deal, a, b) -> None:
    # Holds within every band, and across the 서울 table's edges too (each band starts where the one below
    # it ends up, e.g. 매매 4,999 → 25만원 (cap), 5,000 → 25만원).
    low, high = sorted((a, b))

    def fee_of(amount: int) -> float:
        found = applicable_rate("housing", deal, amount, RULES.brokerage, TODAY)
        assert found is not None
        return FeeCeiling(amount, found.max_rate, found.cap_manwon).fee_manwon

    assert fee_of(low) <= fee_of(high)


@given(st.integers(0, 100_000), st.integers(1, 1_000))
def test_the_transaction_amount_is_the_article_formula(deposit, rent) -> None:
    # 제20조⑤ 제1호: 보증금 + 월차임 × 100, or × 70 when that sum is under 5천만원.
    rule = RULES.brokerage.transaction_amount
    full = deposit + rent * 100
    expected = full if full >= 5000 else deposit + rent * 70
    assert lease_transaction_amount(deposit, rent, rule).amount == expected
