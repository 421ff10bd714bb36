"""What the person asks for, recorded as events of their run (stream `run-{run_id}`, correlation = run).

Pure: these functions take the frame and what the run holds already and return envelopes; the socket
handler appends them. The supervisor decides what a request means (a skip may come too late); the
gateway only records that it was asked.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import uuid4

from pydantic import TypeAdapter, ValidationError

from contracts import Envelope, Event, new_envelope, run_stream
from contracts.gateway import (
    InputProvided,
    PlanApproved,
    PlanRejected,
    QueryOptions,
    QueryReceived,
    RunCancelRequested,
    StepSkipRequested,
)
from contracts.values import PlanStep
from services.gateway.frames.protocol import (
    FrameError,
    InterruptResponseFrame,
    QueryFrame,
    TodoSkipFrame,
    describe,
)

_steps = TypeAdapter(list[PlanStep])
# What a person may change in a todo; the rest of a step (its inputs, timeout) stays the planner's.
EDITABLE = ("team", "task", "depends_on")


def _envelope(
    event: Event,
    run_id: str,
    session_id: str,
    cause: Envelope | None,
    occurred_at: datetime | None = None,
    person_id: str | None = None,
) -> Envelope:
    return new_envelope(
        event,
        stream_id=run_stream(run_id),
        correlation_id=run_id,
        causation=cause,
        session_id=session_id,
        person_id=person_id,
        occurred_at=occurred_at,
    )


def query_received(frame: QueryFrame, session_id: str, person_id: str | None = None) -> Envelope:
    """A new run's question; a person's session (`person_id`) makes it, and all it causes, theirs."""
    run_id = uuid4().hex
    options = QueryOptions(require_approval=frame.require_approval)
    question = QueryReceived(run_id=run_id, query=frame.query, options=options)
    return _envelope(question, run_id, session_id, None, person_id=person_id)


def plan_answered(frame: InterruptResponseFrame, session_id: str, asked: Envelope) -> Envelope:
    """PlanApproved (with the edited steps for `modify`) or PlanRejected, caused by the approval request."""
    run_id = _resolved(frame.run_id)
    if frame.action == "reject":
        return _envelope(PlanRejected(run_id=run_id, reason=frame.reason), run_id, session_id, asked)
    steps = None
    if frame.action == "modify":
        planned = _steps.validate_python(asked.data["steps"])
        steps = edited_steps(planned, frame.modified_todos)
    return _envelope(PlanApproved(run_id=run_id, modified_steps=steps), run_id, session_id, asked)


def skip_requested(frame: TodoSkipFrame, session_id: str, cause: Envelope | None) -> Envelope:
    run_id = _resolved(frame.run_id)
    return _envelope(StepSkipRequested(run_id=run_id, step_id=frame.todo_id), run_id, session_id, cause)


def _resolved(run_id: str | None) -> str:
    """A frame's run: an older client's frame names none, and the handler fills in the session's one
    waiting run before the event is made."""
    assert run_id is not None, "the handler resolves the frame's run first"
    return run_id


def input_provided(
    asked: Envelope,
    answers: dict[str, str],
    session_id: str,
    message: str | None = None,
    occurred_at: datetime | None = None,
) -> Envelope:
    """The answers to `asked` (an InputRequested): from the form, or read from the `message` typed (at
    `occurred_at`, the time its relative dates were read against)."""
    run_id, step_id = asked.correlation_id, asked.data["step_id"]
    event = InputProvided(run_id=run_id, step_id=step_id, answers=answers, message=message)
    return _envelope(event, run_id, session_id, asked, occurred_at)


def cancel_requested(run_id: str, session_id: str, cause: Envelope | None, reason: str | None) -> Envelope:
    return _envelope(RunCancelRequested(run_id=run_id, reason=reason), run_id, session_id, cause)


def edited_steps(planned: list[PlanStep], todos: list[dict[str, Any]] | None) -> list[PlanStep]:
    """The plan as the person edited it: their todos in their order, each over the planned step of the
    same id (so its inputs survive), a new id being a new step. FrameError says what is wrong."""
    if not todos:
        raise FrameError("invalid_plan", "`modify` needs `modified_todos`, the edited list of todos")
    # Looked up with whatever the person sent as a step_id (a number, null, a list: TypeError below).
    by_id: dict[object, dict[str, Any]] = {step.step_id: step.model_dump() for step in planned}
    try:
        merged = [
            {
                **by_id.get(todo.get("step_id"), {}),
                **{k: todo[k] for k in (*EDITABLE, "step_id") if k in todo},
            }
            for todo in todos
        ]
        steps = _steps.validate_python(merged)
    except TypeError:  # a step_id that is not a string (a list, an object) cannot name a planned step
        raise FrameError("invalid_plan", "a todo's step_id must be a string") from None
    except ValidationError as invalid:
        raise FrameError(
            "invalid_plan", f"the edited todos are not a valid plan: {describe(invalid)}"
        ) from None
    _check_graph(steps)
    return steps


def _check_graph(steps: list[PlanStep]) -> None:
    ids = [s.step_id for s in steps]
    if len(set(ids)) != len(ids):
        raise FrameError("invalid_plan", "two todos have the same step_id")
    unknown = sorted({d for s in steps for d in s.depends_on} - set(ids))
    if unknown:
        raise FrameError("invalid_plan", f"depends_on names steps not in the plan: {', '.join(unknown)}")
    if _has_cycle(steps):
        raise FrameError("invalid_plan", "depends_on goes round in a circle: no step could ever start")


def _has_cycle(steps: list[PlanStep]) -> bool:
    """Peel off steps whose dependencies are all done; whatever is left waits on itself."""
    waiting = {s.step_id: set(s.depends_on) for s in steps}
    while ready := [step for step, needs in waiting.items() if not needs]:
        for step in ready:
            del waiting[step]
        for needs in waiting.values():
            needs.difference_update(ready)
    return bool(waiting)
