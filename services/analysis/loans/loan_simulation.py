"""The loan simulator (대출 시뮬레이션): the limit and its binding constraint, monthly payments under the
three repayment methods and a yearly schedule. Missing inputs are asked for, never assumed: the limit
needs income, price, other debts, house count and region; payments need only the loan amount (the rate
falls back to a stated reference rate, the term to a stated default)."""

from __future__ import annotations

from datetime import date
from typing import Any

from contracts.results import Figure, Question, StepResult
from services.analysis.case import Case
from services.analysis.loans.loan_limit import Borrower, LoanLimit, buyer_of, loan_limit
from services.analysis.loans.repayment import METHOD_NAMES, schedule, yearly
from services.analysis.profile import Profile, homes_for_lending, read_profile
from services.analysis.rules.lending import BUYER_NAMES, ZONE_NAMES, LendingRules
from services.analysis.rules.regions import Region, RegionRules, find_region
from services.housing.money import format_manwon as won_text

QUESTIONS = {
    "income_manwon": Question(
        field="income_manwon", label="연소득 (부부합산이면 합산액)", hint="예: 연봉 6천만원"
    ),
    "price_manwon": Question(field="price_manwon", label="사려는 주택 가격", hint="예: 8억"),
    "existing_debt_monthly_manwon": Question(
        field="existing_debt_monthly_manwon",
        label="기존 대출의 월 상환액 (없으면 0)",
        hint="신용대출·자동차 할부 등 모든 대출의 월 원리금",
    ),
    "house_count": Question(
        field="house_count", label="지금 가진 주택 수", hint="무주택, 1주택(처분 예정 여부), 2주택 …"
    ),
    "region": Question(
        field="region", label="주택 소재지 (시·구)", hint="예: 서울 마포구, 경기 수원시 영통구, 부산"
    ),
}


def missing_for_limit(p: Profile, region: Region | None) -> list[str]:
    needed = {
        "income_manwon": p.income_manwon,
        "price_manwon": p.price_manwon,
        "existing_debt_monthly_manwon": p.debt_monthly_manwon,
        "house_count": p.house_count,
        "region": region and region.zone,
    }
    return [k for k, v in needed.items() if v is None]


def loan_simulation(case: Case, lending: LendingRules, regions: RegionRules) -> StepResult:
    day = case.day()
    p = read_profile(case)
    region = find_region(case.query, case.entities.gu, regions, day)
    missing = missing_for_limit(p, region)
    rate, rate_note, rate_finding = rate_of(p, lending)
    term = p.term_years or lending.default_term.years
    figures: list[Figure] = []
    findings: list[str] = []
    data: dict[str, Any] = {}
    limit = borrower = None
    if p.price_manwon is not None and region and region.zone and p.house_count is not None:
        # The collateral side needs only price, place and houses; income and debts can only lower it.
        borrower = Borrower(
            p.income_manwon, p.debt_monthly_manwon or 0.0, p.price_manwon, region.zone,
            buyer_of(homes_for_lending(p) or 0, p.first_home), rate, term,
            lending.programme_named(case.query, day),
        )  # fmt: skip
        limit = loan_limit(borrower, lending, day)
        term = limit.term_years
        figures += limit_figures(limit)
        findings += limit_findings(limit, borrower, region, lending)
        data["limit_manwon"] = round(limit.amount_manwon)
        data["binding_constraint"] = limit.binding.name
    complete = limit is not None and not missing
    computed = limit.amount_manwon if limit is not None and complete else None
    principal = p.loan_manwon if p.loan_manwon is not None else computed
    if principal:
        more, rows = payment_figures(principal, rate, term, rate_note)
        figures += more
        data["payments"] = rows
        if limit and p.loan_manwon and p.loan_manwon > limit.amount_manwon:
            findings.append(
                f"원하는 대출 {won_text(p.loan_manwon)}은 "
                f"계산한 한도 {won_text(limit.amount_manwon)}를 넘습니다."
            )
    if "existing_debt_monthly_manwon" in missing and p.debt_balance_manwon:
        findings.append(
            f"기존 대출 잔액 {won_text(p.debt_balance_manwon)}만으로는 DSR을 셀 수 없어 월 상환액을 여쭙니다."
        )
    if principal or (limit and limit.income_counted):  # the rate and term were used: say what they were
        findings[:0] = [rate_finding] if rate_finding else []
        if p.term_years is None:
            findings.append(f"만기를 알려 주지 않아 {term}년으로 계산했습니다.")
    repayment_cap = None
    if limit is None and p.income_manwon:
        stated = case.entities.dsr_percent  # the person's ratio outranks the rule book's
        ratio = stated / 100 if stated is not None else lending.dsr.max_ratio
        repayment_cap = yearly_repayment_cap(p.income_manwon, p.debt_monthly_manwon, ratio)
        figures.append(repayment_cap)
    barred = _barred(p, region, lending, day)
    if barred:
        figures.append(barred)
    asks_limit = not complete and not barred and (principal is None or case.entities.loan_limit_asked)
    questions = [QUESTIONS[k] for k in missing] if asks_limit else []
    return StepResult(
        headline=_headline(limit, borrower, region, repayment_cap, barred, principal, p, missing, lending),
        findings=findings,
        figures=figures,
        questions=questions,
        data={"loan_simulation": {**data, "as_of": day.isoformat(), "rate": rate, "term_years": term}},
    )


def yearly_repayment_cap(income_manwon: float, debt_monthly_manwon: float | None, ratio: float) -> Figure:
    """What DSR allows every loan together to cost a year: 연소득 × DSR − 기존 대출 연 상환액."""
    debts = 12 * (debt_monthly_manwon or 0.0)
    cap = max(0.0, income_manwon * ratio - debts)
    basis = f"연소득 {income_manwon:,.0f}만원 × DSR {ratio:.0%}" + (
        f" − 기존 대출 연 상환 {debts:,.0f}만원" if debts else ""
    )
    return Figure(label="DSR 연간 원리금 상한", value=round(cap), unit="만원", basis=basis)


def rate_of(p: Profile, lending: LendingRules) -> tuple[float, str, str | None]:
    """(rate, how the basis names it, a finding when it is the stated reference rate rather than theirs)."""
    if p.rate is not None:
        return p.rate, f"금리 연 {p.rate:.2%}", None
    ref = lending.reference_rate
    note = (
        f"금리를 알려 주지 않아 참고 금리 연 {ref.rate:.2%}로 계산했습니다: "
        f"{ref.source} ({ref.as_of}). 실제 금리로 다시 계산하세요."
    )
    return ref.rate, f"참고 금리 연 {ref.rate:.2%} (가정)", note


def limit_figures(limit: LoanLimit) -> list[Figure]:
    figures = [
        Figure(
            label=f"한도 ({c.name})", value=round(c.limit_manwon), unit="만원", basis=c.basis, source=c.source
        )
        for c in limit.constraints
    ]
    b = limit.binding
    figures.insert(
        0,
        Figure(
            label="대출 가능 금액",
            value=round(limit.amount_manwon),
            unit="만원",
            basis="min("
            + ", ".join(f"{c.name} {c.limit_manwon:,.0f}" for c in limit.constraints)
            + f") → {b.name}",
            source=b.source,
        ),
    )
    return figures


def limit_findings(limit: LoanLimit, b: Borrower, region: Region, lending: LendingRules) -> list[str]:
    found = [*limit.notes]
    found.append(f"결정 요인은 {limit.binding.name}입니다: {limit.binding.basis}.")
    if region.rule:
        found.append(
            f"{region.label}: {region.rule} 기준으로 "
            f"{'규제지역' if region.regulated else '비규제지역'}입니다."
        )
    if b.income_manwon == 0:
        found.append(
            "소득이 없으면 DSR 한도가 0원이라 은행 주택담보대출을 받을 수 없습니다. 소득 증빙이 먼저입니다."
        )
    if b.buyer == "one_home":
        found.append(
            "1주택자는 기존 주택을 정해진 기간 안에 처분하는 조건으로 계산했습니다. "
            "처분하지 않으면 다주택 기준입니다."
        )
    others = [c.limit_manwon for c in limit.constraints if not c.name.startswith("DSR")]
    if b.programme is None and others and min(others) <= lending.dsr.applies_above_total_debt_manwon:
        found.append(
            f"총 가계대출이 {won_text(lending.dsr.applies_above_total_debt_manwon)} 이하면 "
            "차주단위 DSR 규제 대상이 "
            "아닐 수 있습니다(은행 자체 기준은 적용)."
        )
    if b.programme:
        found.append(
            f"{b.programme.name}: 정책 모기지는 DSR 대신 "
            f"DTI {b.programme.dti:.0%}로 보았습니다. {b.programme.note or ''}".strip()
        )
    return found


def payment_figures(principal: float, rate: float, term: int, rate_note: str) -> tuple[list[Figure], dict]:
    """Monthly payments of each method: the first year's month, the total paid and the interest, plus the
    yearly schedule in the data."""
    figures, rows = [], {}
    for method, name in METHOD_NAMES.items():
        months = schedule(principal, rate, term * 12, method)
        years = yearly(months)
        interest = sum(m.interest for m in months)
        basis = f"원금 {principal:,.0f}만원, {rate_note}, {term}년 {name}"
        first = months[0].payment
        label = f"{name} 첫 달 상환액" if method == "equal_principal" else f"{name} 월 상환액"
        if method == "bullet":
            basis += ": 매달 이자만(원금 × 금리 ÷ 12), 만기에 원금 일시 상환"
        elif method == "equal_payment":
            basis += ": 원금 × r ÷ (1 − (1+r)^−n), r = 금리 ÷ 12"
        else:
            basis += (
                f": 매달 원금 {principal / (term * 12):,.1f} + 남은 원금의 이자 "
                f"(마지막 달 {months[-1].payment:,.1f})"
            )
        figures += [
            Figure(label=label, value=round(first, 1), unit="만원", basis=basis),
            Figure(
                label=f"{name} 총 이자",
                value=round(interest),
                unit="만원",
                basis=f"{term * 12}개월 이자 합계",
            ),
        ]
        rows[method] = [
            {k: round(v, 1) if isinstance(v, float) else v for k, v in y.__dict__.items()} for y in years
        ]
    return figures, rows


def _headline(
    limit: LoanLimit | None,
    borrower: Borrower | None,
    region: Region | None,
    repayment_cap: Figure | None,
    barred: Figure | None,
    principal: float | None,
    p: Profile,
    missing: list[str],
    lending: LendingRules,
) -> str:
    """The answer first: the limit (or its upper bound), else what DSR allows a year, else a verdict the
    rules already give (a buyer whose LTV is 0%), else how a limit is set and what it needs."""
    if limit is not None and borrower is not None and region is not None:
        return _limit_headline(limit, borrower, region, p, missing)
    if repayment_cap is not None:
        yearly = repayment_cap.value
        assert not isinstance(yearly, str)  # yearly_repayment_cap's figure is a sum of 만원
        return (
            f"DSR을 적용하면 1년에 갚을 수 있는 모든 대출의 원리금은 최대 {won_text(yearly)}"
            f"(월 {won_text(round(yearly / 12))})입니다: {repayment_cap.basis}."
        )
    if barred and region and p.house_count is not None:
        who = BUYER_NAMES[buyer_of(homes_for_lending(p) or 0, p.first_home)]
        return (
            f"{region.label}에서 {who} 조건으로 집을 사면 LTV가 0%라 주담대를 받을 수 없습니다 "
            f"({barred.source})."
        )
    if principal:
        return f"대출 {won_text(principal)}의 상환 방식별 월 상환액을 계산했습니다."
    labels = ", ".join(QUESTIONS[k].label.split(" (")[0] for k in missing)
    return (
        f"주담대 한도는 LTV(주택가격 × LTV 비율), DSR(연소득의 {lending.dsr.max_ratio:.0%} 안에서 "
        f"갚을 수 있는 원리금), 규제 최대 한도 중 가장 작은 금액입니다. "
        f"계산하려면 {labels}이(가) 필요합니다."
    )


def _limit_headline(limit: LoanLimit, b: Borrower, region: Region, p: Profile, missing: list[str]) -> str:
    home = f"{region.label} {won_text(b.price_manwon)} 주택({BUYER_NAMES[b.buyer]})"
    if limit.amount_manwon <= 0:
        reason = "소득이 없어 " if p.income_manwon == 0 else ""
        why = f"대출 가능 금액 0원, 결정 요인: {limit.binding.name}"
        return f"{reason}{home}은 주담대를 받을 수 없습니다 ({why})."
    amount = won_text(round(limit.amount_manwon))
    weighed = ", ".join(f"{c.name}({won_text(round(c.limit_manwon))})" for c in limit.constraints)
    if not missing:
        return f"{home}의 대출 가능 금액은 약 {amount}입니다 (결정 요인: {limit.binding.name})."
    lowered = (
        "기존 대출이 있으면 DSR 한도가 더 줄어듭니다"
        if limit.income_counted
        else "소득에 따른 DSR 한도가 이보다 작으면 그만큼 줄어듭니다"
    )
    return f"{home}의 주담대는 최대 {amount}입니다 ({weighed} 중 가장 작은 금액). {lowered}."


def _barred(p: Profile, region: Region | None, lending: LendingRules, day: date) -> Figure | None:
    """A buyer whose LTV is 0% where they buy gets nothing, whatever the price and income."""
    if p.house_count is None or region is None or region.zone is None:
        return None
    buyer = buyer_of(homes_for_lending(p) or 0, p.first_home)
    rule = lending.ltv_for(region.zone, buyer, day)
    if rule is None or rule.ratio > 0:
        return None
    return Figure(
        label=f"LTV ({region.label}, {BUYER_NAMES[buyer]})",
        value=0,
        unit="%",
        basis=f"{ZONE_NAMES[region.zone]}·{BUYER_NAMES[buyer]}: 주택담보대출 금지",
        source=rule.source,
    )
