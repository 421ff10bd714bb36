"""The supervisor's decisions: given a run's state and the time, what happens next.

Pure: no I/O, no clock of its own. `decide` is called whenever anything about a run may have
changed (one of its events arrived, or a deadline it waits on passed) and always answers the
same question, "what should be true now that is not yet recorded?", so it does not matter
which trigger arrives first, or twice: a decision already recorded is not taken again, and two
replicas that decide at once are kept apart by the expected stream version.

The order of concerns, each settled before the next is looked at:
cancel -> guidance for an empty plan -> approval -> a step asking once too often -> person's skips ->
timeouts -> retries -> questions for the person -> dispatch -> the end. A step whose result asks the
person something (a contract's missing fields) holds the steps after it and the response until
InputProvided; a run asks at most `RunLimits.max_input_rounds` times, then ends with RunFailed.

The end: a run whose steps have all settled is answered (ResponseReady) when at least one step
completed, so the person gets what there is and is told what failed. When none completed and at
least one failed there is nothing to answer with: the run ends with RunFailed(steps_failed). (A run
whose every step the person skipped is still answered: a ResponseReady saying nothing was done.)
ending.py lists every cause of RunFailed; the ones no event triggers are the watchdog's.

Decisions are applied to the state as they are made and the loop runs
until nothing more is to be done, so one call can time a step out, schedule its retry, skip
the steps that depended on a step that finally failed, and answer the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from contracts import Event
from contracts.supervisor import (
    InputRequested,
    PlanApprovalRequested,
    RunCancelled,
    StepRetried,
    StepSkipped,
    StepStarted,
    StepTimedOut,
)
from contracts.values import FINISHED_STEPS
from services.supervisor.ending import DEFAULT_LIMITS, RunLimits, steps_failed, too_many_input_rounds
from services.supervisor.run import RunState, StepState, evolve

MAX_ROUNDS = 100  # a plan has at most a few dozen steps; each round records at least one decision


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff between attempts of a failed step: first_delay_s, doubling, capped."""

    first_delay_s: float = 1.0
    max_delay_s: float = 30.0

    def delay(self, failed_attempt: int) -> float:
        return min(self.max_delay_s, self.first_delay_s * 2 ** (failed_attempt - 1))


@dataclass(frozen=True)
class Decision:
    events: list[Event]
    state: RunState  # the run with those events applied
    respond: bool  # every step is settled: compose and record the response
    wake_at: datetime | None  # the next deadline this run waits on, if any


def decide(
    state: RunState, now: datetime, policy: RetryPolicy = RetryPolicy(), limits: RunLimits = DEFAULT_LIMITS
) -> Decision:
    events: list[Event] = []
    for _ in range(MAX_ROUNDS):
        made = _next_decisions(state, now, policy, limits)
        if not made:
            break
        for event in made:
            state = evolve(state, event, now)
        events.extend(made)
    return Decision(events, state, _ready_to_respond(state), state.next_deadline)


def _next_decisions(state: RunState, now: datetime, policy: RetryPolicy, limits: RunLimits) -> list[Event]:
    if state.outcome is not None or not state.planned:
        return []
    if state.cancel_requested:
        reason = state.cancel_reason or "사용자가 실행을 취소했습니다"
        return [RunCancelled(run_id=state.run_id, reason=reason)]
    if state.require_approval and state.steps and state.approval != "approved":
        return _approval(state)
    if _asks_once_too_often(state, limits):
        return [too_many_input_rounds(state, limits)]
    for rule in _STEP_RULES:
        if made := rule(state, now, policy):
            return made
    return [steps_failed(state)] if _nothing_to_answer_with(state) else []


def _approval(state: RunState) -> list[Event]:
    if state.approval == "not_asked":
        return [PlanApprovalRequested(run_id=state.run_id, steps=[s.spec for s in state.steps.values()])]
    return []  # requested: the run waits for the person and holds nothing meanwhile


def _asks_once_too_often(state: RunState, limits: RunLimits) -> bool:
    """A step asks again after the run has asked `max_input_rounds` times (one the person skips is let go)."""
    return state.input_rounds >= limits.max_input_rounds and any(
        s.awaiting_input and not s.input_requested and not s.skip_requested for s in state.steps.values()
    )


def _nothing_to_answer_with(state: RunState) -> bool:
    steps = state.steps.values()
    settled = bool(steps) and all(_settled(s) for s in steps)
    return (
        settled
        and not any(s.status == "completed" for s in steps)
        and any(s.status == "failed" for s in steps)
    )


def _skips(state: RunState, now: datetime, policy: RetryPolicy) -> list[Event]:
    return [
        StepSkipped(run_id=state.run_id, step_id=step_id, reason="사용자가 건너뛰었습니다")
        for step_id, step in state.steps.items()
        if step.skip_requested and (step.status not in FINISHED_STEPS or step.awaiting_input)
    ]


def _timeouts(state: RunState, now: datetime, policy: RetryPolicy) -> list[Event]:
    return [
        StepTimedOut(run_id=state.run_id, step_id=step_id, attempt=step.attempt, timeout_s=step.timeout_s)
        for step_id, step in state.steps.items()
        # A deadline is set only for a started step with a time limit (StepState.deadline).
        if step.deadline is not None and step.timeout_s is not None and step.deadline <= now
    ]


def _retries(state: RunState, now: datetime, policy: RetryPolicy) -> list[Event]:
    return [
        StepRetried(
            run_id=state.run_id,
            step_id=step_id,
            next_attempt=step.attempt + 1,
            delay_s=policy.delay(step.attempt),
            reason=step.error.message if step.error else "실패",
        )
        for step_id, step in state.steps.items()
        if step.can_retry
    ]


def _input_requests(state: RunState, now: datetime, policy: RetryPolicy) -> list[Event]:
    return [
        InputRequested(
            run_id=state.run_id,
            step_id=step_id,
            questions=step.questions,
            message=_asking(step),
        )
        for step_id, step in state.steps.items()
        if step.awaiting_input and not step.input_requested
    ]


def _asking(step: StepState) -> str:
    """What the person reads above the questions: the step's own headline, else its task."""
    headline = step.result.headline if step.result else None
    return headline or f"{step.spec.task}: 알려 주실 내용이 있습니다"


def _dispatches(state: RunState, now: datetime, policy: RetryPolicy) -> list[Event]:
    """Start every pending step whose prerequisites are settled; skip one whose dependency failed."""
    made: list[Event] = []
    for step_id, step in state.steps.items():
        if step.status != "pending" or (step.retry_due_at is not None and step.retry_due_at > now):
            continue
        failed = [d for d in step.spec.depends_on if d in state.steps and state.steps[d].status == "failed"]
        needs = [state.steps[d] for d in _prerequisites(state, step_id)]
        if failed:
            reason = f"선행 단계 {', '.join(failed)} 실패"
            made.append(StepSkipped(run_id=state.run_id, step_id=step_id, reason=reason))
        elif all(_settled(n) for n in needs):
            made.append(_started(state, step, needs))
    return made


def _settled(step: StepState) -> bool:
    return step.status in FINISHED_STEPS and not step.awaiting_input


def _prerequisites(state: RunState, step_id: str) -> list[str]:
    """The steps this one waits for: its dependencies, and under "sequential" every step before it.

    Only a failed *declared* dependency skips a step: under "sequential" an earlier step is waited
    for but may fail without taking the later ones with it (they may not need its result)."""
    declared = [d for d in state.steps[step_id].spec.depends_on if d in state.steps]
    if state.strategy != "sequential":
        return declared
    earlier = list(state.steps)[: list(state.steps).index(step_id)]
    return list(dict.fromkeys([*earlier, *declared]))


def _started(state: RunState, step: StepState, needs: list[StepState]) -> StepStarted:
    spec = step.spec
    return StepStarted(
        run_id=state.run_id,
        step_id=spec.step_id,
        team=spec.team,
        task=spec.task,
        inputs=step.inputs.model_copy(update={"answers": step.answers, "replies": step.replies})
        if step.answers
        else step.inputs,
        # Named, not copied: the team reads each result from the store (a StepCompleted of this run).
        result_events={n.spec.step_id: n.result_event for n in needs if n.result_event is not None},
        attempt=step.attempt,
        timeout_s=spec.timeout_s,
    )


_STEP_RULES: list[Callable[[RunState, datetime, RetryPolicy], list[Event]]] = [
    _skips,
    _timeouts,
    _retries,
    _input_requests,
    _dispatches,
]


def _ready_to_respond(state: RunState) -> bool:
    if state.outcome is not None or not state.planned or state.cancel_requested:
        return False
    if state.require_approval and state.steps and state.approval != "approved":
        return False
    return all(_settled(s) for s in state.steps.values())
