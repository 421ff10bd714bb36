"""The LLM's judgement on top of the rules (the seed's call points #7 contract analysis and #9 insight
synthesis), when an endpoint is configured.

The rules' findings stand either way; the model only adds to them, and what it adds is held to the
material it was given: a line that quotes a number the analyses do not contain, or a risk that cites
an article it was not shown, is dropped. Without an endpoint, or on any failure, nothing is added
and the rule-based summary (insight.py) is the answer.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from contracts.results import StepResult
from contracts.telemetry import LlmCallRecorded
from services.platform.llm import LlmClient

NUMBER = re.compile(r"\d[\d,.]*")


class InsightSynthesisAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key_insights: list[str] = Field(default=[], max_length=5)
    risks: list[str] = Field(default=[], max_length=5)
    recommendations: list[str] = Field(default=[], max_length=5)
    confidence: float = Field(ge=0, le=1)


class ContractRisk(BaseModel):
    model_config = ConfigDict(extra="forbid")

    clause: str = Field(max_length=500)
    severity: Literal["high", "medium", "low"]
    issue: str = Field(max_length=500)
    article_ids: list[str] = Field(default=[], max_length=5)


class ContractAnalysisAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    risks: list[ContractRisk] = Field(default=[], max_length=10)
    missing_clauses: list[str] = Field(default=[], max_length=10)
    summary: str = Field(default="", max_length=1000)


async def insight_findings(
    llm: LlmClient | None, query: str, results: dict[str, StepResult], run_id: str
) -> tuple[list[str], list[LlmCallRecorded]]:
    """Insights, risks and next steps the model drew from the analyses, each held to their numbers."""
    if llm is None or not llm.configured:
        return [], []
    analyses = {
        name: r.model_dump(mode="json", include={"headline", "findings", "figures"})
        for name, r in results.items()
    }
    result = await llm.structured(
        "insight_synthesis",
        {"query": query, "analyses": analyses},
        InsightSynthesisAnswer,
        run_id=run_id,
        fallback=lambda: InsightSynthesisAnswer(confidence=0),
    )
    source = json.dumps(analyses, ensure_ascii=False)
    answer = result.value
    lines = [
        *answer.key_insights,
        *(f"주의: {r}" for r in answer.risks),
        *(f"권장: {r}" for r in answer.recommendations),
    ]
    return [line for line in lines if _numbers_within(line, source)], [result.record]


async def contract_judgement(
    llm: LlmClient | None, contract: str, review: StepResult, run_id: str
) -> tuple[list[str], list[LlmCallRecorded]]:
    """Risks the rules did not name, each quoting its clause and citing only articles it was shown."""
    if llm is None or not llm.configured:
        return [], []
    shown = {c.article_id: c.text or "" for c in review.citations}
    result = await llm.structured(
        "contract_analysis",
        {"contract_text": contract, "rule_findings": review.findings, "articles": shown},
        ContractAnalysisAnswer,
        run_id=run_id,
        fallback=lambda: ContractAnalysisAnswer(),
    )
    found = [
        f"AI 검토({risk.severity}): 「{risk.clause}」 {risk.issue}"
        for risk in result.value.risks
        if risk.clause and risk.clause in contract and set(risk.article_ids) <= set(shown)
    ]
    found += [f"AI 검토: 빠진 조항 - {name}" for name in result.value.missing_clauses]
    return found, [result.record]


def _numbers_within(line: str, source: str) -> bool:
    """Every number of the line appears in the source (31,500 and 31500 being the same number)."""
    plain = source.replace(",", "")
    return all(n.replace(",", "").strip(".") in plain for n in NUMBER.findall(line))
