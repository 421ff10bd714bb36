"""The lending rules (대출 규제) as dated data from infra/seed/rules/lending.toml: LTV by zone and buyer,
DSR 40%, the stress DSR add-on by phase, mortgage caps, term caps and the policy mortgages' caps."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from services.housing.dated_rules import DatedRule, in_force

Zone = Literal["regulated", "capital", "other"]
Buyer = Literal["first_home", "no_home", "one_home", "multi_home"]
BUYER_NAMES = {
    "first_home": "생애최초",
    "no_home": "무주택",
    "one_home": "처분조건 1주택",
    "multi_home": "다주택",
}
ZONE_NAMES = {"regulated": "규제지역", "capital": "수도권 비규제지역", "other": "수도권 밖(비규제)"}


class Dsr(DatedRule):
    max_ratio: float = Field(gt=0, lt=1)
    applies_above_total_debt_manwon: int = Field(gt=0)


class ReferenceRate(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rate: float = Field(gt=0, lt=0.2)
    as_of: date
    source: str


class DefaultTerm(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    years: int = Field(gt=0, le=50)


class StressDsr(DatedRule):
    phase: str
    zones: list[Literal["capital", "other"]]
    add_on: float = Field(ge=0, lt=0.1)


class Ltv(DatedRule):
    zones: list[Zone]
    buyers: list[Buyer]
    ratio: float = Field(ge=0, le=1)


class MortgageCap(DatedRule):
    zones: list[Zone]
    buyers: list[Buyer] | None = None
    cap_manwon: int = Field(gt=0)
    price_above: int | None = None
    price_up_to: int | None = None

    def covers(self, zone: Zone, buyer: Buyer, price: float) -> bool:
        return (
            zone in self.zones
            and (self.buyers is None or buyer in self.buyers)
            and (self.price_above is None or price > self.price_above)
            and (self.price_up_to is None or price <= self.price_up_to)
        )


class TermCap(DatedRule):
    zones: list[Zone]
    max_years: int = Field(gt=0, le=50)


class Programme(DatedRule):
    """A policy mortgage (정책 모기지) named in the question: its own cap and price ceiling, and DTI
    instead of DSR."""

    id: str
    name: str
    words: list[str]
    cap_manwon: int = Field(gt=0)
    first_home_cap_manwon: int = Field(gt=0)
    price_cap_manwon: int = Field(gt=0)
    dti: float = Field(gt=0, lt=1)


class LendingRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    dsr: Dsr
    reference_rate: ReferenceRate
    default_term: DefaultTerm
    stress_dsr: list[StressDsr]
    ltv: list[Ltv]
    mortgage_cap: list[MortgageCap]
    term_cap: list[TermCap]
    programme: list[Programme]

    def ltv_for(self, zone: Zone, buyer: Buyer, day: date) -> Ltv | None:
        return next((r for r in in_force(self.ltv, day) if zone in r.zones and buyer in r.buyers), None)

    def stress_for(self, zone: Zone, day: date) -> StressDsr | None:
        stress_zone = "other" if zone == "other" else "capital"
        found = [r for r in in_force(self.stress_dsr, day) if stress_zone in r.zones]
        return max(found, key=lambda r: r.add_on, default=None)

    def caps_for(self, zone: Zone, buyer: Buyer, price: float, day: date) -> list[MortgageCap]:
        return [c for c in in_force(self.mortgage_cap, day) if c.covers(zone, buyer, price)]

    def term_cap_for(self, zone: Zone, day: date) -> TermCap | None:
        return next((c for c in in_force(self.term_cap, day) if zone in c.zones), None)

    def programme_named(self, text: str, day: date) -> Programme | None:
        return next((p for p in in_force(self.programme, day) if any(w in text for w in p.words)), None)
