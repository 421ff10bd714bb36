"""The analysis team's registry of tools and its policy, as data for the team-of-tools loop
(services/platform/team_of_tools.py). Each tool is registered once, under one name, in `TOOLS`: which
focus it serves, the words that call for it (도구 선택), what the model reads of it when it chooses, and
what it runs. The policy says how the tools' results make one answer (insight.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from contracts.results import Question, StepResult
from contracts.values import StepFocus, Team
from services.analysis.case import Case
from services.analysis.deal.acquisition_tax import acquisition_tax_answer
from services.analysis.deal.brokerage_fee import brokerage_fee
from services.analysis.deal.market import market_analysis
from services.analysis.insight import summarise
from services.analysis.lease.housing_cost import housing_cost
from services.analysis.lease.jeonse_risk import jeonse_risk
from services.analysis.lease.priority_repayment import priority_repayment
from services.analysis.lease.rent_increase import rent_increase
from services.analysis.lease_contract.review import contract_review, contract_text
from services.analysis.loans.loan_simulation import loan_simulation
from services.analysis.policy.matching import policy_matching
from services.analysis.returns.roi_analysis import roi_analysis
from services.analysis.rules.library import Library
from services.housing.vocabulary import (
    ACQUISITION_TAX_WORDS,
    BROKERAGE_FEE_WORDS,
    CONTRACT_TERMS_WORDS,
    CONVERSION_RATE_WORDS,
    DEPOSIT_AT_RISK_WORDS,
    DEPOSIT_GUARANTEE_WORDS,
    HOUSING_SUPPORT_WORDS,
    INVEST_WORDS,
    JUDGED_WORDS,
    OUTLAY_ASKED,
    PRIORITY_REPAYMENT_WORDS,
    RENT_RAISE_WORDS,
)
from services.platform.team import StepOutput, StepWork
from services.platform.team_of_tools import Tool, ToolTeam


@dataclass(frozen=True)
class AnalysisTool(Tool):
    """One analysis tool as the registry holds it: the loop's `Tool` (its name, the description the model
    reads when it chooses, the step focuses it serves, the words that call for it) and what it runs, a
    pure function of the case and the library. A run looks its function up when called, so a test can
    put a broken one in its place."""

    run: Callable[[Case, Library], StepResult]


# The registry, in the order the summary leads with: the most telling analysis first.
TOOLS: tuple[AnalysisTool, ...] = (
    AnalysisTool(
        name="rent_increase",
        description="전세금·월세 인상이 5% 상한 안인지, 계약갱신요구권, 전월세 전환율 계산",
        focuses=(StepFocus.RENT_INCREASE,),
        words=re.compile(rf"{RENT_RAISE_WORDS}|{CONVERSION_RATE_WORDS}|갱신|월세로|재계약"),
        run=lambda case, lib: rent_increase(case, lib.rules.lease, lib.statutes),
    ),
    AnalysisTool(
        name="jeonse_risk",
        description="보증금과 시세로 전세가율·깡통전세 위험도와 보호 조치 판단",
        focuses=(StepFocus.JEONSE_RISK,),
        words=re.compile(rf"{DEPOSIT_AT_RISK_WORDS}|{DEPOSIT_GUARANTEE_WORDS}"),
        run=lambda case, lib: jeonse_risk(case, lib.rules.jeonse_risk, lib.statutes),
    ),
    AnalysisTool(
        name="market_analysis",
        description="비교 단지 대비 호가·평당가 적정성 판단",
        focuses=(StepFocus.MARKET_ANALYSIS,),
        words=re.compile(rf"{JUDGED_WORDS}|적정|적당|비싼|비싸|싼가|저렴|호가|고평가|저평가"),
        run=lambda case, lib: market_analysis(case, lib.rules.lease.conversion_rate),
    ),
    AnalysisTool(
        name="contract_review",
        description="계약서 조항 검토: 빠진 필수 항목, 무효·불리한 특약",
        focuses=(StepFocus.CONTRACT_REVIEW,),
        words=re.compile(CONTRACT_TERMS_WORDS),
        run=lambda case, lib: contract_review(case, lib.statutes),
    ),
    AnalysisTool(
        name="loan_simulation",
        description="LTV·DSR·상품 한도로 대출 한도와 월 상환액 계산",
        focuses=(StepFocus.LOAN_SIMULATION,),
        words=re.compile(
            r"한도|DSR|LTV|스트레스|상환액|원리금|원금균등|만기일시|얼마(?:나|까지)?\s*빌|주담대", re.I
        ),
        run=lambda case, lib: loan_simulation(case, lib.rules.lending, lib.rules.regions),
    ),
    AnalysisTool(
        name="roi",
        description="취득세·대출·보유비용을 반영한 투자 수익률(IRR)",
        focuses=(StepFocus.ROI,),
        words=re.compile(rf"{INVEST_WORDS}|팔면|되팔", re.I),  # what it would fetch on resale, too
        run=lambda case, lib: roi_analysis(case, lib.rules),
    ),
    AnalysisTool(
        name="policy",
        description="나이·소득·혼인·주택 보유로 주거 지원 정책 매칭",
        focuses=(StepFocus.POLICY,),
        words=re.compile(rf"{HOUSING_SUPPORT_WORDS}|디딤돌|버팀목"),  # the programmes are policies too
        run=lambda case, lib: policy_matching(case, lib.policies),
    ),
    AnalysisTool(
        name="priority_repayment",
        description="지역과 보증금으로 소액임차인 해당 여부와 최우선변제 보호액 계산",
        focuses=(StepFocus.PRIORITY_REPAYMENT,),
        words=PRIORITY_REPAYMENT_WORDS,
        run=lambda case, lib: priority_repayment(case, lib.rules.small_deposit, lib.statutes),
    ),
    AnalysisTool(
        name="acquisition_tax",
        description="매매가·취득 후 주택 수·지역으로 취득세와 지방교육세 계산",
        focuses=(StepFocus.ACQUISITION_TAX,),
        words=ACQUISITION_TAX_WORDS,
        run=lambda case, lib: acquisition_tax_answer(case, lib.rules),
    ),
    AnalysisTool(
        name="brokerage_fee",
        description="매매가 또는 보증금·월세로 중개보수 상한(거래금액 × 상한요율, 한도액) 계산",
        focuses=(StepFocus.BROKERAGE_FEE,),
        words=BROKERAGE_FEE_WORDS,
        run=lambda case, lib: brokerage_fee(case, lib.rules.brokerage, lib.statutes),
    ),
    AnalysisTool(
        name="housing_cost",
        description="월세·관리비 등 매달 내는 돈의 합과 기간(1년, 계약 기간) 합계 계산",
        focuses=(StepFocus.HOUSING_COST,),
        words=OUTLAY_ASKED,
        run=lambda case, lib: housing_cost(case),
    ),
)


def _by_name(tools: tuple[AnalysisTool, ...]) -> dict[str, AnalysisTool]:
    by_name = {tool.name: tool for tool in tools}
    if len(by_name) != len(tools):
        raise ValueError(f"two analysis tools share a name: {[tool.name for tool in tools]}")
    return by_name


BY_NAME = _by_name(TOOLS)


def run_tool(name: str, case: Case, library: Library) -> StepResult:
    """The result of the tool registered under `name`, on the case."""
    return BY_NAME[name].run(case, library)


def _pasted_contract(step: StepWork) -> tuple[str, ...]:
    """A contract pasted into the question is reviewed whatever else is asked."""
    return ("contract_review",) if contract_text(Case(step.query)) else ()


ANALYSIS_TEAM = ToolTeam(
    team=Team.ANALYSIS,
    tools=TOOLS,
    call_point="analysis_tool_selection",
    lead_by_focus=False,  # the registry's order: the most telling analysis leads the summary
    words_of=lambda step: step.query,
    merge=lambda step, results, failed: summarise(results, failed),
    done="분석 완료",
    nothing_chosen=StepOutput(
        "분석 항목 없음",
        StepResult(
            headline="이 질문에서 분석할 항목을 찾지 못했습니다.",
            questions=[
                Question(field="focus", label="분석할 내용", hint="예: 전세금 인상 한도, 깡통전세 위험")
            ],
        ),
    ),
    called_for=_pasted_contract,
    prompt_variables=lambda step: {"available_data": ", ".join(sorted(step.dependency_results)) or "-"},
)
