"""Rent and deposit increases under 주택임대차보호법 (차임·보증금 증액): the 5% cap (제7조, 시행령 제8조),
the one-year rule, 계약갱신요구권 (제6조의3), 묵시적 갱신 (제6조), the 2-year term (제4조) and the
전월세 전환율 (제7조의2, 시행령 제9조)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from contracts.results import Figure, Question, StepResult
from services.analysis.case import Case
from services.analysis.rulebook import LeaseRules
from services.analysis.statutes import StatuteBook
from services.housing.money import format_manwon as won_text

_CONVERSION_WORDS = re.compile(r"전환|월세로|반전세")


@dataclass(frozen=True)
class Increase:
    """One increase asked for (증액 요구): from `current` to `asked`, in 만원."""

    what: str  # 보증금 | 월차임
    current: float
    asked: float | None

    def ratio(self) -> float | None:
        return (self.asked - self.current) / self.current if self.asked is not None else None


# What is now and what is asked, per kind: a run's answers (named as the input form names them), then
# the amounts by role the person gave (QueryEntities).
_KEYS = {
    "보증금": (
        ("current_deposit_manwon", "deposit_manwon"),
        ("asked_deposit_manwon", "requested_deposit_manwon"),
    ),
    "월차임": (
        ("current_monthly_rent_manwon", "monthly_rent_manwon"),
        ("asked_monthly_rent_manwon", "requested_monthly_rent_manwon"),
    ),
}
_ROLE_KEYS = [key for now, asked in _KEYS.values() for key in (now[1], asked[1])]


def increases(case: Case) -> list[Increase]:
    deposits, rents = case.deposits_and_rents()
    percent = case.number("percent")
    found = []
    # The amounts by role the person gave (QueryEntities: deposit_manwon, requested_deposit_manwon …)
    # come first; the order of the amounts is the fallback for a step without them.
    by_role = any(case.number(key) for key in _ROLE_KEYS)
    for what, values in (("보증금", deposits), ("월차임", rents)):
        fallback = [] if by_role else values
        now_keys, asked_keys = _KEYS[what]
        current = case.number(*now_keys) or (fallback[0] if fallback else None)
        asked = case.number(*asked_keys) or (fallback[1] if len(fallback) > 1 else None)
        if current and asked is None and percent is not None:
            asked = current * (1 + percent / 100)
        if current and asked is not None and asked < current:
            asked = None  # a lowered deposit is a 전월세 전환 (converted_deposit), not an increase
        if current:
            found.append(Increase(what, current, asked))
    return found


def increase_figures(inc: Increase, rules: LeaseRules) -> tuple[list[Figure], list[str]]:
    cap = rules.increase_cap.max_ratio
    source = rules.increase_cap.source
    legal_max = inc.current * (1 + cap)
    figures = [
        Figure(
            label=f"법정 상한 {inc.what} (5% 인상)",
            value=round(legal_max, 2),
            unit="만원",
            basis=f"{_n(inc.current)}만원 × (1 + {cap:.0%}) = {won_text(legal_max)}",
            source=source,
        ),
        Figure(
            label=f"최대 증액분 ({inc.what})",
            value=round(inc.current * cap, 2),
            unit="만원",
            basis=f"{_n(inc.current)}만원 × {cap:.0%} = {won_text(inc.current * cap)}",
            source=source,
        ),
    ]
    ratio = inc.ratio()
    if ratio is None:
        return figures, [
            f"현재 {inc.what} {won_text(inc.current)}에서 올릴 수 있는 최대는 {won_text(legal_max)}입니다."
        ]
    raise_by = inc.asked - inc.current
    figures[:0] = [
        Figure(
            label=f"요구 인상률 ({inc.what})",
            value=round(ratio * 100, 2),
            unit="%",
            basis=f"({_n(inc.asked)} − {_n(inc.current)}) ÷ {_n(inc.current)} × 100",
        ),
        Figure(
            label=f"요구 인상액 ({inc.what})",
            value=round(raise_by, 2),
            unit="만원",
            basis=f"{_n(inc.asked)} − {_n(inc.current)} = {won_text(raise_by)}",
        ),
    ]
    if ratio <= cap + 1e-9:
        return figures, [
            f"요구한 {won_text(raise_by)} 인상({ratio:.1%})은 법정 상한 {cap:.0%} 이내라 요구할 수 있으며, "
            f"{inc.what}은 최대 {won_text(legal_max)}까지 올릴 수 있습니다."
        ]
    excess = inc.asked - legal_max
    figures.append(
        Figure(
            label=f"상한 초과분 ({inc.what})",
            value=round(excess, 2),
            unit="만원",
            basis=f"{_n(inc.asked)} − {_n(legal_max)} = {won_text(excess)}",
        )
    )
    return figures, [
        f"{won_text(raise_by)} 인상({ratio:.1%})은 법정 상한 {cap:.0%}를 넘어 요구할 수 없고, {inc.what}은 "
        f"최대 {won_text(legal_max)}({won_text(legal_max - inc.current)} 인상)까지입니다.",
        f"상한을 넘는 {won_text(excess)}은 거절할 수 있습니다(제7조②, 시행령 제8조①).",
    ]


def converted_deposit(case: Case) -> float | None:
    """The part of the deposit a question turns into monthly rent (전월세 전환), in 만원."""
    converted = case.number("convert_deposit_manwon")
    if converted is None and _CONVERSION_WORDS.search(case.query):
        current, lowered = case.number("deposit_manwon"), case.number("requested_deposit_manwon")
        deposits, _ = case.deposits_and_rents()
        if current and lowered is not None:  # 3억에서 2억으로 낮추고 나머지를 월세로: 1억
            converted = current - lowered
        elif len(deposits) > 1:
            converted = abs(deposits[-1] - deposits[0])
        else:
            converted = deposits[0] if deposits else None
    return converted if converted and converted > 0 else None


def conversion_figures(case: Case, rules: LeaseRules) -> list[Figure]:
    """전월세 전환율 상한, and the monthly rent for a deposit converted to rent when one is asked about."""
    rate, base = rules.conversion_rate, rules.base_rate
    figures = [
        Figure(
            label="전월세 전환율 상한",
            value=round(rate * 100, 2),
            unit="%",
            basis=f"min(연 {rules.conversion.statutory_cap_rate:.0%}, 기준금리 {base.rate:.2%} + "
            f"{rules.conversion.base_rate_spread:.0%}p)",
            source=f"기준금리 {base.effective_date} 기준, {base.source}",
        )
    ]
    converted = converted_deposit(case)
    if converted:
        monthly = converted * rate / 12
        figures.append(
            Figure(
                label="전환 시 월차임 상한",
                value=round(monthly, 2),
                unit="만원",
                basis=f"{_n(converted)}만원 × {rate:.2%} ÷ 12 = 월 {won_text(monthly)}",
                source="주택임대차보호법 제7조의2, 시행령 제9조",
            )
        )
    return figures


def one_year_finding(case: Case, rules: LeaseRules) -> str:
    months = rules.increase_cap.min_months_between_increases
    last = case.text("last_increase_date") or case.text("contract_start_date")
    if not last:
        return f"증액청구는 계약 또는 직전 증액 후 {months // 12}년이 지나야 할 수 있습니다."
    since = _months_between(
        date.fromisoformat(last), date.fromisoformat(case.text("as_of") or date.today().isoformat())
    )
    verdict = (
        "지났으므로 증액청구가 가능합니다" if since >= months else "지나지 않아 증액청구를 할 수 없습니다"
    )
    return f"직전 계약·증액일({last})부터 {since}개월: {months}개월이 {verdict}."


def rent_increase(case: Case, rules: LeaseRules, statutes: StatuteBook) -> StepResult:
    found = increases(case)
    figures: list[Figure] = []
    findings: list[str] = []
    asked: list[str] = []  # the verdict on each increase asked for, the first being the headline
    for inc in found:
        more_figures, more_findings = increase_figures(inc, rules)
        figures += more_figures
        findings += more_findings
        asked += more_findings[:1] if inc.asked is not None else []
    figures += conversion_figures(case, rules)
    term = rules.term
    findings += [
        one_year_finding(case, rules),
        "5% 상한은 계약기간 중 증액청구와 계약갱신요구권으로 갱신할 때 적용되며, 기간 만료 후 합의로 새로 "
        "맺는 계약에는 적용되지 않습니다. 시·도 조례로 상한을 더 낮출 수 있습니다.",
        f"계약갱신요구권: 만료 {term.notice_window_months[0]}~{term.notice_window_months[1]}개월 전에 "
        f"{term.renewal_right_uses}회 쓸 수 있고 갱신 기간은 "
        f"{term.renewed_term_months // 12}년입니다. 임대인은 "
        "2기 차임 연체, 무단 전대, 고의·중과실 파손, "
        "임대인(직계존비속 포함)의 실거주 등 법정 사유가 있을 때만 "
        "거절할 수 있습니다.",
        "묵시적 갱신: 임대인이 만료 6~2개월 전에 갱신거절·조건변경 "
        "통지를 하지 않으면 같은 조건으로 2년 갱신되고, "
        "임차인은 언제든 해지 통지할 수 있으며 "
        f"{term.implied_renewal_termination_notice_months}개월 뒤 효력이 생깁니다.",
        f"임대차 기간은 최소 {term.minimum_months // 12}년이 "
        "보장되며(2년 미만 약정도 2년), 임차인은 더 짧은 기간을 "
        "주장할 수 있습니다. 이에 어긋나 임차인에게 불리한 약정은 무효입니다.",
    ]
    converted = converted_deposit(case)
    if converted and not asked:  # "보증금 1억을 월세로 돌리면 얼마?": the conversion is the answer
        rate = rules.conversion_rate
        headline = (
            f"보증금 {won_text(converted)}을 월세로 전환하면 법정 전환율 상한 {rate:.1%} 기준 "
            f"월 {won_text(converted * rate / 12)}까지 받을 수 있습니다."
        )
    else:
        headline = (
            (asked or findings)[0] if found else "현재 보증금·차임을 알려 주시면 인상 한도를 계산해 드립니다."
        )
    questions = [] if found else [Question(field="current_deposit_manwon", label="현재 보증금(또는 월차임)")]
    return StepResult(
        headline=headline,
        findings=[f for f in findings if f != headline] if found else findings[1:],
        figures=figures,
        citations=_citations(statutes),
        questions=questions,
        data={
            "rent_increase": {
                "increases": [inc.__dict__ for inc in found],
                "conversion_rate": rules.conversion_rate,
            }
        },
    )


def _citations(statutes: StatuteBook) -> list:
    wanted = [
        ("주택임대차보호법/제7조", (1, 2)),
        ("주택임대차보호법_시행령/제8조", ()),
        ("주택임대차보호법/제6조의3", (1, 2, 3)),
        ("주택임대차보호법/제6조", (1, 2)),
        ("주택임대차보호법/제6조의2", ()),
        ("주택임대차보호법/제4조", (1,)),
        ("주택임대차보호법/제7조의2", ()),
        ("주택임대차보호법_시행령/제9조", ()),
        ("주택임대차보호법/제10조", ()),
    ]
    return [statutes.cite(article_id, paragraphs) for article_id, paragraphs in wanted]


def _n(value: float) -> str:
    """31500.0 -> '31,500'; 52.5 -> '52.5'."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _months_between(start: date, end: date) -> int:
    return (end.year - start.year) * 12 + end.month - start.month - (end.day < start.day)
