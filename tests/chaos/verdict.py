"""What chaos and load count, as pure functions: the outcome of a run and whether a fault touched it.

Outcome: services/platform/run_outcomes.py reads it (the operator's page counts runs by it too); its names
are re-exported here for chaos and load.

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

from services.platform.run_outcomes import (
    ANSWER,
    ANSWERED,
    CANCELLED,
    ERROR,
    FAILED,
    FINAL_EVENTS,
    GUIDANCE,
    NONE,
    OUTCOMES,
    PARTIAL,
    PROJECTED_STATUSES,
    REJECTED,
    RunEvent,
    answer_kind,
    final_event,
    outcome_of,
    outcome_of_frame,
    projection_agrees,
)

__all__ = [  # the outcome's names, for chaos and load, beside what is this module's own
    "ANSWER",
    "ANSWERED",
    "CANCELLED",
    "ERROR",
    "FAILED",
    "FINAL_EVENTS",
    "GUIDANCE",
    "NONE",
    "OUTCOMES",
    "PARTIAL",
    "PROJECTED_STATUSES",
    "REJECTED",
    "RunEvent",
    "answer_kind",
    "final_event",
    "outcome_of",
    "outcome_of_frame",
    "projection_agrees",
    "FAILURES",
    "FaultWindow",
    "touched_by",
    "touching",
]

# Under faults the system must survive, and questions that all have an answer: a failure of the system.
FAILURES = (ERROR, FAILED, NONE)
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
class FaultWindow:
    """A fault as the store's clock sees it: from when it struck to when the system had it behind it
    (a kill is an instant; Postgres: until it accepted connections again; NATS: until the relay had
    re-fed the store's events). `service` is the killed process's service (kill only)."""

    kind: str  # kill | postgres | nats
    began: float
    ended: float
    service: str | None = None
    label: str = ""


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
