"""The analysis team's tools and its policy, as data for the team-of-tools loop
(services/platform/team_of_tools.py): which focus each tool serves, the words that call for it (도구
선택), what the model reads of it when it chooses, and how the tools' results make one answer
(insight.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from contracts.results import Question, StepResult
from contracts.values import StepFocus, Team
from services.analysis.acquisition_tax import acquisition_tax_answer
from services.analysis.brokerage_fee import brokerage_fee
from services.analysis.case import Case
from services.analysis.contract_review import contract_review, contract_text
from services.analysis.insight import summarise
from services.analysis.jeonse_risk import jeonse_risk
from services.analysis.loan_simulation import loan_simulation
from services.analysis.market import market_analysis
from services.analysis.policies import PolicyBook
from services.analysis.policy_matching import policy_matching
from services.analysis.priority_repayment import priority_repayment
from services.analysis.rent_increase import rent_increase
from services.analysis.roi_analysis import roi_analysis
from services.analysis.rulebook import RuleBook
from services.analysis.statutes import StatuteBook
from services.housing.brokerage import BROKERAGE_FEE_WORDS
from services.platform.team import StepOutput, StepWork
from services.platform.team_of_tools import Tool, ToolTeam


@dataclass(frozen=True)
class Library:
    """What the tools read besides the case: the dated rules, the statute text and the policy programmes."""

    rules: RuleBook
    statutes: StatuteBook
    policies: PolicyBook


TOOLS = (
    Tool(
        "rent_increase",
        "전세금·월세 인상이 5% 상한 안인지, 계약갱신요구권, 전월세 전환율 계산",
        (StepFocus.RENT_INCREASE,),
        re.compile(r"인상|올려|올리|증액|갱신|전환율|월세로|재계약"),
    ),
    Tool(
        "jeonse_risk",
        "보증금과 시세로 전세가율·깡통전세 위험도와 보호 조치 판단",
        (StepFocus.JEONSE_RISK,),
        re.compile(r"깡통|위험|전세가율|떼일|떼이|반환보증|안전한"),
    ),
    Tool(
        "market_analysis",
        "비교 단지 대비 호가·평당가 적정성 판단",
        (StepFocus.MARKET_ANALYSIS,),
        re.compile(r"적정|적당|비싼|비싸|싼가|저렴|호가|고평가|저평가"),
    ),
    Tool(
        "contract_review",
        "계약서 조항 검토: 빠진 필수 항목, 무효·불리한 특약",
        (StepFocus.CONTRACT_REVIEW,),
        re.compile(r"계약서|특약|조항"),
    ),
    Tool(
        "loan_simulation",
        "LTV·DSR·상품 한도로 대출 한도와 월 상환액 계산",
        (StepFocus.LOAN_SIMULATION,),
        re.compile(
            r"한도|DSR|LTV|스트레스|상환액|원리금|원금균등|만기일시|얼마(?:나|까지)?\s*빌|주담대", re.I
        ),
    ),
    Tool(
        "roi",
        "취득세·대출·보유비용을 반영한 투자 수익률(IRR)",
        (StepFocus.ROI,),
        re.compile(r"수익률|ROI|IRR|투자|시세\s*차익|임대\s*수익|팔면|되팔", re.I),
    ),
    Tool(
        "policy",
        "나이·소득·혼인·주택 보유로 주거 지원 정책 매칭",
        (StepFocus.POLICY,),
        re.compile(r"지원|정책|혜택|청년|신혼|신생아|생애\s*최초|디딤돌|버팀목|청약\s*통장|감면"),
    ),
    Tool(
        "priority_repayment",
        "지역과 보증금으로 소액임차인 해당 여부와 최우선변제 보호액 계산",
        (StepFocus.PRIORITY_REPAYMENT,),
        re.compile(r"최우선|소액\s*임차|소액\s*보증금"),
    ),
    Tool(
        "acquisition_tax",
        "매매가·취득 후 주택 수·지역으로 취득세와 지방교육세 계산",
        (StepFocus.ACQUISITION_TAX,),
        re.compile(r"취득세"),
    ),
    Tool(
        "brokerage_fee",
        "매매가 또는 보증금·월세로 중개보수 상한(거래금액 × 상한요율, 한도액) 계산",
        (StepFocus.BROKERAGE_FEE,),
        BROKERAGE_FEE_WORDS,
    ),
)


# How each tool runs: pure functions of the case and the library (looked up when called, so a test can
# put a broken one in its place).
RUNS: dict[str, Callable[[Case, Library], StepResult]] = {
    "rent_increase": lambda case, lib: rent_increase(case, lib.rules.lease, lib.statutes),
    "jeonse_risk": lambda case, lib: jeonse_risk(case, lib.rules.jeonse_risk, lib.statutes),
    "market_analysis": lambda case, lib: market_analysis(case),
    "contract_review": lambda case, lib: contract_review(case, lib.statutes),
    "loan_simulation": lambda case, lib: loan_simulation(case, lib.rules.lending, lib.rules.regions),
    "roi": lambda case, lib: roi_analysis(case, lib.rules),
    "policy": lambda case, lib: policy_matching(case, lib.policies),
    "priority_repayment": lambda case, lib: priority_repayment(case, lib.rules.small_deposit, lib.statutes),
    "brokerage_fee": lambda case, lib: brokerage_fee(case, lib.rules.brokerage, lib.statutes),
    "acquisition_tax": lambda case, lib: acquisition_tax_answer(case, lib.rules),
}


def _pasted_contract(step: StepWork) -> tuple[str, ...]:
    """A contract pasted into the question is reviewed whatever else is asked."""
    return ("contract_review",) if contract_text(Case(step.query)) else ()


ANALYSIS_TEAM = ToolTeam(
    team=Team.ANALYSIS,
    tools=TOOLS,
    call_point="analysis_tool_selection",
    lead_by_focus=False,  # the table's order: the most telling analysis leads the summary
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
