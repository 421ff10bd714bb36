"""The brokerage rules (중개보수, 공인중개사법 제32조, 시행규칙 제20조) as dated data from
infra/seed/rules/brokerage.toml: how a lease's 거래금액 is reckoned, the ceiling for property other than a
home, each 시·도 조례's rate table for homes by period, and the 오피스텔 rates."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from services.housing.dated_rules import DatedRule
from services.housing.money import format_manwon as won_text

Deal = Literal["sale", "lease"]


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    articles: list[str]
    effective_date: date
    source: str = Field(min_length=4)


class TransactionAmountRule(_Rule):
    """제20조⑤ 제1호."""

    rent_multiplier: int = Field(gt=0)
    small_rent_multiplier: int = Field(gt=0)
    small_threshold_manwon: int = Field(gt=0)


class NonHousingRate(_Rule):
    """제20조④ 제2호: the fee ceiling for property other than a home, as a fraction of 거래금액."""

    max_rate: float = Field(gt=0, lt=0.1)


class FeeBand(BaseModel):
    """A rate table's row: from `from_manwon` to the next row's, 상한요율 and 한도액 (None: no cap)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    from_manwon: int = Field(ge=0)
    max_rate: float = Field(gt=0, lt=0.1)
    cap_manwon: int | None = Field(default=None, gt=0)


class HousingRates(DatedRule):
    """주택 중개보수 요율표 of one 시·도 조례 for a period: 매매·교환 and 임대차 bands."""

    region: str
    articles: list[str]
    sale: list[FeeBand]
    lease: list[FeeBand]

    @model_validator(mode="after")
    def _bands_cover_every_amount(self) -> HousingRates:
        for bands in (self.sale, self.lease):
            starts = [band.from_manwon for band in bands]
            if not starts or starts[0] != 0 or starts != sorted(set(starts)):
                raise ValueError(f"bands must start at 0 and rise: {starts}")
        return self

    def bands(self, deal: Deal) -> list[FeeBand]:
        return self.sale if deal == "sale" else self.lease

    def band_for(self, deal: Deal, amount_manwon: float) -> FeeBand:
        return [band for band in self.bands(deal) if band.from_manwon <= amount_manwon][-1]

    def band_range(self, deal: Deal, band: FeeBand) -> str:
        """The band in the table's words: '2억원 이상 9억원 미만'."""
        bands = self.bands(deal)
        upper = next((b.from_manwon for b in bands if b.from_manwon > band.from_manwon), None)
        lower = f"{won_text(band.from_manwon)} 이상" if band.from_manwon else ""
        below = f"{won_text(upper)} 미만" if upper is not None else ""
        return " ".join(part for part in (lower, below) if part)


class OfficetelRates(DatedRule):
    """제20조④ 제1호 and 별표 2: a 오피스텔 of at most `max_exclusive_m2` with its own kitchen and bath."""

    articles: list[str]
    max_exclusive_m2: int = Field(gt=0)
    sale_rate: float = Field(gt=0, lt=0.1)
    lease_rate: float = Field(gt=0, lt=0.1)


class BrokerageRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    transaction_amount: TransactionAmountRule
    non_housing: NonHousingRate
    housing: list[HousingRates] = Field(min_length=1)
    officetel: list[OfficetelRates] = Field(min_length=1)
