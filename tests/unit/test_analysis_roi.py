"""ROI against hand-computed cash flows (amounts in 만원): acquisition tax bands, the loan repaid at the
sale, IRR, and the cases where leverage or a deposit must not look like profit."""

from __future__ import annotations

import tomllib
from datetime import date

import pytest

from services.analysis.deal.acquisition_tax import acquisition_tax, standard_rate
from services.analysis.returns.measures import equity_multiple, irr
from services.analysis.returns.roi_analysis import roi_analysis
from services.analysis.returns.scenarios import Purchase, scenario, scenario_irr
from services.analysis.rules.rulebook import RULES_DIR, RuleBook
from tests.unit.step_results import read_case

pytestmark = pytest.mark.unit
RULES = RuleBook.load()
TAX = RULES.tax
DAY = date(2026, 1, 10)


@pytest.mark.parametrize(
    ("price", "rate"),
    [(50000, 0.01), (60000, 0.01), (70000, 0.016667), (75000, 0.02), (90000, 0.03), (120000, 0.03)],
)
def test_standard_acquisition_tax_bands(price: int, rate: float) -> None:
    # 6~9억: (가액 × 2/3억 − 3)%: 7억 → 1.6667%, 7.5억 → 2%.
    assert standard_rate(price, TAX) == pytest.approx(rate, abs=1e-6)


def test_multi_home_surcharge_by_zone_with_education_tax() -> None:
    regulated_second = acquisition_tax(50000, 2, True, TAX, DAY)
    assert regulated_second.rate == 0.08 and regulated_second.education_manwon == pytest.approx(200)
    assert acquisition_tax(50000, 2, False, TAX, DAY).rate == 0.01  # 비조정 2주택: standard
    assert acquisition_tax(50000, 3, False, TAX, DAY).rate == 0.08
    assert acquisition_tax(50000, 3, True, TAX, DAY).rate == 0.12
    one = acquisition_tax(50000, 1, True, TAX, DAY)
    assert one.total_manwon == pytest.approx(550)  # 1% + 교육세 0.1%


def test_irr_and_multiple_by_hand() -> None:
    assert irr([-100, 10, 110]) == pytest.approx(0.10, abs=1e-7)
    assert irr([-100, 0, 121]) == pytest.approx(0.10, abs=1e-7)
    assert equity_multiple([-100, 10, 110]) == pytest.approx(1.2)
    assert irr([100, 10]) is None and equity_multiple([100, 10]) is None


def test_all_cash_flat_price_loses_exactly_the_tax() -> None:
    # 10억, 3% + 교육세 0.3% = 3,300; sold a year later at 10억: flows [−103,300, 100,000].
    p = Purchase(100000, acquisition_tax(100000, 1, False, TAX, DAY).total_manwon, years=1)
    s = scenario(p, 0.0)
    assert s.flows == pytest.approx([-103300, 100000])
    assert s.profit_manwon == pytest.approx(-3300)
    assert scenario_irr(s) == pytest.approx(100000 / 103300 - 1, abs=1e-7)


def test_borrowed_money_is_repaid_not_counted_as_profit() -> None:
    # 6억, 대출 3억 만기일시 5%, 2년, 0% 상승: equity 60,000 + 660 − 30,000 = 30,660; interest 1,500 a year;
    # the sale's 60,000 repays the 30,000 balance. Loss = tax 660 + interest 3,000.
    p = Purchase(60000, 660, loan_manwon=30000, rate=0.05, term_years=30, method="bullet", years=2)
    s = scenario(p, 0.0)
    assert s.flows == pytest.approx([-30660, -1500, 28500])
    assert s.profit_manwon == pytest.approx(-3660) and s.loan_balance_manwon == pytest.approx(30000)


def test_leveraged_purchase_with_falling_prices_is_a_loss() -> None:
    # 10억 with 6억 borrowed, −2% a year for 5 years: sale 90,392 barely covers the balance and equity.
    p = Purchase(100000, 3300, loan_manwon=60000, rate=0.04, term_years=30, years=5)
    s = scenario(p, -0.02)
    assert s.sale_manwon == pytest.approx(100000 * 0.98**5)
    assert s.profit_manwon < -(100000 - s.sale_manwon)  # worse than the fall alone: tax and interest too
    assert scenario_irr(s) < 0


def test_zero_growth_with_rent_earns_only_the_rent() -> None:
    # No loan, no costs: 5억 with 월세 100 for 3 years, flat price: profit 3,600 − tax 550.
    p = Purchase(50000, 550, rent_monthly_manwon=100, years=3)
    assert scenario(p, 0.0).profit_manwon == pytest.approx(3600 - 550)


def test_deposit_above_price_has_no_irr_and_says_so() -> None:
    result = roi_analysis(
        read_case("3억 빌라 전세 3억 2천 끼고 무주택 갭투자 수익률", None, {"as_of": "2026-01-10"}),
        RULES,
    )
    assert result.data["roi"]["equity_manwon"] < 0
    assert all(s["irr"] is None for s in result.data["roi"]["scenarios"])
    assert any("정의할 수 없" in f for f in result.findings)


def test_the_tool_states_its_assumptions_and_asks() -> None:
    result = roi_analysis(read_case("서울 10억 아파트 투자 수익률", None, {"as_of": "2026-01-10"}), RULES)
    assert {q.field for q in result.questions} == {"house_count", "loan_manwon"}
    assert any("보유세" in f for f in result.findings) and any("5년" in f for f in result.findings)
    growths = [s["growth"] for s in result.data["roi"]["scenarios"]]
    assert growths == [-0.02, 0.0, 0.02, 0.04]
    assert all(f.basis for f in result.figures)


def test_missing_price_is_asked() -> None:
    result = roi_analysis(read_case("수익률 알려줘", None, {"as_of": "2026-01-10"}), RULES)
    assert [q.field for q in result.questions] == ["price_manwon"] and not result.figures


def test_tax_file_dates_and_units() -> None:
    raw = tomllib.loads((RULES_DIR / "tax.toml").read_text(encoding="utf-8"))
    assert raw["standard"]["low_up_to_manwon"] == 60000 and raw["standard"]["high_above_manwon"] == 90000
    for s in TAX.surcharge:
        assert s.effective_from <= date.today() and 0.05 < s.rate <= 0.12
    assert TAX.holding.annual_rate_of_price < 0.01  # a fraction of the price, not a percent
