"""Plans by rules: which teams answer a question, in which order, with which task each.

A plan is built from step kinds (below): each kind is one team with one focus and names the searches
whose results it reads. The intent brings its base steps, every topic the question touches adds its
own (a market question that also asks "대출 가능 금액 계산해줘" gains the loan search and the loan
simulation), and each analysis or document step depends on the searches it reads that are in the plan.
The strategy follows from those dependencies; the estimate is the critical path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from contracts.entities import DealType, PropertyType, QueryEntities
from contracts.steps import StepInputs, inputs_for_plan, plan_inputs
from contracts.values import Intent, IntentType, PlanStep, StepFocus, Strategy, Team
from services.housing.amounts import CONVERSION, read_amounts
from services.housing.brokerage import BROKERAGE_FEE_WORDS
from services.housing.coverage import listings_serve
from services.housing.entities import asked_bounds_text, extract_entities
from services.housing.money import format_manwon
from services.housing.text import normalize
from services.planner import followup
from services.planner.followup import PriorTurn
from services.planner.intents import (
    TASK_REQUEST_WEIGHT,
    Hit,
    Topic,
    classify,
    clause_topics,
    find_hits,
    is_evidence,
    split_clauses,
)

I = IntentType  # noqa: E741
F = StepFocus

# Seconds a step of each team usually takes (search and analysis make one LLM call or none, a document
# renders DOCX), and how long the supervisor lets it run before failing it.
TEAM_SECONDS = {Team.SEARCH: 8.0, Team.ANALYSIS: 12.0, Team.DOCUMENT: 20.0}
TEAM_TIMEOUT_S = {Team.SEARCH: 60.0, Team.ANALYSIS: 90.0, Team.DOCUMENT: 120.0}
TEAM_FOCUS = {
    Team.SEARCH: {F.LEGAL, F.LISTINGS, F.MARKET, F.LOAN_PRODUCTS},
    Team.ANALYSIS: {
        F.MARKET_ANALYSIS,
        F.RENT_INCREASE,
        F.JEONSE_RISK,
        F.CONTRACT_REVIEW,
        F.LOAN_SIMULATION,
        F.ROI,
        F.POLICY,
        F.PRIORITY_REPAYMENT,
        F.BROKERAGE_FEE,
    },
    Team.DOCUMENT: {F.LEASE_CONTRACT, F.SALES_CONTRACT, F.LOAN_APPLICATION},
}
GUIDANCE_INTENTS = (I.UNCLEAR, I.IRRELEVANT)  # answered with guidance, no team runs


@dataclass(frozen=True)
class StepKind:
    step_id: str
    team: Team
    focus: tuple[StepFocus, ...]
    # Searches whose results it uses when they are in the plan; an analysis needs at least the first.
    reads: tuple[str, ...] = ()


STEP_KINDS = {
    kind.step_id: kind
    for kind in (
        StepKind("search-legal", Team.SEARCH, (F.LEGAL,)),
        StepKind("search-market", Team.SEARCH, (F.MARKET, F.LISTINGS)),
        StepKind("search-loan", Team.SEARCH, (F.LOAN_PRODUCTS,)),
        # 대출 신청 준비 asks the applicant's facts first: the loan analyses below read them.
        StepKind("ask-loan-applicant", Team.DOCUMENT, (F.LOAN_APPLICATION,)),
        StepKind("analyze-market", Team.ANALYSIS, (F.MARKET_ANALYSIS,), ("search-market",)),
        StepKind("analyze-risk", Team.ANALYSIS, (F.JEONSE_RISK,), ("search-market", "search-legal")),
        StepKind("check-rent-increase", Team.ANALYSIS, (F.RENT_INCREASE,), ("search-legal", "search-market")),
        StepKind("review-contract", Team.ANALYSIS, (F.CONTRACT_REVIEW,), ("search-legal",)),
        StepKind(
            "simulate-loan",
            Team.ANALYSIS,
            (F.LOAN_SIMULATION,),
            ("search-loan", "search-market", "ask-loan-applicant"),
        ),
        StepKind("analyze-roi", Team.ANALYSIS, (F.ROI,), ("search-market", "search-loan")),
        StepKind("match-policy", Team.ANALYSIS, (F.POLICY,), ("search-loan", "ask-loan-applicant")),
        StepKind("compute-priority-repayment", Team.ANALYSIS, (F.PRIORITY_REPAYMENT,), ("search-legal",)),
        StepKind("compute-brokerage-fee", Team.ANALYSIS, (F.BROKERAGE_FEE,), ("search-legal",)),
        StepKind("compute-acquisition-tax", Team.ANALYSIS, (F.ACQUISITION_TAX,), ()),
        StepKind("draft-lease", Team.DOCUMENT, (F.LEASE_CONTRACT,), ("search-market", "search-legal")),
        StepKind("draft-sale", Team.DOCUMENT, (F.SALES_CONTRACT,)),
        StepKind("review-sale-contract", Team.DOCUMENT, (F.SALES_CONTRACT,)),
        StepKind(
            "prepare-loan-checklist",
            Team.DOCUMENT,
            (F.LOAN_APPLICATION,),
            ("ask-loan-applicant", "simulate-loan", "match-policy", "search-loan"),
        ),
    )
}

_BASE_STEPS = {
    I.LEGAL_CONSULT: ("search-legal",),
    I.MARKET_INQUIRY: ("search-market",),
    I.LOAN_CONSULT: ("search-loan",),
    I.CONTRACT_CREATION: ("draft-lease",),
    I.CONTRACT_REVIEW: ("search-legal", "review-contract"),
    I.RISK_ANALYSIS: ("search-market", "analyze-risk"),
    I.COMPREHENSIVE: ("search-market", "analyze-market"),
}
_SEARCH_OF_TOPIC = {
    Topic.LEGAL: "search-legal",
    Topic.RENT_CHANGE: "search-legal",
    Topic.MARKET: "search-market",
    Topic.LOAN: "search-loan",
    Topic.POLICY: "search-loan",
    Topic.CONTRACT_CHECK: "search-legal",
    Topic.RISK: "search-market",
    Topic.INVEST: "search-market",
}
# The analysis a topic gets when the person asks for work on it (계산, 비교, 평가, 판단 …).
_ANALYSIS_OF_TOPIC = {
    Topic.RENT_CHANGE: "check-rent-increase",
    Topic.LOAN: "simulate-loan",
    Topic.POLICY: "match-policy",
    Topic.INVEST: "analyze-roi",
    Topic.RISK: "analyze-risk",
    Topic.CONTRACT_CHECK: "review-contract",
    Topic.MARKET: "analyze-market",
    Topic.LEGAL: "review-contract",
}
_TOPIC_OF_INTENT = {
    I.LEGAL_CONSULT: Topic.LEGAL,
    I.MARKET_INQUIRY: Topic.MARKET,
    I.LOAN_CONSULT: Topic.LOAN,
    I.CONTRACT_REVIEW: Topic.CONTRACT_CHECK,
    I.RISK_ANALYSIS: Topic.RISK,
    I.COMPREHENSIVE: Topic.MARKET,
}
# Topics whose mere mention asks for their analysis too ("투자 가치는?", "깡통전세 위험", "청년 지원").
_ANALYSED_WHEN_NAMED = {Topic.INVEST: "analyze-roi", Topic.RISK: "analyze-risk", Topic.POLICY: "match-policy"}
# Figures the law defines that a question about them asks for: computed whenever the subject is named.
_LAW_FIGURES = (
    (re.compile(r"최우선|소액\s*임차|소액\s*보증금"), "compute-priority-repayment"),
    (BROKERAGE_FEE_WORDS, "compute-brokerage-fee"),
    # 취득세: the tax law's rates on the price (지방세법 is not among the statutes searched)
    (re.compile(r"취득세"), "compute-acquisition-tax"),
    # 전월세 전환율: the statute's rate at today's 기준금리, and the rent it allows for a deposit given
    (re.compile(r"전환\s*율|전환.{0,12}(?:이자율|이율|비율|금리|상한|제한)"), "check-rent-increase"),
)
_ASKS_FOR_CHECK = re.compile(r"가능|얼마|되나|될까|맞는지|맞나|초과|넘는지|괜찮|한도|상한|최대")
_MARKET_STEPS = {"search-market", "analyze-market"}
_ASKS_STATUTE = re.compile(r"법|조항|조문|시행령|임대차|임차인|임대인|세입자|집주인")
_LIMIT_ASKED = re.compile(r"한도|LTV|DSR|DTI|얼마(?:나|까지)|받을\s*수|나오|가능", re.IGNORECASE)
_NOT_MORTGAGE = re.compile(r"전세\s*(?:자금|대출)|버팀목|신용\s*대출")  # the simulator reckons a 주담대
_CLAUSE_HINTS = re.compile(r"특약|조항|주의|유의|법적|법률")
# A sale (매매) contract rather than a lease: written by draft-sale, a pasted one reviewed by its 특약.
_SALE_CONTRACT = re.compile(r"매매|매도인|매수인|분양권")
_LEASE_CONTRACT = re.compile(r"임대차|전세|월세|임대인|임차인|집주인|세입자")
# 대출 신청 준비: the papers and figures a loan application needs.
_LOAN_APPLICATION = re.compile(
    r"대출\s*(?:신청|서류|준비물)|대출.{0,12}(?:필요한\s*(?:서류|것)|뭐가\s*필요|무엇이\s*필요|준비|체크\s*리스트)"
    r"|주담대.{0,12}체크\s*리스트"
)
_LOAN_APPLICATION_STEPS = (
    "search-loan",
    "ask-loan-applicant",
    "simulate-loan",
    "match-policy",
    "prepare-loan-checklist",
)


@dataclass(frozen=True)
class Plan:
    """A question's intent and the steps that answer it. `context_query` is the question the steps were
    planned from: the query itself, or for a follow-up the earlier question it continues; give it back
    as the next turn's `PriorTurn.query`."""

    intent: Intent
    steps: list[PlanStep]
    strategy: Strategy
    estimated_total_s: float
    context_query: str


def plan_by_rules(query: str, previous: PriorTurn | None = None, today: date | None = None) -> Plan:
    """The plan for a question; with `previous`, a follow-up ("서초구는요?") continues that question.
    `today` is the day it was asked, against which '내일' or '다음 달 말' is read."""
    text = normalize(query)
    named = extract_entities(text, today=today)
    if previous is not None and followup.is_follow_up(text, previous, named):
        entities = followup.merge_entities(followup.previous_entities(previous), named)
        task = _task_asked(find_hits(text))
        intent = _continued_intent(previous.intent, text, entities, task)
        if task:  # a new task on the same subject: its own steps, the question before as context
            step_ids = _step_ids(intent.type, text, entities)
        else:
            step_ids = _step_ids(intent.type, previous.query, entities) + _step_ids(None, text, entities)
        previous_query: str | None = previous.query
        context = previous.query
    else:
        entities = followup.fee_inputs_from_before(text, named, previous)
        intent = classify(text, entities)
        step_ids = _step_ids(intent.type, text, entities)
        previous_query, context = None, text
    asked = query if isinstance(query, str) else ""
    steps = build_steps(_ordered(step_ids, entities), asked, entities, intent, previous_query)
    return assemble(intent, steps, context)


def assemble(intent: Intent, steps: list[PlanStep], context_query: str) -> Plan:
    """A plan with its strategy and estimate computed from the steps."""
    steps = with_sale_prices_for_risk(steps)
    return Plan(intent, steps, strategy_of(steps), estimated_seconds(steps), context_query)


def with_sale_prices_for_risk(steps: list[PlanStep]) -> list[PlanStep]:
    """A 전세 market search that feeds a jeonse-risk or price analysis also fetches 매매 prices: the
    deposit-to-price ratio (전세가율) needs the sale price the person did not ask about."""
    needs_sale = {
        dep
        for s in steps
        if {StepFocus.JEONSE_RISK, StepFocus.MARKET_ANALYSIS} & set(plan_inputs(s.inputs).focus)
        for dep in s.depends_on
    }
    return [_also_sale(s) if s.step_id in needs_sale else s for s in steps]


def _also_sale(step: PlanStep) -> PlanStep:
    """A market search of a lease deal type that also fetches 매매 prices."""
    inputs = plan_inputs(step.inputs)
    if StepFocus.MARKET not in inputs.focus or inputs.entities.deal_type in (None, DealType.SALE):
        return step
    also = inputs.model_copy(update={"also_deal_types": [DealType.SALE]})
    return step.model_copy(update={"inputs": inputs_for_plan(also)})


def _task_asked(hits: list[Hit]) -> IntentType | None:
    """The intent of a task the text asks for by name ("계약서 써줘", "특약 검토해줘"), if it does."""
    return next(
        (h.signal.intent for h in hits if h.signal.weight >= TASK_REQUEST_WEIGHT and h.signal.intent), None
    )


def _continued_intent(
    before: Intent, text: str, entities: QueryEntities, task: IntentType | None = None
) -> Intent:
    """The previous intent, a little less sure, with the follow-up's own words among its keywords; a
    follow-up that asks for a task by name (`task`: "그럼 계약서 써줘") has that task's intent."""
    said = [h.word for h in find_hits(text) if h.signal.weight >= 2]
    said += [v for v in (entities.gu + entities.dong + entities.stations) if v[:-1] in text]
    return Intent(
        type=task or before.type,
        confidence=round(before.confidence * 0.9, 2),
        keywords=list(dict.fromkeys(before.keywords + said))[:10],
        entities=entities.model_dump(mode="json", exclude_defaults=True),
    )


# ---- which steps ---------------------------------------------------------------------------------------


def _step_ids(intent: IntentType | None, text: str, entities: QueryEntities) -> list[str]:
    """The step kinds a question needs: its intent's base steps plus what each clause adds."""
    if intent in GUIDANCE_INTENTS:
        return []
    ids = list(_BASE_STEPS.get(intent, ())) if intent else []
    if intent is I.RISK_ANALYSIS and not _about_jeonse(text, entities):
        ids = ["search-market", "analyze-market"]  # a 매매 price is judged against comparables
    if intent is I.CONTRACT_CREATION and _CLAUSE_HINTS.search(text):
        ids.append("search-legal")
    for clause in split_clauses(text):
        ids += _clause_steps(clause, intent, entities)
    hits = find_hits(text)
    # A change of rent said across clauses ("보증금에서 8천 빼주고 그만큼 월세로 …"): its figure is asked too.
    changes_rent = any(h.signal.topic is Topic.RENT_CHANGE for h in hits) or any(
        a.change == "to" and a.role in ("deposit", "monthly_rent") for a in read_amounts(text)
    )
    if changes_rent and (_has_figures(entities) or _ASKS_FOR_CHECK.search(text)):
        ids.append("check-rent-increase")
    if _needs_loan_figures(hits, text, entities):
        ids.append("simulate-loan")
    if _prices_given(entities):  # their ratio (전세가율) is asked for
        ids.append("analyze-risk")
    law_figures = [step for words, step in _LAW_FIGURES if words.search(text)]
    if law_figures and intent is I.LEGAL_CONSULT:  # the law's figure is the answer, not the market's
        ids = [step for step in ids if step not in _MARKET_STEPS]
    if law_figures and not any(h.signal.topic is Topic.CONTRACT_CHECK for h in hits):
        # "복비 계산해줘": the calculation asked is the law's figure, not a review of a contract never given
        ids = [step for step in ids if step != "review-contract"]
    if law_figures == ["compute-acquisition-tax"] and not _ASKS_STATUTE.search(text):
        ids = [step for step in ids if step != "search-legal"]  # its law is not among the statutes
    if intent is not I.MARKET_INQUIRY and not listings_serve(entities):
        # "서울 빌라 … 최우선변제 얼마 받아요?": the snapshot lists no 빌라, so a market step would only
        # find nothing, and an analysis that reads the market has nothing to read.
        ids = [step for step in ids if not _reads_market(step, entities)] or ["search-legal"]
    if intent in (I.LEGAL_CONSULT, I.RISK_ANALYSIS) and not (_has_figures(entities) or _placed(entities)):
        # A risk word inside a legal question ("근저당 얘기를 안 하고 계약시켰어요"), or a risk asked about
        # in general ("전세사기 안 당하려면 뭘 확인해요?"), is what the law answers, not a property to judge:
        # with no place and no figure a market step has nothing, and the statutes say what to check.
        ids = [step for step in ids if step not in (*_MARKET_STEPS, "analyze-risk")] or ["search-legal"]
    return _documents_asked(ids + law_figures, text, intent)


def _documents_asked(ids: list[str], text: str, intent: IntentType | None) -> list[str]:
    """The lease's steps become the sale contract's when the contract is a 매매; a loan application asked
    for brings its checklist, with the applicant's facts asked first and the analyses it reads."""
    if _SALE_CONTRACT.search(text) and not _LEASE_CONTRACT.search(text):
        ids = ["draft-sale" if step == "draft-lease" else step for step in ids]
        ids = ["review-sale-contract" if step == "review-contract" else step for step in ids]
        if intent in (I.CONTRACT_CREATION, I.CONTRACT_REVIEW):
            # The legal search reads the lease law; the sale's document cites its own rule book's articles.
            ids = [step for step in ids if step != "search-legal"]
    if _LOAN_APPLICATION.search(text) and intent is I.LOAN_CONSULT:
        # A 전세 loan is set by its programme and guarantor, not by the 주담대 simulator's LTV and DSR.
        jeonse = _NOT_MORTGAGE.search(text)
        ids += [step for step in _LOAN_APPLICATION_STEPS if not (jeonse and step == "simulate-loan")]
    return ids


def _clause_steps(clause: str, intent: IntentType | None, entities: QueryEntities) -> list[str]:
    named = clause_topics(clause, entities)
    asks_analysis = Topic.ANALYSIS_ASK in named
    ids = [_SEARCH_OF_TOPIC[t] for t in named if t in _SEARCH_OF_TOPIC]
    ids += [step for t, step in _ANALYSED_WHEN_NAMED.items() if t in named]
    if Topic.CONTRACT_WRITE in named:
        ids.append("draft-lease")
    if Topic.CONTRACT_CHECK in named:
        ids.append("review-contract")
    if Topic.RENT_CHANGE in named and (
        asks_analysis or _has_figures(entities) or _ASKS_FOR_CHECK.search(clause)
    ):
        ids.append("check-rent-increase")
    if asks_analysis:
        ids.append(_analysis_for(named, intent))
    if Topic.RENT_CHANGE in named and CONVERSION.search(clause) and not _LOAN_NAMED.search(clause):
        # "월세 전환 시 이자율 제한": the rate of a conversion is the statute's, not a loan's
        ids = [step for step in ids if step != "search-loan"]
    if intent is I.CONTRACT_REVIEW:  # risks of a contract are its clauses: the review covers them
        ids = ["review-contract" if step == "analyze-risk" else step for step in ids]
        ids = [step for step in ids if step != "search-market" or Topic.MARKET in named]
    if "analyze-risk" in ids and not _about_jeonse(clause, entities):
        ids = ["analyze-market" if step == "analyze-risk" else step for step in ids]
    return ids


def _analysis_for(named: set[Topic], intent: IntentType | None) -> str:
    """The analysis a clause asks for: from its own topics, most specific first, else the intent's."""
    for topic in _ANALYSIS_OF_TOPIC:
        if topic in named:
            return _ANALYSIS_OF_TOPIC[topic]
    intent_topic = _TOPIC_OF_INTENT.get(intent) if intent else None
    return _ANALYSIS_OF_TOPIC.get(intent_topic, "analyze-market") if intent_topic else "analyze-market"


def _about_jeonse(text: str, entities: QueryEntities) -> bool:
    return entities.deal_type == "jeonse" or bool(re.search(r"전세|깡통|보증금|사기|세입자|임차", text))


def _reads_market(step_id: str, entities: QueryEntities) -> bool:
    """A market step, or an analysis that cannot do without one (the person gave no prices of theirs)."""
    kind = STEP_KINDS[step_id]
    needs_market = kind.team is Team.ANALYSIS and kind.reads[:1] == ("search-market",)
    return step_id in _MARKET_STEPS or (needs_market and not _prices_given(entities))


def _placed(entities: QueryEntities) -> bool:
    """A place or a complex named: a property to judge, not only a rule to cite."""
    return bool(entities.gu or entities.dong or entities.stations or entities.complexes)


def _has_figures(entities: QueryEntities) -> bool:
    return bool(entities.amounts_manwon or entities.percent is not None)


def _needs_loan_figures(hits: list[Hit], text: str, entities: QueryEntities) -> bool:
    """A loan question with the person's own figures (income, price) can be simulated, and so can one
    about the limit itself: the simulator says what sets it and what the rules allow this buyer."""
    loan = any(h.signal.topic is Topic.LOAN and h.signal.weight >= 3 for h in hits)
    about_mortgage = _LIMIT_ASKED.search(text) and not _NOT_MORTGAGE.search(text)
    return loan and (bool(entities.amounts_manwon) or bool(about_mortgage))


def _prices_given(entities: QueryEntities) -> bool:
    """The home's price and the deposit on it, both given by the person."""
    return bool(entities.sale_price_manwon and entities.deposit_manwon)


def _places(entities: QueryEntities) -> list[str]:
    return entities.gu + entities.dong + entities.stations


def _ordered(step_ids: list[str], entities: QueryEntities) -> list[StepKind]:
    """Unique kinds with the searches each one requires, searches first (the catalogue's order). With the
    prices given and no place named, a default district's market has nothing to add to the person's own
    figures: the analyses read theirs; nor does a market the snapshot does not list, unless it is asked."""
    wanted = set(step_ids)
    for step_id in list(wanted):
        reads = STEP_KINDS[step_id].reads
        if reads and STEP_KINDS[step_id].team is Team.ANALYSIS:
            wanted.add(reads[0])
    unserved = not listings_serve(entities) and "search-market" not in step_ids
    if unserved or (_prices_given(entities) and not _places(entities)):
        wanted -= _MARKET_STEPS
    return [kind for step_id, kind in STEP_KINDS.items() if step_id in wanted]


# ---- tasks: what each step does, in the question's own terms ----------------------------------------

_LOAN_NAMED = re.compile(r"대출|주담대|디딤돌|보금자리|버팀목|LTV|DTI|DSR", re.IGNORECASE)
_PROPERTY_LABEL = {
    PropertyType.APARTMENT: "아파트",
    PropertyType.OFFICETEL: "오피스텔",
    PropertyType.VILLA: "빌라",
    PropertyType.ONEROOM: "원룸",
    PropertyType.HOUSE: "단독·다가구 주택",
    PropertyType.COMMERCIAL: "상가",
}
_DEAL_LABEL = {"sale": "매매", "jeonse": "전세", "monthly": "월세", "short_term": "단기임대"}
# (words, law, provision): the statutes and provisions a legal search looks for; a row without a
# provision names the law only, and the question's own legal words say what to look for in it.
_LEGAL_TOPICS = (
    (r"인상|증액|올[려리린릴]|5\s*%", "주택임대차보호법", "차임·보증금 증액 제한(5%)"),
    (r"감액|(?<!확)인하|깎|내려", "주택임대차보호법", "차임·보증금 감액 청구"),
    (CONVERSION.pattern, "주택임대차보호법", "전월세 전환율"),
    (r"갱신|계약\s*연장|묵시적", "주택임대차보호법", "계약갱신요구권·묵시적 갱신"),
    (r"대항력|전입|확정\s*일자|우선\s*변제|최우선", "주택임대차보호법", "대항력·우선변제권"),
    (
        r"(?:보증금|전세금).{0,6}(?:반환|돌려|못\s*받)|반환\s*보증|보증\s*보험|임차권\s*등기",
        "주택임대차보호법",
        "보증금 반환·임차권등기명령",
    ),
    (r"사기|깡통|피해|구제", "주택임대차보호법", "임차보증금 보호·피해 구제"),
    (r"해지|해제|위약금|계약금", "주택임대차보호법", "계약 해지·계약금"),
    (r"수선|원상\s*복구", "주택임대차보호법", "수선 의무·원상복구"),
    (BROKERAGE_FEE_WORDS.pattern, "공인중개사법", "중개보수"),
    (r"거래\s*신고|신고\s*의무", "부동산 거래신고법", "거래 신고 의무"),
    (r"청약|분양", "주택법", "주택 공급·청약"),  # 분양 is the 주택법's 공급 in everyday words
    # A law's own subject names the law and nothing of the question's topic: "공인중개사가 되려면 어떤 자격"
    # is about 자격, and a provision guessed from "중개사" would pull the search to 중개보수.
    (r"중개사", "공인중개사법", None),
    (r"임대\s*사업자|민간\s*임대", "민간임대주택법", None),
    (r"특약|주의|유의|확인할|필수", "주택임대차보호법", "임대차 계약 시 주의사항"),
)
_LOAN_PRODUCTS = (
    (r"전세\s*자금|전세\s*대출|버팀목", "전세자금대출"),
    (r"디딤돌", "디딤돌대출"),
    (r"보금자리", "보금자리론"),
    (r"주택\s*담보|주담대|모기지", "주택담보대출"),
    (r"신용\s*대출", "신용대출"),
)
_LOAN_ASPECTS = (
    (r"한도|얼마|가능\s*(?:한\s*)?금액", "한도"),
    (r"금리|이자", "금리"),
    (r"LTV|DTI|DSR", None),  # named as written
    (r"상환|원리금", "상환 조건"),
    (r"자격|조건|대상", "자격 요건"),
)
_POLICY_GROUPS = r"청년|신혼부부|신혼|생애\s*최초|다자녀|무주택|고령자|대학생"


def task_for(step_id: str, query: str, entities: QueryEntities, intent: Intent, planned: set[str]) -> str:
    """The step's task in Korean, specific to the question ("강남구 아파트 전세 시세·매물 조회")."""
    scope = _scope(entities)
    tasks = {
        "search-legal": lambda: _legal_task(query, intent.type),
        "search-market": lambda: _join(scope, _price_text(entities), "시세·매물 조회"),
        "search-loan": lambda: _loan_task(query),
        "analyze-market": lambda: _join(scope, "가격 적정성·시장 흐름 분석"),
        "analyze-risk": lambda: _join(
            _scope(entities, with_deal=False), "전세 보증금 위험도(전세가율·권리관계) 분석"
        ),
        "check-rent-increase": lambda: _rent_change_task(query, entities),
        "review-contract": lambda: _review_task(query),
        "simulate-loan": lambda: _loan_simulation_task(entities, scope if "search-market" in planned else ""),
        "analyze-roi": lambda: _join(scope, "투자 수익성·가치 평가"),
        "match-policy": lambda: _join(_words_in(_POLICY_GROUPS, query, "·"), "대상 주거 지원 정책 매칭"),
        "compute-priority-repayment": lambda: "지역·보증금 기준 최우선변제(소액임차인) 대상 여부와 금액 계산",
        "compute-brokerage-fee": lambda: "중개보수 상한(거래금액 × 상한요율, 한도액) 계산",
        "compute-acquisition-tax": lambda: "매매가·취득 후 주택 수·지역 기준 취득세와 지방교육세 계산",
        "draft-lease": lambda: _lease_task(entities, "search-market" in planned),
        "draft-sale": lambda: _join(scope, "부동산매매계약서 초안 작성(빈 항목은 사용자에게 확인)"),
        "review-sale-contract": lambda: "매매계약서 특약 검토(매수인 보호 특약·거래 신고 의무)",
        "ask-loan-applicant": lambda: "대출 신청에 필요한 소득·주택 가격·보유 주택 수 확인",
        "prepare-loan-checklist": lambda: "대출 신청 준비 체크리스트(서류·한도·금리) 작성",
    }
    return tasks[step_id]()


def _join(*parts: str | None) -> str:
    return " ".join(p for p in parts if p)


def _scope(entities: QueryEntities, with_deal: bool = True) -> str:
    """Where and what: "강남구 역삼동 30평대 아파트 전세"."""
    if entities.stations:
        where = "·".join(entities.stations) + " 인근"
    else:
        where = " ".join(["·".join(entities.gu), "·".join(entities.dong)]).strip()
    kinds = "·".join(_PROPERTY_LABEL[p] for p in entities.property_types)
    deal = _DEAL_LABEL.get(entities.deal_type or "", "") if with_deal else ""
    return _join(where, entities.size_text, kinds, deal)


def _price_text(entities: QueryEntities) -> str:
    return asked_bounds_text(entities)  # names 보증금 and 월세 apart: never "월세 1,000만원 이하"


def _words_in(pattern: str, text: str, sep: str) -> str:
    return sep.join(dict.fromkeys(re.findall(pattern, text, re.IGNORECASE)))


def _legal_task(query: str, intent: IntentType) -> str:
    found = [(law, what) for pattern, law, what in _LEGAL_TOPICS if re.search(pattern, query)]
    laws = "·".join(dict.fromkeys(law for law, _ in found))
    provisions = [what for _, what in found if what]
    if provisions:
        return f"{laws} {'·'.join(provisions[:3])} 조항 검색"
    if intent is I.CONTRACT_REVIEW:
        return "임대차 계약서 검토 기준이 되는 주택임대차보호법 조항 검색"
    if intent is I.CONTRACT_CREATION:
        return "임대차 계약서 필수 기재사항·특약 관련 조항 검색"
    # The question's own legal words only: the law its words point at is the index's to find, and a
    # topic that is not the question's would pull the search toward the wrong articles.
    said = [
        h.word
        for h in find_hits(query)
        if h.signal.topic is Topic.LEGAL and h.signal.weight >= 2 and not is_evidence(h)
    ]
    words = "·".join(dict.fromkeys(said))
    if laws:
        return f"{laws} {words} 관련 조항 검색" if words else f"{laws} 조항 검색"
    return f"{words} 관련 법령 조항 검색".strip()


def _loan_task(query: str) -> str:
    product = next((name for pattern, name in _LOAN_PRODUCTS if re.search(pattern, query)), "주택 관련 대출")
    aspects = [
        name or found[0].upper()
        for pattern, name in _LOAN_ASPECTS
        if (found := re.search(pattern, query, re.IGNORECASE))
    ]
    return f"{product} {'·'.join(aspects) or '상품·조건'} 조회"


def _rent_change_task(query: str, entities: QueryEntities) -> str:
    amounts = entities.amounts_manwon
    if CONVERSION.search(query):
        return "전월세 전환율에 따른 보증금·월세 환산 계산"
    changes = [
        (now, asked)
        for now, asked in (
            (entities.deposit_manwon, entities.requested_deposit_manwon),
            (entities.monthly_rent_manwon, entities.requested_monthly_rent_manwon),
        )
        if now is not None and asked is not None
    ] or ([(amounts[0], amounts[1])] if len(amounts) >= 2 else [])
    if changes:
        before, after = changes[0]
        return f"{format_manwon(before)} → {format_manwon(after)} 증액이 5% 상한을 넘는지 계산"
    if entities.percent is not None:
        return f"{entities.percent:g}% 인상이 법정 상한(5%) 안인지 확인"
    return "보증금·차임 증액 가능 범위(5% 상한) 계산"


def _review_task(query: str) -> str:
    if re.search(r"계약서|특약|조항", query):
        return "임대차 계약서 조항·특약의 위험 요소 검토"
    return "질문한 임대차 상황에 관련 법 조항을 적용해 판단"


def _loan_simulation_task(entities: QueryEntities, market_scope: str) -> str:
    basis = _price_text(entities) or (f"{market_scope} 시세" if market_scope else "")
    if basis:
        return f"{basis} 기준 대출 가능 금액·월 상환액 계산"
    return "대출 한도·금리 조건 비교 계산"


def _lease_task(entities: QueryEntities, after_search: bool) -> str:
    deal = _DEAL_LABEL.get(entities.deal_type or "", "")
    basis = "조회한 매물 기준" if after_search else ""
    return _join(basis, deal, "주택임대차 표준계약서 초안 작성(빈 항목은 사용자에게 확인)")


# ---- steps, strategy, estimate -------------------------------------------------------------------------


def build_steps(
    kinds: list[StepKind],
    query: str,
    entities: QueryEntities,
    intent: Intent,
    previous_query: str | None = None,
) -> list[PlanStep]:
    """Steps of the given kinds; `query` goes into the inputs as the person wrote it."""
    planned = {kind.step_id for kind in kinds}
    text = normalize(query)
    return [
        make_step(
            kind.step_id,
            kind.team,
            task_for(kind.step_id, text, entities, intent, planned),
            kind.focus,
            [r for r in kind.reads if r in planned],
            query,
            entities,
            previous_query,
        )
        for kind in kinds
    ]


def make_step(
    step_id: str,
    team: Team,
    task: str,
    focus: Iterable[StepFocus],
    depends_on: list[str],
    query: str,
    entities: QueryEntities,
    previous_query: str | None = None,
) -> PlanStep:
    """A step with the house's inputs: the query, its focus list and the entities, and for a follow-up
    the question it continues."""
    inputs = StepInputs(query=query, focus=list(focus), entities=entities, previous_query=previous_query)
    return PlanStep(
        step_id=step_id,
        team=team,
        task=task[:200],
        inputs=inputs_for_plan(inputs),
        depends_on=depends_on,
        timeout_s=TEAM_TIMEOUT_S[team],
    )


def strategy_of(steps: list[PlanStep]) -> Strategy:
    """sequential for none, one, or a single chain; parallel when no step waits for another; else dag."""
    edges = sum(len(s.depends_on) for s in steps)
    if len(steps) <= 1:
        return "sequential"
    if edges == 0:
        return "parallel"
    dependents: dict[str, int] = {}
    for step in steps:
        for dep in step.depends_on:
            dependents[dep] = dependents.get(dep, 0) + 1
    single_chain = (
        edges == len(steps) - 1
        and all(len(s.depends_on) <= 1 for s in steps)
        and all(n <= 1 for n in dependents.values())
    )
    return "sequential" if single_chain else "dag"


def estimated_seconds(steps: list[PlanStep]) -> float:
    """The critical path: each step's team figure plus the longest of its dependencies."""
    finish: dict[str, float] = {}
    for step in steps:  # valid plans list every dependency first
        before = max((finish.get(dep, 0.0) for dep in step.depends_on), default=0.0)
        finish[step.step_id] = before + TEAM_SECONDS[step.team]
    return max(finish.values(), default=0.0)


def validate_steps(steps: list[PlanStep]) -> list[str]:
    """What is wrong with a list of steps: repeated ids, a focus its team does not do, a dependency on
    itself, on an unknown step or on a later one (steps are run-ordered), a cycle. Empty when valid."""
    errors: list[str] = []
    seen: set[str] = set()
    known = {s.step_id for s in steps}
    for step in steps:
        if step.step_id in seen:
            errors.append(f"step id {step.step_id!r} is used twice")
        errors += _focus_errors(step)
        for dep in step.depends_on:
            if dep == step.step_id:
                errors.append(f"{step.step_id!r} depends on itself")
            elif dep not in known:
                errors.append(f"{step.step_id!r} depends on unknown step {dep!r}")
            elif dep not in seen:
                errors.append(f"{step.step_id!r} depends on {dep!r}, which comes after it")
        seen.add(step.step_id)
    cycle = find_cycle(steps)
    if cycle:
        errors.append("dependency cycle: " + " -> ".join(cycle))
    return errors


def _focus_errors(step: PlanStep) -> list[str]:
    return [
        f"{step.step_id!r}: team {step.team.value} does not do focus {f.value!r}"
        for f in plan_inputs(step.inputs).focus
        if f not in TEAM_FOCUS[step.team]
    ]


def find_cycle(steps: list[PlanStep]) -> list[str]:
    """One dependency cycle as ids, the first repeated at the end ([] when there is none)."""
    graph = {s.step_id: [d for d in s.depends_on] for s in steps}
    done: set[str] = set()

    def walk(path: list[str]) -> list[str]:
        for dep in graph.get(path[-1], []):
            if dep in path:
                return path[path.index(dep) :] + [dep]
            if dep in graph and dep not in done:
                found = walk(path + [dep])
                if found:
                    return found
        done.add(path[-1])
        return []

    for node in graph:
        found = [] if node in done else walk([node])
        if found:
            return found
    return []
