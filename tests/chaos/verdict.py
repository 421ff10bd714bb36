"""What chaos and load count, as pure functions: the outcome of a run and whether a fault touched it.

Outcome: a run ends at its first final event in the store (ResponseReady, RunFailed, RunCancelled,
PlanRejected; the final-state projection ignores any later one too). A ResponseReady is an answer, a
guidance (no team had anything to do: a greeting), an answer with failed steps (some step failed or was
skipped, the others answered: the person gets part of what was asked) or an error (no step produced
anything). The person sees the same through the `final_response` frame (type answer | guidance | error,
`data.failed_steps`) and the run's last todo (skipped steps), which `outcome_of_frame` reads.

Under chaos every fault is one the system must survive (a SIGKILLed service is restarted, Postgres comes
back, NATS is re-fed from the store) and every question has an answer, so an error, a RunFailed or no
final event at all is a failure of the system, whatever fault the run met (`FAILURES`).

Interrupted: a fault touched the run, not merely happened during its life:
- kill of a team's process (search, analysis, document): a step of that team was in flight, i.e. its
  StepStarted was recorded before the kill and neither StepCompleted nor StepFailed for that attempt
  was. The store does not say which replica held a step, so any replica of the team counts;
- kill of the planner: the run's question was recorded and its plan not yet;
- kill of the supervisor: the run's last event before the kill is one the supervisor must answer (a
  plan, a step's result, a retry whose delay runs, a person's decision);
- kill of the gateway, projector or publisher: the run was in flight (started, not final), since every
  run's events pass through the publisher, and through the projector and the gateway to its person;
- NATS wiped: an event of the run was recorded between the wipe and the end of the relay's republish,
  so it reached the bus only through the store's re-feed;
- Postgres restarted: the run was in flight (question recorded, no final event) during the restart.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

ANSWER = "answer"
GUIDANCE = "guidance"
PARTIAL = "answer with failed steps"
ERROR = "error"
FAILED = "failed"
REJECTED = "rejected"
CANCELLED = "cancelled"
NONE = "none"
OUTCOMES = (ANSWER, GUIDANCE, PARTIAL, ERROR, FAILED, REJECTED, CANCELLED, NONE)
ANSWERED = (ANSWER, GUIDANCE)  # the whole of what was asked
# Under faults the system must survive, and questions that all have an answer: a failure of the system.
FAILURES = (ERROR, FAILED, NONE)

FINAL_EVENTS = ("ResponseReady", "RunFailed", "RunCancelled", "PlanRejected")
_ENDINGS = {"RunFailed": FAILED, "RunCancelled": CANCELLED, "PlanRejected": REJECTED}
STEP_ANSWERS = ("StepCompleted", "StepFailed")
# What the supervisor decides on: after one of these, the run waits for the supervisor.
SUPERVISOR_INPUTS = (
    "PlanReady",
    "PlanApproved",
    "StepCompleted",
    "StepFailed",
    "StepRetried",
    "StepTimedOut",
    "StepSkipRequested",
    "RunCancelRequested",
    "InputProvided",
)
TEAMS = ("search", "analysis", "document")


@dataclass(frozen=True)
class RunEvent:
    """One event of a run, as far as the verdict needs it; `at` is the store's recorded_at (epoch s)."""

    position: int
    type: str
    at: float
    team: str | None = None
    step_id: str | None = None
    attempt: int | None = None
    response_type: str | None = None
    failed_steps: tuple[str, ...] = ()
    error: str | None = None  # a StepFailed's or RunFailed's code and message


@dataclass(frozen=True)
class FaultWindow:
    """A fault as the store's clock sees it: from when it struck to when the system had it behind it
    (a kill is an instant; Postgres: until it accepted connections again; NATS: until the relay had
    re-fed the store's events). `service` is the killed process's service (kill only)."""

    kind: str  # kill | postgres | nats
    began: float
    ended: float
    service: str | None = None
    label: str = ""


# ---- outcome ---------------------------------------------------------------------------------------


def final_event(events: Sequence[RunEvent]) -> RunEvent | None:
    """The run's first final event by position: the one that ended it."""
    return next((e for e in sorted(events, key=lambda e: e.position) if e.type in FINAL_EVENTS), None)


def answer_kind(response_type: str, failed_steps: Iterable[str], skipped_steps: Iterable[str]) -> str:
    """The outcome of an answer (ResponseReady or `final_response`) of this type."""
    if response_type == "error":
        return ERROR
    if response_type == "guidance":
        return GUIDANCE
    return PARTIAL if list(failed_steps) or list(skipped_steps) else ANSWER


def outcome_of(events: Sequence[RunEvent]) -> str:
    """The outcome of a run from its events in the store."""
    final = final_event(events)
    if final is None:
        return NONE
    if final.type != "ResponseReady":
        return _ENDINGS[final.type]
    skipped = [e.step_id for e in events if e.type == "StepSkipped" and e.position < final.position]
    return answer_kind(final.response_type or ERROR, final.failed_steps, skipped)


def outcome_of_frame(final: dict[str, Any] | None, todo_steps: Iterable[dict[str, Any]] = ()) -> str:
    """The outcome of a run as its person saw it: the `final_response` frame (None: none came) and the
    run's last todo (`execution_steps` of its last todo message)."""
    if final is None:
        return NONE
    response = final["response"]
    skipped = [s.get("step_id") for s in todo_steps if s.get("status") == "skipped"]
    return answer_kind(response["type"], response.get("data", {}).get("failed_steps") or [], skipped)


# The final-state projection's status for each outcome (an error answer or a partial one is
# `completed_with_errors` when it names failed steps, `completed` when its steps were only skipped).
PROJECTED_STATUSES = {
    ANSWER: {"completed"},
    GUIDANCE: {"completed"},
    PARTIAL: {"completed", "completed_with_errors"},
    ERROR: {"completed", "completed_with_errors"},
    FAILED: {"failed"},
    REJECTED: {"rejected"},
    CANCELLED: {"cancelled"},
    NONE: {"planning", "awaiting_approval", "awaiting_input", "running"},
}


def projection_agrees(outcome: str, status: str | None) -> bool:
    """Whether the final-state projection's status says what the store's final event says."""
    return status in PROJECTED_STATUSES[outcome]


# ---- interrupted -----------------------------------------------------------------------------------


def touched_by(events: Sequence[RunEvent], fault: FaultWindow) -> bool:
    """Whether `fault` touched the run whose events these are (see the module's docstring)."""
    if not events:
        return False
    events = sorted(events, key=lambda e: e.position)
    if fault.kind == "nats":
        return any(fault.began <= e.at <= fault.ended for e in events)
    if fault.kind == "postgres":
        return _began(events) <= fault.ended and _ended(events) >= fault.began
    if fault.kind == "kill":
        return _held_by(events, fault.service or "", fault.began)
    raise ValueError(f"unknown fault kind {fault.kind!r}")


def touching(events: Sequence[RunEvent], faults: Iterable[FaultWindow]) -> list[FaultWindow]:
    """The faults that touched the run; empty when it was not interrupted."""
    return [f for f in faults if touched_by(events, f)]


def _began(events: Sequence[RunEvent]) -> float:
    return events[0].at


def _ended(events: Sequence[RunEvent]) -> float:
    final = final_event(events)
    return final.at if final else math.inf


def _held_by(events: Sequence[RunEvent], service: str, at: float) -> bool:
    """Whether the run had work on a process of `service` when it was killed at `at`."""
    before = [e for e in events if e.at <= at]
    if not before or _ended(events) <= at:
        return False  # not begun, or already ended
    if service in TEAMS:
        return bool(_steps_in_flight(before, service))
    if service == "planner":
        return not any(e.type == "PlanReady" for e in before)
    if service == "supervisor":
        return before[-1].type in SUPERVISOR_INPUTS
    return True  # gateway, projector, publisher: every run in flight passes through them


def _steps_in_flight(before: Sequence[RunEvent], team: str) -> set[tuple[str | None, int | None]]:
    started = {(e.step_id, e.attempt) for e in before if e.type == "StepStarted" and e.team == team}
    answered = {(e.step_id, e.attempt) for e in before if e.type in STEP_ANSWERS}
    return started - answered
