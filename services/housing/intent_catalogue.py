"""Every intent a question can have, each one entry: the topics whose words argue for it, the steps its plan
starts from, which result answers it first, and the rest the planner and the supervisor read of it. Their
tables are derived from this one, so adding an intent is a member of IntentType (contracts/values.py, the
wire) and its entry here; a new topic of its own is a member of Topic with its entry in TOPICS (the steps
its words bring), and its words go in the planner's SIGNALS under it.

It lives in the domain package because two services read it (the planner plans from it, the supervisor
composes from it) and neither may import the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from contracts.values import IntentType, StepFocus

I = IntentType  # noqa: E741
F = StepFocus


class Topic(StrEnum):
    """What the words of a question talk about; each topic's words argue for one intent (or none)."""

    LEGAL = "legal"  # statutes, rights and duties of 임대인/임차인
    RENT_CHANGE = "rent_change"  # 증액·감액, 전월세 전환
    MARKET = "market"  # prices and listings
    LOAN = "loan"
    POLICY = "policy"  # housing-support programmes (청년, 신혼부부, 특례)
    CONTRACT_WRITE = "contract_write"
    CONTRACT_CHECK = "contract_check"
    RISK = "risk"  # 깡통전세, 전세사기, 권리관계
    INVEST = "invest"
    TAX = "tax"  # 취득세, 양도세, 보유세: the tax law's figures
    OVERALL = "overall"  # 종합적으로, 사도 될까
    ANALYSIS_ASK = "analysis_ask"  # 계산·비교·평가·판단: asks for work on figures, argues for no intent


class StepId(StrEnum):
    """The kinds of step a rules plan is made of; each is the step's id in the plan and on the wire (the
    planner's catalogue, services/planner/steps.py, says what each one does)."""

    SEARCH_LEGAL = "search-legal"
    SEARCH_MARKET = "search-market"
    SEARCH_LOAN = "search-loan"
    ASK_LOAN_APPLICANT = "ask-loan-applicant"
    ANALYZE_MARKET = "analyze-market"
    ANALYZE_RISK = "analyze-risk"
    CHECK_RENT_INCREASE = "check-rent-increase"
    REVIEW_CONTRACT = "review-contract"
    SIMULATE_LOAN = "simulate-loan"
    ANALYZE_ROI = "analyze-roi"
    MATCH_POLICY = "match-policy"
    COMPUTE_PRIORITY_REPAYMENT = "compute-priority-repayment"
    COMPUTE_BROKERAGE_FEE = "compute-brokerage-fee"
    COMPUTE_ACQUISITION_TAX = "compute-acquisition-tax"
    COMPUTE_HOUSING_COST = "compute-housing-cost"
    DRAFT_LEASE = "draft-lease"
    DRAFT_SALE = "draft-sale"
    REVIEW_SALE_CONTRACT = "review-sale-contract"
    PREPARE_LOAN_CHECKLIST = "prepare-loan-checklist"


S = StepId


@dataclass(frozen=True)
class TopicSpec:
    """One topic: the search its words call for, the step any mention of it brings (`when_named`: "투자
    가치는?", "깡통전세 위험", "청년 지원", "계약서 써줘"), and the analysis it gets when work on it is
    asked (계산, 비교, 평가 …)."""

    topic: Topic
    search: StepId | None = None
    analysis: StepId | None = None
    when_named: StepId | None = None


# The analysis of the most specific topic a clause names is the one it gets: listed first.
TOPICS = (
    TopicSpec(Topic.RENT_CHANGE, S.SEARCH_LEGAL, S.CHECK_RENT_INCREASE),
    TopicSpec(Topic.LOAN, S.SEARCH_LOAN, S.SIMULATE_LOAN),
    TopicSpec(Topic.POLICY, S.SEARCH_LOAN, S.MATCH_POLICY, S.MATCH_POLICY),
    TopicSpec(Topic.INVEST, S.SEARCH_MARKET, S.ANALYZE_ROI, S.ANALYZE_ROI),
    TopicSpec(Topic.RISK, S.SEARCH_MARKET, S.ANALYZE_RISK, S.ANALYZE_RISK),
    TopicSpec(Topic.CONTRACT_CHECK, S.SEARCH_LEGAL, S.REVIEW_CONTRACT, S.REVIEW_CONTRACT),
    TopicSpec(Topic.MARKET, S.SEARCH_MARKET, S.ANALYZE_MARKET),
    TopicSpec(Topic.LEGAL, S.SEARCH_LEGAL, S.REVIEW_CONTRACT),
    TopicSpec(Topic.CONTRACT_WRITE, when_named=S.DRAFT_LEASE),
    TopicSpec(Topic.TAX),
    TopicSpec(Topic.OVERALL),
    TopicSpec(Topic.ANALYSIS_ASK),
)
SEARCH_OF_TOPIC = {spec.topic: spec.search for spec in TOPICS if spec.search}
ANALYSIS_OF_TOPIC = {spec.topic: spec.analysis for spec in TOPICS if spec.analysis}  # most specific first
STEP_WHEN_NAMED = {spec.topic: spec.when_named for spec in TOPICS if spec.when_named}


@dataclass(frozen=True)
class IntentSpec:
    """One intent. `described`: what it is, as the planning model reads it. `argued_by`: the topics whose
    words argue for it. `analysis_topic`: the topic whose analysis it asks for when a clause asks for one
    without naming its own. `answered_by`: the result that answers it first when no analysis computed the
    answer; `review`, when set, answers before any figure once it found anything. `legal_task`: its legal
    search's task line when the question names no article. `overall`: asked for everything, or for three
    domains at once, rather than a domain of its own. `guidance`: no team runs; the answer opens with this
    line and says what Jipsa can do."""

    intent: IntentType
    described: str
    argued_by: tuple[Topic, ...] = ()
    analysis_topic: Topic | None = None
    base_steps: tuple[StepId, ...] = ()
    answered_by: StepFocus | None = None
    review: StepFocus | None = None
    legal_task: str | None = None
    overall: bool = False
    guidance: str | None = None


GREETING = "안녕하세요, 부동산 도우미 집사입니다."  # also opens an answer whose plan ran no step

# Most specific first: a tie between two intents goes to the one listed earlier.
ENTRIES = (
    IntentSpec(
        I.CONTRACT_REVIEW,
        "check a contract",
        (Topic.CONTRACT_CHECK,),
        Topic.CONTRACT_CHECK,
        (S.SEARCH_LEGAL, S.REVIEW_CONTRACT),
        F.LEGAL,
        review=F.CONTRACT_REVIEW,
        legal_task="임대차 계약서 검토 기준이 되는 주택임대차보호법 조항 검색",
    ),
    IntentSpec(
        I.CONTRACT_CREATION,
        "write a contract",
        (Topic.CONTRACT_WRITE,),
        None,
        (S.DRAFT_LEASE,),
        legal_task="임대차 계약서 필수 기재사항·특약 관련 조항 검색",
    ),
    IntentSpec(
        I.RISK_ANALYSIS,
        "is a deposit or purchase safe",
        (Topic.RISK,),
        Topic.RISK,
        (S.SEARCH_MARKET, S.ANALYZE_RISK),
        F.MARKET,
    ),
    IntentSpec(
        I.LOAN_CONSULT,
        "loans and support programmes",
        (Topic.LOAN, Topic.POLICY),
        Topic.LOAN,
        (S.SEARCH_LOAN,),
        F.LOAN_PRODUCTS,
    ),
    IntentSpec(
        I.LEGAL_CONSULT,
        "law and rights",
        (Topic.LEGAL, Topic.RENT_CHANGE, Topic.TAX),
        Topic.LEGAL,
        (S.SEARCH_LEGAL,),
        F.LEGAL,
    ),
    IntentSpec(
        I.MARKET_INQUIRY,
        "prices and listings",
        (Topic.MARKET,),
        Topic.MARKET,
        (S.SEARCH_MARKET,),
        F.MARKET,
    ),
    IntentSpec(
        I.COMPREHENSIVE,
        "several of these or an overall judgement",
        (Topic.INVEST, Topic.OVERALL),
        Topic.MARKET,
        (S.SEARCH_MARKET, S.ANALYZE_MARKET),
        F.MARKET,
        overall=True,
    ),
    IntentSpec(
        I.UNCLEAR,
        "about housing but too vague to act on",
        guidance="질문을 조금 더 구체적으로 알려주시면 정확히 도와드릴게요.",
    ),
    IntentSpec(I.IRRELEVANT, "not about housing", guidance=GREETING),
)
INTENTS = {spec.intent: spec for spec in ENTRIES}

# Derived tables, each read by the code that decides with it.
# What the planning model reads of every intent: the domains in the wire's order, then what spans them
# ("several of these"), then the intents no team answers.
_WIRE_ORDER = list(IntentType)
INTENTS_DESCRIBED = "; ".join(
    f"{spec.intent.value} {spec.described}"
    for spec in sorted(ENTRIES, key=lambda s: (bool(s.guidance), s.overall, _WIRE_ORDER.index(s.intent)))
)
GUIDANCE_INTENTS = tuple(spec.intent for spec in ENTRIES if spec.guidance)  # no team runs
BY_SPECIFICITY = tuple(spec.intent for spec in ENTRIES if not spec.guidance)  # the planner's tie-break
DOMAINS = tuple(spec.intent for spec in ENTRIES if not (spec.guidance or spec.overall))
INTENT_OF_TOPIC = {topic: spec.intent for spec in ENTRIES for topic in spec.argued_by}
