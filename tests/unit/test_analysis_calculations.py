"""Analysis calculations against hand-worked examples (amounts in 만원)."""

from __future__ import annotations

import pytest

from contracts.entities import QueryEntities
from contracts.results import ListingRow, StepResult
from services.analysis.case import Case
from services.analysis.deal.market import market_analysis, percentile_of
from services.analysis.lease.jeonse_risk import jeonse_risk
from services.analysis.lease.rent_increase import rent_increase
from services.analysis.rules.rulebook import CORPUS
from services.analysis.rules.statutes import StatuteBook
from services.housing.entities import extract_entities
from tests.unit.step_results import RULES, figure, read_case

pytestmark = pytest.mark.unit
STATUTES = StatuteBook.load(CORPUS, laws={"주택임대차보호법", "주택임대차보호법 시행령"})


def test_a_jeonse_increase_above_five_percent_is_flagged_with_the_legal_maximum() -> None:
    # 3억 -> 3억 5천: (35,000 - 30,000) / 30,000 = 16.67%; cap 30,000 x 1.05 = 31,500; excess 3,500.
    result = rent_increase(read_case("전세금 3억인데 3억 5천으로 올려달래요"), RULES.lease, STATUTES)
    assert figure(result, "요구 인상률").value == 16.67
    assert figure(result, "법정 상한 보증금").value == 31500
    assert figure(result, "상한 초과분").value == 3500
    assert "요구할 수 없고" in result.headline and "최대 3억 1,500만원" in result.headline
    cited = {c.article_id for c in result.citations}
    assert {"주택임대차보호법/제7조", "주택임대차보호법_시행령/제8조", "주택임대차보호법/제6조의3"} <= cited
    seventh = next(c for c in result.citations if c.article_id == "주택임대차보호법/제7조")
    assert "20분의 1의 금액을 초과하지 못한다" in seventh.text


def test_an_increase_by_an_amount_is_read_from_the_roles_the_person_gave() -> None:
    # "3억인데 4천 올려달래요": 4,000 / 30,000 = 13.3% > 5% (제7조②, 시행령 제8조①): at most 31,500.
    query = "전세 3억인데 집주인이 4천 올려달래요, 되나요?"
    entities = extract_entities(query)
    result = rent_increase(Case(query, entities), RULES.lease, STATUTES)
    assert figure(result, "요구 인상률").value == 13.33
    assert result.headline.startswith("4,000만원 인상(13.3%)은 법정 상한 5%를 넘어 요구할 수 없고")
    assert "최대 3억 1,500만원(1,500만원 인상)" in result.headline


def test_an_increase_of_exactly_five_percent_is_within_the_cap() -> None:
    result = rent_increase(read_case("보증금 2억에서 2억 1000만원으로"), RULES.lease, STATUTES)
    assert figure(result, "요구 인상률").value == 5.0 and "이내" in result.headline
    assert not any(f.label.startswith("상한 초과분") for f in result.figures)


def test_a_monthly_rent_increase_is_checked_on_its_own() -> None:
    # 월세 50 -> 60: 20%; cap 52.5; excess 7.5.
    result = rent_increase(
        read_case("보증금 1억 월세 50만원인데 60만원으로 올려달래요"), RULES.lease, STATUTES
    )
    assert figure(result, "요구 인상률 (월차임)").value == 20.0
    assert figure(result, "상한 초과분 (월차임)").value == 7.5
    assert "월차임" in result.headline


def test_a_percent_alone_gives_the_asked_amount() -> None:
    case = read_case("전세 4억인데 10% 올린대요")
    assert figure(rent_increase(case, RULES.lease, STATUTES), "상한 초과분").value == 2000


def test_conversion_rate_is_base_rate_plus_two_points_capped_at_ten() -> None:
    # 기준금리 2.5% + 2%p = 4.5% < 10%; 1억 to 월세: 10,000 x 4.5% / 12 = 37.5 만원.
    result = rent_increase(read_case("보증금 1억을 월세로 전환하면 얼마?"), RULES.lease, STATUTES)
    assert RULES.lease.conversion_rate == pytest.approx(RULES.lease.base_rate.rate + 0.02)
    assert figure(result, "전월세 전환율 상한").value == 4.5
    assert figure(result, "전환 시 월차임 상한").value == 37.5


def test_the_one_year_rule_counts_months_from_the_last_increase() -> None:
    early = read_case(
        "3억에서 3억 1천으로", facts={"last_increase_date": "2025-03-10", "as_of": "2026-01-05"}
    )
    late = read_case("3억에서 3억 1천으로", facts={"last_increase_date": "2024-03-10", "as_of": "2026-01-05"})
    assert any("할 수 없습니다" in f for f in rent_increase(early, RULES.lease, STATUTES).findings)
    assert any("가능합니다" in f for f in rent_increase(late, RULES.lease, STATUTES).findings)


def test_without_a_current_amount_the_person_is_asked() -> None:
    result = rent_increase(read_case("전세금 인상 기준이 뭔가요?"), RULES.lease, STATUTES)
    assert [q.field for q in result.questions] == ["current_deposit_manwon"]
    assert not any(f.label.startswith("법정 상한") for f in result.figures)


def listed(listing_id: str, deal_type: str, low: int, high: int, area_m2: float | None = None) -> ListingRow:
    """A complex a search step found, as ListingRow carries it (place and kind do not matter here)."""
    return ListingRow(
        listing_id=listing_id,
        name=listing_id,
        kind="complex",
        property_type="apartment",
        gu="강남구",
        dong="역삼동",
        deal_type=deal_type,
        price_min_manwon=low,
        price_max_manwon=high,
        area_min_m2=area_m2,
        area_max_m2=area_m2,
    )


SEARCH_STEP = StepResult(
    listings=[
        listed("a", "sale", 40000, 50000),
        listed("b", "sale", 38000, 42000),
        listed("c", "sale", 50000, 60000),
        listed("a", "jeonse", 25000, 30000),
    ]
)


def test_jeonse_ratio_uses_the_median_of_comparable_sale_prices() -> None:
    # sale mids 45,000 / 40,000 / 55,000 -> median 45,000; 3억 / 4억5천 = 66.7% -> 주의.
    result = jeonse_risk(
        read_case("전세 3억 괜찮을까요", dependency_results={"s1": SEARCH_STEP}), RULES.jeonse_risk, STATUTES
    )
    assert figure(result, "매매 시세").value == 45000
    assert figure(result, "보증금+선순위채권").value == 66.7
    assert figure(result, "위험 구간").value == "주의"
    assert {"주택임대차보호법/제3조", "주택임대차보호법/제3조의2"} <= {c.article_id for c in result.citations}


def test_senior_debt_counts_ahead_of_the_deposit() -> None:
    # (30,000 + 8,000) / 45,000 = 84.4% -> 매우 위험, and guarantee still possible (<= 90%).
    query = "전세 3억인데 근저당 8천만원"
    case = Case(query, extract_entities(query), dependency_results={"s1": SEARCH_STEP})
    result = jeonse_risk(case, RULES.jeonse_risk, STATUTES)
    assert figure(result, "보증금+선순위채권").value == 84.4
    assert result.data["jeonse_risk"]["band"] == "매우 위험"
    assert result.data["jeonse_risk"]["guarantee_eligible"] is True


def test_a_deposit_above_the_price_is_very_risky() -> None:
    case = read_case("전세 5억", facts={"market_value_manwon": 45000})
    result = jeonse_risk(case, RULES.jeonse_risk, STATUTES)
    assert figure(result, "시세 대비 여유액").value == -5000
    assert result.data["jeonse_risk"]["guarantee_eligible"] is False
    assert any("시세" in f and "이상입니다" in f for f in result.findings)


def test_market_stats_of_a_search_step_come_before_listings() -> None:
    deps = {
        "s1": SEARCH_STEP.model_copy(update={"data": {"market_stats": {"sale": {"median_manwon": 60000}}}})
    }
    result = jeonse_risk(read_case("전세 3억", dependency_results=deps), RULES.jeonse_risk, STATUTES)
    assert figure(result, "매매 시세").value == 60000 and figure(result, "위험 구간").value == "안전"


def test_without_a_market_value_the_person_is_asked_and_still_told_how_to_protect() -> None:
    result = jeonse_risk(read_case("전세 3억 위험한가요"), RULES.jeonse_risk, STATUTES)
    assert [q.field for q in result.questions] == ["market_value_manwon"]
    assert any("확정일자" in f for f in result.findings) and result.citations


def test_percentile_counts_ties_as_half() -> None:
    assert percentile_of(45, [40, 45, 50, 60]) == pytest.approx(37.5)
    assert percentile_of(70, [40, 50]) == 100.0


def test_an_asked_price_is_placed_among_comparables_per_pyeong() -> None:
    # Comparables 84㎡ (25.41평): 9억 -> 3,542/평, 10억 -> 3,935/평, 12억 -> 4,723/평.
    listings = [
        listed(i, "sale", p, p, area_m2=84.0) for i, p in (("x", 90000), ("y", 100000), ("z", 120000))
    ]
    case = Case(
        "84㎡ 11억 적정한가요",
        entities=QueryEntities(amounts_manwon=[110000], size_min_m2=84),
        dependency_results={"s": StepResult(listings=listings)},
    )
    result = market_analysis(case, RATE)
    assert figure(result, "호가 평당 가격").value == round(110000 / (84 / 3.3058))
    assert figure(result, "호가 백분위").value == pytest.approx(66.7)
    assert result.data["market_analysis"]["comparables"] == ["x", "y", "z"]
    assert result.data["market_analysis"]["verdict"] == "적정 범위"


def test_too_few_comparables_gives_no_verdict() -> None:
    result = market_analysis(
        read_case("5억 적정한가요", dependency_results={"s": StepResult(listings=SEARCH_STEP.listings[:1])}),
        RATE,
    )
    assert "판단하지 않았습니다" in result.headline and not result.figures


RATE = RULES.lease.conversion_rate


def one_room(listing_id: str, deposit: int, rent: int) -> ListingRow:
    prices = {"price_min_manwon": deposit, "price_max_manwon": deposit}
    rents = {"monthly_rent_min_manwon": rent, "monthly_rent_max_manwon": rent}
    where = {"gu": "강남구", "dong": "역삼동", "deal_type": "monthly"}
    return ListingRow(
        listing_id=listing_id,
        name=listing_id,
        kind="one_room",
        property_type="oneroom",
        **where,
        **prices,
        **rents,
    )


def test_a_monthly_rent_is_judged_by_the_months_cost_with_its_deposit_converted() -> None:
    """'보증금 500에 월세 45인데 비싼 편인가요?': 45 + 500 × rate ÷ 12 against each listing costed alike."""
    offers = [
        ("a", 1000, 40),
        ("b", 500, 50),
        ("c", 300, 55),
        ("d", 2000, 35),
        ("e", 1000, 60),
        ("f", 500, 42),
    ]
    listings = [one_room(i, d, r) for i, d, r in offers]
    entities = QueryEntities(deal_type="monthly", deposit_manwon=500, monthly_rent_manwon=45)
    case = Case("보증금 500에 월세 45인데 비싼 편인가요?", entities, {}, {"s": StepResult(listings=listings)})
    result = market_analysis(case, RATE)
    costs = sorted(r + d * RATE / 12 for _, d, r in offers)
    mine = 45 + 500 * RATE / 12
    assert figure(result, "말씀하신 월 부담(환산)").value == round(mine, 1)
    assert figure(result, "월 부담 백분위").value == round(percentile_of(mine, costs), 1)
    assert result.headline.startswith("보증금 500만원·월세 45만원은 비교한 월세 매물 6건 가운데")
    few = Case("월세 45 비싼가요", entities, {}, {"s": StepResult(listings=listings[:2])})
    assert "판단하지 않았습니다" in market_analysis(few, RATE).headline


def test_a_price_asked_of_one_named_complex_sits_in_its_own_range() -> None:
    """'잠실엘스 전세 12억이면 비싼 편이에요?': 잠실엘스 전세 호가 10억 2,000만원~17억원 (complexes.csv)."""
    entities = QueryEntities(deal_type="jeonse", complexes=["잠실엘스"], amounts_manwon=[120000])
    named = StepResult(listings=[listed("잠실엘스", "jeonse", 102000, 170000)])
    result = market_analysis(Case("잠실엘스 전세 12억이면 비싼 편이에요?", entities, {}, {"s": named}), RATE)
    # (120000 - 102000) / (170000 - 102000) = 26.5%: the middle band (25-75%)
    assert result.headline == (
        "12억원은 잠실엘스의 전세 호가 범위(10억 2,000만원~17억원)에서 아래로부터 26% 지점, 중간입니다."
    )


def test_the_market_value_comes_from_the_search_steps_published_market_stats() -> None:
    """contracts.search.MarketStats, asked beside the 전세 figures (data["market_stats_also"])."""
    jeonse = {"deal_type": "jeonse", "regions": [{"stats": {"count": 2, "median": 99875}}]}
    sale = {"deal_type": "sale", "regions": [{"stats": {"count": 12, "median": 178750}}]}
    search = StepResult(data={"market_stats": jeonse, "market_stats_also": [sale]})
    case = Case("전세 8억 위험?", QueryEntities(), {}, {"search-market": search})
    value, basis = case.market_value("sale")
    assert value == 178750 and "search-market" in basis


def test_jeonse_ratio_divides_the_prices_the_person_gave_and_says_so() -> None:
    # 36,000 / 40,000 = 90%: the top band of infra/seed/rules/jeonse_risk.toml (80% and above).
    query = "매매 4억 아파트에 전세 3억6천이면 위험한가요?"
    entities = extract_entities(query)
    result = jeonse_risk(Case(query, entities), RULES.jeonse_risk, STATUTES)
    assert (
        result.headline
        == "말씀하신 매매가 4억원에 보증금 3억 6,000만원이면 전세가율은 90.0%로 '매우 위험' 구간입니다."
    )


def test_a_deposit_turned_into_rent_is_answered_at_the_legal_conversion_rate() -> None:
    # 제7조의2, 시행령 제9조: min(10%, 기준금리 2.5% + 2%p) = 4.5%; 10,000만원 × 4.5% ÷ 12 = 37.5만원.
    query = "보증금 1억을 월세로 돌리면 월세 얼마예요?"
    entities = extract_entities(query)
    result = rent_increase(Case(query, entities), RULES.lease, STATUTES)
    assert figure(result, "전환 시 월차임 상한").value == 37.5
    assert result.headline.startswith("보증금 1억원을 월세로 전환하면 법정 전환율 상한 4.5% 기준")
    assert "월 375,000원까지" in result.headline
