"""The contract_review tool: `checks.review_contract` findings as a step result with the articles
they conflict with quoted from the statute book."""

from __future__ import annotations

from contracts.results import Question, StepResult
from services.analysis.case import Case
from services.analysis.lease_contract.checks import Finding, review_contract
from services.analysis.rules.statutes import StatuteBook
from services.housing.contract_text import contract_body, is_whole_contract, looks_like_contract

SEVERITY_NAMES = {"high": "심각", "medium": "주의", "low": "참고"}


def contract_text(case: Case) -> str | None:
    """The contract pasted into the question (its own words, without the request), if it holds one."""
    return contract_body(case.query) if looks_like_contract(case.query) else None


def contract_review(case: Case, statutes: StatuteBook) -> StepResult:
    text = contract_text(case)
    if text is None:
        return StepResult(
            headline="검토할 계약서 본문이 없습니다.",
            questions=[
                Question(field="contract_text", label="계약서 본문", hint="계약서 내용을 붙여 넣어 주세요")
            ],
        )
    findings = review_contract(text, whole=is_whole_contract(text))
    high = [f for f in findings if f.severity == "high"]
    articles = dict.fromkeys(f.article_id for f in findings if f.article_id and f.article_id in statutes)
    if findings and "주택임대차보호법/제10조" in statutes:
        articles.setdefault("주택임대차보호법/제10조")
    return StepResult(
        headline=_verdict(findings, high),
        findings=[_sentence(f) for f in findings],
        citations=[statutes.cite(a, max_chars=400) for a in articles],
        data={"contract_review": {"findings": [f.__dict__ for f in findings]}},
    )


def _verdict(findings: list[Finding], high: list[Finding]) -> str:
    """The review's answer first: how many clauses are against the tenant, and the worst of them."""
    if not findings:
        return "규칙 검토로는 빠진 필수 조항이나 위험한 조항을 찾지 못했습니다."
    # A clause the person wrote outranks a clause the contract lacks: they asked about what it says.
    order = sorted(findings, key=lambda f: (f.clause is None, f.severity != "high"))
    worst = order[0]
    where = f"「{worst.clause}」" if worst.clause else worst.title
    return (
        f"임차인에게 불리하거나 위험한 부분이 {len(findings)}건(심각 {len(high)}건) 있습니다. "
        f"가장 먼저 볼 것은 {where}: {worst.reason}"
    )


def _sentence(f: Finding) -> str:
    where = f"「{f.clause}」: " if f.clause else ""
    return f"[{SEVERITY_NAMES[f.severity]}] {f.title}: {where}{f.reason} 수정안: {f.suggestion}"
