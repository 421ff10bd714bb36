"""Tax rules as dated data from infra/seed/rules/tax.toml: 취득세 standard and surcharge rates, 지방교육세,
농어촌특별세, and the holding-cost approximation (보유비용)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from services.housing.dated_rules import DatedRule, in_force


class StandardRate(DatedRule):
    """유상거래 주택 표준세율: 1% up to `low_up_to`, 3% above `high_above`, a straight line between."""

    low_rate: float = Field(gt=0, lt=0.1)
    low_up_to_manwon: int = Field(gt=0)
    high_rate: float = Field(gt=0, lt=0.1)
    high_above_manwon: int = Field(gt=0)


class Surcharge(DatedRule):
    """다주택 중과: from `houses_from` homes after the purchase, in the zone."""

    zone: Literal["regulated", "unregulated"]
    houses_from: int = Field(ge=2)
    rate: float = Field(gt=0, lt=0.2)


class EducationTax(DatedRule):
    standard_share_of_acquisition_tax: float = Field(gt=0, lt=1)
    surcharge_rate_of_price: float = Field(gt=0, lt=0.05)


class RuralTax(DatedRule):
    standard_rate_above_85m2: float = Field(gt=0, lt=0.05)


class Holding(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    annual_rate_of_price: float = Field(gt=0, lt=0.05)
    basis: str
    as_of: date
    source: str
    note: str | None = None


class TaxRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    standard: StandardRate
    surcharge: list[Surcharge]
    education_tax: EducationTax
    rural_tax: RuralTax
    holding: Holding

    def surcharge_for(self, regulated: bool, houses_after: int, day: date) -> Surcharge | None:
        zone = "regulated" if regulated else "unregulated"
        found = [s for s in in_force(self.surcharge, day) if s.zone == zone and houses_after >= s.houses_from]
        return max(found, key=lambda s: s.rate, default=None)
