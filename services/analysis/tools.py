"""The analysis tools and how a step picks them (도구 선택, the rule fallback of seed call point #6): the
step's focus first, else keywords in the question."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from contracts.results import StepResult
from contracts.values import StepFocus
from services.analysis.brokerage_fee import brokerage_fee
from services.analysis.case import Case
from services.analysis.contract_review import contract_review, contract_text
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

FOCUS_CONFIDENCE, KEYWORD_CONFIDENCE, NO_MATCH_CONFIDENCE = 0.95, 0.6, 0.2


@dataclass(frozen=True)
class Library:
    """What the tools read besides the case: the dated rules, the statute text and the policy programmes."""

    rules: RuleBook
    statutes: StatuteBook
    policies: PolicyBook


@dataclass(frozen=True)
class Tool:
    name: str
    focus: StepFocus
    keywords: re.Pattern[str]
    run: Callable[[Case, Library], StepResult]


TOOLS = (
    Tool(
        "rent_increase",
        StepFocus.RENT_INCREASE,
        re.compile(r"인상|올려|올리|증액|갱신|전환율|월세로|재계약"),
        lambda case, lib: rent_increase(case, lib.rules.lease, lib.statutes),
    ),
    Tool(
        "jeonse_risk",
        StepFocus.JEONSE_RISK,
        re.compile(r"깡통|위험|전세가율|떼일|떼이|반환보증|안전한"),
        lambda case, lib: jeonse_risk(case, lib.rules.jeonse_risk, lib.statutes),
    ),
    Tool(
        "market_analysis",
        StepFocus.MARKET_ANALYSIS,
        re.compile(r"적정|적당|비싼|비싸|싼가|저렴|호가|고평가|저평가"),
        lambda case, lib: market_analysis(case),
    ),
    Tool(
        "contract_review",
        StepFocus.CONTRACT_REVIEW,
        re.compile(r"계약서|특약|조항"),
        lambda case, lib: contract_review(case, lib.statutes),
    ),
    Tool(
        "loan_simulation",
        StepFocus.LOAN_SIMULATION,
        re.compile(
            r"한도|DSR|LTV|스트레스|상환액|원리금|원금균등|만기일시|얼마(?:나|까지)?\s*빌|주담대", re.I
        ),
        lambda case, lib: loan_simulation(case, lib.rules.lending, lib.rules.regions),
    ),
    Tool(
        "roi",
        StepFocus.ROI,
        re.compile(r"수익률|ROI|IRR|투자|시세\s*차익|임대\s*수익|팔면|되팔", re.I),
        lambda case, lib: roi_analysis(case, lib.rules),
    ),
    Tool(
        "policy",
        StepFocus.POLICY,
        re.compile(r"지원|정책|혜택|청년|신혼|신생아|생애\s*최초|디딤돌|버팀목|청약\s*통장|감면"),
        lambda case, lib: policy_matching(case, lib.policies),
    ),
    Tool(
        "priority_repayment",
        StepFocus.PRIORITY_REPAYMENT,
        re.compile(r"최우선|소액\s*임차|소액\s*보증금"),
        lambda case, lib: priority_repayment(case, lib.rules.small_deposit, lib.statutes),
    ),
    Tool(
        "brokerage_fee",
        StepFocus.BROKERAGE_FEE,
        re.compile(r"중개\s*(?:보수|수수료)|복비|부동산\s*수수료"),
        lambda case, lib: brokerage_fee(case, lib.rules.brokerage, lib.statutes),
    ),
)


# What the model reads of each tool when it chooses (analysis_tool_selection).
DESCRIPTIONS = {
    "rent_increase": "전세금·월세 인상이 5% 상한 안인지, 계약갱신요구권, 전월세 전환율 계산",
    "jeonse_risk": "보증금과 시세로 전세가율·깡통전세 위험도와 보호 조치 판단",
    "market_analysis": "비교 단지 대비 호가·평당가 적정성 판단",
    "contract_review": "계약서 조항 검토: 빠진 필수 항목, 무효·불리한 특약",
    "loan_simulation": "LTV·DSR·상품 한도로 대출 한도와 월 상환액 계산",
    "roi": "취득세·대출·보유비용을 반영한 투자 수익률(IRR)",
    "policy": "나이·소득·혼인·주택 보유로 주거 지원 정책 매칭",
    "priority_repayment": "지역과 보증금으로 소액임차인 해당 여부와 최우선변제 보호액 계산",
    "brokerage_fee": "보증금·월세로 중개보수의 거래금액(보증금 + 월세 × 100, 5천만원 미만이면 × 70) 계산",
}


@dataclass(frozen=True)
class Selection:
    tools: list[Tool]
    reasoning: str
    confidence: float


def select_tools(case: Case, focus: list[str]) -> Selection:
    by_focus = [t for t in TOOLS if t.focus.value in focus]
    if by_focus:
        return Selection(by_focus, f"단계 focus {focus}에 맞는 도구", FOCUS_CONFIDENCE)
    by_words = [t for t in TOOLS if t.keywords.search(case.query)]
    if contract_text(case) and not any(t.name == "contract_review" for t in by_words):
        by_words.append(next(t for t in TOOLS if t.name == "contract_review"))
    if by_words:
        return Selection(by_words, "focus가 없어 질문의 핵심어로 고름", KEYWORD_CONFIDENCE)
    return Selection([], "focus도 핵심어도 맞는 도구가 없음", NO_MATCH_CONFIDENCE)
