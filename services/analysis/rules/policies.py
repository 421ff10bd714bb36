"""Housing-support programmes (주거 지원 정책) as dated data (infra/seed/rules/policies.json): each with its
eligibility conditions, benefits, period and source (policy/eligibility.py checks a profile against them).
Ended programmes are never offered; when the question names one, the answer says it ended."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from services.analysis.rules.rulebook import RULES_DIR
from services.housing.dated_rules import check_period, has_ended

POLICY_FILE = RULES_DIR / "policies.json"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PolicySource(_Model):
    title: str = Field(min_length=4)
    date: date


class PolicyEligibility(_Model):
    age_min: int | None = Field(default=None, ge=0, le=100)  # 만 나이
    age_max: int | None = Field(default=None, ge=0, le=100)
    income_cap_manwon: int | None = Field(default=None, gt=0, lt=100_000)  # 연소득 상한
    income_basis: str | None = None
    net_assets_cap_manwon: int | None = Field(default=None, gt=0)
    house_count_max: int | None = Field(default=None, ge=0)  # 0 = 무주택
    marriage_years_max: int | None = Field(default=None, gt=0)  # 혼인 N년 이내 (결혼 예정 포함)
    newborn_within_years: int | None = Field(default=None, gt=0)  # N년 내 출산
    first_home: bool | None = None  # 생애최초
    other: str | None = None


class PolicyProgramme(_Model):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name: str
    kind: Literal["rent_support", "jeonse_loan", "purchase_loan", "tax_relief", "savings"]
    provider: str
    eligibility: PolicyEligibility
    benefits: list[str] = Field(min_length=1)
    effective_from: date
    effective_to: date | None = None
    source: PolicySource
    note: str | None = None

    @model_validator(mode="after")
    def _period_runs_forward(self) -> PolicyProgramme:
        check_period(self, self.id)
        return self


class PolicyBook(_Model):
    as_of: date
    about: str
    programmes: list[PolicyProgramme]

    @classmethod
    def load(cls, path: Path = POLICY_FILE) -> PolicyBook:
        return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))


def ended_named(book: PolicyBook, text: str, day: date) -> list[PolicyProgramme]:
    """Ended programmes the question names (by their name's first word run, e.g. "청년월세")."""
    squashed = text.replace(" ", "")
    return [
        prog
        for prog in book.programmes
        if has_ended(prog, day) and prog.name.split(" (")[0].split()[0].replace(" ", "") in squashed
    ]
