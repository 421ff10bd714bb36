"""What a home costs the person to live in: the monthly outgoings they name (월세, 관리비) added up, and
over the period asked (a year, the lease's term). The deposit is no cost: it comes back when the lease
ends, so it is said apart."""

from __future__ import annotations

import re

from contracts.results import Figure, StepResult
from services.analysis.case import Case
from services.housing.money import format_manwon as won_text
from services.housing.text import object_particle

_ONE_MONTH = re.compile(r"한\s*달|매달|매월|달마다")
_FEE_NAMED = re.compile(r"관리비")
YEAR_MONTHS = 12
_NAMES = {"monthly_rent": "월세", "fee": "관리비"}
_FEE_ASKED = "관리비 금액을 알려 주시면 더해 드릴게요(관리비는 단지·계절마다 다릅니다)."


def _period_months(case: Case) -> int:
    """The months asked about: the term said ('1년', '2년 동안', '6개월'), else a month when only a month
    is asked, else a year, the period people reckon a rent over."""
    if case.entities.term_months:
        return case.entities.term_months
    return 1 if _ONE_MONTH.search(case.query) else YEAR_MONTHS


def housing_cost(case: Case) -> StepResult:
    """'월세 60만원과 관리비 15만원을 더하면 한 달 75만원, 1년(12개월)이면 900만원입니다.'"""
    paid = [(a.role, a.manwon) for a in case.entities.amounts if a.role in _NAMES and a.change is None]
    if not paid and case.entities.monthly_rent_manwon:
        paid = [("monthly_rent", case.entities.monthly_rent_manwon)]
    if not paid:
        return StepResult(headline="매달 내는 금액(월세, 관리비)을 알려 주시면 합계를 계산해 드릴게요.")
    monthly = sum(manwon for _, manwon in paid)
    months = _period_months(case)
    said = "과 ".join(f"{_NAMES[role]} {won_text(manwon)}" for role, manwon in paid)
    fee_missing = not any(role == "fee" for role, _ in paid) and bool(_FEE_NAMED.search(case.query))
    if len(paid) > 1:
        month_line = f"{said}{object_particle(said)} 더하면 한 달 {won_text(monthly)}"
    elif fee_missing:  # "관리비 포함 한 달 얼마": the fee was not said, so only the rent can be counted
        month_line = f"관리비 금액이 없어 {said}만 더하면 한 달 {won_text(monthly)}"
    else:
        month_line = f"{said}이면 한 달 {won_text(monthly)}"
    span = f"{months // YEAR_MONTHS}년({months}개월)" if months % YEAR_MONTHS == 0 else f"{months}개월"
    total = f", {span}이면 {won_text(monthly * months)}" if months > 1 else ""
    headline = f"{month_line}{total}입니다."
    findings = [_FEE_ASKED] if fee_missing else []
    if deposit := case.entities.deposit_manwon:
        findings.append(f"보증금 {won_text(deposit)}은 계약이 끝나면 돌려받는 돈이라 더하지 않았습니다.")
    basis = " + ".join(f"{_NAMES[role]} {manwon:g}" for role, manwon in paid)
    figures = [Figure(label="한 달 합계", value=monthly, unit="만원", basis=basis, source="말씀하신 금액")]
    if months > 1:
        figures.append(
            Figure(
                label=f"{span} 합계",
                value=monthly * months,
                unit="만원",
                basis=f"({basis}) × {months}개월",
                source="말씀하신 금액",
            )
        )
    return StepResult(headline=headline, findings=findings, figures=figures)
