"""Acquisition tax on a home (주택 취득세, 지방세법 제11조①8호·제13조의2) plus 지방교육세 (제151조), from
the price and the number of homes the buyer holds after the purchase."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from services.analysis.tax_rules import TaxRules


@dataclass(frozen=True)
class AcquisitionTax:
    rate: float
    acquisition_manwon: float
    education_manwon: float
    basis: str
    source: str

    @property
    def total_manwon(self) -> float:
        return self.acquisition_manwon + self.education_manwon


def standard_rate(price: float, rules: TaxRules) -> float:
    """1% up to 6억, 3% above 9억, and between them (가액 × 2/3억 − 3)%: the law's own line through both
    ends, kept to four decimal places of a percent as 제11조①8호 says."""
    s = rules.standard
    if price <= s.low_up_to_manwon:
        return s.low_rate
    if price > s.high_above_manwon:
        return s.high_rate
    return round(price / 10_000 * 2 / 3 - 3, 4) / 100


def acquisition_tax(
    price: float, houses_after: int, regulated: bool, rules: TaxRules, day: date
) -> AcquisitionTax:
    surcharge = rules.surcharge_for(regulated, houses_after, day) if houses_after >= 2 else None
    edu = rules.education_tax
    if surcharge:
        rate = surcharge.rate
        education = price * edu.surcharge_rate_of_price
        how = f"다주택 중과 {rate:.0%} ({houses_after}주택, {'조정' if regulated else '비조정'}지역)"
        edu_how = f"지방교육세 가액의 {edu.surcharge_rate_of_price:.1%}"
        source = surcharge.source
    else:
        rate = standard_rate(price, rules)
        education = price * rate * edu.standard_share_of_acquisition_tax
        how = f"표준세율 {rate:.4%} (6억 이하 1%, 6~9억 가액×2/3억−3 %, 9억 초과 3%)"
        edu_how = f"지방교육세 취득세의 {edu.standard_share_of_acquisition_tax:.0%}"
        source = rules.standard.source
    basis = f"{price:,.0f}만원 × {how}; {edu_how}"
    return AcquisitionTax(rate, price * rate, education, basis, f"{source}; {edu.source}")
