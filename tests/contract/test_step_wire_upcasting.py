"""StepStarted and StepCompleted v1 (inputs and results as free dicts) are read as StepInputs and
StepResult, and StepStarted v2 (its dependencies' results copied in) as v3 (the StepCompleted events
holding them named instead), without touching what is stored: the published examples, and a whole run
recorded by each earlier wire version's producers, which folds into the same supervisor state, answer
and projections as the run today's producers write, and gives its teams the same dependency results."""

from __future__ import annotations

import copy
from collections.abc import Collection
from typing import Any
from uuid import UUID

import pytest

from contracts import REGISTRY
from contracts.export import load_examples
from contracts.gateway import QueryOptions, QueryReceived
from contracts.planner import PlanReady
from contracts.results import Figure, ListingRow, StepResult
from contracts.steps import SearchOptions, StepInputs, plan_inputs
from contracts.supervisor import StepStarted, StepStartedV1, StepStartedV2
from contracts.teams import StepCompleted, StepCompletedV1
from contracts.values import PlanStep, StepFocus
from services.planner.plan_rules import plan_by_rules
from services.platform.eventstore import Recorded
from services.platform.team import StepFailure, dependency_results
from services.projector import final_state, todo
from services.projector.folding import fold_runs
from services.supervisor.response import compose
from services.supervisor.run import fold
from tests.contract.recording import Recording, event_id_at

pytestmark = pytest.mark.contract

QUERY = "강남구 아파트 전세 시세와 위험도 분석해줘"
MARKET = StepResult(
    headline="강남구 아파트 전세 중앙값 9억 5,000만원 (매물 1건)",
    figures=[Figure(label="강남구 아파트 전세 중앙값", value=95000, unit="만원", source="매물 스냅샷")],
    listings=[
        ListingRow(
            listing_id="c-1127",
            kind="complex",
            name="래미안대치팰리스",
            property_type="apartment",
            gu="강남구",
            dong="대치동",
            deal_type="jeonse",
            price_min_manwon=130000,
            price_max_manwon=145000,
        )
    ],
    data={"market_stats": {"deal_type": "sale", "regions": [{"stats": {"median": 240000}}]}},
)
RISK = StepResult(
    headline="전세가율 39.6%로 '안전' 구간입니다.",
    figures=[Figure(label="보증금+선순위채권 ÷ 시세", value=39.6, unit="%")],
)


@pytest.mark.parametrize("stored", load_examples(StepStartedV1), ids=lambda payload: payload["step_id"])
def test_a_published_step_started_v1_is_read_as_v3_with_its_copies(stored: dict[str, Any]) -> None:
    before = copy.deepcopy(stored)

    event = REGISTRY.parse("StepStarted", 1, stored)

    assert isinstance(event, StepStarted) and event.schema_version == 3
    # The examples' inputs predate the house's keys ("region", "metrics"): no reader has them to read.
    assert event.inputs == StepInputs()
    assert event.result_events == {}
    for step_id, result in stored["dependency_results"].items():
        assert event.copied_results[step_id] == StepResult(data=result)  # kept whole, under data
    assert stored == before, "upcasting must not rewrite the stored payload"


@pytest.mark.parametrize("stored", load_examples(StepStartedV2), ids=lambda payload: payload["step_id"])
def test_a_published_step_started_v2_is_read_as_v3_with_its_copies(stored: dict[str, Any]) -> None:
    before = copy.deepcopy(stored)

    event = REGISTRY.parse("StepStarted", 2, stored)

    assert isinstance(event, StepStarted) and event.schema_version == 3
    assert event.result_events == {}  # a v2 event names no StepCompleted: an upcaster cannot look one up
    as_v2 = StepStartedV2.model_validate(stored)
    assert event.copied_results == as_v2.dependency_results
    kept = as_v2.model_dump(exclude={"dependency_results", "schema_version"})
    assert event.model_dump(exclude={"copied_results", "result_events", "schema_version"}) == kept
    assert stored == before, "upcasting must not rewrite the stored payload"


@pytest.mark.parametrize("stored", load_examples(StepStarted), ids=lambda payload: payload["step_id"])
def test_a_published_step_started_v3_names_its_dependencies_and_copies_nothing(
    stored: dict[str, Any],
) -> None:
    event = REGISTRY.parse("StepStarted", 3, stored)

    assert event == StepStarted.model_validate(stored) and event.copied_results == {}
    assert {k: str(v) for k, v in event.result_events.items()} == stored.get("result_events", {})


@pytest.mark.parametrize("stored", load_examples(StepCompletedV1), ids=lambda payload: payload["step_id"])
def test_a_published_step_completed_v1_keeps_what_is_no_step_result_field_under_data(
    stored: dict[str, Any],
) -> None:
    before = copy.deepcopy(stored)

    event = REGISTRY.parse("StepCompleted", 1, stored)

    assert isinstance(event, StepCompleted) and event.schema_version == 2
    # "listings" of another shape than ListingRow cannot be read as listings; nothing is lost either.
    assert event.result == StepResult(data=stored["result"])
    assert event.model_dump(mode="json", exclude={"result", "schema_version"}) == {
        k: v for k, v in stored.items() if k not in ("result", "schema_version")
    }
    assert stored == before


def test_v1_inputs_keep_what_reads_as_a_field_and_a_searchs_options_move_under_search() -> None:
    stored = {
        "query": "강남 30평대 매물",
        "focus": ["listings"],
        "entities": {"gu": ["강남구"]},
        "answers": {"deposit_won": "3억"},
        "limit": 50,
        "keywords": ["전세"],
        "format": "pdf",
    }
    assert plan_inputs(stored) == StepInputs(
        query="강남 30평대 매물",
        focus=[StepFocus.LISTINGS],
        entities={"gu": ["강남구"]},
        answers={"deposit_won": "3억"},
        search=SearchOptions(limit=50, keywords=["전세"]),
    )


async def read_events_of(run: Recording, event_ids: Collection[UUID]) -> list[Recorded]:
    """EventStore.read_events over the recorded run."""
    return [r for r in run.records if r.envelope.event_id in event_ids]


def planned_run() -> tuple[Recording, list[PlanStep]]:
    plan = plan_by_rules(QUERY)
    run = Recording().add(QueryReceived(run_id="r1", query=QUERY, options=QueryOptions()))
    ready = PlanReady(run_id="r1", intent=plan.intent, steps=plan.steps, strategy=plan.strategy, mode="rules")
    return run.add(ready), plan.steps


def started(step: PlanStep, **wire: Any) -> dict[str, Any]:
    return {"run_id": "r1", "step_id": step.step_id, "team": step.team, "task": step.task, **wire}


def completed(step: PlanStep, summary: str, **wire: Any) -> dict[str, Any]:
    return {"run_id": "r1", "step_id": step.step_id, "team": step.team, "summary": summary, **wire}


def recorded_with_v1() -> Recording:
    """The run as the first wire version's supervisor and teams wrote it: the plan step's inputs dict as
    the step's inputs, each result a StepResult dumped without its defaults."""
    run, (search, risk) = planned_run()
    market, analysed = (r.model_dump(mode="json", exclude_defaults=True) for r in (MARKET, RISK))
    run.add(StepStartedV1(**started(search, inputs=search.inputs, timeout_s=60)))
    run.add(StepCompletedV1(**completed(search, "시세 조회", result=market, duration_ms=120)))
    deps = {search.step_id: market}
    run.add(StepStartedV1(**started(risk, inputs=risk.inputs, dependency_results=deps, timeout_s=90)))
    return run.add(StepCompletedV1(**completed(risk, "위험도 분석", result=analysed, duration_ms=80)))


def recorded_with_v2() -> Recording:
    """The same run as the second wire version's supervisor wrote it: the search's result copied into
    the risk step's StepStarted."""
    run, (search, risk) = planned_run()
    run.add(StepStartedV2(**started(search, inputs=plan_inputs(search.inputs), timeout_s=60)))
    run.add(StepCompleted(**completed(search, "시세 조회", result=MARKET, duration_ms=120)))
    inputs, deps = plan_inputs(risk.inputs), {search.step_id: MARKET}
    run.add(StepStartedV2(**started(risk, inputs=inputs, dependency_results=deps, timeout_s=90)))
    return run.add(StepCompleted(**completed(risk, "위험도 분석", result=RISK, duration_ms=80)))


def recorded_with_v3() -> Recording:
    """The same run as today's producers write it: the risk step names the search's StepCompleted."""
    run, (search, risk) = planned_run()
    run.add(StepStarted(**started(search, inputs=plan_inputs(search.inputs), timeout_s=60)))
    run.add(StepCompleted(**completed(search, "시세 조회", result=MARKET, duration_ms=120)))
    inputs, names = plan_inputs(risk.inputs), {search.step_id: run.records[-1].envelope.event_id}
    run.add(StepStarted(**started(risk, inputs=inputs, result_events=names, timeout_s=90)))
    return run.add(StepCompleted(**completed(risk, "위험도 분석", result=RISK, duration_ms=80)))


RECORDED_BEFORE = {"v1": recorded_with_v1, "v2": recorded_with_v2}


def test_a_run_recorded_with_v1_reads_as_the_one_recorded_with_v2() -> None:
    old, new = recorded_with_v1(), recorded_with_v2()

    assert [r.envelope.schema_version for r in old.records[2:]] == [1, 1, 1, 1]
    assert [r.event() for r in old.records] == [r.event() for r in new.records]
    risk = old.records[4].event()
    assert isinstance(risk, StepStarted) and risk.copied_results == {"search-market": MARKET}
    assert risk.inputs.entities.gu == ["강남구"] and risk.inputs.focus == [StepFocus.JEONSE_RISK]


@pytest.mark.parametrize("recorded", RECORDED_BEFORE.values(), ids=RECORDED_BEFORE.keys())
def test_an_earlier_recording_folds_into_the_same_state_answer_and_projections(recorded) -> None:
    old, new = recorded(), recorded_with_v3()

    state = fold("r1", old.envelopes)
    assert state == fold("r1", new.envelopes)
    assert state.steps["search-market"].result_event == event_id_at(4)  # the StepCompleted holding it
    assert compose(state) == compose(fold("r1", new.envelopes))
    for evolve in (todo.evolve, final_state.evolve):
        assert fold_runs(evolve, old.logged) == fold_runs(evolve, new.logged)


def test_the_final_state_keeps_each_result_as_v1_stored_it() -> None:
    """So a rebuild over v1 events gives the rows it gave before."""
    old = recorded_with_v1()
    stored = {r.envelope.data["step_id"]: r.envelope.data["result"] for r in old.records[3::2]}
    assert fold_runs(final_state.evolve, old.logged)["r1"].step_results == stored


@pytest.mark.parametrize("recorded", [*RECORDED_BEFORE.values(), recorded_with_v3], ids=["v1", "v2", "v3"])
async def test_the_risk_step_is_given_the_searchs_result_whichever_version_recorded_it(recorded) -> None:
    run = recorded()
    risk = run.records[4].event()
    assert isinstance(risk, StepStarted)

    async def reading(event_ids: Collection[UUID]) -> list[Recorded]:
        return await read_events_of(run, event_ids)

    assert await dependency_results(risk, reading) == {"search-market": MARKET}


async def test_a_named_result_the_store_does_not_hold_as_that_steps_completion_fails_the_step() -> None:
    run = recorded_with_v3()
    risk = run.records[4].event()
    assert isinstance(risk, StepStarted)
    wrong = risk.model_copy(update={"result_events": {"search-market": run.records[2].envelope.event_id}})

    async def nothing(event_ids: Collection[UUID]) -> list[Recorded]:
        return []

    async def reading(event_ids: Collection[UUID]) -> list[Recorded]:
        return await read_events_of(run, event_ids)

    for started, read in ((risk, nothing), (wrong, reading)):  # missing; a StepStarted, not a completion
        with pytest.raises(StepFailure) as failed:
            await dependency_results(started, read)
        assert failed.value.code == "dependency_unreadable" and not failed.value.retryable
