"""What the person is told about each event: a pure mapping from a recorded event to a server message,
built from the published protocol's models (contracts/websocket.py) and sent as their JSON.

One event gives at most one message, carrying the event's position, so a position names exactly one
message and a client's `resume {after_position}` is exact. That is why `execution_start` carries the
todo too: it stands for the run's first StepStarted (or its PlanApproved), which would otherwise also
be a `todo_updated` at the same position.

What the mapping cannot see in the event itself comes in `RunFacts`: the run's todo as projected
(at or past the event, since the follower never reads beyond the projector's checkpoint), the
position of the event that began the run's execution, whether the run's question asked for approval
and the run's plan.

The approval is part of `plan_ready` (DESIGN.md section 6 names no other frame for it): a run that
waits for approval is shown its plan once, by its PlanApprovalRequested, with `requires_approval` true
and the prompt; its PlanReady then gives no message. Any other run is shown its plan by its PlanReady,
with `requires_approval` false. Which runs wait is the supervisor's rule (decide.py): asked for
approval and a plan with steps. Sending the waiting plan at the request's own position means a client
that resumes from anywhere before it is still told that the run waits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, cast

from contracts.gateway import InputProvided, PlanApproved, PlanRejected, QueryReceived
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
from contracts.websocket import (
    STORE_UNAVAILABLE_CODE,
    AnswerData,
    Approval,
    ApprovalAction,
    ConnectedMessage,
    ErrorMessage,
    ExecutionStartMessage,
    FinalResponse,
    FinalResponseMessage,
    InputReceived,
    InputRequestMessage,
    PlanningStartMessage,
    PlanReadyMessage,
    PongMessage,
    ServerMessage,
    TodoStep,
    TodoUpdatedMessage,
    sent,
)
from services.platform.eventstore import Recorded

Message = dict[str, Any]
# The events whose first occurrence in a run begins its execution (`execution_start`).
EXECUTION_BEGINNINGS = (PlanApproved.event_type, StepStarted.event_type)
STEP_CHANGES = tuple(
    e.event_type for e in (StepStarted, StepCompleted, StepFailed, StepTimedOut, StepRetried, StepSkipped)
)
APPROVAL_PROMPT = "이 계획으로 진행할까요? 승인(approve), 수정(modify) 또는 거절(reject)해 주세요."
APPROVAL_ACTIONS: tuple[ApprovalAction, ...] = ("approve", "modify", "reject")
REJECTED_ANSWER = "계획이 거절되어 실행하지 않았습니다."
CANCELLED_ANSWER = "요청하신 대로 실행을 취소했습니다."
FAILED_ANSWER = "죄송합니다. 요청을 처리하지 못했습니다"  # then ": " and the reason, which says what to do
# Told once per outage to a socket with a run in flight (follower.py): an `error` that refuses nothing
# (STORE_UNAVAILABLE_CODE), since the run waits for the store and goes on when it is back.
STORE_UNAVAILABLE = "일시적으로 저장소에 연결할 수 없어 잠시 후 이어갑니다"
# A frame that arrived while the store was unreachable: nothing was recorded, it may be sent again.
STORE_REFUSED = "일시적으로 저장소에 연결할 수 없어 요청을 받지 못했습니다. 잠시 후 다시 보내 주세요"


class At(TypedDict):
    """What every message about an event carries: its run and its position."""

    run_id: str
    position: int


@dataclass(frozen=True)
class TodoSnapshot:
    """A run's todo as the projection holds it: steps in `todo_updated` shape and the progress."""

    progress_pct: int
    steps: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class RunFacts:
    todo: TodoSnapshot | None = None
    execution_began_at: int | None = None
    approval_asked: bool = False  # the run's question asked for approval (its QueryReceived's option)
    plan: PlanReady | None = None  # the run's plan, which its PlanApprovalRequested shows


# The events whose message shows the run's todo as the projection holds it (RunFacts.todo).
SHOWING_TODO = (*STEP_CHANGES, PlanApproved.event_type, InputProvided.event_type)


def messages_for(record: Recorded, facts: RunFacts) -> list[Message]:
    """The message this event gives the person (none for events the person is not shown)."""
    event_type = record.envelope.event_type
    at = At(run_id=record.envelope.correlation_id, position=record.position)
    message: ServerMessage | None
    if event_type in STEP_CHANGES or event_type == PlanApproved.event_type:
        message = _execution_news(record, facts, at)
    elif event_type == PlanReady.event_type:
        message = _plan_ready(cast(PlanReady, record.event()), facts, at)
    elif event_type == PlanApprovalRequested.event_type:
        message = _plan_awaiting_approval(cast(PlanApprovalRequested, record.event()), facts, at)
    elif event_type == InputProvided.event_type:
        message = _input_received(cast(InputProvided, record.event()), facts, at)
    elif event_type in _FROM_PAYLOAD:
        message = _FROM_PAYLOAD[event_type](record.event(), at)
    else:
        return []
    return [] if message is None else [sent(message)]


def execution_beginnings(records: Iterable[Recorded]) -> dict[str, int]:
    """Per run, the position of the event that began its execution (the same rule the follower asks SQL)."""
    began: dict[str, int] = {}
    for record in records:
        if record.envelope.event_type in EXECUTION_BEGINNINGS:
            began.setdefault(record.envelope.correlation_id, record.position)
    return began


def plan_facts(records: Iterable[Recorded]) -> dict[str, dict[str, Any]]:
    """Per run, what its plan's message needs from its other events, where `records` hold them: whether
    its question asked for approval and its plan (the same facts the follower reads from the log)."""
    found: dict[str, dict[str, Any]] = {}
    for record in records:
        event_type, run = record.envelope.event_type, record.envelope.correlation_id
        if event_type == QueryReceived.event_type:
            question = cast(QueryReceived, record.event())
            found.setdefault(run, {})["approval_asked"] = question.options.require_approval
        elif event_type == PlanReady.event_type:
            found.setdefault(run, {})["plan"] = record.event()
    return found


def waits_for_approval(plan: PlanReady, facts: RunFacts) -> bool:
    """Whether the supervisor asks the person about this plan (decide.py: asked for, and steps to run)."""
    return facts.approval_asked and bool(plan.steps)


def planned_step(step: PlanStep) -> TodoStep:
    """A plan's step in the shape of a todo step, before anything has happened to it."""
    return TodoStep(
        step_id=step.step_id,
        team=step.team,
        task=step.task,
        depends_on=list(step.depends_on),
        status="pending",
        attempt=1,
        started_at=None,
        completed_at=None,
        duration_ms=None,
        summary=None,
        error=None,
    )


def _execution_news(record: Recorded, facts: RunFacts, at: At) -> ServerMessage | None:
    todo = facts.todo or TodoSnapshot(progress_pct=0)
    steps = [TodoStep.model_validate(step) for step in todo.steps]
    if record.position == facts.execution_began_at:
        return ExecutionStartMessage(**at, execution_steps=steps, progress_pct=todo.progress_pct)
    approved = record.envelope.event_type == PlanApproved.event_type
    if approved and cast(PlanApproved, record.event()).modified_steps is None:
        return None  # a plain approval after execution began changes no todo
    if not facts.todo:
        return None
    return TodoUpdatedMessage(**at, execution_steps=steps, progress_pct=todo.progress_pct)


def _planning_start(event: QueryReceived, at: At) -> PlanningStartMessage:
    return PlanningStartMessage(**at, query=event.query, require_approval=event.options.require_approval)


def _plan_ready(event: PlanReady, facts: RunFacts, at: At) -> PlanReadyMessage | None:
    if waits_for_approval(event, facts):
        return None  # shown by the run's PlanApprovalRequested, with the approval prompt
    return _plan_message(event, event.steps, at, requires_approval=False)


def _plan_awaiting_approval(event: PlanApprovalRequested, facts: RunFacts, at: At) -> PlanReadyMessage:
    return _plan_message(facts.plan, event.steps, at, requires_approval=True)


def _plan_message(
    plan: PlanReady | None, steps: list[PlanStep], at: At, *, requires_approval: bool
) -> PlanReadyMessage:
    """`plan_ready`: the plan, whether the run waits for the person's answer and, if so, the question.
    The plan is the run's PlanReady; without it (never, as the planner writes it before any request),
    the steps asked about are still shown."""
    intent = plan.intent if plan else None
    approval = (
        Approval(message=APPROVAL_PROMPT, actions=list(APPROVAL_ACTIONS)) if requires_approval else None
    )
    return PlanReadyMessage(
        **at,
        intent=intent.type if intent else None,
        confidence=intent.confidence if intent else None,
        keywords=list(intent.keywords) if intent else [],
        entities=intent.entities.model_dump(mode="json", exclude_defaults=True) if intent else {},
        strategy=plan.strategy if plan else None,
        execution_steps=[planned_step(s) for s in steps],
        estimated_total_time=plan.estimated_total_s if plan else None,
        mode=plan.mode if plan else None,
        requires_approval=requires_approval,
        approval=approval,
    )


def _input_request(event: InputRequested, at: At) -> InputRequestMessage:
    return InputRequestMessage(**at, step_id=event.step_id, questions=event.questions, message=event.message)


def _input_received(event: InputProvided, facts: RunFacts, at: At) -> TodoUpdatedMessage:
    """The form answered (by the form, or by a message the person typed, which the page shows in the
    run's turn instead of as a new question): a `todo_updated`, as the step goes back in line, with the
    answers in `input_received`. DESIGN.md section 6 names no frame of its own for it, and a client
    written to it reads any other frame whose type speaks of input as a request for input."""
    todo = facts.todo or TodoSnapshot(progress_pct=0)
    return TodoUpdatedMessage(
        **at,
        execution_steps=[TodoStep.model_validate(step) for step in todo.steps],
        progress_pct=todo.progress_pct,
        input_received=InputReceived(
            step_id=event.step_id, answers=dict(event.answers), message=event.message
        ),
    )


def _answer(event: ResponseReady, at: At) -> FinalResponseMessage:
    data = AnswerData(
        listings=event.listings,
        citations=event.citations,
        insights=event.insights,
        documents=event.documents,
        failed_steps=event.failed_steps,
        metadata=event.metadata,
    )
    return _final(at, event.response_type, event.answer, data)


def _run_failed(event: RunFailed, at: At) -> FinalResponseMessage:
    return _final(at, "error", f"{FAILED_ANSWER}: {event.reason}", AnswerData(metadata={"code": event.code}))


def _run_cancelled(event: RunCancelled, at: At) -> FinalResponseMessage:
    metadata = {"reason": event.reason, "by": event.requested_by}
    return _final(at, "guidance", CANCELLED_ANSWER, AnswerData(metadata=metadata))


def _plan_rejected(event: PlanRejected, at: At) -> FinalResponseMessage:
    return _final(at, "guidance", REJECTED_ANSWER, AnswerData(metadata={"reason": event.reason}))


def _final(
    at: At, response_type: Literal["answer", "guidance", "error"], content: str, data: AnswerData
) -> FinalResponseMessage:
    return FinalResponseMessage(**at, response=FinalResponse(type=response_type, content=content, data=data))


_FROM_PAYLOAD: dict[str, Callable[[Any, At], ServerMessage]] = {
    QueryReceived.event_type: _planning_start,
    InputRequested.event_type: _input_request,
    ResponseReady.event_type: _answer,
    RunFailed.event_type: _run_failed,
    RunCancelled.event_type: _run_cancelled,
    PlanRejected.event_type: _plan_rejected,
}


def connected(session_id: str, head: int) -> Message:
    """The first message on a socket: the log's head, from which it goes on live unless it resumes."""
    return sent(ConnectedMessage(position=head, session_id=session_id, head=head))


def error(code: str, message: str, run_id: str | None = None) -> Message:
    """A refused frame or request; it reflects no event, so it has no position."""
    return sent(ErrorMessage(run_id=run_id, code=code, message=message))


def store_unavailable(run_id: str) -> Message:
    """The store is unreachable while `run_id` is in flight: it waits, and goes on when the store is back."""
    return error(STORE_UNAVAILABLE_CODE, STORE_UNAVAILABLE, run_id)


def pong() -> Message:
    return sent(PongMessage())
