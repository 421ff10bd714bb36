"""What a run waits for from its person, folded from its stream (`run-{run_id}`): the check a person's
request passes before the gateway records it.

The supervisor decides what a recorded request means; this fold keeps the gateway from recording what
can mean nothing: a request about a run that has ended, an answer to a question nobody asked, the same
answer twice. A check alone cannot stop two sockets that both read the run before either records, so
the handler appends expecting the stream version folded here (handlers.py): of two identical requests
one is recorded, and the other, reading the run again, is refused by this fold.

Pure: events in, state out, and each check raises FrameError with the reason the client is told.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from contracts import Envelope
from contracts.gateway import (
    InputProvided,
    PlanApproved,
    PlanRejected,
    QueryReceived,
    RunCancelRequested,
    StepSkipRequested,
)
from contracts.planner import PlanReady
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
from contracts.values import PlanStep
from services.gateway.frames.protocol import FrameError, quoted
from services.platform.eventstore import Recorded

# The events that end a run, and the word the client is told.
ENDINGS = {
    ResponseReady.event_type: "answered",
    RunFailed.event_type: "failed",
    RunCancelled.event_type: "cancelled",
    PlanRejected.event_type: "rejected",
}


@dataclass
class StepWaits:
    attempt: int = 1
    status: str = "pending"  # pending | in_progress | completed | failed | skipped
    asks: bool = False  # completed with questions for the person (the supervisor's awaiting_input)
    asked: Envelope | None = None  # its InputRequested not yet answered
    answered: bool = False  # its last InputRequested has its InputProvided
    skip_requested: bool = False


@dataclass
class RunWaits:
    run_id: str
    version: int = 0  # the stream version folded: the request is appended expecting it
    first: Envelope | None = None  # QueryReceived: its session owns the run
    approval_wanted: bool = False
    planned: bool = False
    approval_request: Envelope | None = None  # PlanApprovalRequested not yet answered
    plan_answered: bool = False
    steps: dict[str, StepWaits] = field(default_factory=dict)
    cancel_requested: bool = False
    ended: str | None = None

    @property
    def session_id(self) -> str | None:
        return self.first.session_id if self.first else None

    @property
    def approval_may_come(self) -> bool:
        """Asked for, not yet requested by the supervisor (it appends the request right after the plan;
        a plan without steps is answered without asking)."""
        unasked = self.approval_request is None and not self.plan_answered and self.ended is None
        return self.approval_wanted and unasked and not (self.planned and not self.steps)

    def check_open(self) -> None:
        if self.ended is not None:
            run = quoted(self.run_id)
            raise FrameError("run_finished", f"run {run} has ended ({self.ended}); it takes no more requests")

    def approval_request_to_answer(self) -> Envelope:
        self.check_open()
        if self.approval_request is not None:
            return self.approval_request
        run = quoted(self.run_id)
        if self.plan_answered:
            raise FrameError("already_answered", f"the plan of run {run} was answered already")
        raise FrameError("not_awaiting_approval", f"run {run} has no plan waiting for approval")

    def input_request_to_answer(self, step_id: str) -> Envelope:
        self.check_open()
        step = self.steps.get(step_id)
        if step is not None and step.asked is not None:
            return step.asked
        where = f"step {quoted(step_id)} of run {quoted(self.run_id)}"
        if step is not None and step.answered:
            raise FrameError("already_answered", f"{where} has its answer already")
        raise FrameError("not_awaiting_input", f"{where} is not waiting for input")

    def check_skippable(self, todo_id: str) -> None:
        self.check_open()
        step = self.steps.get(todo_id)
        where = f"todo {quoted(todo_id)} of run {quoted(self.run_id)}"
        if step is None:
            raise FrameError("unknown_todo", f"there is no {where}")
        if step.skip_requested:
            raise FrameError("already_skipping", f"{where} is being skipped already")
        if step.status == "skipped" or (step.status == "completed" and not step.asks):
            raise FrameError("todo_finished", f"{where} has finished ({step.status})")

    def check_cancellable(self) -> None:
        self.check_open()
        if self.cancel_requested:
            raise FrameError("already_cancelling", f"run {quoted(self.run_id)} is being cancelled already")


def fold(run_id: str, records: Iterable[Recorded]) -> RunWaits:
    """The run after its stored events, in stream order."""
    waits = RunWaits(run_id)
    for record in records:
        waits.version += 1
        _evolve(waits, record.envelope, record.event())
    return waits


def _evolve(waits: RunWaits, envelope: Envelope, event: object) -> None:
    match event:
        case QueryReceived():
            waits.first = waits.first or envelope
            waits.approval_wanted = event.options.require_approval
        case PlanReady():
            waits.planned, waits.steps = True, _planned(event.steps)
        case PlanApprovalRequested():
            waits.approval_request = envelope
        case PlanApproved() | PlanRejected():
            waits.approval_request, waits.plan_answered = None, True
            if isinstance(event, PlanApproved) and event.modified_steps is not None:
                waits.steps = _planned(event.modified_steps)
        case StepStarted():
            _step(waits, event.step_id, status="in_progress", attempt=event.attempt)
        case StepCompleted() if _running(waits, event.step_id, event.attempt):
            _step(waits, event.step_id, status="completed", asks=event.result.needs_input)
        case StepFailed() | StepTimedOut() if _running(waits, event.step_id, event.attempt):
            _step(waits, event.step_id, status="failed")
        case StepRetried():
            _step(waits, event.step_id, status="pending", attempt=event.next_attempt)
        case StepSkipRequested():
            _step(waits, event.step_id, skip_requested=True)
        case StepSkipped():
            _step(waits, event.step_id, status="skipped", asks=False, asked=None)
        case InputRequested():
            _step(waits, event.step_id, asked=envelope, answered=False)
        case InputProvided():
            _answered(waits, event.step_id)
        case RunCancelRequested():
            waits.cancel_requested = True
    if envelope.event_type in ENDINGS:
        waits.ended = waits.ended or ENDINGS[envelope.event_type]


def _planned(steps: list[PlanStep]) -> dict[str, StepWaits]:
    return {step.step_id: StepWaits() for step in steps}


def _running(waits: RunWaits, step_id: str, attempt: int) -> bool:
    """Only the answer of the attempt in progress moves a step (not a late one of a timed-out attempt)."""
    step = waits.steps.get(step_id)
    return step is not None and step.status == "in_progress" and step.attempt == attempt


def _step(waits: RunWaits, step_id: str, **changes: object) -> None:
    if (step := waits.steps.get(step_id)) is not None:
        for name, value in changes.items():
            setattr(step, name, value)


def _answered(waits: RunWaits, step_id: str) -> None:
    """Answered, the step goes back in line on its next attempt (as the supervisor folds it)."""
    if (step := waits.steps.get(step_id)) is None:
        return
    if step.asks:
        _step(waits, step_id, status="pending", attempt=step.attempt + 1, asks=False)
    _step(waits, step_id, asked=None, answered=True)
