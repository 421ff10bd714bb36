"""Value types shared by several events."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from contracts.entities import QueryEntities
from contracts.frozen import Frozen


class Team(StrEnum):
    SEARCH = "search"
    ANALYSIS = "analysis"
    DOCUMENT = "document"


class IntentType(StrEnum):
    LEGAL_CONSULT = "LEGAL_CONSULT"
    MARKET_INQUIRY = "MARKET_INQUIRY"
    LOAN_CONSULT = "LOAN_CONSULT"
    CONTRACT_CREATION = "CONTRACT_CREATION"
    CONTRACT_REVIEW = "CONTRACT_REVIEW"
    COMPREHENSIVE = "COMPREHENSIVE"
    RISK_ANALYSIS = "RISK_ANALYSIS"
    UNCLEAR = "UNCLEAR"
    IRRELEVANT = "IRRELEVANT"


class Intent(Frozen):
    """What a turn asks (its type, how sure, the words that decided it) and the planner's typed reading
    of it: read once from the turn, then carried to the teams in every step's inputs."""

    type: IntentType
    confidence: float = Field(ge=0, le=1)
    keywords: list[str] = []
    entities: QueryEntities = Field(
        default=QueryEntities(), description="the reading: what the turn names, with its roles"
    )


class PlanStep(Frozen):
    step_id: str = Field(min_length=1, max_length=64)
    team: Team
    task: str = Field(
        min_length=1, max_length=200, description="what this step does, specific to the question"
    )
    inputs: dict[str, Any] = {}
    depends_on: list[str] = []
    timeout_s: float = Field(default=60.0, gt=0)
    max_attempts: int = Field(default=3, ge=1, le=10)


Strategy = Literal["sequential", "parallel", "dag"]
# A step's lifecycle, as the supervisor runs it and the todo shows it.
StepStatus = Literal["pending", "in_progress", "completed", "failed", "skipped"]
FINISHED_STEPS: frozenset[StepStatus] = frozenset({"completed", "failed", "skipped"})


class StepError(Frozen):
    code: str = Field(
        min_length=1, max_length=100, description="machine-readable kind, e.g. timeout, upstream_unavailable"
    )
    message: str


CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮"  # how statutes number their paragraphs (항)


class Citation(Frozen):
    article_id: str
    law: str
    article: str
    title: str | None = None
    text: str | None = None
    enforcement_date: date | None = Field(
        default=None, description="시행일 of the version quoted (the corpus is a dated snapshot)"
    )
    paragraph: int | None = Field(default=None, ge=0, description="the 항 that says it (2 = ②); 0: none")
    quote: str | None = Field(default=None, description="the sentence an answer quotes, briefly")

    @property
    def reference(self) -> str:
        """주택임대차보호법 제7조②(차임 등의 증감청구권)."""
        mark = CIRCLED[self.paragraph - 1] if self.paragraph and self.paragraph <= len(CIRCLED) else ""
        return f"{self.law} {self.article}{mark}" + (f"({self.title})" if self.title else "")


class DocumentRef(Frozen):
    artifact_id: str
    name: str
    media_type: str
    sha256: str


class StepFocus(StrEnum):
    """What a step is for: the planner sets it in a step's inputs (`StepInputs.focus`, a list), the team's
    tool selection starts from it."""

    LEGAL = "legal"  # statutes and their articles
    LISTINGS = "listings"  # complexes and one-room listings
    MARKET = "market"  # price figures for a region
    LOAN_PRODUCTS = "loan_products"  # loan programmes and regulatory limits
    MARKET_ANALYSIS = "market_analysis"  # is a price fair against comparables
    RENT_INCREASE = "rent_increase"  # 5% cap, renewal rights, 전월세 전환
    JEONSE_RISK = "jeonse_risk"  # 깡통전세
    CONTRACT_REVIEW = "contract_review"
    LOAN_SIMULATION = "loan_simulation"
    ROI = "roi"
    POLICY = "policy"  # housing-support programmes
    PRIORITY_REPAYMENT = "priority_repayment"  # 소액임차인 최우선변제 by region and deposit
    BROKERAGE_FEE = "brokerage_fee"  # 중개보수: the 거래금액 it is reckoned on
    ACQUISITION_TAX = "acquisition_tax"  # 취득세 + 지방교육세 by price, homes after the purchase, region
    HOUSING_COST = "housing_cost"  # what the person pays each month (월세, 관리비) and over a period
    LEASE_CONTRACT = "lease_contract"  # 주택임대차 표준계약서
    SALES_CONTRACT = "sales_contract"  # 부동산매매계약서: written, or a pasted one's 특약 reviewed
    LOAN_APPLICATION = "loan_application"  # 대출 신청 준비: the applicant's facts, then the checklist
