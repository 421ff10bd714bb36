"""A run's outcome, read from its events in the store or from what its person was sent: pure functions
that the operator's page counts runs by, and chaos and load (tests/chaos/verdict.py) too.

A run ends at its first final event in the store (ResponseReady, RunFailed, RunCancelled, PlanRejected;
the final-state projection ignores any later one too). A ResponseReady is an answer, a guidance (no team
had anything to do: a greeting), an answer with failed steps (some step failed or was skipped, the others
answered: the person gets part of what was asked) or an error (no step produced anything). The person
sees the same through the `final_response` frame (type answer | guidance | error, `data.failed_steps`)
and the run's last todo (skipped steps), which `outcome_of_frame` reads.
"""

from __future__ import annotations

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

FINAL_EVENTS = ("ResponseReady", "RunFailed", "RunCancelled", "PlanRejected")
_ENDINGS = {"RunFailed": FAILED, "RunCancelled": CANCELLED, "PlanRejected": REJECTED}


@dataclass(frozen=True)
class RunEvent:
    """One event of a run, as far as an outcome needs it; `at` is the store's recorded_at (epoch s)."""

    position: int
    type: str
    at: float
    team: str | None = None
    step_id: str | None = None
    attempt: int | None = None
    response_type: str | None = None
    failed_steps: tuple[str, ...] = ()
    error: str | None = None  # a StepFailed's or RunFailed's code and message


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
    skipped = [
        e.step_id
        for e in events
        if e.type == "StepSkipped" and e.step_id is not None and e.position < final.position
    ]
    return answer_kind(final.response_type or ERROR, final.failed_steps, skipped)


def outcome_of_frame(final: dict[str, Any] | None, todo_steps: Iterable[dict[str, Any]] = ()) -> str:
    """The outcome of a run as its person saw it: the `final_response` frame (None: none came) and the
    run's last todo (`execution_steps` of its last todo message)."""
    if final is None:
        return NONE
    response = final["response"]
    skipped = [s["step_id"] for s in todo_steps if s.get("status") == "skipped" and s.get("step_id")]
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
