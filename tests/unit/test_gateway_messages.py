"""The event -> message mapping on lists of events: the sequence a person sees for each kind of run."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from contracts import Event, new_envelope
from contracts.entities import QueryEntities
from contracts.gateway import PlanApproved, PlanRejected, QueryOptions, QueryReceived
from contracts.planner import PlanReady
from contracts.supervisor import PlanApprovalRequested, ResponseReady, RunCancelled, RunFailed, StepStarted
from contracts.teams import StepCompleted, StepFailedV1
from contracts.telemetry import LlmCallRecorded
from contracts.values import Citation, Intent, IntentType, PlanStep, Team
from services.gateway.feed.messages import (
    APPROVAL_PROMPT,
    RunFacts,
    TodoSnapshot,
    execution_beginnings,
    messages_for,
    plan_facts,
)
from services.platform.eventstore import Recorded

pytestmark = pytest.mark.unit

RUN = "run-1"
SEARCH = PlanStep(step_id="search", team=Team.SEARCH, task="강남구 아파트 전세 시세 검색")
LEGAL = PlanStep(step_id="legal", team=Team.SEARCH, task="주택임대차보호법 검색")
# A todo step as the projection holds it (the shape `todo_updated` publishes).
DONE_SEARCH = {
    "step_id": "search",
    "team": "search",
    "task": "강남구 아파트 전세 시세 검색",
    "depends_on": [],
    "status": "completed",
    "attempt": 1,
    "started_at": "2025-03-12T00:00:00+00:00",
    "completed_at": "2025-03-12T00:00:01+00:00",
    "duration_ms": 1000.0,
    "summary": "완료",
    "error": None,
}
TODO = TodoSnapshot(progress_pct=50, steps=[DONE_SEARCH])


def log(*events: Event) -> list[Recorded]:
    """Events as the store would hold them, at positions 1, 2, 3..."""
    return [
        Recorded(
            position,
            position,
            datetime(2025, 3, 12, tzinfo=UTC),
            new_envelope(event, stream_id=f"run-{RUN}", correlation_id=RUN, session_id="s1"),
        )
        for position, event in enumerate(events, start=1)
    ]


def facts_of(records: list[Recorded], todo: TodoSnapshot | None = TODO) -> RunFacts:
    """The facts the follower would read for the run, had the store held `records`."""
    began = execution_beginnings(records).get(RUN)
    return RunFacts(todo=todo, execution_began_at=began, **plan_facts(records).get(RUN, {}))


def told(records: list[Recorded], todo: TodoSnapshot | None = TODO) -> list[dict]:
    facts = facts_of(records, todo)
    return [m for r in records for m in messages_for(r, facts)]


def asked(require_approval: bool = False) -> QueryReceived:
    return QueryReceived(
        run_id=RUN, query="강남구 전세", options=QueryOptions(require_approval=require_approval)
    )


def planned(*steps: PlanStep) -> PlanReady:
    intent = Intent(
        type=IntentType.MARKET_INQUIRY,
        confidence=0.9,
        keywords=["전세"],
        entities=QueryEntities(gu=["강남구"]),
    )
    return PlanReady(
        run_id=RUN, intent=intent, steps=list(steps), strategy="parallel", estimated_total_s=8, mode="rules"
    )


def started(step: PlanStep) -> StepStarted:
    return StepStarted(run_id=RUN, step_id=step.step_id, team=step.team, task=step.task, timeout_s=30)


def completed(step: PlanStep) -> StepCompleted:
    return StepCompleted(run_id=RUN, step_id=step.step_id, team=step.team, summary="완료", duration_ms=12)


def answered() -> ResponseReady:
    citation = Citation(article_id="hla-7", law="주택임대차보호법", article="제7조")
    return ResponseReady(
        run_id=RUN,
        response_type="answer",
        answer="평균 전세가는...",
        citations=[citation],
        metadata={"figures": {"n": 3}},
    )


def test_a_run_with_two_parallel_steps() -> None:
    llm_call = LlmCallRecorded(
        run_id=RUN,
        call_point="intent_analysis",
        prompt_name="intent",
        prompt_hash="abc",
        model=None,
        latency_ms=0,
        outcome="not_configured",
        fallback_used=True,
    )
    records = log(
        asked(),
        llm_call,
        planned(SEARCH, LEGAL),
        started(SEARCH),
        started(LEGAL),
        completed(SEARCH),
        completed(LEGAL),
        answered(),
    )
    messages = told(records)

    assert [(m["type"], m["position"]) for m in messages] == [
        ("planning_start", 1),
        ("plan_ready", 3),
        ("execution_start", 4),
        ("todo_updated", 5),
        ("todo_updated", 6),
        ("todo_updated", 7),
        ("final_response", 8),
    ]
    assert all(m["run_id"] == RUN for m in messages)
    plan = messages[1]
    assert {k: plan[k] for k in ("intent", "confidence", "keywords", "entities", "strategy", "mode")} == {
        "intent": "MARKET_INQUIRY",
        "confidence": 0.9,
        "keywords": ["전세"],
        "entities": {"gu": ["강남구"]},
        "strategy": "parallel",
        "mode": "rules",
    }
    assert plan["estimated_total_time"] == 8
    assert (plan["requires_approval"], plan["approval"]) == (False, None)
    assert [(s["step_id"], s["status"], s["depends_on"]) for s in plan["execution_steps"]] == [
        ("search", "pending", []),
        ("legal", "pending", []),
    ]
    assert messages[2]["execution_steps"] == TODO.steps and messages[3]["progress_pct"] == 50
    response = messages[-1]["response"]
    assert (response["type"], response["content"]) == ("answer", "평균 전세가는...")
    assert response["data"]["citations"][0]["article"] == "제7조"
    assert response["data"]["metadata"] == {"figures": {"n": 3}}


def test_approval_begins_execution_and_later_starts_only_update_the_todo() -> None:
    edited = LEGAL.model_copy(update={"task": "제7조만 검색"})
    records = log(
        asked(require_approval=True),
        planned(SEARCH, LEGAL),
        PlanApprovalRequested(run_id=RUN, steps=[SEARCH, LEGAL]),
        PlanApproved(run_id=RUN),
        started(SEARCH),
        PlanApproved(run_id=RUN, modified_steps=[SEARCH, edited]),  # a second answer, with edits
        PlanApproved(run_id=RUN),  # and a plain one: nothing to tell
    )
    messages = told(records)

    assert [(m["type"], m["position"]) for m in messages] == [
        ("planning_start", 1),
        ("plan_ready", 3),  # the plan, shown once: when the supervisor asks about it
        ("execution_start", 4),
        ("todo_updated", 5),
        ("todo_updated", 6),
    ]
    assert messages[0]["require_approval"] is True
    plan = messages[1]
    assert plan["requires_approval"] is True
    assert plan["approval"] == {"message": APPROVAL_PROMPT, "actions": ["approve", "modify", "reject"]}
    assert [s["step_id"] for s in plan["execution_steps"]] == ["search", "legal"]
    assert (plan["intent"], plan["confidence"], plan["keywords"]) == ("MARKET_INQUIRY", 0.9, ["전세"])
    assert (plan["strategy"], plan["estimated_total_time"], plan["mode"]) == ("parallel", 8, "rules")


def test_a_plan_without_steps_is_not_asked_about_even_when_approval_was_asked_for() -> None:
    """The supervisor asks only about a plan with steps (decide.py); a guidance plan is shown at once."""
    messages = told(log(asked(require_approval=True), planned()))
    assert [m["type"] for m in messages] == ["planning_start", "plan_ready"]
    assert messages[1]["requires_approval"] is False and messages[1]["position"] == 2


def test_every_message_is_one_design_names() -> None:
    """DESIGN.md section 6's server frames, and nothing else, for an approved and a rejected run."""
    design = {"planning_start", "plan_ready", "execution_start", "todo_updated", "final_response"}
    approved = log(
        asked(require_approval=True),
        planned(SEARCH),
        PlanApprovalRequested(run_id=RUN, steps=[SEARCH]),
        PlanApproved(run_id=RUN),
        started(SEARCH),
        completed(SEARCH),
        answered(),
    )
    rejected = log(
        asked(require_approval=True),
        planned(SEARCH),
        PlanApprovalRequested(run_id=RUN, steps=[SEARCH]),
        PlanRejected(run_id=RUN, reason="나중에"),
    )
    for records in (approved, rejected):
        assert {m["type"] for m in told(records)} <= design


def test_a_resume_between_the_plan_and_the_request_still_learns_that_the_run_waits() -> None:
    records = log(
        asked(require_approval=True),
        planned(SEARCH, LEGAL),
        PlanApprovalRequested(run_id=RUN, steps=[SEARCH, LEGAL]),
    )
    facts = facts_of(records)
    for cut in (0, 1, 2):
        replayed = [m for r in records[cut:] for m in messages_for(r, facts)]
        waiting = [m for m in replayed if m["type"] == "plan_ready"]
        assert [m["requires_approval"] for m in waiting] == [True]


@pytest.mark.parametrize(
    ("ending", "response_type"),
    [
        (RunFailed(run_id=RUN, code="no_data", reason="시세 API 장애"), "error"),
        (RunCancelled(run_id=RUN, reason="사용자 취소"), "guidance"),
        (PlanRejected(run_id=RUN, reason="나중에"), "guidance"),
    ],
)
def test_runs_that_end_without_an_answer_still_get_a_final_response(
    ending: Event, response_type: str
) -> None:
    (final,) = told(log(ending))
    assert final["type"] == "final_response" and final["response"]["type"] == response_type
    assert final["response"]["content"]
    assert set(final["response"]["data"]) == {
        "listings",
        "citations",
        "insights",
        "documents",
        "failed_steps",
        "metadata",
    }


def test_step_news_without_a_projected_todo_is_not_sent() -> None:
    records = log(asked(), planned(SEARCH), started(SEARCH), completed(SEARCH))
    assert [m["type"] for m in told(records, todo=None)] == [
        "planning_start",
        "plan_ready",
        "execution_start",
    ]


def test_old_event_versions_are_read_upcast() -> None:
    old_failure = StepFailedV1(
        run_id=RUN, step_id="search", team=Team.SEARCH, error="500", retryable=False, duration_ms=3
    )
    records = log(asked(), planned(SEARCH), started(SEARCH), old_failure)
    assert told(records)[-1]["type"] == "todo_updated"


def test_a_replayed_suffix_gives_the_same_messages_as_the_live_log() -> None:
    """Resume renders the events after a position with the same facts: the suffix of what live gave."""
    records = log(
        asked(), planned(SEARCH, LEGAL), started(SEARCH), started(LEGAL), completed(SEARCH), answered()
    )
    facts = facts_of(records)
    live = [m for r in records for m in messages_for(r, facts)]
    for cut in range(len(records)):
        replayed = [m for r in records[cut:] for m in messages_for(r, facts)]
        assert replayed == [m for m in live if m["position"] > cut]
