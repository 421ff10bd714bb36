"""The todo projection: each run's steps as the person watches them move (feeds `todo_updated`).

Rules a reader of the todo can rely on:
- the steps are the plan's (PlanReady), replaced by the person's edit when
  PlanApproved carries modified steps;
- events about a step the plan does not have (a superseded plan's) are ignored;
- only a step in progress can finish, and only with the attempt it is on, so a
  late answer from an attempt the supervisor already gave up on changes nothing;
- StepRetried puts a failed step back to pending on its next attempt and keeps
  the last error, so the person sees why it runs again;
- InputRequested puts a completed step back to pending with the question as its
  summary: it runs again once the person answers;
- every time comes from the events' `occurred_at`, never the clock, so a
  rebuild produces the same rows as the live build.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from contracts.gateway import PlanApproved
from contracts.planner import PlanReady
from contracts.supervisor import InputRequested, StepRetried, StepSkipped, StepStarted, StepTimedOut
from contracts.teams import StepCompleted, StepFailed
from contracts.values import FINISHED_STEPS, PlanStep, StepStatus, Team
from services.projector.folding import Frozen, Logged, Projected, evolve_with, handler_table


class TodoStep(Frozen):
    step_id: str
    ordinal: int
    team: Team
    task: str
    depends_on: list[str] = []
    status: StepStatus = "pending"
    attempt: int = 1
    started_at: datetime | None = None
    completed_at: datetime | None = None
    duration_ms: float | None = None
    summary: str | None = None
    error: str | None = None


class Todo(Projected):
    run_id: str
    session_id: str | None = None
    steps: list[TodoStep] = Field(default_factory=list)  # a factory: pydantic deep-copies a default

    @property
    def finished_steps(self) -> int:
        return sum(step.status in FINISHED_STEPS for step in self.steps)

    @property
    def progress_pct(self) -> int:
        """Finished steps over all steps; a plan with no steps (guidance) has nothing left to do."""
        if not self.steps:
            return 100
        return round(100 * self.finished_steps / len(self.steps))

    def step(self, step_id: str) -> TodoStep | None:
        return next((s for s in self.steps if s.step_id == step_id), None)


def _planned(run_id: str, session_id: str | None, steps: list[PlanStep]) -> Todo:
    return Todo(
        run_id=run_id,
        session_id=session_id,
        steps=[
            TodoStep(step_id=s.step_id, ordinal=i, team=s.team, task=s.task, depends_on=s.depends_on)
            for i, s in enumerate(steps)
        ],
    )


def _with_step(todo: Todo, step_id: str, **changes: object) -> Todo:
    steps = [s.model_copy(update=changes) if s.step_id == step_id else s for s in todo.steps]
    return todo.model_copy(update={"steps": steps})


def _on_plan_ready(todo: Todo | None, event: PlanReady, record: Logged) -> Todo:
    return _planned(event.run_id, record.session_id, event.steps)


def _on_plan_approved(todo: Todo | None, event: PlanApproved, record: Logged) -> Todo | None:
    if event.modified_steps is None:
        return todo
    return _planned(event.run_id, record.session_id, event.modified_steps)


def _on_step_started(todo: Todo | None, event: StepStarted, record: Logged) -> Todo | None:
    if todo is None or (step := todo.step(event.step_id)) is None or step.status in FINISHED_STEPS:
        return todo
    return _with_step(
        todo,
        event.step_id,
        status="in_progress",
        attempt=event.attempt,
        started_at=record.occurred_at,
    )


def _finishing(todo: Todo, step_id: str, attempt: int) -> bool:
    step = todo.step(step_id)
    return step is not None and step.status == "in_progress" and step.attempt == attempt


def _on_step_completed(todo: Todo | None, event: StepCompleted, record: Logged) -> Todo | None:
    if todo is None or not _finishing(todo, event.step_id, event.attempt):
        return todo
    return _with_step(
        todo,
        event.step_id,
        status="completed",
        completed_at=record.occurred_at,
        duration_ms=event.duration_ms,
        summary=event.summary,
        error=None,
    )


def _on_step_failed(todo: Todo | None, event: StepFailed, record: Logged) -> Todo | None:
    if todo is None or not _finishing(todo, event.step_id, event.attempt):
        return todo
    return _with_step(
        todo,
        event.step_id,
        status="failed",
        completed_at=record.occurred_at,
        duration_ms=event.duration_ms,
        error=event.error.message,
    )


def _on_step_timed_out(todo: Todo | None, event: StepTimedOut, record: Logged) -> Todo | None:
    if todo is None or not _finishing(todo, event.step_id, event.attempt):
        return todo
    return _with_step(
        todo,
        event.step_id,
        status="failed",
        completed_at=record.occurred_at,
        error=f"{event.timeout_s:g}초 안에 끝나지 않았습니다",
    )


def _on_input_requested(todo: Todo | None, event: InputRequested, record: Logged) -> Todo | None:
    if todo is None or (step := todo.step(event.step_id)) is None or step.status != "completed":
        return todo
    return _with_step(todo, event.step_id, status="pending", summary=event.message, completed_at=None)


def _on_step_retried(todo: Todo | None, event: StepRetried, record: Logged) -> Todo | None:
    if todo is None or (step := todo.step(event.step_id)) is None or step.status != "failed":
        return todo
    return _with_step(
        todo,
        event.step_id,
        status="pending",
        attempt=event.next_attempt,
        started_at=None,
        completed_at=None,
        duration_ms=None,
    )


def _on_step_skipped(todo: Todo | None, event: StepSkipped, record: Logged) -> Todo | None:
    if todo is None or (step := todo.step(event.step_id)) is None or step.status in FINISHED_STEPS:
        return todo
    return _with_step(todo, event.step_id, status="skipped", completed_at=record.occurred_at)


_HANDLERS = handler_table(
    {
        PlanReady: _on_plan_ready,
        PlanApproved: _on_plan_approved,
        StepStarted: _on_step_started,
        StepCompleted: _on_step_completed,
        StepFailed: _on_step_failed,
        StepTimedOut: _on_step_timed_out,
        InputRequested: _on_input_requested,
        StepRetried: _on_step_retried,
        StepSkipped: _on_step_skipped,
    }
)


def evolve(todo: Todo | None, record: Logged) -> Todo | None:
    """The run's todo after one more of its events (None until the run has a plan)."""
    return evolve_with(_HANDLERS, todo, record)
