"""A run as the supervisor sees it: a fold over the events of its stream (`run-{run_id}`).

The state holds only what decisions need. Every time in it comes from an event's
`occurred_at`, so folding the same events always gives the same state, and a decision taken
again after a crash is the same decision.

Attempts: a step's `attempt` is the one pending, running or last finished. Only an answer
for that attempt moves the step (a late StepCompleted from an attempt the supervisor already
timed out is recorded in the log and ignored here, exactly as the todo projection does).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal
from uuid import UUID

from contracts import REGISTRY, Envelope, Event
from contracts.gateway import (
    InputProvided,
    PlanApproved,
    PlanRejected,
    QueryReceived,
    RunCancelRequested,
    StepSkipRequested,
)
from contracts.planner import PlanReady
from contracts.results import Question, StepResult
from contracts.steps import StepInputs, plan_inputs
from contracts.supervisor import (
    InputRequested,
    PlanApprovalRequested,
    ResponseReady,
    RunCancelled,
    RunFailed,
    StepRetried,
    StepSkipped,
    StepStarted,
    StepTimedOut,
)
from contracts.teams import StepCompleted, StepFailed
from contracts.values import FINISHED_STEPS, Intent, PlanStep, StepError, StepStatus

Approval = Literal["not_asked", "requested", "approved", "rejected"]
Outcome = Literal["answered", "failed", "cancelled", "rejected"]


@dataclass(frozen=True)
class StepState:
    spec: PlanStep
    status: StepStatus = "pending"
    attempt: int = 1
    started_at: datetime | None = None
    timeout_s: float | None = None
    retry_due_at: datetime | None = None
    result: StepResult | None = None
    result_event: UUID | None = None  # the StepCompleted holding `result`: dispatches name it, not copy it
    error: StepError | None = None
    retryable: bool = False
    failures: int = 0  # failed attempts so far: the retry budget (input rounds also add attempts)
    skip_requested: bool = False
    questions: list[Question] = field(default_factory=list)  # what the step waits to be told
    input_requested: bool = False
    answers: dict[str, str] = field(default_factory=dict)  # every answer given, later ones winning
    replies: list[str] = field(default_factory=list)  # what the person typed when answering, oldest first

    @property
    def inputs(self) -> StepInputs:
        """The planned inputs, typed (the plan events carry them as a dict)."""
        return plan_inputs(self.spec.inputs)

    @property
    def deadline(self) -> datetime | None:
        if self.status != "in_progress" or self.started_at is None or self.timeout_s is None:
            return None
        return self.started_at + timedelta(seconds=self.timeout_s)

    @property
    def can_retry(self) -> bool:
        return self.status == "failed" and self.retryable and self.failures < self.spec.max_attempts

    @property
    def awaiting_input(self) -> bool:
        """Completed, but with questions the person has not answered yet."""
        return self.status == "completed" and bool(self.questions)


@dataclass(frozen=True)
class RunState:
    run_id: str
    session_id: str | None = None
    query: str = ""
    require_approval: bool = False
    version: int = 0  # the stream version folded so far: decisions are appended expecting it
    planned: bool = False
    intent: Intent | None = None
    strategy: str = "sequential"
    mode: str = "rules"
    steps: dict[str, StepState] = field(default_factory=dict)
    approval: Approval = "not_asked"
    cancel_requested: bool = False
    cancel_reason: str | None = None
    input_rounds: int = 0  # InputRequested so far: bounded by RunLimits.max_input_rounds
    outcome: Outcome | None = None

    def with_step(self, step_id: str, **changes: Any) -> RunState:
        if step_id not in self.steps:
            return self
        return replace(self, steps={**self.steps, step_id: replace(self.steps[step_id], **changes)})

    @property
    def next_deadline(self) -> datetime | None:
        """The earliest deadline the run waits on: a running step's timeout or a failed step's backoff."""
        if self.outcome is not None:
            return None
        deadlines = [s.deadline for s in self.steps.values() if s.deadline is not None]
        retries = [s.retry_due_at for s in self.steps.values() if s.status == "pending" and s.retry_due_at]
        return min([*deadlines, *retries], default=None)

    @property
    def waits_for_person(self) -> bool:
        """Held by the person alone: a plan waiting for approval, or a step's questions asked of them."""
        if self.outcome is not None:
            return False
        asked = any(s.awaiting_input and s.input_requested for s in self.steps.values())
        return self.approval == "requested" or asked

    def running(self, step_id: str, attempt: int) -> bool:
        """Whether an answer for this attempt of this step is the one the run waits for."""
        step = self.steps.get(step_id)
        return step is not None and step.status == "in_progress" and step.attempt == attempt


def _planned_steps(steps: Iterable[PlanStep]) -> dict[str, StepState]:
    return {s.step_id: StepState(spec=s) for s in steps}


def evolve(state: RunState, event: Event, at: datetime, event_id: UUID | None = None) -> RunState:
    """The run after one more event; events the supervisor does not need leave it as it was. `event_id`:
    the stored event's (`fold` gives it; the supervisor's own decisions, evolved before they are stored,
    need none), so a step's result is known with the event that holds it."""
    match event:
        case QueryReceived():
            return replace(state, query=event.query, require_approval=event.options.require_approval)
        case PlanReady():
            return replace(
                state,
                planned=True,
                intent=event.intent,
                strategy=event.strategy,
                mode=event.mode,
                steps=_planned_steps(event.steps),
            )
        case PlanApprovalRequested():
            return replace(state, approval="requested")
        case PlanApproved():
            approved = replace(state, approval="approved")
            if event.modified_steps is not None:
                approved = replace(approved, steps=_planned_steps(event.modified_steps))
            return approved
        case PlanRejected():
            return replace(state, approval="rejected", outcome=state.outcome or "rejected")
        case StepStarted():
            step = state.steps.get(event.step_id)
            if step is None or step.status in FINISHED_STEPS:
                return state
            return state.with_step(
                event.step_id,
                status="in_progress",
                attempt=event.attempt,
                started_at=at,
                timeout_s=event.timeout_s,
                retry_due_at=None,
            )
        case StepCompleted() if state.running(event.step_id, event.attempt):
            return state.with_step(
                event.step_id,
                status="completed",
                result=event.result,
                result_event=event_id,
                error=None,
                questions=list(event.result.questions) if event.result.needs_input else [],
                input_requested=False,
            )
        case StepFailed() if state.running(event.step_id, event.attempt):
            return _failed(state, event.step_id, event.error, event.retryable)
        case StepTimedOut() if state.running(event.step_id, event.attempt):
            error = StepError(code="timeout", message=f"{event.timeout_s:g}초 안에 끝나지 않았습니다")
            return _failed(state, event.step_id, error, True)
        case InputRequested():
            asked = state.with_step(event.step_id, input_requested=True)
            return replace(asked, input_rounds=state.input_rounds + 1)
        case InputProvided():
            return _answered(state, event.step_id, event.answers, event.message)
        case StepRetried():
            due = at + timedelta(seconds=event.delay_s)
            return state.with_step(
                event.step_id, status="pending", attempt=event.next_attempt, retry_due_at=due
            )
        case StepSkipRequested():
            return state.with_step(event.step_id, skip_requested=True)
        case StepSkipped():
            step = state.steps.get(event.step_id)
            if step is None or (step.status in FINISHED_STEPS and not step.awaiting_input):
                return state
            return state.with_step(event.step_id, status="skipped", questions=[])
        case RunCancelRequested():
            return replace(state, cancel_requested=True, cancel_reason=event.reason)
        case RunCancelled():
            return replace(state, outcome=state.outcome or "cancelled")
        case ResponseReady():
            return replace(state, outcome=state.outcome or "answered")
        case RunFailed():
            return replace(state, outcome=state.outcome or "failed")
    return state


def _failed(state: RunState, step_id: str, error: StepError, retryable: bool) -> RunState:
    failures = state.steps[step_id].failures + 1
    return state.with_step(step_id, status="failed", error=error, retryable=retryable, failures=failures)


def _answered(state: RunState, step_id: str, answers: dict[str, str], message: str | None) -> RunState:
    """The person's answers put a step that asked for them back in line, on its next attempt, with the
    sentence they were typed in (which may correct what the question said)."""
    step = state.steps.get(step_id)
    if step is None or not step.awaiting_input:
        return state
    return state.with_step(
        step_id,
        status="pending",
        attempt=step.attempt + 1,
        answers={**step.answers, **answers},
        replies=[*step.replies, message] if message else step.replies,
        questions=[],
        input_requested=False,
        result=None,
        result_event=None,
    )


def fold(run_id: str, envelopes: Iterable[Envelope], start: RunState | None = None) -> RunState:
    """Fold a run's stored events (in stream order) into its state, counting the stream version."""
    state = start or RunState(run_id=run_id)
    for envelope in envelopes:
        if state.session_id is None and envelope.session_id:
            state = replace(state, session_id=envelope.session_id)
        event = REGISTRY.parse(envelope.event_type, envelope.schema_version, envelope.data)
        moved = evolve(state, event, envelope.occurred_at, envelope.event_id)
        state = replace(moved, version=state.version + 1)
    return state
