"""Eligibility for a housing-support programme: a programme in force on the day is checked condition by
condition against the person's profile, and each match says what it met, what failed and what could not
be checked (the person is then asked for it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from services.analysis.profile import Profile
from services.analysis.rules.policies import PolicyProgramme


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
