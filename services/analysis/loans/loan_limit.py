"""The mortgage limit (주택담보대출 한도): the smallest of the LTV limit, the DSR limit (at the stressed
rate where stress DSR is in force), the regulatory cap and a named programme's cap. Every constraint
keeps its formula and source, and the smallest one is the binding constraint (결정 요인). Without the
income the limit is the collateral side only (LTV and caps): an upper bound the DSR can only lower."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from services.analysis.loans.repayment import level_payment
from services.analysis.rules.lending import BUYER_NAMES, ZONE_NAMES, Buyer, LendingRules, Programme, Zone


@dataclass(frozen=True)
class Borrower:
    """What the limit depends on (차주 정보), every field said by the person."""

    income_manwon: float | None  # 연소득; None when not said (the DSR side is then left out)
    debt_monthly_manwon: float  # 기존 대출 월 상환액
    price_manwon: float  # 주택 가격
    zone: Zone
    buyer: Buyer
    rate: float  # 대출 금리 (소수)
    term_years: int
    programme: Programme | None = None


@dataclass(frozen=True)
class Constraint:
    name: str
    limit_manwon: float
    basis: str
    source: str


@dataclass(frozen=True)
class LoanLimit:
    constraints: list[Constraint]
    term_years: int
    notes: list[str]

    @property
    def binding(self) -> Constraint:
        return min(self.constraints, key=lambda c: c.limit_manwon)

    @property
    def amount_manwon(self) -> float:
        return max(0.0, self.binding.limit_manwon)

    @property
    def income_counted(self) -> bool:
        return any(c.name.startswith(("DSR", "DTI")) for c in self.constraints)


def buyer_of(house_count: int, first_home: bool) -> Buyer:
    if first_home and house_count == 0:
        return "first_home"
    return ("no_home", "one_home")[house_count] if house_count < 2 else "multi_home"


def loan_limit(b: Borrower, rules: LendingRules, day: date) -> LoanLimit:
    term, notes = _term(b, rules, day)
    income = [] if b.income_manwon is None else [_income_limit(b, b.income_manwon, term, rules, day)]
    constraints = [*_ltv(b, rules, day), *income, *_caps(b, rules, day)]
    return LoanLimit(constraints, term, notes)


def _term(b: Borrower, rules: LendingRules, day: date) -> tuple[int, list[str]]:
    cap = rules.term_cap_for(b.zone, day)
    if cap and b.term_years > cap.max_years:
        return cap.max_years, [
            f"{ZONE_NAMES[b.zone]} 주담대 만기는 {cap.max_years}년 이내라 만기를 줄여 계산했습니다."
        ]
    return b.term_years, []


def _ltv(b: Borrower, rules: LendingRules, day: date) -> list[Constraint]:
    rule = rules.ltv_for(b.zone, b.buyer, day)
    if rule is None:  # no LTV rule in force for this zone and buyer: the other limits still stand
        return []
    who = f"{ZONE_NAMES[b.zone]}·{BUYER_NAMES[b.buyer]}"
    return [
        Constraint(
            f"LTV {rule.ratio:.0%}",
            b.price_manwon * rule.ratio,
            f"주택가격 {b.price_manwon:,.0f}만원 × LTV {rule.ratio:.0%} ({who})",
            rule.source,
        )
    ]


def _income_limit(b: Borrower, income: float, term: int, rules: LendingRules, day: date) -> Constraint:
    """The loan whose yearly 원리금균등 repayment, with the other debts, fits the income ratio: DSR at the
    stressed rate, or a policy mortgage's DTI at its own rate (정책 모기지는 DSR 대신 DTI로 심사)."""
    if b.programme:
        ratio, rate, name, source = b.programme.dti, b.rate, f"DTI {b.programme.dti:.0%}", b.programme.source
        rate_text = f"금리 {rate:.2%}"
    else:
        stress = rules.stress_for(b.zone, day)
        add_on = stress.add_on if stress else 0.0
        ratio, rate, name = rules.dsr.max_ratio, b.rate + add_on, f"DSR {rules.dsr.max_ratio:.0%}"
        source = rules.dsr.source + (f"; 스트레스 DSR {stress.phase}: {stress.source}" if stress else "")
        rate_text = (
            f"금리 {b.rate:.2%} + 스트레스 {add_on:.2%}p = {rate:.2%}" if stress else f"금리 {rate:.2%}"
        )
    room = ratio * income - 12 * b.debt_monthly_manwon
    per_unit = 12 * level_payment(1.0, rate, term * 12)
    basis = (
        f"(연소득 {income:,.0f} × {ratio:.0%} − "
        f"기존 대출 연 상환 {12 * b.debt_monthly_manwon:,.0f}) ÷ "
        f"대출 1만원당 연 상환액 {per_unit:.5f} ({rate_text}, {term}년 원리금균등)"
    )
    return Constraint(name, max(0.0, room) / per_unit, basis, source)


def _caps(b: Borrower, rules: LendingRules, day: date) -> list[Constraint]:
    caps = [
        Constraint(
            f"주담대 최대 한도 {c.cap_manwon // 10_000:g}억",
            float(c.cap_manwon),
            f"{ZONE_NAMES[b.zone]} 시가 {b.price_manwon:,.0f}만원 구간의 금액 상한",
            c.source,
        )
        for c in rules.caps_for(b.zone, b.buyer, b.price_manwon, day)
    ]
    p = b.programme
    if p is None:
        return caps
    if b.price_manwon > p.price_cap_manwon:
        return [
            *caps,
            Constraint(
                f"{p.name} 주택가격 상한",
                0.0,
                f"주택가격 {b.price_manwon:,.0f}만원 > 상한 {p.price_cap_manwon:,}만원",
                p.source,
            ),
        ]
    cap = p.first_home_cap_manwon if b.buyer == "first_home" else p.cap_manwon
    return [*caps, Constraint(f"{p.name} 한도", float(cap), f"{p.name} 대출한도 {cap:,}만원", p.source)]
