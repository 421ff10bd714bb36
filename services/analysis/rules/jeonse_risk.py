"""The 전세 risk rules as dated data from infra/seed/rules/jeonse_risk.toml: the bands of the deposit-to-value
ratio with their advice, and the ratio up to which a deposit-return guarantee (반환보증) is granted."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


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
