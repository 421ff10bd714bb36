"""Value types shared by several events."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


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
    type: IntentType
    confidence: float = Field(ge=0, le=1)
    keywords: list[str] = []
    entities: dict[str, Any] = {}


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


class StepError(Frozen):
    code: str = Field(
        min_length=1, max_length=100, description="machine-readable kind, e.g. timeout, upstream_unavailable"
    )
    message: str


class Citation(Frozen):
    article_id: str
    law: str
    article: str
    title: str | None = None
    text: str | None = None


class DocumentRef(Frozen):
    artifact_id: str
    name: str
    media_type: str
    sha256: str
