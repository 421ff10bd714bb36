"""The contract_review tool: `contract_rules.review_contract` findings as a step result with the articles
they conflict with quoted from the statute book."""

from __future__ import annotations

import re

from contracts.results import Question, StepResult
from services.analysis.case import Case
from services.analysis.contract_rules import Finding, review_contract
from services.analysis.statutes import StatuteBook

SEVERITY_NAMES = {"high": "심각", "medium": "주의", "low": "참고"}
# A question that carries the contract itself: several numbered clauses or both parties named.
_LOOKS_LIKE_CONTRACT = re.compile(
    r"제\s*\d+\s*조[\s\S]*제\s*\d+\s*조|임대인[\s\S]*임차인[\s\S]*(보증금|기간)"
)


def contract_text(case: Case) -> str | None:
    given = case.inputs.get("contract_text")
    if isinstance(given, str) and given.strip():
        return given
    return case.query if _LOOKS_LIKE_CONTRACT.search(case.query) else None


def contract_review(case: Case, statutes: StatuteBook) -> StepResult:
    text = contract_text(case)
    if text is None:
        return StepResult(
            headline="검토할 계약서 본문이 없습니다.",
            questions=[
                Question(field="contract_text", label="계약서 본문", hint="계약서 내용을 붙여 넣어 주세요")
            ],
        )
    findings = review_contract(text)
    high = [f for f in findings if f.severity == "high"]
    articles = dict.fromkeys(f.article_id for f in findings if f.article_id and f.article_id in statutes)
    if findings and "주택임대차보호법/제10조" in statutes:
        articles.setdefault("주택임대차보호법/제10조")
    return StepResult(
        headline=f"계약서에서 {len(findings)}건을 찾았습니다 (심각 {len(high)}건)."
        if findings
        else "규칙 검토로는 빠진 필수 조항이나 위험한 조항을 찾지 못했습니다.",
        findings=[_sentence(f) for f in findings],
        citations=[statutes.cite(a, max_chars=400) for a in articles],
        data={"contract_review": {"findings": [f.__dict__ for f in findings]}},
    )


def _sentence(f: Finding) -> str:
    where = f"「{f.clause}」: " if f.clause else ""
    return f"[{SEVERITY_NAMES[f.severity]}] {f.title}: {where}{f.reason} 수정안: {f.suggestion}"
