"""The analysis step's summary (인사이트 요약), by rules: one headline and the findings of every tool that
ran, most important tool first. Insights across the whole run are the supervisor's `response_synthesis`
call's to write, so no LLM call summarises a single step."""

from __future__ import annotations

from collections.abc import Mapping

from contracts.results import StepResult

TOOL_NAMES = {
    "rent_increase": "임대료 인상",
    "jeonse_risk": "전세 위험도",
    "market_analysis": "시세 판단",
    "contract_review": "계약서 검토",
    "loan_simulation": "대출 한도·상환",
    "roi": "투자 수익률",
    "policy": "주거 지원 정책",
    "priority_repayment": "최우선변제",
    "brokerage_fee": "중개보수",
}


def summarise(results: Mapping[str, StepResult], failed: Mapping[str, str]) -> StepResult:
    """One step result from each tool's: the first tool's headline leads; with several tools each headline
    becomes a finding of its own so none is lost; citations and questions are listed once."""
    headlines = [(name, r.headline) for name, r in results.items() if r.headline]
    findings: list[str] = []
    for name, result in results.items():
        if len(results) > 1 and result.headline:
            findings.append(f"{TOOL_NAMES.get(name, name)}: {result.headline}")
        findings += result.findings
    if failed:
        findings.append("계산하지 못한 항목: " + ", ".join(TOOL_NAMES.get(n, n) for n in failed))
    merged = list(results.values())
    return StepResult(
        headline=headlines[0][1] if headlines else None,
        findings=findings,
        figures=[f for r in merged for f in r.figures],
        citations=list({c.article_id: c for r in merged for c in r.citations}.values()),
        listings=list({row.listing_id: row for r in merged for row in r.listings}.values()),
        questions=list({q.field: q for r in merged for q in r.questions}.values()),
        failed_tools=dict(failed),
        data={k: v for r in merged for k, v in r.data.items()},
    )
