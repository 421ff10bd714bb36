"""The numbers people ask for, computed from the roles they gave them (QueryEntities' role fields) and the
dated rules, each checked by hand against the article it rests on. Amounts in 만원."""

from __future__ import annotations

import pytest

from contracts.entities import QueryEntities
from contracts.results import StepResult
from services.analysis.case import Case
from services.analysis.lease.jeonse_risk import jeonse_risk
from services.analysis.lease.priority_repayment import priority_repayment
from services.analysis.lease.rent_increase import rent_increase
from services.analysis.rules.rulebook import CORPUS
from services.analysis.rules.statutes import StatuteBook
from tests.unit.step_results import RULES, cited, figure, lease_with_base_rate, read_case

pytestmark = pytest.mark.unit
STATUTES = StatuteBook.load(CORPUS, laws={"주택임대차보호법", "주택임대차보호법 시행령"})


# 1. 차임·보증금 증액 (주택임대차보호법 제7조②, 시행령 제8조①: 약정한 차임등의 20분의 1; 제8조②: 1년)


def test_a_deposit_raised_by_4000_on_30000_exceeds_the_cap_and_tops_out_at_31500() -> None:
    # 4,000 ÷ 30,000 = 13.33% > 5%; 30,000 × 1.05 = 31,500 (1,500 인상); 34,000 − 31,500 = 2,500 refused.
    # The verdict names what was asked as a total (30,000 + 4,000 = 34,000) beside the most allowed.
    case = Case(
        "전세 3억인데 집주인이 4천 올려달래요, 되나요?",
        QueryEntities(deposit_manwon=30000, requested_deposit_manwon=34000),
    )
    result = rent_increase(case, RULES.lease, STATUTES)
    assert result.headline == (
        "4,000만원 인상(13.3%)은 법정 상한 5%를 넘어 요구할 수 없고, "
        "보증금은 요구한 3억 4,000만원이 아니라 최대 3억 1,500만원(1,500만원 인상)까지입니다."
    )
    assert figure(result, "요구 인상액 (보증금)").value == 4000
    assert figure(result, "요구 인상률 (보증금)").value == 13.33
    assert figure(result, "법정 상한 보증금").value == 31500
    assert figure(result, "상한 초과분 (보증금)").value == 2500
    assert any("1년이 지나야" in f for f in result.findings)  # 시행령 제8조②
    assert {"주택임대차보호법/제7조", "주택임대차보호법_시행령/제8조"} <= cited(result)
    assert result.headline not in result.findings


def test_a_monthly_rent_raised_from_50_to_60_exceeds_the_cap_and_tops_out_at_52_5() -> None:
    # 10 ÷ 50 = 20% > 5%; 50 × 1.05 = 52.5만원 (2.5 인상); 60 − 52.5 = 7.5 refused.
    case = Case(
        "월세 50인데 60으로 올려달래요",
        QueryEntities(deposit_manwon=1000, monthly_rent_manwon=50, requested_monthly_rent_manwon=60),
    )
    result = rent_increase(case, RULES.lease, STATUTES)
    assert result.headline == (
        "10만원 인상(20.0%)은 법정 상한 5%를 넘어 요구할 수 없고, "
        "월차임은 요구한 60만원이 아니라 최대 525,000원(25,000원 인상)까지입니다."
    )
    assert figure(result, "요구 인상률 (월차임)").value == 20.0
    assert figure(result, "법정 상한 월차임").value == 52.5


# 2. 전월세 전환 (제7조의2, 시행령 제9조: min(연 10%, 기준금리 + 연 2%p))


def test_a_deposit_of_10000_turned_into_rent_at_base_rate_2_5_is_37_5_a_month() -> None:
    # min(10%, 2.5% + 2%p) = 4.5%; 10,000 × 4.5% ÷ 12 = 37.5만원.
    case = read_case("보증금 1억을 월세로 돌리면 월세 얼마예요?", QueryEntities(deposit_manwon=10000))
    result = rent_increase(case, lease_with_base_rate(0.025), STATUTES)
    assert figure(result, "전월세 전환율 상한").value == 4.5
    assert figure(result, "전환 시 월차임 상한").value == 37.5
    assert result.headline == (
        "보증금 1억원을 월세로 전환하면 법정 전환율 상한 4.5% 기준 월 375,000원까지 받을 수 있습니다"
        "(주택임대차보호법 제7조의2, 시행령 제9조)."
    )
    assert {"주택임대차보호법/제7조의2", "주택임대차보호법_시행령/제9조"} <= cited(result)


def test_a_deposit_lowered_from_30000_to_20000_converts_the_10000_difference() -> None:
    # 30,000 − 20,000 = 10,000 converted; at 4.5%: 37.5만원 a month. Lowering is not an increase.
    case = read_case(
        "보증금 3억에서 2억으로 낮추고 나머지는 월세로 돌리면 월세 얼마?",
        QueryEntities(deposit_manwon=30000, requested_deposit_manwon=20000),
    )
    result = rent_increase(case, lease_with_base_rate(0.025), STATUTES)
    assert figure(result, "전환 시 월차임 상한").value == 37.5
    assert not any(f.label.startswith("요구 인상률") for f in result.figures)


def test_the_conversion_rate_stops_at_ten_percent_when_the_base_rate_is_high() -> None:
    # 기준금리 9%: min(10%, 9% + 2%p = 11%) = 10% (시행령 제9조①); 10,000 × 10% ÷ 12 = 83.33만원.
    case = read_case("보증금 1억을 월세로 돌리면 월세 얼마예요?", QueryEntities(deposit_manwon=10000))
    result = rent_increase(case, lease_with_base_rate(0.09), STATUTES)
    assert figure(result, "전월세 전환율 상한").value == 10.0
    assert figure(result, "전환 시 월차임 상한").value == 83.33


# 3. 최우선변제 (제8조, 시행령 제10조①: 일정액, 제10조②: 주택가액의 2분의 1, 제11조: 보증금 기준)


def priority(query: str, **entities):
    return priority_repayment(Case(query, QueryEntities(**entities)), RULES.small_deposit, STATUTES)


def test_a_seoul_deposit_of_10000_is_protected_up_to_5500() -> None:
    # 서울: 10,000 ≤ 16,500 (제11조 제1호) -> min(10,000, 5,500) = 5,500 (제10조① 제1호).
    result = priority("서울 보증금 1억 원룸인데 최우선변제 받을 수 있나요?", deposit_manwon=10000)
    assert figure(result, "최우선변제 보호액").value == 5500
    assert result.headline.startswith(
        "서울에서 보증금 1억원은 소액임차인(서울특별시 기준 1억 6,500만원 이하)"
    )
    assert "5,500만원까지" in result.headline
    assert {
        "주택임대차보호법/제8조",
        "주택임대차보호법_시행령/제10조",
        "주택임대차보호법_시행령/제11조",
    } <= cited(result)


def test_a_deposit_under_the_protected_amount_is_protected_whole() -> None:
    # 마포구 (서울): 3,000 ≤ 16,500 -> min(3,000, 5,500) = 3,000, whatever the monthly rent (제11조).
    result = priority(
        "보증금 3000에 월세 70 최우선변제", gu=["마포구"], deposit_manwon=3000, monthly_rent_manwon=70
    )
    assert figure(result, "최우선변제 보호액").value == 3000
    assert "보증금 전액 3,000만원" in result.headline


def test_a_seoul_deposit_above_16500_is_not_a_small_deposit() -> None:
    # 20,000 > 16,500 (제11조 제1호): no 최우선변제; 확정일자 우선변제 (제3조의2②) is what remains.
    result = priority("서울 보증금 2억 최우선변제 되나요", deposit_manwon=20000)
    assert figure(result, "최우선변제 보호액").value == 0
    assert "최우선변제 대상이 아닙니다" in result.headline
    assert any("제3조의2" in f for f in result.findings)


def test_suwon_is_in_the_overcrowded_tier_14500_and_4800() -> None:
    # 수원 (과밀억제권역): 14,000 ≤ 14,500 (제11조 제2호) -> min(14,000, 4,800) = 4,800 (제10조① 제2호).
    result = priority("수원 전세 1억4천이면 최우선변제 얼마?", deposit_manwon=14000)
    assert figure(result, "최우선변제 보호액").value == 4800
    assert figure(result, "최우선변제 지역 구간").value.startswith("과밀억제권역")


def test_busan_is_in_the_metropolitan_tier_and_its_county_in_the_last() -> None:
    # 부산: 8,000 ≤ 8,500 (제11조 제3호) -> 2,800 (제10조① 제3호).
    # 기장군 (광역시의 군): 8,000 > 7,500 (제11조 제4호).
    assert (
        figure(priority("부산 보증금 8천 최우선변제", deposit_manwon=8000), "최우선변제 보호액").value == 2800
    )
    county = priority("부산 기장군 보증금 8천 최우선변제", deposit_manwon=8000)
    assert figure(county, "최우선변제 보호액").value == 0
    assert figure(county, "최우선변제 지역 구간").value == "그 밖의 지역"


def test_the_protected_amount_stops_at_half_the_house_value() -> None:
    # 서울, 집값 10,000, 보증금 6,000: min(6,000, 5,500, 10,000 × 1/2 = 5,000) = 5,000 (제10조②).
    result = priority(
        "매매 1억 빌라에 보증금 6천이면 서울 최우선변제 얼마?", deposit_manwon=6000, sale_price_manwon=10000
    )
    assert figure(result, "최우선변제 보호액").value == 5000
    assert "주택가액의 2분의 1 한도인 5,000만원까지" in result.headline


def test_without_a_region_seoul_is_assumed_aloud_and_the_region_asked() -> None:
    result = priority("보증금 1억 최우선변제 얼마예요?", deposit_manwon=10000)
    assert result.headline.startswith("지역을 말씀하지 않아 서울특별시 기준으로 보면")
    assert [q.field for q in result.questions] == ["region"]


def test_a_money_word_is_not_a_place() -> None:
    # "이천만원" is 2,000만원, not the city of 이천 (광역시 등 구간).
    result = priority("보증금 이천만원 최우선변제", deposit_manwon=2000)
    assert result.headline.startswith("지역을 말씀하지 않아")


# 5. 전세가율 (보증금 + 선순위 채권) ÷ 매매가: the person's price before the market's


def risk(query: str, entities: dict, dependencies: dict[str, StepResult] | None = None):
    """The risk analysis on the planner's reading of the question, its figures as `entities` give them."""
    case = read_case(query, QueryEntities.model_validate(entities), {}, dependencies or {})
    return jeonse_risk(case, RULES.jeonse_risk, STATUTES)


SALE_MEDIAN_180000 = {
    "search-market": StepResult(
        data={"market_stats": {"deal_type": "sale", "regions": [{"stats": {"median": 180000}}]}}
    )
}


def test_a_given_sale_price_of_40000_against_36000_is_90_percent_very_risky() -> None:
    # 36,000 ÷ 40,000 = 90% >= 80%: '매우 위험' (infra/seed/rules/jeonse_risk.toml), even with a market
    # median of 180,000 at hand (which would have said 20%).
    result = risk(
        "매매 4억 아파트에 전세 3억6천이면 위험한가요?",
        {"deposit_manwon": 36000, "sale_price_manwon": 40000},
        SALE_MEDIAN_180000,
    )
    assert figure(result, "보증금+선순위채권 ÷ 시세").value == 90.0
    assert result.headline == (
        "말씀하신 매매가 4억원에 보증금 3억 6,000만원이면 전세가율은 90.0%로 '매우 위험' 구간입니다."
    )
    assert figure(result, "말씀하신 매매가").value == 40000


def test_senior_debt_is_added_to_the_deposit() -> None:
    # (20,000 + 8,000) ÷ 40,000 = 70%: '위험' (70% to under 80%).
    result = risk(
        "매매 4억 집에 근저당 8천, 전세 2억 위험?",
        {"deposit_manwon": 20000, "sale_price_manwon": 40000, "senior_debt_manwon": 8000},
    )
    assert figure(result, "보증금+선순위채권 ÷ 시세").value == 70.0
    assert figure(result, "위험 구간").value == "위험"


def test_without_a_given_price_the_market_median_is_used_and_named() -> None:
    # 80,000 ÷ 180,000 = 44.4%: '안전' (under 60%), and the answer says whose price it divided by.
    result = risk(
        "강남구 아파트 전세 8억 위험한가요?",
        {"gu": ["강남구"], "property_types": ["apartment"], "deposit_manwon": 80000},
        SALE_MEDIAN_180000,
    )
    assert figure(result, "보증금+선순위채권 ÷ 시세").value == 44.4
    assert result.headline.startswith("매매가를 말씀하지 않아 강남구 매매 호가 중앙값 18억원 기준으로")


def test_a_guarantee_question_is_answered_by_the_guarantee_rule() -> None:
    # HUG 전세보증금반환보증 (jeonse_risk.toml [guarantee]): (보증금 + 선순위) ≤ 주택가격 × 90%.
    # 28,000 ÷ 30,000 = 93.3% > 90%; the most it covers is 30,000 × 0.9 = 27,000.
    result = risk(
        "매매 3억 빌라에 전세 2억8천인데 HUG 전세보증금 반환보증 가입 되나요?",
        {"deposit_manwon": 28000, "sale_price_manwon": 30000},
    )
    assert result.headline == (
        "말씀하신 매매가 3억원에 보증금 2억 8,000만원이면 전세가율 93.3%로 전세보증금반환보증(HUG) 가입 기준 "
        "90%(보증금과 선순위 채권 합계 2억 7,000만원 이하)를 넘어 가입이 어렵습니다."
    )
    # 25,000 ÷ 30,000 = 83.3% ≤ 90%: it can be insured, though the band is '매우 위험'.
    lower = risk(
        "매매 3억 빌라 전세 2억5천 보증보험 가입 가능?", {"deposit_manwon": 25000, "sale_price_manwon": 30000}
    )
    assert "83.3%" in lower.headline and "충족합니다" in lower.headline


def test_a_debt_said_to_be_absent_is_still_checked_in_the_register() -> None:
    result = risk(
        "시세 10억 아파트에 전세 5억5천, 대출은 없대요",
        {"deposit_manwon": 55000, "sale_price_manwon": 100000},
    )
    assert figure(result, "보증금+선순위채권 ÷ 시세").value == 55.0  # 55,000 ÷ 100,000: '안전'
    assert any("없다고 하셨으니 등기부등본" in f for f in result.findings)
