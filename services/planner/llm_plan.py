"""Plans from one LLM answer: the model reads the intent, picks the teams and splits the question in a
single structured call (`PlanningAnswer`); this module turns that answer into a `Plan`.

The model is trusted with judgement (what is asked, which steps), never with figures: the plan's reading
always comes from the rules extractor. The model reads the turn too (`TurnReading`: the reading's fields
that are no amount, size or date), and where it reads otherwise than the rules, the plan records it
(`disagreements`), so the rules reading is both the fallback and the check. An answer that does not make
a runnable plan raises `InvalidPlan`, and the caller falls back to `plan_by_rules`.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from contracts.entities import DealType, LeaseKind, PropertyType, QueryEntities, Ranking
from contracts.planner import ReadingDisagreement
from contracts.values import Intent, IntentType, PlanStep, StepFocus, Team
from services.housing.entities import extract_entities
from services.housing.intent_catalogue import GUIDANCE_INTENTS, INTENTS_DESCRIBED
from services.housing.text import normalize
from services.planner import followup
from services.planner.followup import PriorTurn
from services.planner.plan_rules import Plan, assemble
from services.planner.steps import find_cycle, make_step, validate_steps

STEP_ID_PATTERN = r"^[a-z][a-z0-9-]{0,39}$"


class InvalidPlan(ValueError):
    """The LLM's answer does not make a runnable plan; `errors` says why."""

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


class PlannedStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(
        pattern=STEP_ID_PATTERN,
        description="short readable id in lowercase words joined by '-', unique in the plan: "
        "search-legal, search-market, analyze-risk, draft-lease",
    )
    team: Team = Field(
        description="search: finds statutes, listings, prices, loan products; analysis: computes and judges "
        "from search results; document: writes a lease contract"
    )
    task: str = Field(
        min_length=2,
        max_length=200,
        description="what this step does, in Korean and specific to the question "
        "(e.g. '강남구 아파트 전세 시세 조회', '주택임대차보호법 증액 제한 조항 검색'), "
        "never a generic '정보 검색'",
    )
    focus: list[StepFocus] = Field(
        min_length=1,
        description="what the step is for. search: legal, listings, market, loan_products; analysis: "
        "market_analysis, rent_increase, jeonse_risk, contract_review, loan_simulation, roi, policy; "
        "document: lease_contract",
    )
    depends_on: list[str] = Field(
        default=[],
        description="ids of steps whose results this step needs (an analysis after the search that feeds "
        "it; a contract after the listing search); empty when it can start at once",
    )


def _as_in_the_reading(name: str) -> Any:
    """A field as QueryEntities describes it: the model reads by the reading's own descriptions."""
    field = QueryEntities.model_fields[name]
    return Field(default=field.default, description=field.description)


class TurnReading(BaseModel):
    """The reading's fields the model is asked for: what the turn names and asks. Never its amounts,
    sizes, dates or the person's figures: those only the rules read (a misread number would reach every
    team as fact)."""

    model_config = ConfigDict(extra="forbid")

    gu: list[str] = _as_in_the_reading("gu")
    dong: list[str] = _as_in_the_reading("dong")
    stations: list[str] = _as_in_the_reading("stations")
    property_types: list[PropertyType] = _as_in_the_reading("property_types")
    deal_type: DealType | None = _as_in_the_reading("deal_type")
    complexes: list[str] = _as_in_the_reading("complexes")
    regions: list[str] = _as_in_the_reading("regions")
    ranked_by: Ranking | None = _as_in_the_reading("ranked_by")
    debt_spoken_of: bool = _as_in_the_reading("debt_spoken_of")
    no_debt_said: bool = _as_in_the_reading("no_debt_said")
    guarantee_asked: bool = _as_in_the_reading("guarantee_asked")
    loan_limit_asked: bool = _as_in_the_reading("loan_limit_asked")
    monthly_rent_spoken_of: bool = _as_in_the_reading("monthly_rent_spoken_of")
    conversion_asked: bool = _as_in_the_reading("conversion_asked")
    raise_asked: bool = _as_in_the_reading("raise_asked")
    lease_kinds_named: list[LeaseKind] = _as_in_the_reading("lease_kinds_named")
    listings_asked: bool = _as_in_the_reading("listings_asked")
    market_level_asked: bool = _as_in_the_reading("market_level_asked")
    count_asked: bool = _as_in_the_reading("count_asked")
    rankings_asked: list[Ranking] = _as_in_the_reading("rankings_asked")


class PlanningAnswer(BaseModel):
    """Intent analysis, team selection and query decomposition in one answer."""

    model_config = ConfigDict(extra="forbid")

    intent: IntentType = Field(
        description=f"{INTENTS_DESCRIBED}. "
        "For a question with several requests, the intent of the first request."
    )
    confidence: float = Field(ge=0, le=1, description="how sure the intent is, 0 to 1")
    keywords: list[str] = Field(
        default=[], max_length=10, description="the words of the question that decided it"
    )
    steps: list[PlannedStep] = Field(
        default=[],
        max_length=8,
        description="the steps that answer the question; empty for UNCLEAR and IRRELEVANT",
    )
    reading: TurnReading | None = Field(
        default=None, description="what the question names and asks, only what it states"
    )


def disagreements(read: TurnReading | None, rules: QueryEntities) -> list[ReadingDisagreement]:
    """The fields the model read otherwise than the rules; lists as sets (the order of places named is
    no reading of them)."""
    if read is None:
        return []
    theirs = read.model_dump(mode="json")
    ours = rules.model_dump(mode="json", include=set(theirs))
    return [
        ReadingDisagreement(field=name, rules=ours[name], llm=value)
        for name, value in theirs.items()
        if _comparable(value) != _comparable(ours[name])
    ]


def _comparable(value: Any) -> Any:
    return sorted(map(str, value)) if isinstance(value, list) else value


def plan_from_llm(
    answer: PlanningAnswer,
    query: str,
    previous: PriorTurn | None = None,
    today: date | None = None,
    reading: QueryEntities | None = None,
) -> Plan:
    """A plan from the model's answer, with rules-read entities (`reading`, when the caller has read the
    turn already) and house-made inputs, strategy and estimate. Raises InvalidPlan when the steps do not
    validate or do not fit the intent."""
    text = normalize(query)
    named = reading if reading is not None else extract_entities(text, today=today)
    context, previous_query = text, None
    entities = named
    if previous is not None and followup.is_follow_up(text, previous, named):
        entities = followup.merge_entities(previous.intent.entities, named)
        context, previous_query = previous.query, previous.query
    intent = Intent(
        type=answer.intent,
        confidence=answer.confidence,
        keywords=answer.keywords,
        entities=entities,
    )
    steps = [
        make_step(s.id, s.team, s.task, s.focus, s.depends_on, query, entities, previous_query)
        for s in _run_order(answer.steps)
    ]
    errors = validate_steps(steps) + _intent_errors(answer.intent, steps)
    if errors:
        raise InvalidPlan(errors)
    return assemble(intent, steps, context)


def _intent_errors(intent: IntentType, steps: list[PlanStep]) -> list[str]:
    if intent in GUIDANCE_INTENTS and steps:
        return [f"{intent.value} is answered with guidance, yet {len(steps)} steps were planned"]
    if intent not in GUIDANCE_INTENTS and not steps:
        return [f"{intent.value} needs at least one step"]
    return []


def _run_order(steps: list[PlannedStep]) -> list[PlannedStep]:
    """Dependencies first, otherwise in the model's order; left as given when the steps do not form a
    DAG, so validation names the problem."""
    ids = {s.id for s in steps}
    probe = [PlanStep(step_id=s.id, team=s.team, task=s.task, depends_on=s.depends_on) for s in steps]
    if len(ids) != len(steps) or find_cycle(probe):
        return steps
    placed: list[PlannedStep] = []
    done: set[str] = set()
    while len(placed) < len(steps):
        ready = [
            s for s in steps if s.id not in done and all(d in done or d not in ids for d in s.depends_on)
        ]
        placed.append(ready[0])
        done.add(ready[0].id)
    return placed
