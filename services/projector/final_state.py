"""The final-state projection: per run, what was asked, planned, produced and answered; plus a
per-session history of runs.

Status moves planning -> awaiting_approval (PlanApprovalRequested) -> running
(PlanReady when no approval was asked for, PlanApproved, or the first
StepStarted) -> awaiting_input while a step waits for the person's answers
(InputRequested, back to running on InputProvided) -> one of the terminal statuses: completed (ResponseReady;
completed_with_errors when it names failed steps), rejected, failed, cancelled.
A terminal status is final: an event that arrives after it (a team's late
answer to a cancelled run) is still recorded, but does not revive the run.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from contracts.gateway import InputProvided, PlanApproved, PlanRejected, QueryReceived
from contracts.planner import PlanReady
from contracts.supervisor import (
    InputRequested,
    PlanApprovalRequested,
    ResponseReady,
    RunCancelled,
    RunFailed,
    StepStarted,
    StepTimedOut,
)
from contracts.teams import StepCompleted, StepFailed
from contracts.telemetry import LlmCallRecorded, ToolDecisionRecorded
from contracts.values import Intent, PlanStep
from services.projector.folding import Frozen, Logged, Projected, evolve_with, handler_table

RunStatus = Literal[
    "planning",
    "awaiting_approval",
    "awaiting_input",
    "running",
    "completed",
    "completed_with_errors",
    "rejected",
    "failed",
    "cancelled",
]
TERMINAL: frozenset[RunStatus] = frozenset(
    {"completed", "completed_with_errors", "rejected", "failed", "cancelled"}
)


class RunPlan(Frozen):
    strategy: str
    mode: str
    steps: list[PlanStep] = []
    estimated_total_s: float = 0.0
    modified_by_person: bool = False


class RunError(Frozen):
    """A step's failure (with its step and attempt) or the run's own."""

    at: datetime
    code: str
    message: str
    step_id: str | None = None
    attempt: int | None = None


class FinalState(Projected):
    run_id: str
    session_id: str | None = None
    query: str | None = None
    require_approval: bool = False
    status: RunStatus = "planning"
    intent: Intent | None = None
    plan: RunPlan | None = None
    # Factories, not `{}` / `[]`: pydantic deep-copies a mutable default into every new state.
    step_results: dict[str, dict[str, Any]] = Field(default_factory=dict)
    response: dict[str, Any] | None = None
    errors: list[RunError] = Field(default_factory=list)
    created_at: datetime | None = None
    planned_at: datetime | None = None
    completed_at: datetime | None = None
    total_ms: float | None = None
    llm_calls: int = 0
    llm_fallbacks: int = 0
    tool_decisions: int = 0


class SessionRun(Frozen):
    """One line of a session's history."""

    session_id: str
    run_id: str
    query: str | None
    status: RunStatus
    created_at: datetime | None


def history_entry(state: FinalState) -> SessionRun | None:
    if state.session_id is None:
        return None
    return SessionRun(
        session_id=state.session_id,
        run_id=state.run_id,
        query=state.query,
        status=state.status,
        created_at=state.created_at,
    )


def _moved(state: FinalState, status: RunStatus) -> FinalState:
    if state.status in TERMINAL:
        return state
    return state.model_copy(update={"status": status})


def _ended(state: FinalState, status: RunStatus, at: datetime) -> FinalState:
    if state.status in TERMINAL:
        return state
    total_ms = (at - state.created_at).total_seconds() * 1000 if state.created_at else None
    return state.model_copy(update={"status": status, "completed_at": at, "total_ms": total_ms})


def _begun(state: FinalState | None, record: Logged) -> FinalState:
    """Any event of a run opens its state, so a log that lost its QueryReceived still projects."""
    if state is not None:
        return state
    return FinalState(run_id=record.run_id, session_id=record.session_id)


def _on_query(state: FinalState | None, event: QueryReceived, record: Logged) -> FinalState:
    return _begun(state, record).model_copy(
        update={
            "query": event.query,
            "require_approval": event.options.require_approval,
            "created_at": record.occurred_at,
        }
    )


def _on_plan_ready(state: FinalState | None, event: PlanReady, record: Logged) -> FinalState:
    plan = RunPlan(
        strategy=event.strategy, mode=event.mode, steps=event.steps, estimated_total_s=event.estimated_total_s
    )
    planned = _begun(state, record).model_copy(
        update={"intent": event.intent, "plan": plan, "planned_at": record.occurred_at}
    )
    return planned if planned.require_approval else _moved(planned, "running")


def _on_approval_requested(
    state: FinalState | None, event: PlanApprovalRequested, record: Logged
) -> FinalState:
    return _moved(_begun(state, record), "awaiting_approval")


def _on_approved(state: FinalState | None, event: PlanApproved, record: Logged) -> FinalState:
    approved = _begun(state, record)
    if event.modified_steps is not None and approved.plan is not None:
        plan = approved.plan.model_copy(update={"steps": event.modified_steps, "modified_by_person": True})
        approved = approved.model_copy(update={"plan": plan})
    return _moved(approved, "running")


def _on_input_requested(state: FinalState | None, event: InputRequested, record: Logged) -> FinalState:
    return _moved(_begun(state, record), "awaiting_input")


def _on_input_provided(state: FinalState | None, event: InputProvided, record: Logged) -> FinalState:
    return _moved(_begun(state, record), "running")


def _on_rejected(state: FinalState | None, event: PlanRejected, record: Logged) -> FinalState:
    return _ended(_begun(state, record), "rejected", record.occurred_at)


def _on_step_started(state: FinalState | None, event: StepStarted, record: Logged) -> FinalState:
    return _moved(_begun(state, record), "running")


def _on_step_completed(state: FinalState | None, event: StepCompleted, record: Logged) -> FinalState:
    begun = _begun(state, record)
    # Stored as a v1 result was, with its defaults left out: a rebuild over v1 events gives the same rows.
    result = event.result.model_dump(mode="json", exclude_defaults=True)
    return begun.model_copy(update={"step_results": {**begun.step_results, event.step_id: result}})


def _on_step_failed(state: FinalState | None, event: StepFailed, record: Logged) -> FinalState:
    error = RunError(
        at=record.occurred_at,
        code=event.error.code,
        message=event.error.message,
        step_id=event.step_id,
        attempt=event.attempt,
    )
    return _with_error(_begun(state, record), error)


def _on_step_timed_out(state: FinalState | None, event: StepTimedOut, record: Logged) -> FinalState:
    error = RunError(
        at=record.occurred_at,
        code="timeout",
        message=f"no answer within {event.timeout_s:g} s",
        step_id=event.step_id,
        attempt=event.attempt,
    )
    return _with_error(_begun(state, record), error)


def _with_error(state: FinalState, error: RunError) -> FinalState:
    return state.model_copy(update={"errors": [*state.errors, error]})


def _on_response(state: FinalState | None, event: ResponseReady, record: Logged) -> FinalState:
    answered = _begun(state, record).model_copy(
        update={"response": event.model_dump(mode="json", exclude={"run_id", "schema_version"})}
    )
    status: RunStatus = "completed_with_errors" if event.failed_steps else "completed"
    return _ended(answered, status, record.occurred_at)


def _on_run_failed(state: FinalState | None, event: RunFailed, record: Logged) -> FinalState:
    error = RunError(at=record.occurred_at, code=event.code, message=event.reason)
    return _ended(_with_error(_begun(state, record), error), "failed", record.occurred_at)


def _on_cancelled(state: FinalState | None, event: RunCancelled, record: Logged) -> FinalState:
    return _ended(_begun(state, record), "cancelled", record.occurred_at)


def _on_llm_call(state: FinalState | None, event: LlmCallRecorded, record: Logged) -> FinalState:
    begun = _begun(state, record)
    return begun.model_copy(
        update={
            "llm_calls": begun.llm_calls + 1,
            "llm_fallbacks": begun.llm_fallbacks + int(event.fallback_used),
        }
    )


def _on_tool_decision(state: FinalState | None, event: ToolDecisionRecorded, record: Logged) -> FinalState:
    begun = _begun(state, record)
    return begun.model_copy(update={"tool_decisions": begun.tool_decisions + 1})


_HANDLERS = handler_table(
    {
        QueryReceived: _on_query,
        PlanReady: _on_plan_ready,
        PlanApprovalRequested: _on_approval_requested,
        PlanApproved: _on_approved,
        PlanRejected: _on_rejected,
        InputRequested: _on_input_requested,
        InputProvided: _on_input_provided,
        StepStarted: _on_step_started,
        StepCompleted: _on_step_completed,
        StepFailed: _on_step_failed,
        StepTimedOut: _on_step_timed_out,
        ResponseReady: _on_response,
        RunFailed: _on_run_failed,
        RunCancelled: _on_cancelled,
        LlmCallRecorded: _on_llm_call,
        ToolDecisionRecorded: _on_tool_decision,
    }
)


def evolve(state: FinalState | None, record: Logged) -> FinalState | None:
    """The run's final state after one more of its events."""
    return evolve_with(_HANDLERS, state, record)
