"""The supervisor's decisions as a pure function of a run's events and the time."""

from __future__ import annotations

from datetime import timedelta

import pytest

from contracts.entities import QueryEntities
from contracts.gateway import (
    InputProvided,
    PlanApproved,
    PlanRejected,
    QueryOptions,
    QueryReceived,
    RunCancelRequested,
    StepSkipRequested,
)
from contracts.planner import PlanReady
from contracts.results import StepResult
from contracts.steps import StepInputs
from contracts.supervisor import (
    PlanApprovalRequested,
    ResponseReady,
    RunCancelled,
    StepRetried,
    StepStarted,
    StepTimedOut,
)
from contracts.teams import StepCompleted, StepFailed
from contracts.values import Intent, IntentType, PlanStep, StepError, Team
from services.supervisor.decide import RetryPolicy
from services.supervisor.response import compose
from tests.unit.stored_runs import T0, StoredRun

pytestmark = pytest.mark.unit

POLICY = RetryPolicy(first_delay_s=2.0, max_delay_s=30.0)
SEARCH = PlanStep(step_id="search", team=Team.SEARCH, task="강남구 아파트 전세 시세 조회", timeout_s=10)
LEGAL = PlanStep(step_id="legal", team=Team.SEARCH, task="주택임대차보호법 조항 검색", timeout_s=10)
ANALYSIS = PlanStep(
    step_id="analysis", team=Team.ANALYSIS, task="전세 위험도 분석", depends_on=["search"], timeout_s=10
)


def Run() -> StoredRun:  # named as the class it builds, as every test here calls it
    return StoredRun(POLICY)


def planned(*steps: PlanStep, strategy="dag", approval=False) -> StoredRun:
    intent = Intent(type=IntentType.RISK_ANALYSIS, confidence=0.9)
    return Run().add(
        QueryReceived(
            run_id="r", query="강남구 전세 위험도", options=QueryOptions(require_approval=approval)
        ),
        PlanReady(run_id="r", intent=intent, steps=list(steps), strategy=strategy, mode="rules"),
    )


def types(events) -> list[str]:
    return [type(e).__name__ for e in events]


def completed(step_id: str, attempt: int = 1, **result) -> StepCompleted:
    return StepCompleted(
        run_id="r",
        step_id=step_id,
        team=Team.SEARCH,
        attempt=attempt,
        summary="ok",
        result=StepResult.model_validate(result),
        duration_ms=5,
    )


def failed(step_id: str, attempt: int = 1, retryable: bool = True) -> StepFailed:
    return StepFailed(
        run_id="r",
        step_id=step_id,
        team=Team.SEARCH,
        attempt=attempt,
        error=StepError(code="upstream_unavailable", message="DB 응답 없음"),
        retryable=retryable,
        duration_ms=5,
    )


def test_independent_steps_are_dispatched_together() -> None:
    decision = planned(SEARCH, LEGAL, strategy="parallel").decide()
    assert types(decision.events) == ["StepStarted", "StepStarted"]
    assert decision.wake_at == T0 + timedelta(seconds=10)  # the earliest step deadline


def test_a_dependent_step_waits_and_receives_its_dependencys_result() -> None:
    run = planned(SEARCH, ANALYSIS)
    assert [e.step_id for e in run.decide().events] == ["search"]
    run.add(completed("search", headline="시세 조회 완료"), after_s=1)
    holding_the_result = run.envelopes[-1].event_id
    (started,) = run.decide().events
    assert isinstance(started, StepStarted) and started.step_id == "analysis"
    assert started.result_events == {"search": holding_the_result}  # named, not copied
    assert started.copied_results == {}


def test_sequential_runs_one_step_at_a_time_even_when_an_earlier_one_fails() -> None:
    run = planned(SEARCH, LEGAL, strategy="sequential")
    assert [e.step_id for e in run.decide().events] == ["search"]
    run.add(failed("search", retryable=False))
    assert [e.step_id for e in run.decide().events] == ["legal"]  # not declared dependent: still runs


def test_an_empty_plan_is_answered_with_guidance_and_runs_nothing() -> None:
    run = Run().add(
        PlanReady(run_id="r", intent=Intent(type=IntentType.IRRELEVANT, confidence=1), mode="rules")
    )
    decision = run.decide()
    assert decision.events == [] and decision.respond
    response = compose(decision.state)
    assert response.response_type == "guidance" and "집사" in response.answer


def test_facts_stated_with_nothing_asked_are_acknowledged_in_the_guidance() -> None:
    """'연봉 4천이에요' asks nothing; the next turn is answered with it, so the guidance says so."""
    stated = Intent(type=IntentType.UNCLEAR, confidence=0.4, entities=QueryEntities(income_manwon=4000))
    response = compose(Run().add(PlanReady(run_id="r", intent=stated, mode="rules")).decide().state)
    assert response.response_type == "guidance"
    assert response.answer.startswith("말씀하신 연소득 4,000만원을 기억해 두고")


def test_approval_is_asked_once_and_the_run_waits_without_a_deadline() -> None:
    run = planned(SEARCH, ANALYSIS, approval=True)
    assert types(run.decide().events) == ["PlanApprovalRequested"]
    waiting = run.decide(after_s=3600)
    assert waiting.events == [] and waiting.wake_at is None and not waiting.respond


def test_an_edited_plan_runs_instead_of_the_original() -> None:
    run = planned(SEARCH, ANALYSIS, approval=True)
    run.decide()
    run.add(PlanApproved(run_id="r", modified_steps=[LEGAL]))
    assert [e.step_id for e in run.decide().events] == ["legal"]


def test_a_rejected_plan_runs_nothing() -> None:
    run = planned(SEARCH, approval=True)
    run.decide()
    run.add(PlanRejected(run_id="r", reason="다시 물어볼게요"))
    decision = run.decide()
    assert decision.events == [] and not decision.respond


def test_a_retryable_failure_is_retried_after_its_backoff() -> None:
    run = planned(SEARCH)
    run.decide()
    run.add(failed("search"), after_s=1)
    retry = run.decide()
    assert types(retry.events) == ["StepRetried"]
    assert retry.events[0].delay_s == 2.0 and retry.wake_at == run.now + timedelta(seconds=2)
    assert run.decide(after_s=1).events == []  # not due yet
    (again,) = run.decide(after_s=1.5).events
    assert isinstance(again, StepStarted) and again.attempt == 2


def test_a_step_that_keeps_failing_ends_failed_and_its_dependents_are_skipped() -> None:
    run = planned(SEARCH.model_copy(update={"max_attempts": 2}), ANALYSIS)
    run.decide()
    run.add(failed("search"))
    run.decide()
    assert types(run.decide(after_s=3).events) == ["StepStarted"]
    run.add(failed("search", attempt=2), after_s=1)
    final = run.decide()
    assert types(final.events) == ["StepSkipped", "RunFailed"]  # no step completed: nothing to answer with
    assert final.events[0].step_id == "analysis" and "search" in final.events[0].reason
    assert final.events[1].code == "steps_failed" and not final.respond


def test_a_step_past_its_timeout_is_failed_and_retried_and_a_late_answer_is_ignored() -> None:
    run = planned(SEARCH)
    run.decide()
    decision = run.decide(after_s=11)
    assert types(decision.events) == ["StepTimedOut", "StepRetried"]
    assert isinstance(decision.events[0], StepTimedOut) and decision.events[0].attempt == 1
    run.add(completed("search", attempt=1))  # the first attempt answers after all: too late
    assert run.state().steps["search"].status == "pending"


def test_the_person_can_skip_a_running_step_and_the_run_still_answers() -> None:
    run = planned(SEARCH, LEGAL, strategy="parallel")
    run.decide()
    run.add(
        completed("legal", headline="제7조가 적용됩니다"), StepSkipRequested(run_id="r", step_id="search")
    )
    decision = run.decide()
    assert types(decision.events) == ["StepSkipped"] and decision.respond
    response = compose(decision.state)
    assert response.response_type == "answer" and "제7조가 적용됩니다" in response.answer


def test_cancel_ends_the_run_and_nothing_is_decided_after_it() -> None:
    run = planned(SEARCH, ANALYSIS)
    run.decide()
    run.add(RunCancelRequested(run_id="r", reason="그만"))
    assert types(run.decide().events) == ["RunCancelled"]
    run.add(completed("search"))
    after = run.decide()
    assert after.events == [] and not after.respond and after.wake_at is None


def test_deciding_twice_on_the_same_events_decides_nothing_new() -> None:
    run = planned(SEARCH, LEGAL, ANALYSIS)
    first = run.decide()
    assert first.events and run.decide().events == []


def test_a_response_copies_only_what_the_steps_produced() -> None:
    run = planned(SEARCH, strategy="sequential")
    run.decide()
    cited = {
        "headline": "전세 중앙값 8억",
        "figures": [{"label": "전세 중앙값", "value": 80000, "unit": "만원", "source": "스냅샷 2025-10-08"}],
        "citations": [
            {"article_id": "주택임대차보호법/제7조", "law": "주택임대차보호법", "article": "제7조"}
        ],
    }
    run.add(completed("search", **cited))
    decision = run.decide()
    response: ResponseReady = compose(decision.state)
    assert [c.article_id for c in response.citations] == ["주택임대차보호법/제7조"]
    assert response.metadata["figures"][0]["value"] == 80000 and "8억원" in response.answer
    assert not isinstance(response, (RunCancelled, PlanApprovalRequested, StepRetried))


LEASE = PlanStep(step_id="lease", team=Team.DOCUMENT, task="임대차계약서 작성", inputs={"query": "계약서"})
ASKING = {
    "headline": "보증금을 알려 주세요",
    "questions": [{"field": "deposit", "label": "보증금"}],
    "needs_input": True,
}


def test_a_step_that_asks_the_person_holds_the_run_until_the_answers_come() -> None:
    run = planned(LEASE, step("after", Team.SEARCH, ["lease"]))
    run.decide()
    run.add(completed("lease", **ASKING))
    asking = run.decide()
    assert types(asking.events) == ["InputRequested"] and not asking.respond
    assert asking.events[0].questions[0].field == "deposit"
    assert run.decide(after_s=3600).events == []  # waits, holding nothing, asked once
    run.add(InputProvided(run_id="r", step_id="lease", answers={"deposit": "3억"}))
    (again,) = run.decide().events
    assert isinstance(again, StepStarted) and again.attempt == 2
    assert again.inputs == StepInputs(query="계약서", answers={"deposit": "3억"})
    run.add(completed("lease", attempt=2, headline="계약서를 만들었습니다"))
    assert [e.step_id for e in run.decide().events] == ["after"]


def test_the_sentences_the_answers_were_typed_in_go_to_the_step_oldest_first() -> None:
    """A reply may correct what the question said ("아 그리고 보증금은 2억이에요"): the step reads it."""
    run = planned(LEASE)
    run.decide()
    for attempt, (answers, message) in enumerate(
        [
            ({"address": "서울 송파구 올림픽로 300"}, "주소는 서울 송파구 올림픽로 300이요"),
            ({"deposit": "0"}, None),
        ],
        start=1,
    ):
        run.add(completed("lease", attempt=attempt, **ASKING))
        run.decide()
        run.add(InputProvided(run_id="r", step_id="lease", answers=answers, message=message))
        (again,) = run.decide().events
    assert isinstance(again, StepStarted)
    assert again.inputs.replies == ["주소는 서울 송파구 올림픽로 300이요"]  # the form's own answer adds none
    assert again.inputs.answers == {"address": "서울 송파구 올림픽로 300", "deposit": "0"}


def test_a_step_waiting_for_input_can_be_skipped() -> None:
    run = planned(LEASE)
    run.decide()
    run.add(completed("lease", **ASKING))
    run.decide()
    run.add(StepSkipRequested(run_id="r", step_id="lease"))
    decision = run.decide()
    assert types(decision.events) == ["StepSkipped"] and decision.respond


def step(step_id: str, team: Team, depends_on: list[str]) -> PlanStep:
    return PlanStep(step_id=step_id, team=team, task=f"{step_id} 작업", depends_on=depends_on, timeout_s=10)


def test_questions_that_only_sharpen_an_answer_do_not_hold_the_run() -> None:
    run = planned(LEASE)
    run.decide()
    run.add(completed("lease", headline="5% 상한", questions=[{"field": "deposit", "label": "현재 보증금"}]))
    decision = run.decide()
    assert decision.events == [] and decision.respond
    assert "현재 보증금" in compose(decision.state).answer


def test_an_answer_of_several_steps_leads_with_the_analysis_conclusion() -> None:
    run = planned(SEARCH, ANALYSIS)
    run.decide()
    run.add(completed("search", headline="강남구 전세 중앙값 10억 6,500만원"))
    run.decide()
    ratio = {"label": "전세가율", "value": 72, "unit": "%"}
    run.add(completed("analysis", headline="전세가율 72%: 위험 구간입니다", figures=[ratio]))
    answer = compose(run.decide().state).answer
    assert answer.startswith("전세가율 72%: 위험 구간입니다\n- 강남구 전세 중앙값")
