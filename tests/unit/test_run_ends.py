"""Every run ends: the pure parts. A run with nothing to answer with, or asking the person once too often,
ends with RunFailed from `decide`; a silent or unanswered run is overdue by `ending.overdue`; the person
reads the reason in the gateway's final frame."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from contracts import new_envelope
from contracts.gateway import InputProvided, PlanApproved, QueryOptions, QueryReceived, StepSkipRequested
from contracts.planner import PlanReady
from contracts.supervisor import RunFailed
from contracts.teams import StepCompleted, StepFailed
from contracts.values import Intent, IntentType, PlanStep, StepError, Team
from services.gateway.feed.messages import RunFacts, messages_for
from services.platform.eventstore import Recorded
from services.supervisor.bootstrap import SupervisorSettings
from services.supervisor.ending import RunLimits, overdue, spoken
from tests.unit.stored_runs import T0, StoredRun

pytestmark = pytest.mark.unit

LIMITS = RunLimits(stall_after_s=60, person_wait_s=3600, max_input_rounds=2)
SEARCH = PlanStep(step_id="search", team=Team.SEARCH, task="강남구 전세 시세 조회", timeout_s=600)
LEGAL = PlanStep(
    step_id="legal", team=Team.SEARCH, task="주택임대차보호법 검색", timeout_s=10, max_attempts=1
)
LEASE = PlanStep(step_id="lease", team=Team.DOCUMENT, task="임대차계약서 작성", timeout_s=10)
ASKING = {
    "headline": "보증금을 알려 주세요",
    "questions": [{"field": "deposit", "label": "보증금"}],
    "needs_input": True,
}


class Run(StoredRun):
    """A run asked and (unless `planned` is False) planned, decided on under the tests' limits."""

    def __init__(self, *steps: PlanStep, approval: bool = False, planned: bool = True) -> None:
        super().__init__(limits=LIMITS)
        self.add(
            QueryReceived(run_id="r", query="강남구 전세", options=QueryOptions(require_approval=approval))
        )
        if planned:
            intent = Intent(type=IntentType.RISK_ANALYSIS, confidence=0.9)
            self.add(
                PlanReady(run_id="r", intent=intent, steps=list(steps), strategy="parallel", mode="rules")
            )

    def overdue(self, after_s: float, watched_since: datetime = T0) -> RunFailed | None:
        return overdue(self.state(), self.now, self.now + timedelta(seconds=after_s), LIMITS, watched_since)


def completed(step_id: str, attempt: int = 1, **result) -> StepCompleted:
    return StepCompleted(
        run_id="r",
        step_id=step_id,
        team=Team.SEARCH,
        attempt=attempt,
        summary="ok",
        result=result,
        duration_ms=1,
    )


def failed(step_id: str, message: str = "DB 응답 없음") -> StepFailed:
    error = StepError(code="upstream_unavailable", message=message)
    return StepFailed(
        run_id="r", step_id=step_id, team=Team.SEARCH, error=error, retryable=False, duration_ms=1
    )


def test_a_run_whose_every_step_failed_ends_with_run_failed_naming_each_failure() -> None:
    run = Run(SEARCH, LEGAL)
    run.decide()
    run.add(failed("search", "시세 DB 응답 없음"), failed("legal", "색인 없음"))
    decision = run.decide()
    (ending,) = decision.events
    assert isinstance(ending, RunFailed) and ending.code == "steps_failed" and not decision.respond
    assert "강남구 전세 시세 조회: 시세 DB 응답 없음" in ending.reason and "색인 없음" in ending.reason
    assert ending.reason.endswith("잠시 후 다시 질문해 주세요.")
    assert run.decide().events == []  # ended: nothing more is decided


def test_a_run_with_one_step_done_answers_with_it_instead() -> None:
    run = Run(SEARCH, LEGAL)
    run.decide()
    run.add(completed("search", headline="중앙값 6억"), failed("legal"))
    decision = run.decide()
    assert decision.events == [] and decision.respond


def test_a_step_that_keeps_asking_ends_the_run_after_max_input_rounds() -> None:
    run = Run(LEASE)
    asked = []
    for attempt in (1, 2, 3):
        run.decide()
        run.add(completed("lease", attempt=attempt, **ASKING))
        decision = run.decide()
        asked.append([type(e).__name__ for e in decision.events])
        run.add(InputProvided(run_id="r", step_id="lease", answers={"deposit": "3억"}))
    assert asked[:2] == [["InputRequested"], ["InputRequested"]]
    (ending,) = decision.events
    assert isinstance(ending, RunFailed) and ending.code == "too_many_input_rounds"
    assert "2번" in ending.reason and "다시 보내 주세요" in ending.reason


def test_a_step_the_person_skips_is_let_go_rather_than_failing_the_run() -> None:
    run = Run(LEASE, SEARCH)
    run.decide()
    for attempt in (1, 2):
        run.add(completed("lease", attempt=attempt, **ASKING))
        run.decide()
        run.add(InputProvided(run_id="r", step_id="lease", answers={"deposit": "3억"}))
        run.decide()
    run.add(completed("lease", attempt=3, **ASKING), StepSkipRequested(run_id="r", step_id="lease"))
    assert [type(e).__name__ for e in run.decide().events] == ["StepSkipped"]


def test_an_unplanned_run_is_overdue_after_the_stall_bound() -> None:
    run = Run(planned=False)
    assert run.overdue(59) is None
    ending = run.overdue(60)
    assert ending is not None and ending.code == "stalled"
    assert ending.reason == "계획을 세우는 중 1분 동안 진행이 없어 멈췄습니다. 잠시 후 다시 질문해 주세요."


def test_a_running_step_gets_its_timeout_before_the_stall_bound_counts() -> None:
    run = Run(SEARCH)  # a 600 s timeout
    run.decide()
    assert run.overdue(600 + 59) is None
    ending = run.overdue(600 + 60)
    assert ending is not None and ending.code == "stalled" and "작업을 진행하는" in ending.reason


def test_silence_counts_only_from_when_the_watchdog_could_see_the_store() -> None:
    run = Run(planned=False)
    back = T0 + timedelta(hours=2)  # after an outage or a restart
    assert run.overdue(2 * 3600 + 59, watched_since=back) is None
    assert run.overdue(2 * 3600 + 60, watched_since=back) is not None


def test_a_plan_waiting_for_approval_is_not_stalled_but_expires() -> None:
    run = Run(SEARCH, approval=True)
    run.decide()
    assert run.overdue(3599) is None
    ending = run.overdue(3600)
    assert ending is not None and ending.code == "expired"
    assert ending.reason.startswith("계획 승인을 1시간 동안 기다렸지만 답이 없어 요청을 마감했습니다.")
    run.add(PlanApproved(run_id="r"))
    run.decide()
    assert run.overdue(600 + 59) is None  # approved: the step's own deadline counts again
    assert run.overdue(600 + 60) is not None


def test_questions_waiting_for_the_person_expire() -> None:
    run = Run(LEASE)
    run.decide()
    run.add(completed("lease", **ASKING))
    run.decide()
    assert run.overdue(3599) is None
    ending = run.overdue(3600)
    assert (
        ending is not None and ending.code == "expired" and ending.reason.startswith("요청드린 정보를 1시간")
    )


def test_an_ended_run_is_never_overdue() -> None:
    run = Run(SEARCH)
    run.decide()
    run.add(completed("search", headline="중앙값 6억"))
    run.decide()
    run.add(RunFailed(run_id="r", code="stalled", reason="..."))
    assert run.overdue(10**7) is None


def test_the_person_reads_the_reason_with_what_to_do() -> None:
    ending = RunFailed(
        run_id="r",
        code="planning_failed",
        reason="질문을 처리할 계획을 세우지 못했습니다. 잠시 후 다시 질문해 주세요.",
    )
    record = Recorded(7, 2, T0, new_envelope(ending, stream_id="run-r", correlation_id="r", session_id="s"))
    (message,) = messages_for(record, RunFacts())
    assert message["type"] == "final_response" and message["response"]["type"] == "error"
    assert message["response"]["content"] == (
        "죄송합니다. 요청을 처리하지 못했습니다: "
        "질문을 처리할 계획을 세우지 못했습니다. 잠시 후 다시 질문해 주세요."
    )
    assert message["response"]["data"]["metadata"] == {"code": "planning_failed"}


def test_durations_are_said_as_a_person_says_them() -> None:
    assert [spoken(s) for s in (86_400, 300, 90, 1.5)] == ["24시간", "5분", "90초", "1.5초"]


def test_operators_set_the_limits_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIPSA_SUPERVISOR_STALL_AFTER_S", "30")
    monkeypatch.setenv("JIPSA_SUPERVISOR_PERSON_WAIT_S", "7200")
    monkeypatch.setenv("JIPSA_SUPERVISOR_MAX_INPUT_ROUNDS", "3")
    assert SupervisorSettings().limits() == RunLimits(
        stall_after_s=30, person_wait_s=7200, max_input_rounds=3
    )
