"""What chaos counts (tests/chaos/verdict.py): a run's outcome, and whether a fault touched it."""

from __future__ import annotations

import pytest

from tests.chaos import verdict as v
from tests.chaos.verdict import FaultWindow, RunEvent

pytestmark = pytest.mark.unit


def run(*events: tuple) -> list[RunEvent]:
    """A run from (type, at, fields) tuples; positions in the order given."""
    return [
        RunEvent(position=i + 1, type=t, at=at, **(f[0] if f else {})) for i, (t, at, *f) in enumerate(events)
    ]


def answered(response_type: str = "answer", failed: tuple[str, ...] = ()) -> tuple:
    return ("ResponseReady", 9.0, {"response_type": response_type, "failed_steps": failed})


def step(kind: str, at: float, team: str = "search", step_id: str = "s1", attempt: int = 1) -> tuple:
    return (kind, at, {"team": team, "step_id": step_id, "attempt": attempt})


# A legal question: planned, one search step, answered.
ONE_STEP = run(
    ("QueryReceived", 1.0),
    ("PlanReady", 2.0),
    step("StepStarted", 3.0),
    step("StepCompleted", 5.0),
    answered(),
)


# ---- outcome ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("final", "outcome"),
    [
        (answered(), v.ANSWER),
        (answered("guidance"), v.GUIDANCE),
        (answered("answer", ("s2",)), v.PARTIAL),
        (answered("error", ("s1", "s2")), v.ERROR),
        (("RunFailed", 9.0, {"error": "watchdog: no event"}), v.FAILED),
        (("RunCancelled", 9.0), v.CANCELLED),
        (("PlanRejected", 9.0), v.REJECTED),
    ],
)
def test_the_final_event_gives_the_outcome(final: tuple, outcome: str) -> None:
    assert v.outcome_of(run(("QueryReceived", 1.0), ("PlanReady", 2.0), final)) == outcome


def test_a_run_without_a_final_event_has_none() -> None:
    assert v.outcome_of(run(("QueryReceived", 1.0), ("PlanReady", 2.0), step("StepStarted", 3.0))) == v.NONE


def test_an_answer_with_a_step_skipped_is_partial() -> None:
    events = run(
        ("QueryReceived", 1.0),
        step("StepStarted", 2.0),
        ("StepSkipped", 3.0, {"step_id": "s2"}),
        step("StepCompleted", 4.0),
        answered(),
    )
    assert v.outcome_of(events) == v.PARTIAL


def test_the_first_final_event_decides_not_a_later_one() -> None:
    events = run(("QueryReceived", 1.0), ("RunCancelled", 2.0), answered())
    assert v.outcome_of(events) == v.CANCELLED
    assert v.outcome_of(run(("QueryReceived", 1.0), answered("error"), ("RunFailed", 10.0))) == v.ERROR


def test_error_failed_and_none_are_failures_under_chaos_and_answers_are_not() -> None:
    assert set(v.FAILURES) == {v.ERROR, v.FAILED, v.NONE}
    assert not {v.ANSWER, v.GUIDANCE, v.PARTIAL} & set(v.FAILURES)


def frame(response_type: str, failed: list[str] | None = None) -> dict:
    return {
        "type": "final_response",
        "response": {"type": response_type, "data": {"failed_steps": failed or []}},
    }


@pytest.mark.parametrize(
    ("final", "todo", "outcome"),
    [
        (frame("answer"), [{"step_id": "s1", "status": "completed"}], v.ANSWER),
        (frame("guidance"), [], v.GUIDANCE),
        (frame("answer", ["s2"]), [], v.PARTIAL),
        (
            frame("answer"),
            [{"step_id": "s1", "status": "completed"}, {"step_id": "s2", "status": "skipped"}],
            v.PARTIAL,
        ),
        (frame("error", ["s1"]), [], v.ERROR),
        (None, [{"step_id": "s1", "status": "in_progress"}], v.NONE),
    ],
)
def test_the_final_frame_and_last_todo_give_what_the_person_got(final, todo, outcome) -> None:
    assert v.outcome_of_frame(final, todo) == outcome


@pytest.mark.parametrize(
    ("outcome", "status", "agrees"),
    [
        (v.ANSWER, "completed", True),
        (v.ANSWER, "completed_with_errors", False),
        (v.PARTIAL, "completed_with_errors", True),
        (v.ERROR, "completed_with_errors", True),
        (v.FAILED, "failed", True),
        (v.FAILED, "completed", False),
        (v.NONE, "running", True),
        (v.NONE, "completed", False),
        (v.ANSWER, None, False),  # missing from the projection
    ],
)
def test_the_projection_must_say_what_the_final_event_says(
    outcome: str, status: str | None, agrees: bool
) -> None:
    assert v.projection_agrees(outcome, status) is agrees


# ---- interrupted -----------------------------------------------------------------------------------


def kill(service: str, at: float) -> FaultWindow:
    return FaultWindow("kill", at, at, service)


def test_a_kill_of_the_team_while_its_step_is_in_flight_touches_the_run() -> None:
    assert v.touched_by(ONE_STEP, kill("search", 4.0))


@pytest.mark.parametrize("at", [2.5, 5.5, 12.0, 0.5])
def test_a_kill_of_the_team_before_its_step_started_or_after_it_answered_does_not(at: float) -> None:
    assert not v.touched_by(ONE_STEP, kill("search", at))


def test_a_kill_of_another_team_while_a_step_is_in_flight_does_not() -> None:
    assert not v.touched_by(ONE_STEP, kill("analysis", 4.0))


def test_a_step_answered_for_an_earlier_attempt_only_is_still_in_flight() -> None:
    events = run(
        ("QueryReceived", 1.0),
        step("StepStarted", 2.0),
        step("StepFailed", 3.0),
        ("StepRetried", 3.1),
        step("StepStarted", 4.0, attempt=2),
        step("StepCompleted", 6.0, attempt=2),
        answered(),
    )
    assert v.touched_by(events, kill("search", 5.0))
    assert not v.touched_by(events, kill("search", 3.5))  # attempt 1 answered, attempt 2 not yet sent


def test_a_kill_of_the_planner_touches_runs_waiting_for_their_plan_only() -> None:
    assert v.touched_by(ONE_STEP, kill("planner", 1.5))
    assert not v.touched_by(ONE_STEP, kill("planner", 4.0))


def test_a_kill_of_the_supervisor_touches_runs_waiting_for_its_decision_only() -> None:
    assert v.touched_by(ONE_STEP, kill("supervisor", 2.5))  # after PlanReady: it must start the step
    assert v.touched_by(ONE_STEP, kill("supervisor", 6.0))  # after StepCompleted: it must answer
    assert not v.touched_by(ONE_STEP, kill("supervisor", 4.0))  # the step is with the search team
    assert not v.touched_by(ONE_STEP, kill("supervisor", 1.5))  # the question is with the planner


@pytest.mark.parametrize("service", ["gateway", "projector", "publisher"])
def test_a_kill_of_a_process_every_run_passes_through_touches_runs_in_flight(service: str) -> None:
    assert v.touched_by(ONE_STEP, kill(service, 4.0))
    assert not v.touched_by(ONE_STEP, kill(service, 9.5))
    assert not v.touched_by(ONE_STEP, kill(service, 0.5))


def test_a_nats_wipe_touches_runs_with_an_event_recorded_before_the_refeed_ended() -> None:
    assert v.touched_by(ONE_STEP, FaultWindow("nats", 4.5, 5.2))
    assert not v.touched_by(ONE_STEP, FaultWindow("nats", 3.5, 4.5))  # nothing recorded meanwhile
    assert not v.touched_by(ONE_STEP, FaultWindow("nats", 10.0, 12.0))


def test_a_postgres_restart_touches_runs_in_flight_during_it() -> None:
    assert v.touched_by(ONE_STEP, FaultWindow("postgres", 3.5, 4.5))
    assert v.touched_by(ONE_STEP, FaultWindow("postgres", 0.0, 1.5))  # the question came as it returned
    assert not v.touched_by(ONE_STEP, FaultWindow("postgres", 9.5, 11.0))
    assert not v.touched_by(ONE_STEP, FaultWindow("postgres", 0.0, 0.5))


def test_a_run_that_never_ended_is_in_flight_for_ever() -> None:
    stuck = run(("QueryReceived", 1.0), ("PlanReady", 2.0), step("StepStarted", 3.0))
    assert v.touched_by(stuck, FaultWindow("postgres", 50.0, 52.0))
    assert v.touched_by(stuck, kill("search", 50.0))


def test_touching_lists_the_faults_that_touched_the_run() -> None:
    faults = [kill("search", 4.0), kill("search", 7.0), FaultWindow("nats", 0.0, 0.5)]
    assert v.touching(ONE_STEP, faults) == [faults[0]]
    with pytest.raises(ValueError):
        v.touched_by(ONE_STEP, FaultWindow("disk", 1.0, 2.0))
