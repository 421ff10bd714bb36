"""The LLM's judgement on top of the contract review rules (the `contract_analysis` call point),
when an endpoint is configured and a contract was pasted.

The rules' findings stand either way; the model only adds to them, and what it adds is held to the
material it was given: a risk that does not quote the contract, or cites an article it was not shown,
is dropped. Without an endpoint, or on any failure, nothing is added and the rules' review is the
answer. Insights, risks and next steps drawn from the analyses as a whole are written by the
supervisor's one `response_synthesis` call, not here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from contracts.results import StepResult
from contracts.telemetry import LlmCallRecorded
from services.analysis.case import Case
from services.analysis.lease_contract.review import contract_text
from services.platform.llm import LlmClient


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


async def with_judgement(
    result: StepResult, results: dict[str, StepResult], case: Case, run_id: str, llm: LlmClient | None
) -> tuple[StepResult, list[LlmCallRecorded]]:
    """The analysis step's result with the risks the model adds to a pasted contract's review.

    Insights drawn from the analyses as a whole are not asked for here: the supervisor's one
    `response_synthesis` call writes them from the steps' results, in the call it makes anyway."""
    review, contract = results.get("contract_review"), contract_text(case)
    if not review or not contract:
        return result, []
    risks, calls = await contract_judgement(llm, contract, review, run_id)
    if not risks:
        return result, calls
    findings = list(dict.fromkeys([*result.findings, *risks]))
    return result.model_copy(update={"findings": findings}), calls
