"""Lease contract checks (임대차계약서 검토) by rules: missing essentials and void or risky clauses.

`review_contract(text)` is pure (no statute text); callers attach the article text by `article_id`. The
clause rules are the housing package's (services/housing/clauses.py), the ones the document team checks
the 특약 of a lease it writes with. The rules catch the clear cases; an LLM may add judgement on top,
never remove a rule's finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.housing.clauses import ClauseRule, Severity, flagged_by

SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}
MAX_QUOTE = 200


@dataclass(frozen=True)
class Finding:
    """One problem in a lease (검토 의견): the clause quoted (None when something is missing), how serious
    it is, the article it conflicts with (a corpus id) and a rewrite to propose."""

    code: str
    title: str
    severity: Severity
    clause: str | None
    article_id: str | None
    reason: str
    suggestion: str


@dataclass(frozen=True)
class _Essential:
    code: str
    title: str
    present: re.Pattern[str]
    severity: Severity
    article_id: str | None
    reason: str
    suggestion: str


ESSENTIALS = (
    _Essential(
        "missing_address",
        "목적물 소재지",
        re.compile(r"소재|주소|목적물"),
        "high",
        None,
        "어느 주택의 임대차인지 특정되지 않습니다.",
        "제1조에 주택 소재지(동·호수 포함)와 면적을 적으세요.",
    ),
    _Essential(
        "missing_deposit",
        "보증금",
        re.compile(r"보증금"),
        "high",
        "주택임대차보호법/제3조의2",
        "보증금 액수와 지급 일정이 없으면 우선변제를 주장할 금액이 불분명합니다.",
        "보증금 금 ○○원, 계약금·잔금 액수와 지급일을 적으세요.",
    ),
    _Essential(
        "missing_term",
        "임대차 기간",
        re.compile(r"임대차\s*기간|계약\s*기간|\d+\s*년\s*\d+\s*월\s*\d+\s*일\s*까지|까지로\s*한다"),
        "high",
        "주택임대차보호법/제4조",
        "기간이 없으면 2년으로 봅니다(제4조①).",
        "임대차 기간은 인도일인 ○년 ○월 ○일부터 ○년 ○월 ○일까지(24개월)로 한다.",
    ),
    _Essential(
        "missing_return",
        "보증금 반환",
        re.compile(r"반환"),
        "medium",
        "주택임대차보호법/제4조",
        "기간이 끝날 때 보증금을 언제 돌려받는지 정해 두어야 합니다.",
        "임대인은 계약 종료일에 임차주택의 명도와 동시에 보증금 전액을 반환한다.",
    ),
    _Essential(
        "missing_repairs",
        "수선 의무",
        re.compile(r"수선|수리|하자"),
        "medium",
        None,
        "수선 책임이 없으면 누가 고칠지 다툼이 생깁니다(민법 제623조: 임대인의 수선의무).",
        "임대인은 주요 설비의 노후·불량으로 인한 수선을, 임차인은 고의·과실로 인한 파손의 수선을 부담한다.",
    ),
    _Essential(
        "missing_restoration",
        "원상복구",
        re.compile(r"원상\s*(복구|회복)"),
        "low",
        None,
        "원상복구 범위가 없으면 퇴거 때 보증금 공제를 두고 다툼이 생깁니다.",
        "임차인은 계약 종료 시 임차주택을 원상으로 회복한다. 다만 통상의 사용에 따른 손모는 제외한다.",
    ),
    _Essential(
        "missing_fixed_date",
        "확정일자",
        re.compile(r"확정\s*일자"),
        "medium",
        "주택임대차보호법/제3조의2",
        "확정일자가 있어야 경매·공매 때 우선변제를 받습니다.",
        "임대인은 임차인의 확정일자 취득에 협조한다.",
    ),
    _Essential(
        "missing_move_in",
        "전입신고·대항력",
        re.compile(r"전입|대항력|주민등록"),
        "medium",
        "주택임대차보호법/제3조",
        "인도와 전입신고를 마쳐야 다음 날부터 대항력이 생깁니다.",
        "임차인은 잔금일에 주택을 인도받고 전입신고를 하며, "
        "임대인은 잔금일 다음 날까지 새 담보권을 설정하지 않는다.",
    ),
    _Essential(
        "missing_encumbrances",
        "권리관계(선순위 채권·체납 세금)",
        re.compile(r"근저당|선순위|등기|체납|국세|지방세"),
        "medium",
        "주택임대차보호법/제3조의7",
        "선순위 근저당·체납 세금을 확인·고지하는 조항이 없습니다.",
        "임대인은 계약 체결 시 선순위 확정일자·보증금 정보와 납세증명서를 임차인에게 제시한다.",
    ),
)


def clauses(text: str) -> list[str]:
    """The contract cut into sentences (문장), each one a quotable clause."""
    parts = re.split(r"\n+|(?<=다\.)\s+|(?<=[.。])\s+(?=제\s*\d+\s*조)", text)
    return [p.strip() for p in parts if p and p.strip()]


def review_contract(text: str, whole: bool = True) -> list[Finding]:
    """Every finding in a lease text, most serious first; an empty text yields no findings. Clauses
    missing are looked for only in a whole contract (`whole`), never in a few pasted 특약."""
    if not text.strip():
        return []
    findings = [_missing(e) for e in ESSENTIALS if not e.present.search(text)] if whole else []
    findings += _missing_rent(text) if whole else []
    for sentence in clauses(text):
        findings += [_found(rule, sentence) for rule in flagged_by(sentence)]
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


def _missing_rent(text: str) -> list[Finding]:
    """A lease must say whether it is 전세 or what the 월차임 is."""
    if re.search(r"월\s*세|차임|월\s*임대료|전세", text):
        return []
    return [
        Finding(
            "missing_rent",
            "차임(월세) 또는 전세 여부",
            "high",
            None,
            "주택임대차보호법/제7조",
            "차임 액수와 지급일, 또는 전세라는 점이 없습니다.",
            "차임은 매월 ○일에 금 ○○원을 지급한다.",
        )
    ]


def _missing(essential: _Essential) -> Finding:
    return Finding(
        essential.code,
        f"{essential.title} 조항 없음",
        essential.severity,
        None,
        essential.article_id,
        essential.reason,
        essential.suggestion,
    )


def _found(rule: ClauseRule, sentence: str) -> Finding:
    quote = sentence if len(sentence) <= MAX_QUOTE else sentence[: MAX_QUOTE - 1] + "…"
    return Finding(rule.code, rule.title, rule.severity, quote, rule.article_id, rule.reason, rule.suggestion)
