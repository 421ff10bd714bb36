"""Return on a purchase (투자 수익률): yearly cash flows on the buyer's own money (자기자본) for a sale after
N years at several growth rates, with IRR and equity multiple.

The loan is a cash flow like any other: it lowers the money put in at the start, its payments go out each
year, and the sale repays what is left of it, as does a tenant's deposit (임대보증금) received. So
borrowed money never shows as profit: with prices flat, the result is minus the taxes, costs and interest.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.analysis.loans.repayment import Method, schedule
from services.analysis.returns.measures import irr


@dataclass(frozen=True)
class Purchase:
    price_manwon: float
    acquisition_tax_manwon: float  # 취득세 + 지방교육세
    loan_manwon: float = 0.0
    rate: float = 0.0
    term_years: int = 30
    method: Method = "equal_payment"
    deposit_manwon: float = 0.0  # 임대보증금 received, returned at the sale
    rent_monthly_manwon: float = 0.0
    holding_annual_manwon: float = 0.0  # 보유세 등
    years: int = 5

    @property
    def equity_manwon(self) -> float:
        """자기자본: what the buyer pays in at the start."""
        return self.price_manwon + self.acquisition_tax_manwon - self.loan_manwon - self.deposit_manwon


@dataclass(frozen=True)
class Scenario:
    growth: float
    sale_manwon: float
    loan_balance_manwon: float
    flows: list[float]

    @property
    def profit_manwon(self) -> float:
        return sum(self.flows)


def loan_by_year(p: Purchase) -> tuple[list[float], float]:
    """(payments in years 1..N, balance left after year N); a loan shorter than N is simply paid off."""
    if p.loan_manwon <= 0:
        return [0.0] * p.years, 0.0
    months = schedule(p.loan_manwon, p.rate, p.term_years * 12, p.method)
    payments = [sum(m.payment for m in months[12 * y : 12 * (y + 1)]) for y in range(p.years)]
    held = min(12 * p.years, len(months))
    return payments, months[held - 1].balance


def scenario(p: Purchase, growth: float) -> Scenario:
    payments, balance = loan_by_year(p)
    sale = p.price_manwon * (1 + growth) ** p.years
    yearly = [12 * p.rent_monthly_manwon - p.holding_annual_manwon - paid for paid in payments]
    yearly[-1] += sale - balance - p.deposit_manwon
    return Scenario(growth, sale, balance, [-p.equity_manwon, *yearly])


def scenario_irr(s: Scenario) -> float | None:
    """IRR only when the buyer puts money in first: with a deposit above the price the flows start
    positive and any "rate" found would be the cost of the tenant's money, not a return."""
    return irr(s.flows) if s.flows[0] < 0 else None
