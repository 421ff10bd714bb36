"""The lease rules (주택임대차보호법) as dated data from infra/seed/rules/lease.toml: the 5% increase cap and
the one-year rule, the 전월세 전환율's cap and the base rate it adds to, the term and the renewal right."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class IncreaseCap(_Rule):
    max_ratio: float = Field(gt=0, lt=1)
    min_months_between_increases: int = Field(gt=0)
    articles: list[str]
    effective_date: date
    source: str


class Conversion(_Rule):
    """전월세 전환율 상한 = min(statutory_cap_rate, 기준금리 + base_rate_spread)."""

    statutory_cap_rate: float = Field(gt=0, lt=1)
    base_rate_spread: float = Field(ge=0, lt=1)
    articles: list[str]
    effective_date: date
    source: str


class BaseRate(_Rule):
    """한국은행 기준금리."""

    rate: float = Field(ge=0, lt=0.2)
    effective_date: date
    checked_on: date
    source: str


class LeaseTerm(_Rule):
    minimum_months: int
    renewal_right_uses: int
    renewed_term_months: int
    notice_window_months: tuple[int, int]
    implied_renewal_termination_notice_months: int


class LeaseRules(_Rule):
    increase_cap: IncreaseCap
    conversion: Conversion
    base_rate: BaseRate
    term: LeaseTerm

    @property
    def conversion_rate(self) -> float:
        return min(self.conversion.statutory_cap_rate, self.base_rate.rate + self.conversion.base_rate_spread)
