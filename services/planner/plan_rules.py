"""Plans by rules: which teams answer a question, in which order, with which task each.

A plan is built from the step kinds of the catalogue (steps.py): each kind is one team with one focus
and names the searches whose results it reads. The intent brings its base steps, every topic the
question touches adds its own (a market question that also asks "대출 가능 금액 계산해줘" gains the loan
search and the loan simulation), and each analysis or document step depends on the searches it reads
that are in the plan.
The strategy follows from those dependencies; the estimate is the critical path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from contracts.entities import DealType, QueryEntities
from contracts.steps import inputs_for_plan, plan_inputs
from contracts.values import Intent, IntentType, PlanStep, StepFocus, Strategy, Team
from services.housing.amounts import CONVERSION
from services.housing.coverage import listings_serve
from services.housing.entities import extract_entities
from services.housing.intent_catalogue import (
    ANALYSIS_OF_TOPIC,
    GUIDANCE_INTENTS,
    INTENTS,
    SEARCH_OF_TOPIC,
    STEP_WHEN_NAMED,
    StepId,
    Topic,
)
from services.housing.text import normalize
from services.housing.vocabulary import (
    ACQUISITION_TAX_WORDS,
    BROKERAGE_FEE_WORDS,
    CONVERSION_RATE_WORDS,
    LOAN_LIMIT_ASKED,
    LOAN_NAMED_WORDS,
    OUTLAY_ASKED,
    PRIORITY_REPAYMENT_WORDS,
    speaks_only_of_a_sale,
)
from services.planner import followup
from services.planner.followup import PriorTurn
from services.planner.intents import (
    TASK_REQUEST_WEIGHT,
    Evidence,
    Hit,
    classify,
    clause_topics,
    find_hits,
    split_clauses,
)
from services.planner.steps import (
    MARKET_STEPS,
    STEP_KINDS,
    StepKind,
    estimated_seconds,
    make_step,
    strategy_of,
)
from services.planner.tasks import task_for

I = IntentType  # noqa: E741
S = StepId

# Figures the law defines that a question about them asks for: computed whenever the subject is named.
_LAW_FIGURES = (
    (PRIORITY_REPAYMENT_WORDS, S.COMPUTE_PRIORITY_REPAYMENT),
    (BROKERAGE_FEE_WORDS, S.COMPUTE_BROKERAGE_FEE),
    # 취득세: the tax law's rates on the price (지방세법 is not among the statutes searched)
    (ACQUISITION_TAX_WORDS, S.COMPUTE_ACQUISITION_TAX),
    # 전월세 전환율: the statute's rate at today's 기준금리, and the rent it allows for a deposit given
    (re.compile(CONVERSION_RATE_WORDS), S.CHECK_RENT_INCREASE),
)
_ASKS_FOR_CHECK = re.compile(r"가능|얼마|되나|될까|맞는지|맞나|초과|넘는지|괜찮|한도|상한|최대")
_ASKS_STATUTE = re.compile(r"법|조항|조문|시행령|임대차|임차인|임대인|세입자|집주인")
_NOT_MORTGAGE = re.compile(r"전세\s*(?:자금|대출)|버팀목|신용\s*대출")  # the simulator reckons a 주담대
_CLAUSE_HINTS = re.compile(r"특약|조항|주의|유의|법적|법률")
_LOAN_NAMED = re.compile(LOAN_NAMED_WORDS, re.IGNORECASE)
# 대출 신청 준비: the papers and figures a loan application needs.
_LOAN_APPLICATION = re.compile(
    r"대출\s*(?:신청|서류|준비물)|대출.{0,12}(?:필요한\s*(?:서류|것)|뭐가\s*필요|무엇이\s*필요|준비|체크\s*리스트)"
    r"|주담대.{0,12}체크\s*리스트"
)
_LOAN_APPLICATION_STEPS = (
    S.SEARCH_LOAN,
    S.ASK_LOAN_APPLICANT,
    S.SIMULATE_LOAN,
    S.MATCH_POLICY,
    S.PREPARE_LOAN_CHECKLIST,
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


def plan_by_rules(
    query: str,
    previous: PriorTurn | None = None,
    today: date | None = None,
    evidence: Evidence | None = None,
    reading: QueryEntities | None = None,
) -> Plan:
    """The plan for a question; with `previous`, a follow-up ("서초구는요?") continues that question.
    `today` is the day it was asked, against which '내일' or '다음 달 말' is read; `evidence` decides the
    intent of a new question the words leave unsure of (intents.classify); `reading` is the turn's, when
    the caller has read it already (planning.py reads a turn once)."""
    text = normalize(query)
    named = reading if reading is not None else extract_entities(text, today=today)
    if previous is not None and continues(text, named, previous):
        demanded = followup.demand_from_before(text, named, previous)
        entities = followup.merge_entities(previous.intent.entities, demanded)
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
        entities = followup.demand_from_before(text, entities, previous)
        entities = followup.correction_from_before(text, entities, previous)
        intent = classify(text, entities, evidence)
        step_ids = _step_ids(intent.type, text, entities)
        previous_query, context = None, text
    asked = query if isinstance(query, str) else ""
    steps = build_steps(_ordered(step_ids, entities), asked, entities, intent, previous_query)
    return assemble(intent, steps, context)


def continues(text: str, named: QueryEntities, previous: PriorTurn) -> bool:
    """Whether the turn continues the previous question: a follow-up ("서초구는요?"), or facts told that
    its answer reckons with ("집은 없어요" after a loan's limit)."""
    return followup.is_follow_up(text, previous, named) or followup.answers_before(
        text, named, previous, _facts_needed(previous)
    )


def _facts_needed(previous: PriorTurn) -> set[str]:
    """The person's facts the previous question's steps reckon with."""
    steps = _step_ids(previous.intent.type, previous.query, previous.intent.entities)
    return {fact for step in steps for fact in STEP_KINDS[step].facts}


def assemble(intent: Intent, steps: list[PlanStep], context_query: str) -> Plan:
    """A plan with its strategy and estimate computed from the steps."""
    steps = with_lease_law_for_leases(with_sale_prices_for_risk(steps))
    return Plan(intent, steps, strategy_of(steps), estimated_seconds(steps), context_query)


def with_sale_prices_for_risk(steps: list[PlanStep]) -> list[PlanStep]:
    """A 전세 market search that feeds a jeonse-risk or price analysis also fetches 매매 prices: the
    deposit-to-price ratio (전세가율) needs the sale price the person did not ask about. A search that
    feeds a judgement of a price fetches a sample large enough to place it in."""
    feeds = {
        dep: set(plan_inputs(s.inputs).focus) & {StepFocus.JEONSE_RISK, StepFocus.MARKET_ANALYSIS}
        for s in steps
        for dep in s.depends_on
    }
    return [_fed(s, feeds[s.step_id]) if feeds.get(s.step_id) else s for s in steps]


# The statutes a lease being written rests on: its legal search reads these, not every law that uses the
# word 임대차 (민간임대주택법's registered landlords are another contract).
LEASE_LAWS = ["주택임대차보호법", "주택임대차보호법 시행령"]


def with_lease_law_for_leases(steps: list[PlanStep]) -> list[PlanStep]:
    """The legal search a lease contract being written reads from searches the lease law alone."""
    feeds_a_lease = {dep for s in steps if s.step_id == S.DRAFT_LEASE for dep in s.depends_on}
    return [_lease_law(s) if s.step_id == S.SEARCH_LEGAL and s.step_id in feeds_a_lease else s for s in steps]


def _lease_law(step: PlanStep) -> PlanStep:
    inputs = plan_inputs(step.inputs)
    search = inputs.search.model_copy(update={"laws": LEASE_LAWS})
    return step.model_copy(update={"inputs": inputs_for_plan(inputs.model_copy(update={"search": search}))})


# Listings a judgement of a price is placed among (the search team caps a page at its own maximum).
JUDGEMENT_SAMPLE = 100


def _fed(step: PlanStep, analyses: set[StepFocus]) -> PlanStep:
    """A market search of a lease deal type that also fetches 매매 prices, and a sample for a judgement."""
    inputs = plan_inputs(step.inputs)
    if StepFocus.MARKET not in inputs.focus:
        return step
    update: dict[str, object] = {}
    deal = inputs.entities.deal_type
    if StepFocus.JEONSE_RISK in analyses and deal not in (None, DealType.SALE) or deal is DealType.JEONSE:
        update["also_deal_types"] = [DealType.SALE]
    if StepFocus.MARKET_ANALYSIS in analyses:
        update["search"] = inputs.search.model_copy(update={"limit": JUDGEMENT_SAMPLE})
    if not update:
        return step
    return step.model_copy(update={"inputs": inputs_for_plan(inputs.model_copy(update=update))})


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
        entities=entities,
    )


# ---- which steps ---------------------------------------------------------------------------------------


def _step_ids(intent: IntentType | None, text: str, entities: QueryEntities) -> list[StepId]:
    """The step kinds a question needs: its intent's base steps plus what each clause adds."""
    if intent in GUIDANCE_INTENTS:
        return []
    if _outlay_asked(text, entities) and len(split_clauses(text)) == 1:
        # "월세 60에 관리비 15면 1년이면 얼마": the person's own outgoings added up, which no search serves
        return [S.COMPUTE_HOUSING_COST]
    ids = list(INTENTS[intent].base_steps) if intent else []
    if intent is I.RISK_ANALYSIS and not _about_jeonse(text, entities):
        ids = [S.SEARCH_MARKET, S.ANALYZE_MARKET]  # a 매매 price is judged against comparables
    if intent is I.CONTRACT_CREATION and _CLAUSE_HINTS.search(text):
        ids.append(S.SEARCH_LEGAL)
    for clause in split_clauses(text):
        ids += _clause_steps(clause, intent, entities)
    hits = find_hits(text)
    # A change of rent said across clauses ("보증금에서 8천 빼주고 그만큼 월세로 …"): its figure is asked too.
    changes_rent = any(h.signal.topic is Topic.RENT_CHANGE for h in hits)
    if changes_rent and (_has_figures(entities) or _ASKS_FOR_CHECK.search(text)):
        ids.append(S.CHECK_RENT_INCREASE)
    if _needs_loan_figures(hits, text, entities):
        ids.append(S.SIMULATE_LOAN)
    if _prices_given(entities):  # their ratio (전세가율) is asked for
        ids.append(S.ANALYZE_RISK)
    law_figures = [step for words, step in _LAW_FIGURES if words.search(text)]
    if law_figures and intent is I.LEGAL_CONSULT:  # the law's figure is the answer, not the market's
        ids = [step for step in ids if not _reads_market(step, entities)]
    if law_figures and not any(h.signal.topic is Topic.CONTRACT_CHECK for h in hits):
        # "복비 계산해줘": the calculation asked is the law's figure, not a review of a contract never given
        ids = [step for step in ids if step != S.REVIEW_CONTRACT]
    if law_figures == [S.COMPUTE_ACQUISITION_TAX] and not _ASKS_STATUTE.search(text):
        ids = [step for step in ids if step != S.SEARCH_LEGAL]  # its law is not among the statutes
    if intent is not I.MARKET_INQUIRY and not listings_serve(entities):
        # "서울 빌라 … 최우선변제 얼마 받아요?": the snapshot lists no 빌라, so a market step would only
        # find nothing, and an analysis that reads the market has nothing to read.
        ids = [step for step in ids if not _reads_market(step, entities)] or [S.SEARCH_LEGAL]
    if intent in (I.LEGAL_CONSULT, I.RISK_ANALYSIS) and not (_has_figures(entities) or _placed(entities)):
        # A risk word inside a legal question ("근저당 얘기를 안 하고 계약시켰어요"), or a risk asked about
        # in general ("전세사기 안 당하려면 뭘 확인해요?"), is what the law answers, not a property to judge:
        # with no place and no figure a market step has nothing, and the statutes say what to check.
        ids = [step for step in ids if step not in (*MARKET_STEPS, S.ANALYZE_RISK)] or [S.SEARCH_LEGAL]
    return _documents_asked(ids + law_figures, text, intent)


def _documents_asked(ids: list[StepId], text: str, intent: IntentType | None) -> list[StepId]:
    """The lease's steps become the sale contract's when the contract is a 매매; a loan application asked
    for brings its checklist, with the applicant's facts asked first and the analyses it reads."""
    if speaks_only_of_a_sale(text):  # written by draft-sale, a pasted one reviewed by its 특약
        ids = [S.DRAFT_SALE if step == S.DRAFT_LEASE else step for step in ids]
        ids = [S.REVIEW_SALE_CONTRACT if step == S.REVIEW_CONTRACT else step for step in ids]
        if intent in (I.CONTRACT_CREATION, I.CONTRACT_REVIEW):
            # The legal search reads the lease law; the sale's document cites its own rule book's articles.
            ids = [step for step in ids if step != S.SEARCH_LEGAL]
    if _LOAN_APPLICATION.search(text) and intent is I.LOAN_CONSULT:
        # A 전세 loan is set by its programme and guarantor, not by the 주담대 simulator's LTV and DSR.
        jeonse = _NOT_MORTGAGE.search(text)
        ids += [step for step in _LOAN_APPLICATION_STEPS if not (jeonse and step == S.SIMULATE_LOAN)]
    return ids


def _clause_steps(clause: str, intent: IntentType | None, entities: QueryEntities) -> list[StepId]:
    named = clause_topics(clause, entities)
    asks_analysis = Topic.ANALYSIS_ASK in named
    ids = [SEARCH_OF_TOPIC[t] for t in named if t in SEARCH_OF_TOPIC]
    ids += [step for t, step in STEP_WHEN_NAMED.items() if t in named]
    if Topic.RENT_CHANGE in named and (
        asks_analysis or _has_figures(entities) or _ASKS_FOR_CHECK.search(clause)
    ):
        ids.append(S.CHECK_RENT_INCREASE)
    if asks_analysis:
        ids.append(_analysis_for(named, intent))
    if Topic.RENT_CHANGE in named and CONVERSION.search(clause) and not _LOAN_NAMED.search(clause):
        # "월세 전환 시 이자율 제한": the rate of a conversion is the statute's, not a loan's
        ids = [step for step in ids if step != S.SEARCH_LOAN]
    if intent is I.CONTRACT_REVIEW:  # risks of a contract are its clauses: the review covers them
        ids = [S.REVIEW_CONTRACT if step == S.ANALYZE_RISK else step for step in ids]
        ids = [step for step in ids if step != S.SEARCH_MARKET or Topic.MARKET in named]
    if S.ANALYZE_RISK in ids and not _about_jeonse(clause, entities):
        ids = [S.ANALYZE_MARKET if step == S.ANALYZE_RISK else step for step in ids]
    return ids


def _analysis_for(named: set[Topic], intent: IntentType | None) -> StepId:
    """The analysis a clause asks for: from its own topics, most specific first, else the intent's."""
    for topic in ANALYSIS_OF_TOPIC:
        if topic in named:
            return ANALYSIS_OF_TOPIC[topic]
    intent_topic = INTENTS[intent].analysis_topic if intent else None
    return ANALYSIS_OF_TOPIC.get(intent_topic, S.ANALYZE_MARKET) if intent_topic else S.ANALYZE_MARKET


def _about_jeonse(text: str, entities: QueryEntities) -> bool:
    return entities.deal_type == "jeonse" or bool(re.search(r"전세|깡통|보증금|사기|세입자|임차", text))


def _reads_market(step_id: StepId, entities: QueryEntities) -> bool:
    """A market step, or an analysis that cannot do without one (the person gave no prices of theirs)."""
    kind = STEP_KINDS[step_id]
    needs_market = kind.team is Team.ANALYSIS and kind.reads[:1] == (S.SEARCH_MARKET,)
    return step_id in MARKET_STEPS or (needs_market and not _prices_given(entities))


def _placed(entities: QueryEntities) -> bool:
    """A place or a complex named: a property to judge, not only a rule to cite."""
    return bool(entities.gu or entities.dong or entities.stations or entities.complexes)


def _has_figures(entities: QueryEntities) -> bool:
    return bool(entities.amounts_manwon or entities.percent is not None)


def _needs_loan_figures(hits: list[Hit], text: str, entities: QueryEntities) -> bool:
    """A loan question with the person's own figures (income, price) can be simulated, and so can one
    about the limit itself: the simulator says what sets it and what the rules allow this buyer."""
    loan = any(h.signal.topic is Topic.LOAN and h.signal.weight >= 3 for h in hits)
    if not loan or _NOT_MORTGAGE.search(text):  # a 전세 loan's limit is its programme's (the loan search)
        return False
    return bool(entities.amounts_manwon) or bool(LOAN_LIMIT_ASKED.search(text))


def _outlay_asked(text: str, entities: QueryEntities) -> bool:
    """A sum of the person's monthly outgoings asked, with at least one of them said."""
    paid = any(a.role in ("monthly_rent", "fee") for a in entities.amounts) or entities.monthly_rent_manwon
    return bool(paid) and OUTLAY_ASKED.search(text) is not None


def _prices_given(entities: QueryEntities) -> bool:
    """The home's price and the deposit on it, both given by the person."""
    return bool(entities.sale_price_manwon and entities.deposit_manwon)


def _places(entities: QueryEntities) -> list[str]:
    return entities.gu + entities.dong + entities.stations


def _ordered(step_ids: list[StepId], entities: QueryEntities) -> list[StepKind]:
    """Unique kinds with the searches each one requires, searches first (the catalogue's order). With the
    prices given and no place named, a default district's market has nothing to add to the person's own
    figures: the analyses read theirs; nor does a market the snapshot does not list, unless it is asked."""
    wanted = set(step_ids)
    for step_id in list(wanted):
        reads = STEP_KINDS[step_id].reads
        if reads and STEP_KINDS[step_id].team is Team.ANALYSIS:
            wanted.add(reads[0])
    unserved = not listings_serve(entities) and S.SEARCH_MARKET not in step_ids
    if unserved or (_prices_given(entities) and not _places(entities)):
        wanted -= MARKET_STEPS
    return [kind for step_id, kind in STEP_KINDS.items() if step_id in wanted]


# ---- the steps -----------------------------------------------------------------------------------------


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
