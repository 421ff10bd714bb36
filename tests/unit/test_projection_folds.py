"""The todo and final-state folds over hand-built logs: no servers, just events in, rows out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from contracts import Envelope, Event, new_envelope
from contracts.entities import QueryEntities
from contracts.gateway import PlanApproved, PlanRejected, QueryOptions, QueryReceived
from contracts.planner import PlanReady
from contracts.results import StepResult
from contracts.supervisor import (
    PlanApprovalRequested,
    ResponseReady,
    RunCancelled,
    StepRetried,
    StepSkipped,
    StepStarted,
)
from contracts.teams import StepCompleted, StepFailed, StepFailedV1
from contracts.telemetry import LlmCallRecorded, ToolDecisionRecorded
from contracts.values import Intent, IntentType, PlanStep, StepError, Team
from services.platform.eventstore import Recorded
from services.projector import final_state, todo
from services.projector.final_state import FinalState, history_entry
from services.projector.folding import Logged, fold_runs
from services.projector.todo import Todo

pytestmark = pytest.mark.unit

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
SEARCH = PlanStep(step_id="search", team=Team.SEARCH, task="강남구 아파트 전세 시세 검색")
ANALYSIS = PlanStep(step_id="analysis", team=Team.ANALYSIS, task="전세 위험도 분석", depends_on=["search"])
INTENT = Intent(
    type=IntentType.RISK_ANALYSIS,
    confidence=0.9,
    keywords=["전세", "위험도"],
    entities=QueryEntities(gu=["강남구"]),
)


class Log:
    """A hand-built event log: positions count up, each event one second after the previous."""

    def __init__(self) -> None:
        self.records: list[Logged] = []

    def add(self, event: Event, run_id: str = "r1", session_id: str = "s1") -> Logged:
        position = len(self.records) + 1
        envelope = new_envelope(
            event,
            stream_id=f"run-{run_id}",
            correlation_id=run_id,
            session_id=session_id,
            occurred_at=T0 + timedelta(seconds=position),
        )
        return self.record(envelope)

    def record(self, envelope: Envelope) -> Logged:
        position = len(self.records) + 1
        logged = Logged.of(Recorded(position, position, envelope.occurred_at, envelope))
        self.records.append(logged)
        return logged

    def todo(self, run_id: str = "r1") -> Todo:
        return fold_runs(todo.evolve, self.records)[run_id]

    def final(self, run_id: str = "r1") -> FinalState:
        return fold_runs(final_state.evolve, self.records)[run_id]


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


def asked(log: Log, *, require_approval: bool = False, run_id: str = "r1") -> None:
    options = QueryOptions(require_approval=require_approval)
    log.add(
        QueryReceived(run_id=run_id, query="강남구 아파트 전세 시세와 위험도 분석해줘", options=options),
        run_id,
    )


def planned(log: Log, *steps: PlanStep, strategy: str = "dag", run_id: str = "r1") -> None:
    log.add(
        PlanReady(run_id=run_id, intent=INTENT, steps=list(steps), strategy=strategy, mode="rules"), run_id
    )


def started(log: Log, step: PlanStep, attempt: int = 1) -> None:
    log.add(
        StepStarted(
            run_id="r1", step_id=step.step_id, team=step.team, task=step.task, attempt=attempt, timeout_s=30
        )
    )


def completed(log: Log, step: PlanStep, attempt: int = 1, result: StepResult | None = None) -> None:
    log.add(
        StepCompleted(
            run_id="r1",
            step_id=step.step_id,
            team=step.team,
            attempt=attempt,
            summary=f"{step.step_id} 완료",
            result=result or StepResult(headline="3건"),
            duration_ms=1200,
        )
    )


def failed(log: Log, step: PlanStep, attempt: int = 1, retryable: bool = True) -> None:
    error = StepError(code="upstream_unavailable", message="시세 API 응답 없음")
    log.add(
        StepFailed(
            run_id="r1",
            step_id=step.step_id,
            team=step.team,
            attempt=attempt,
            error=error,
            retryable=retryable,
            duration_ms=800,
        )
    )


def answered(log: Log, failed_steps: list[str] | None = None) -> None:
    log.add(
        ResponseReady(
            run_id="r1",
            response_type="answer",
            answer="강남구 전세가율은 ...",
            failed_steps=failed_steps or [],
        )
    )


def statuses(run: Todo) -> dict[str, str]:
    return {s.step_id: s.status for s in run.steps}


def test_a_failed_step_is_retried_then_completes() -> None:
    log = Log()
    asked(log)
    planned(log, SEARCH, ANALYSIS)
    started(log, SEARCH)
    failed(log, SEARCH)
    assert log.todo().step("search").status == "failed"
    assert log.todo().step("search").error == "시세 API 응답 없음"
    assert log.todo().progress_pct == 50  # a failed step counts as finished until it is retried

    log.add(StepRetried(run_id="r1", step_id="search", next_attempt=2, delay_s=1.0, reason="retryable"))
    retried = log.todo().step("search")
    assert (retried.status, retried.attempt, retried.started_at, retried.error) == (
        "pending",
        2,
        None,
        "시세 API 응답 없음",
    )
    assert log.todo().progress_pct == 0

    started(log, SEARCH, attempt=2)
    completed(log, SEARCH, attempt=2)
    started(log, ANALYSIS)
    completed(log, ANALYSIS)
    answered(log)

    run = log.todo()
    search = run.step("search")
    assert statuses(run) == {"search": "completed", "analysis": "completed"}
    assert (search.attempt, search.started_at, search.completed_at) == (2, at(6), at(7))
    assert (search.duration_ms, search.summary, search.error) == (1200, "search 완료", None)
    assert run.step("analysis").depends_on == ["search"]
    assert run.progress_pct == 100

    final = log.final()
    assert final.status == "completed"
    assert final.step_results == {"search": {"headline": "3건"}, "analysis": {"headline": "3건"}}
    assert [(e.step_id, e.attempt, e.code) for e in final.errors] == [("search", 1, "upstream_unavailable")]
    assert (final.created_at, final.planned_at, final.completed_at) == (at(1), at(2), at(10))
    assert final.total_ms == 9000
    assert final.last_position == 10


def test_a_late_answer_from_an_abandoned_attempt_changes_nothing() -> None:
    log = Log()
    planned(log, SEARCH)
    started(log, SEARCH)
    failed(log, SEARCH)
    log.add(StepRetried(run_id="r1", step_id="search", next_attempt=2, delay_s=0, reason="timeout"))
    started(log, SEARCH, attempt=2)
    completed(log, SEARCH, attempt=1)
    assert log.todo().step("search").status == "in_progress"


def test_a_skipped_step_counts_as_finished() -> None:
    log = Log()
    planned(log, SEARCH, ANALYSIS)
    started(log, SEARCH)
    completed(log, SEARCH)
    log.add(StepSkipped(run_id="r1", step_id="analysis", reason="person skipped it"))
    run = log.todo()
    assert statuses(run) == {"search": "completed", "analysis": "skipped"}
    assert run.step("analysis").completed_at == at(4)
    assert run.progress_pct == 100


def test_parallel_steps_run_side_by_side_and_finish_in_any_order() -> None:
    log = Log()
    legal = PlanStep(step_id="legal", team=Team.SEARCH, task="주택임대차보호법 검색")
    planned(log, SEARCH, legal, strategy="parallel")
    started(log, SEARCH)
    started(log, legal)
    assert statuses(log.todo()) == {"search": "in_progress", "legal": "in_progress"}
    completed(log, legal)
    assert log.todo().progress_pct == 50
    failed(log, SEARCH, retryable=False)
    answered(log, failed_steps=["search"])

    assert statuses(log.todo()) == {"search": "failed", "legal": "completed"}
    assert [s.ordinal for s in log.todo().steps] == [0, 1]
    final = log.final()
    assert final.status == "completed_with_errors"
    assert final.plan.strategy == "parallel"
    assert final.response["failed_steps"] == ["search"]


def test_approval_with_edited_steps_replaces_the_plan() -> None:
    log = Log()
    asked(log, require_approval=True)
    planned(log, SEARCH, ANALYSIS)
    assert log.final().status == "planning"  # approval was asked for: not running yet
    log.add(PlanApprovalRequested(run_id="r1", steps=[SEARCH, ANALYSIS]))
    assert log.final().status == "awaiting_approval"
    edited = SEARCH.model_copy(update={"task": "서초구 아파트 전세 시세 검색"})
    log.add(PlanApproved(run_id="r1", modified_steps=[edited]))

    run = log.todo()
    assert [(s.step_id, s.task, s.status) for s in run.steps] == [
        ("search", "서초구 아파트 전세 시세 검색", "pending")
    ]
    final = log.final()
    assert final.status == "running"
    assert final.plan.steps == [edited]
    assert final.plan.modified_by_person


def test_approval_without_edits_keeps_the_plan() -> None:
    log = Log()
    asked(log, require_approval=True)
    planned(log, SEARCH)
    log.add(PlanApprovalRequested(run_id="r1", steps=[SEARCH]))
    log.add(PlanApproved(run_id="r1"))
    assert log.final().status == "running"
    assert not log.final().plan.modified_by_person
    assert [s.task for s in log.todo().steps] == [SEARCH.task]


def test_a_rejected_plan_ends_the_run() -> None:
    log = Log()
    asked(log, require_approval=True)
    planned(log, SEARCH)
    log.add(PlanApprovalRequested(run_id="r1", steps=[SEARCH]))
    log.add(PlanRejected(run_id="r1", reason="필요 없어요"))
    final = log.final()
    assert (final.status, final.completed_at, final.total_ms) == ("rejected", at(4), 3000)
    assert statuses(log.todo()) == {"search": "pending"}


def test_a_cancelled_run_stays_cancelled_when_late_events_arrive() -> None:
    log = Log()
    asked(log)
    planned(log, SEARCH)
    started(log, SEARCH)
    log.add(RunCancelled(run_id="r1", reason="사용자 취소"))
    completed(log, SEARCH)
    answered(log)
    final = log.final()
    assert (final.status, final.completed_at) == ("cancelled", at(4))
    assert final.step_results == {"search": {"headline": "3건"}}  # the late result is still kept as data


def test_a_stored_step_failed_v1_is_read_upcast() -> None:
    log = Log()
    planned(log, SEARCH)
    started(log, SEARCH)
    old = StepFailedV1(
        run_id="r1",
        step_id="search",
        team=Team.SEARCH,
        error="국토부 API 500",
        retryable=True,
        duration_ms=50,
    )
    log.add(old)
    assert log.records[-1].schema_version == 1
    assert log.todo().step("search").error == "국토부 API 500"
    assert [(e.code, e.message) for e in log.final().errors] == [("retryable_error", "국토부 API 500")]


def test_telemetry_is_counted_and_unknown_event_types_only_move_the_position() -> None:
    log = Log()
    asked(log)
    for fallback in (False, True, True):
        log.add(
            LlmCallRecorded(
                run_id="r1",
                call_point="intent_analysis",
                prompt_name="intent_analysis",
                prompt_hash="abc123",
                model="gpt-4o-mini",
                latency_ms=420,
                outcome="timeout" if fallback else "ok",
                fallback_used=fallback,
            )
        )
    log.add(
        ToolDecisionRecorded(
            run_id="r1", available_tools=["a", "b"], selected_tools=["a"], reasoning="r", confidence=0.7
        )
    )
    before = log.final()
    log.record(unknown_event())

    after = log.final()
    assert (after.llm_calls, after.llm_fallbacks, after.tool_decisions) == (3, 2, 1)
    assert after == before.model_copy(update={"last_position": 6})


def unknown_event() -> Envelope:
    """An event a newer build added: this build's folds must pass over it."""
    return Envelope(
        event_id="00000000-0000-0000-0000-000000000001",
        event_type="SomethingAFutureBuildAdded",
        schema_version=1,
        stream_id="run-r1",
        occurred_at=at(6),
        correlation_id="r1",
        producer="future",
        data={"anything": True},
    )


def test_runs_fold_independently_and_feed_the_session_history() -> None:
    log = Log()
    asked(log, run_id="r1")
    asked(log, run_id="r2")
    planned(log, run_id="r2")  # guidance: an empty plan
    log.add(ResponseReady(run_id="r2", response_type="guidance", answer="부동산 질문을 해주세요"), "r2")

    states = fold_runs(final_state.evolve, log.records)
    assert {run: s.status for run, s in states.items()} == {"r1": "planning", "r2": "completed"}
    assert fold_runs(todo.evolve, log.records)["r2"].progress_pct == 100
    entry = history_entry(states["r2"])
    assert (entry.session_id, entry.run_id, entry.status, entry.created_at) == (
        "s1",
        "r2",
        "completed",
        at(2),
    )


def test_folding_in_two_parts_equals_folding_at_once() -> None:
    log = Log()
    asked(log)
    planned(log, SEARCH, ANALYSIS)
    started(log, SEARCH)
    completed(log, SEARCH)
    answered(log)
    for evolve in (todo.evolve, final_state.evolve):
        first = fold_runs(evolve, log.records[:3])
        assert fold_runs(evolve, log.records[3:], first) == fold_runs(evolve, log.records)
