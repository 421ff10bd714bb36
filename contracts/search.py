"""What the search team's tools put in `StepResult.data`, each under its tool's key: the published shape
of legal hits, market figures and loan products. Producer: search; readers: analysis (market figures
of a search step it depends on), the supervisor and the page (via the final response).

Small enough to travel in events: ids, the figures, and only the text actually shown (an excerpt of
an article, never the whole statute). A reader validates a step's data with
`SearchData.model_validate(result.data)`; keys of tools it does not know are ignored.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from contracts.values import Frozen

# --- legal_search ----------------------------------------------------------------------------------


class LegalHit(Frozen):
    """One statute article that answers a question, as far as it was shown."""

    article_id: str = Field(description="e.g. 주택임대차보호법/제7조 (a future version: …@시행YYYY-MM-DD)")
    law_title: str
    doc_type: str = Field(description="법률 / 시행령 / 시행규칙 / 대법원규칙")
    article_number: str = Field(description="제7조, 제6조의3")
    article_title: str | None = None
    enforcement_date: date = Field(description="시행일 of the version the text is from")
    excerpt: str = Field(description="the paragraphs shown, cuts marked with …")
    score: float
    why: str = Field(description="exact citation, matched words, semantic rank")
    exact_citation: bool = False


# --- market_stats ----------------------------------------------------------------------------------


class PriceSummary(Frozen):
    """Prices in 만원 (월세: 만원 a month); per 평 of the sample's area."""

    count: int
    min: float
    median: float
    max: float
    per_pyeong_median: float | None = None
    min_at: str | None = Field(default=None, description="the named complex the lowest price is at")
    max_at: str | None = Field(default=None, description="the named complex the highest price is at")


class GroupStats(Frozen):
    key: str = Field(description="a 동, or a size band (20평대 …)")
    stats: PriceSummary


class RegionMarket(Frozen):
    region: str
    places: int = Field(description="distinct complexes (or one-room listings) behind the sample")
    stats: PriceSummary
    by_dong: list[GroupStats]
    by_band: list[GroupStats]


class MarketStats(Frozen):
    basis: Literal["asking", "contract"] = Field(description="호가 of the listing snapshot, or 실거래가")
    source: str = Field(description="the dataset and its date or contract-date window")
    deal_type: str
    scope: str
    price_rule: str
    area_rule: str
    window_from: date | None = None
    window_to: date | None = None
    regions: list[RegionMarket]


# --- loan_products ---------------------------------------------------------------------------------

Audience = Literal["general", "newlywed", "youth", "first_home", "newborn", "multi_child"]
LoanKind = Literal["jeonse_loan", "purchase_loan", "ltv", "dsr", "stress_dsr", "dti"]


class Eligibility(Frozen):
    age_min: int | None = Field(default=None, ge=0, le=100)
    age_max: int | None = Field(default=None, ge=0, le=100)
    income_cap_manwon: int | None = Field(default=None, gt=0, description="부부합산 연소득 상한")
    net_assets_cap_manwon: int | None = Field(default=None, gt=0)
    house_count_max: int | None = Field(default=None, ge=0, description="0 = 무주택")
    household_head: bool | None = None
    marriage: str | None = None
    children: str | None = None
    other: str | None = None


class Limit(Frozen):
    label: str
    value: float = Field(ge=0)
    unit: Literal["만원", "%", "%p", "년", "㎡"]
    applies_to: str | None = None

    @model_validator(mode="after")
    def _percent_is_a_share(self) -> Limit:
        if self.unit == "%" and self.value > 100:
            raise ValueError(f"{self.label}: {self.value}% is not a share")
        return self


class Source(Frozen):
    title: str = Field(min_length=4)
    date: date


class LoanProduct(Frozen):
    """A loan programme or a lending rule (LTV/DSR/DTI), in force from `effective_from` to
    `effective_to` inclusive, with the public source it was taken from."""

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name: str
    kind: LoanKind
    provider: str
    audiences: list[Audience] = Field(min_length=1)
    eligibility: Eligibility
    limits: list[Limit] = Field(min_length=1)
    rate_min_pct: float | None = Field(default=None, ge=0, le=20)
    rate_max_pct: float | None = Field(default=None, ge=0, le=20)
    effective_from: date
    effective_to: date | None = None
    source: Source
    note: str | None = None


# --- a search step's data, as a reader takes it ------------------------------------------------------


class SearchData(Frozen):
    model_config = ConfigDict(frozen=True, extra="ignore")

    legal_hits: list[LegalHit] | None = None
    market_stats: MarketStats | None = None
    loan_products: list[LoanProduct] | None = None
