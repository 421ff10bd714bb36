"""Dated rules the analysis applies (infra/seed/rules/*.toml): legal caps, the base rate, risk bands.
Facts with an effective date and a source, validated on load, never constants in code."""

from __future__ import annotations

import tomllib
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from services.analysis.brokerage_fee import BrokerageRules
from services.analysis.lending_rules import LendingRules
from services.analysis.priority_repayment import SmallDepositRules
from services.analysis.regions import RegionRules
from services.analysis.tax_rules import TaxRules
from services.platform.settings import REPO_ROOT

RULES_DIR = REPO_ROOT / "infra" / "seed" / "rules"
CORPUS = REPO_ROOT / "infra" / "seed" / "legal" / "corpus.jsonl"


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


class RiskBand(_Rule):
    label: str
    below_ratio: float = Field(gt=0)
    advice: str


class Guarantee(_Rule):
    max_ratio: float = Field(gt=0, le=1.5)
    effective_date: date
    source: str


class JeonseRiskRules(_Rule):
    effective_date: date
    source: str
    bands: list[RiskBand] = Field(min_length=2)
    guarantee: Guarantee

    def band_for(self, ratio: float) -> RiskBand:
        return next(b for b in self.bands if ratio < b.below_ratio)


class RuleBook(_Rule):
    lease: LeaseRules
    jeonse_risk: JeonseRiskRules
    lending: LendingRules
    tax: TaxRules
    regions: RegionRules
    small_deposit: SmallDepositRules
    brokerage: BrokerageRules

    @classmethod
    def load(cls, directory: Path = RULES_DIR) -> RuleBook:
        def read(name: str) -> dict[str, Any]:
            return tomllib.loads((directory / f"{name}.toml").read_text(encoding="utf-8"))

        return cls.model_validate({name: read(name) for name in cls.model_fields})
