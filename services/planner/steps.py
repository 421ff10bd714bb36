"""The planner's catalogue of step kinds, each one entry (one team, one focus, the searches it reads);
then what makes a list of steps a valid plan, its strategy and its estimate.

Adding a step kind is a member of StepId (services/housing/intent_catalogue.py, beside the intents that
start from them) and its StepKind here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from contracts.entities import QueryEntities
from contracts.steps import StepInputs, inputs_for_plan, plan_inputs
from contracts.values import PlanStep, StepFocus, Strategy, Team
from services.housing.intent_catalogue import StepId

F = StepFocus
S = StepId

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
        F.ACQUISITION_TAX,
        F.POLICY,
        F.PRIORITY_REPAYMENT,
        F.BROKERAGE_FEE,
        F.HOUSING_COST,
    },
    Team.DOCUMENT: {F.LEASE_CONTRACT, F.SALES_CONTRACT, F.LOAN_APPLICATION},
}


@dataclass(frozen=True)
class StepKind:
    step_id: StepId
    team: Team
    focus: tuple[StepFocus, ...]
    # Searches whose results it uses when they are in the plan; an analysis needs at least the first.
    reads: tuple[StepId, ...] = ()
    # The person's own facts it reckons with (QueryEntities fields): told after its answer, they answer
    # its question again ("신용대출 월 40씩 갚고 있고 집은 없어요" after a loan's limit).
    facts: tuple[str, ...] = ()


_LEASE = ("deposit_manwon", "monthly_rent_manwon")
_BUYER = ("income_manwon", "house_count", "sale_price_manwon", "age", "marriage_years", "children")
# In run order: searches first, then what reads them.
STEP_KINDS = {
    kind.step_id: kind
    for kind in (
        StepKind(S.SEARCH_LEGAL, Team.SEARCH, (F.LEGAL,)),
        StepKind(S.SEARCH_MARKET, Team.SEARCH, (F.MARKET, F.LISTINGS)),
        StepKind(S.SEARCH_LOAN, Team.SEARCH, (F.LOAN_PRODUCTS,), (), (*_BUYER, "deposit_manwon")),
        # 대출 신청 준비 asks the applicant's facts first: the loan analyses below read them.
        StepKind(S.ASK_LOAN_APPLICANT, Team.DOCUMENT, (F.LOAN_APPLICATION,)),
        StepKind(S.ANALYZE_MARKET, Team.ANALYSIS, (F.MARKET_ANALYSIS,), (S.SEARCH_MARKET,)),
        StepKind(
            S.ANALYZE_RISK,
            Team.ANALYSIS,
            (F.JEONSE_RISK,),
            (S.SEARCH_MARKET, S.SEARCH_LEGAL),
            ("deposit_manwon", "sale_price_manwon", "senior_debt_manwon"),
        ),
        StepKind(
            S.CHECK_RENT_INCREASE,
            Team.ANALYSIS,
            (F.RENT_INCREASE,),
            (S.SEARCH_LEGAL, S.SEARCH_MARKET),
            _LEASE,
        ),
        StepKind(S.REVIEW_CONTRACT, Team.ANALYSIS, (F.CONTRACT_REVIEW,), (S.SEARCH_LEGAL,)),
        StepKind(
            S.SIMULATE_LOAN,
            Team.ANALYSIS,
            (F.LOAN_SIMULATION,),
            (S.SEARCH_LOAN, S.SEARCH_MARKET, S.ASK_LOAN_APPLICANT),
            _BUYER,
        ),
        StepKind(S.ANALYZE_ROI, Team.ANALYSIS, (F.ROI,), (S.SEARCH_MARKET, S.SEARCH_LOAN)),
        StepKind(S.MATCH_POLICY, Team.ANALYSIS, (F.POLICY,), (S.SEARCH_LOAN, S.ASK_LOAN_APPLICANT), _BUYER),
        StepKind(
            S.COMPUTE_PRIORITY_REPAYMENT, Team.ANALYSIS, (F.PRIORITY_REPAYMENT,), (S.SEARCH_LEGAL,), _LEASE
        ),
        StepKind(S.COMPUTE_BROKERAGE_FEE, Team.ANALYSIS, (F.BROKERAGE_FEE,), (S.SEARCH_LEGAL,)),
        StepKind(
            S.COMPUTE_ACQUISITION_TAX,
            Team.ANALYSIS,
            (F.ACQUISITION_TAX,),
            (),
            ("sale_price_manwon", "house_count"),
        ),
        StepKind(S.COMPUTE_HOUSING_COST, Team.ANALYSIS, (F.HOUSING_COST,), (), _LEASE),
        StepKind(S.DRAFT_LEASE, Team.DOCUMENT, (F.LEASE_CONTRACT,), (S.SEARCH_MARKET, S.SEARCH_LEGAL)),
        StepKind(S.DRAFT_SALE, Team.DOCUMENT, (F.SALES_CONTRACT,)),
        StepKind(S.REVIEW_SALE_CONTRACT, Team.DOCUMENT, (F.SALES_CONTRACT,)),
        StepKind(
            S.PREPARE_LOAN_CHECKLIST,
            Team.DOCUMENT,
            (F.LOAN_APPLICATION,),
            (S.ASK_LOAN_APPLICANT, S.SIMULATE_LOAN, S.MATCH_POLICY, S.SEARCH_LOAN),
        ),
    )
}
MARKET_STEPS = frozenset({S.SEARCH_MARKET, S.ANALYZE_MARKET})


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
