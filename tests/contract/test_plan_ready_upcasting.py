"""PlanReady v1 (the reading, `intent.entities`, a free dict) is read as v2 (the reading typed), without
touching what is stored: the published examples, and a run whose plan the first planner recorded, which
folds into the same supervisor state, answer, projections and remembered facts as the run today's
planner records."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from contracts import REGISTRY, Event
from contracts.entities import QueryEntities
from contracts.export import load_examples
from contracts.gateway import QueryOptions, QueryReceived
from contracts.planner import PlanReady, PlanReadyV1
from contracts.results import StepResult
from contracts.steps import plan_inputs
from contracts.supervisor import StepStarted
from contracts.teams import StepCompleted
from services.housing.memory import Memory, Said, memory_of
from services.planner.plan_rules import plan_by_rules
from services.planner.remembered import facts_of
from services.projector import final_state, todo
from services.projector.folding import fold_runs
from services.supervisor.response import compose
from services.supervisor.run import fold
from tests.contract.recording import Recording

pytestmark = pytest.mark.contract

QUERY = "보증금 1억에 월세 40 내는데 집주인이 50으로 올려달래요, 가능한가요?"


@pytest.mark.parametrize("stored", load_examples(PlanReadyV1), ids=lambda payload: payload["run_id"])
def test_a_published_plan_ready_v1_is_read_as_v2_keeping_what_reads_as_the_reading(
    stored: dict[str, Any],
) -> None:
    before = copy.deepcopy(stored)

    event = REGISTRY.parse("PlanReady", 1, stored)

    assert isinstance(event, PlanReady) and event.schema_version == 2
    # The examples' entities predate the reading ("region", "transaction_type"): no reader has them to read.
    assert event.intent.entities == QueryEntities()
    as_v1 = PlanReadyV1.model_validate(stored)
    assert event.disagreements == []  # v1 recorded none
    kept = {"intent", "schema_version", "disagreements"}
    assert event.model_dump(exclude=kept) == as_v1.model_dump(exclude=kept)
    assert event.intent.model_dump(exclude={"entities"}) == as_v1.intent.model_dump(exclude={"entities"})
    assert stored == before, "upcasting must not rewrite the stored payload"


@pytest.mark.parametrize("stored", load_examples(PlanReady), ids=lambda payload: payload["run_id"])
def test_a_published_plan_ready_v2_reads_as_itself(stored: dict[str, Any]) -> None:
    assert REGISTRY.parse("PlanReady", 2, stored) == PlanReady.model_validate(stored)


def test_a_v1_reading_keeps_each_field_that_reads_and_leaves_the_rest() -> None:
    stored = {
        "run_id": "r1",
        "mode": "rules",
        "intent": {
            "type": "MARKET_INQUIRY",
            "confidence": 0.9,
            "entities": {"gu": ["강남구"], "deposit_manwon": "많이", "region": "서울특별시 강남구"},
        },
    }

    event = REGISTRY.parse("PlanReady", 1, stored)

    assert isinstance(event, PlanReady) and event.intent.entities == QueryEntities(gu=["강남구"])


def recorded(planned_as: int) -> Recording:
    """The run, its PlanReady written by the planner of wire version `planned_as`: v1 dumped the reading
    into a dict without its defaults."""
    plan = plan_by_rules(QUERY)
    ready: Event = PlanReady(
        run_id="r1", intent=plan.intent, steps=plan.steps, strategy=plan.strategy, mode="rules"
    )
    if planned_as == 1:
        payload = ready.model_dump(mode="json", exclude={"disagreements"})
        reading = plan.intent.entities.model_dump(mode="json", exclude_defaults=True)
        intent = {**payload["intent"], "entities": reading}
        ready = PlanReadyV1.model_validate({**payload, "schema_version": 1, "intent": intent})
    run = (
        Recording(session_id="s1", person_id="p1")
        .add(QueryReceived(run_id="r1", query=QUERY, options=QueryOptions()))
        .add(ready)
    )
    for step in plan.steps:
        inputs, done = plan_inputs(step.inputs), StepResult(headline=f"{step.task} 완료")
        run.add(
            StepStarted(
                run_id="r1", step_id=step.step_id, team=step.team, task=step.task, inputs=inputs, timeout_s=60
            )
        )
        run.add(
            StepCompleted(
                run_id="r1",
                step_id=step.step_id,
                team=step.team,
                summary=step.task,
                result=done,
                duration_ms=50,
            )
        )
    return run


def test_a_run_planned_with_v1_folds_into_the_same_state_answer_projections_and_memory() -> None:
    old, new = recorded(1), recorded(2)

    assert old.records[1].envelope.schema_version == 1 and new.records[1].envelope.schema_version == 2
    plan = old.records[1].event()
    assert isinstance(plan, PlanReady)
    assert (plan.intent.entities.deposit_manwon, plan.intent.entities.monthly_rent_manwon) == (10000, 40)
    assert plan == new.records[1].event()
    state = fold("r1", old.envelopes)
    assert state == fold("r1", new.envelopes)
    assert compose(state) == compose(fold("r1", new.envelopes))
    for evolve in (todo.evolve, final_state.evolve):
        assert fold_runs(evolve, old.logged) == fold_runs(evolve, new.logged)
    assert facts_of([plan]) == facts_of([new.records[1].event()])  # type: ignore[list-item]


def test_the_person_remembers_the_same_facts_from_a_plan_recorded_as_v1() -> None:
    def memory_after(run: Recording) -> Memory:
        return memory_of("p1", (Said.of(r.position, r.envelope) for r in run.records[:2]))

    assert memory_after(recorded(1)) == memory_after(recorded(2))
    assert {i.key for i in memory_after(recorded(1)).items if i.kind == "fact"} >= {"deposit_manwon"}
