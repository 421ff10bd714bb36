"""Housing-support programmes (주거 지원 정책) as dated data (infra/seed/rules/policies.json) and the
matcher: a programme in force on the day is checked condition by condition against the person's profile,
and each match says what it met, what failed and what could not be checked. Ended programmes are never
offered; when the question names one, the answer says it ended."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from services.analysis.profile import Profile
from services.analysis.rulebook import RULES_DIR
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


@dataclass
class Match:
    programme: PolicyProgramme
    met: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    unchecked: dict[str, str] = field(default_factory=dict)  # profile field -> the condition

    @property
    def status(self) -> str:
        if self.failed:
            return "not_eligible"
        return "possible" if self.unchecked else "eligible"


def match(programme: PolicyProgramme, p: Profile) -> Match:
    m, e = Match(programme), programme.eligibility
    if e.age_min is not None or e.age_max is not None:
        low, high = e.age_min or 0, e.age_max or 200
        _check(m, "age", f"만 {low}~{high}세", p.age, lambda a: low <= a <= high, "만 {:g}세")
    if e.income_cap_manwon is not None:
        cap, basis = e.income_cap_manwon, e.income_basis or "연소득"
        _check(
            m,
            "income_manwon",
            f"연소득 {cap:,}만원 이하 ({basis})",
            p.income_manwon,
            lambda v: v <= cap,
            "{:,.0f}만원",
        )
    if e.net_assets_cap_manwon is not None:
        cap = e.net_assets_cap_manwon
        _check(
            m,
            "net_assets_manwon",
            f"순자산 {cap:,}만원 이하",
            p.assets_manwon,
            lambda v: v <= cap,
            "{:,.0f}만원",
        )
    if e.house_count_max is not None:
        most = e.house_count_max
        want = "무주택" if most == 0 else f"주택 {most}채 이하"
        _check(m, "house_count", want, p.house_count, lambda v: v <= most, "{}주택")
    if e.marriage_years_max is not None:
        _marriage(m, e.marriage_years_max, p)
    if e.newborn_within_years is not None:
        known = True if p.newborn else (False if p.children == 0 else None)
        _check(m, "newborn", f"{e.newborn_within_years}년 내 출산·입양", known, bool, "출산 여부: {}")
    if e.first_home:
        known = True if p.first_home else (False if p.house_count else None)
        _check(m, "first_home", "생애최초 주택 구입", known, bool, "생애최초: {}")
    return m


def _check(m: Match, key: str, condition: str, value: Any, ok: Callable[[Any], bool], shown: str) -> None:
    """Sort one condition into met, failed or unchecked; `shown` formats the person's value."""
    if value is None:
        m.unchecked[key] = condition
    elif ok(value):
        m.met.append(f"{condition} ({shown.format(value)})")
    else:
        m.failed.append(f"{condition} ({shown.format(value)})")


def _marriage(m: Match, years_max: int, p: Profile) -> None:
    condition = f"혼인 {years_max}년 이내 또는 결혼 예정"
    if p.engaged:
        m.met.append(f"{condition} (결혼 예정)")
    elif p.married and p.marriage_years is not None:
        _check(m, "marriage_years", condition, p.marriage_years, lambda v: v <= years_max, "결혼 {:g}년차")
    elif p.married:
        m.met.append(f"{condition} (신혼이라고 하심; 혼인신고일로 확인 필요)")
    elif p.married is False:
        m.failed.append(f"{condition} (미혼)")
    else:
        m.unchecked["marriage_years"] = condition


def ended_named(book: PolicyBook, text: str, day: date) -> list[PolicyProgramme]:
    """Ended programmes the question names (by their name's first word run, e.g. "청년월세")."""
    squashed = text.replace(" ", "")
    return [
        prog
        for prog in book.programmes
        if has_ended(prog, day) and prog.name.split(" (")[0].split()[0].replace(" ", "") in squashed
    ]
