"""Review of a lease before it is written (계약서 검토): sums, term, the 5% cap, 특약 against the tenant
(the housing package's clause rules, which the analysis team's contract review applies too), and the
protective 특약 the situation calls for.

Findings are every contract's (common/findings.py): an `error` blocks the document and is asked of the
person again (its `field`); a `warning` or `note` is shown with the finished contract.
"""

from __future__ import annotations

import re
from datetime import date

from services.document.common.findings import Finding, Findings, error, note
from services.document.common.payments import dates_in_order, split_payments
from services.document.lease.fields import LeaseFields
from services.housing.clauses import flagged_by
from services.housing.dates import months_between

LEASE_ACT = "주택임대차보호법"
TERM_ARTICLE = f"{LEASE_ACT}/제4조"  # 2년 미만은 2년으로 본다
RENEWAL_ARTICLE = f"{LEASE_ACT}/제6조의3"  # 계약갱신 요구
INCREASE_ARTICLE = f"{LEASE_ACT}/제7조"  # 증액은 20분의 1 이내
INCREASE_CAP = 0.05
MIN_TERM_MONTHS = 24


class Review(Findings):
    fields: LeaseFields  # settled: 잔금 and its date filled where the others determine them


def review_lease(fields: LeaseFields) -> Review:
    settled, findings = settle_payments(fields)
    findings += check_term(settled) + check_increase(settled) + check_special_terms(settled)
    findings += blank_optional_fields(settled)
    return Review(fields=settled, findings=findings, suggested_terms=protective_terms(settled))


def settle_payments(fields: LeaseFields) -> tuple[LeaseFields, list[Finding]]:
    """계약금 + 중도금 + 잔금 = 보증금; a missing 잔금일 is the day the home is handed over, as the
    standard form pays it."""
    balance, findings = split_payments(
        "보증금", fields.deposit_won, fields.down_payment_won, fields.interim_payment_won, fields.balance_won
    )
    if any(f.severity == "error" for f in findings):
        return fields, findings
    update: dict[str, object] = {"balance_won": balance} if balance is not None else {}
    if fields.balance_date is None and fields.term_start and (balance or fields.balance_won):
        update["balance_date"] = fields.term_start
        findings.append(note("잔금 지급일은 임대차 시작일(인도일)로 보았습니다."))
    settled = fields.model_copy(update=update)
    return settled, findings + dates_in_order(_lease_payment_days(settled))


def _lease_payment_days(fields: LeaseFields) -> list[tuple[str, str, date | None]]:
    return [
        ("interim_payment_date", "중도금 지급일", fields.interim_payment_date),
        ("balance_date", "잔금 지급일", fields.balance_date),
    ]


def check_term(fields: LeaseFields) -> list[Finding]:
    """The end comes after the start. Under 2 years is lawful and common (a 1-year 월세): the contract is
    written with a warning, since 제4조① lets the tenant, not the landlord, claim 2 years; a reason
    given is written into the 특약, none is required."""
    start, end = fields.term_start, fields.term_end
    if start is None or end is None:
        return []
    if end <= start:
        return [error("term_end", f"임대차 종료일({end})이 시작일({start})보다 뒤여야 합니다")]
    if months_between(start, end) >= MIN_TERM_MONTHS:
        return []
    reason = f"(사유: {fields.short_term_reason})" if fields.short_term_reason else ""
    message = (
        f"임대차기간이 2년 미만입니다{reason}. 임차인은 2년을 주장할 수 있고, "
        "임대인은 정한 기간이 유효함을 주장할 수 없습니다."
    )
    return [Finding(severity="warning", message=message, article_ids=(TERM_ARTICLE,))]


def check_increase(fields: LeaseFields) -> list[Finding]:
    """On renewal the deposit and rent may rise by at most 5% (제7조 ②, 제6조의3 ③)."""
    findings = []
    for label, before, after in (
        ("보증금", fields.previous_deposit_won, fields.deposit_won),
        ("차임", fields.previous_rent_won, fields.monthly_rent_won),
    ):
        if before and after and after > before * (1 + INCREASE_CAP):
            rate = (after - before) / before * 100
            message = (
                f"{label} 인상률 {rate:.1f}%가 갱신 시 상한 5%를 넘습니다 (최대 {int(before * 1.05):,}원)"
            )
            findings.append(Finding(severity="warning", message=message, article_ids=_increase_articles()))
    if fields.renewal and not findings and fields.previous_deposit_won is None:
        message = "갱신계약이면 보증금·차임 증액은 종전의 5% 이내여야 합니다."
        findings.append(Finding(severity="note", message=message, article_ids=_increase_articles()))
    return findings


def check_special_terms(fields: LeaseFields) -> list[Finding]:
    """특약 against the tenant: say which and why, so the parties strike or rewrite them."""
    return [
        Finding(
            severity="note" if rule.severity == "low" else "warning",
            message=f"'{term}': {rule.title}. {rule.reason} 수정안: {rule.suggestion}",
            article_ids=rule.article_ids,
        )
        for term in fields.special_terms
        for rule in flagged_by(term)
    ]


def blank_optional_fields(fields: LeaseFields) -> list[Finding]:
    blanks = [
        label
        for name, label in (("leased_part", "임차할 부분"), ("area_m2", "면적"))
        if getattr(fields, name) is None
    ]
    if not blanks:
        return []
    return [note(f"{', '.join(blanks)}은(는) 주어지지 않아 계약서에 빈칸으로 두었습니다.")]


def protective_terms(fields: LeaseFields) -> list[str]:
    """특약 that protect the tenant, each suggested only when the situation calls for it and the
    contract does not already say it."""
    stated = " ".join(fields.special_terms)
    suggestions = []
    if fields.deposit_won and "반환" not in stated:
        suggestions.append(
            "임대인은 임대차 종료일에 임차주택을 인도받음과 동시에 보증금 전액을 임차인에게 반환한다."
        )
    if fields.deposit_won and not re.search(r"담보권|저당권", stated):
        suggestions.append(
            "임대인은 임차인의 전입신고 및 확정일자 다음날까지 임차주택에 저당권 등 담보권을 설정하지 않는다."
        )
    if fields.mortgage and "말소" not in stated:
        suggestions.append(
            "임대인은 잔금 지급일까지 임차주택에 설정된 근저당권을 말소하며, 말소하지 않으면 임차인은 계약을 "
            "해제하고 지급한 금액 전액을 돌려받을 수 있다."
        )
    if fields.deposit_won and not fields.monthly_rent_won and "보증보험" not in stated:
        suggestions.append(
            "임대인은 임차인의 전세보증금반환보증(전세보증보험) 가입에 필요한 서류 제공 등에 "
            "협조하며, 임대인의 사유로 가입이 거절되면 임차인은 계약을 해제하고 지급한 금액 "
            "전액을 돌려받을 수 있다."
        )
    return suggestions


def _increase_articles() -> tuple[str, ...]:
    return (INCREASE_ARTICLE, RENEWAL_ARTICLE)
