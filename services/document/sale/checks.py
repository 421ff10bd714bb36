"""Review of a sale contract (매매계약서 검토): the money adds up (매매대금 = 계약금 + 중도금 + 잔금), the
days come in order (계약일 ≤ 중도금일 ≤ 잔금일), 특약 against the buyer are flagged, and the 특약 that
protect the buyer and are missing are suggested. The same review serves the contract we write and the
특약 of one the person pastes.

Findings are every contract's (common/findings.py): an `error` is asked of the person again.
"""

from __future__ import annotations

import re
from datetime import date

from services.document.common.findings import Finding, Findings
from services.document.common.payments import dates_in_order, split_payments
from services.document.sale.fields import SaleFields
from services.document.sale.rules import ProtectiveTerm, SaleRules, sale_rules

# A pasted sale contract: its parties are 매도인 and 매수인.
SALE_PARTIES = re.compile(r"매도인[\s\S]*매수인|매수인[\s\S]*매도인")
_CLAUSE_BREAK = re.compile(r"\n+|(?<=다)\.\s*|(?<![\d.])\d+\s*[.)](?!\d)")
_SPECIAL_START = re.compile(r"특약\s*(?:사항)?\s*[:：]?")


class SaleReview(Findings):
    fields: SaleFields  # settled: 잔금 filled where the others determine it


def review_sale(fields: SaleFields, rules: SaleRules | None = None) -> SaleReview:
    rules = rules or sale_rules()
    balance, findings = split_payments(
        "매매대금", fields.price_won, fields.down_payment_won, fields.interim_payment_won, fields.balance_won
    )
    settled = fields.model_copy(update={"balance_won": balance}) if balance is not None else fields
    findings += dates_in_order(payment_days(settled))
    findings += flagged_terms(settled.special_terms, rules)
    missing = missing_protection(settled.special_terms, settled.land_permit_zone, rules)
    return SaleReview(fields=settled, findings=findings, suggested_terms=[p.term for p in missing])


def payment_days(fields: SaleFields) -> list[tuple[str, str, date | None]]:
    """계약일 ≤ 중도금일 ≤ 잔금일: the order the money changes hands."""
    return [
        ("contract_date", "계약일", fields.contract_date),
        ("interim_payment_date", "중도금 지급일", fields.interim_payment_date),
        ("balance_date", "잔금 지급일", fields.balance_date),
    ]


def flagged_terms(terms: list[str], rules: SaleRules) -> list[Finding]:
    """특약 against the buyer: which, why, and what to write instead."""
    return [
        Finding(
            severity=rule.severity,
            message=f"'{term}': {rule.title}. {rule.reason} 수정안: {rule.suggestion}",
            article_ids=(rule.article_id,) if rule.article_id else (),
        )
        for term in terms
        for rule in rules.against_buyer
        if rule.pattern.search(term)
    ]


def missing_protection(terms: list[str], land_permit_zone: bool, rules: SaleRules) -> list[ProtectiveTerm]:
    """The protective 특약 the situation calls for that no 특약 already says."""
    stated = "\n".join(terms)
    return [
        p
        for p in rules.protective
        if (p.when == "always" or land_permit_zone) and not p.covered.search(stated)
    ]


def review_pasted_sale(text: str, rules: SaleRules | None = None) -> list[Finding]:
    """A pasted sale contract's 특약: those against the buyer, then the protective ones it lacks (a
    missing 근저당 말소 is a warning, the more so when the contract speaks of a 근저당)."""
    rules = rules or sale_rules()
    terms = special_terms_of(text)
    land_permit = bool(re.search(r"토지\s*거래\s*허가", text))
    findings = flagged_terms(terms, rules)
    for p in missing_protection(terms, land_permit, rules):
        message = f"특약에 '{p.title}'이(가) 없습니다. {p.reason} 넣을 특약: {p.term}"
        ids = (p.article_id,) if p.article_id else ()
        findings.append(Finding(severity=p.severity, message=message, article_ids=ids))
    return findings


def special_terms_of(text: str) -> list[str]:
    """The 특약 of a pasted contract, one clause each: what follows '특약', else every clause."""
    start = _SPECIAL_START.search(text)
    body = text[start.end() :] if start else text
    return [c.strip(" -·•\t") for c in _CLAUSE_BREAK.split(body) if c and len(c.strip()) > 3]


def looks_like_sale_contract(text: str) -> bool:
    return bool(SALE_PARTIES.search(text))
