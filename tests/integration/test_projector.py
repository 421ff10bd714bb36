"""The projector against a real Postgres: live build equals rebuild, each event applied once,
catch-up from the checkpoint, reconnection, the audit timeline and the operator's commands."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
import typer
from psycopg_pool import AsyncConnectionPool
from rich.console import Console
from typer.testing import CliRunner

from contracts import Envelope, Event, new_envelope
from contracts.gateway import PlanApproved, PlanRejected, QueryOptions, QueryReceived
from contracts.planner import PlanReady
from contracts.results import Figure, StepResult
from contracts.supervisor import (
    PlanApprovalRequested,
    ResponseReady,
    RunCancelled,
    StepRetried,
    StepSkipped,
    StepStarted,
    StepStartedV1,
)
from contracts.teams import StepCompleted, StepCompletedV1, StepFailed, StepFailedV1
from contracts.telemetry import LlmCallRecorded, ToolDecisionRecorded
from contracts.values import Intent, IntentType, PlanStep, StepError, StepFocus, Team
from services.platform.audit import OUTSIDE_RUN, print_timeline, timeline
from services.platform.db import open_pool
from services.platform.eventstore import EventStore
from services.platform.recent import RUNS_HELD
from services.platform.settings import REPO_ROOT
from services.projector.cli import audit, projections_app
from services.projector.digest import digest
from services.projector.runner import Projector
from services.projector.store import read_checkpoint
from tests.integration.bus_helpers import wait_until

pytestmark = pytest.mark.integration

SEARCH = PlanStep(step_id="search", team=Team.SEARCH, task="강남구 아파트 전세 시세 검색")
ANALYSIS = PlanStep(step_id="analysis", team=Team.ANALYSIS, task="전세 위험도 분석", depends_on=["search"])
LEGAL = PlanStep(step_id="legal", team=Team.SEARCH, task="주택임대차보호법 전세금 증액 조항 검색")
CONTRACT = PlanStep(step_id="contract", team=Team.DOCUMENT, task="주택임대차 계약서 초안 작성")
FOUND = StepResult(
    headline="강남구 아파트 전세 중앙값 7억 8,000만원 (12건)",
    figures=[Figure(label="강남구 아파트 전세 중앙값", value=78000, unit="만원")],
)


class Script:
    """One run's events as its services would record them, each caused by the one it answers."""

    def __init__(self, run_id: str, session_id: str) -> None:
        self.run_id, self.session_id = run_id, session_id
        self.events: list[Envelope] = []

    def add(self, event: Event, cause: Envelope | None = None) -> Envelope:
        envelope = new_envelope(
            event,
            stream_id=f"run-{self.run_id}",
            correlation_id=self.run_id,
            causation=cause,
            session_id=self.session_id,
        )
        self.events.append(envelope)
        return envelope

    def asked(self, query: str, require_approval: bool = False) -> Envelope:
        options = QueryOptions(require_approval=require_approval)
        return self.add(QueryReceived(run_id=self.run_id, query=query, options=options))

    def llm(self, call_point: str, cause: Envelope, fallback: bool = False) -> Envelope:
        call = LlmCallRecorded(
            run_id=self.run_id,
            call_point=call_point,
            prompt_name=call_point,
            prompt_hash="9f2c41d0aa17e3b5",
            model=None if fallback else "gpt-4o-mini",
            latency_ms=0 if fallback else 640,
            prompt_tokens=None if fallback else 512,
            completion_tokens=None if fallback else 88,
            outcome="not_configured" if fallback else "ok",
            fallback_used=fallback,
        )
        return self.add(call, cause)

    def planned(self, cause: Envelope, *steps: PlanStep, strategy: str = "dag") -> Envelope:
        intent = Intent(type=IntentType.RISK_ANALYSIS, confidence=0.86, keywords=["전세", "위험도"])
        return self.add(
            PlanReady(run_id=self.run_id, intent=intent, steps=list(steps), strategy=strategy, mode="llm"),
            cause,
        )

    def started(self, step: PlanStep, cause: Envelope, attempt: int = 1) -> Envelope:
        started = StepStarted(
            run_id=self.run_id,
            step_id=step.step_id,
            team=step.team,
            task=step.task,
            attempt=attempt,
            timeout_s=30,
        )
        return self.add(started, cause)

    def completed(self, step: PlanStep, cause: Envelope, attempt: int = 1) -> Envelope:
        done = StepCompleted(
            run_id=self.run_id,
            step_id=step.step_id,
            team=step.team,
            attempt=attempt,
            summary=f"{step.task} 완료",
            result=FOUND,
            duration_ms=1530.5,
        )
        return self.add(done, cause)

    def failed(self, step: PlanStep, cause: Envelope, attempt: int = 1, retryable: bool = True) -> Envelope:
        error = StepError(code="upstream_unavailable", message="실거래가 API 응답 없음")
        failed = StepFailed(
            run_id=self.run_id,
            step_id=step.step_id,
            team=step.team,
            attempt=attempt,
            error=error,
            retryable=retryable,
            duration_ms=30000,
        )
        return self.add(failed, cause)

    def answered(self, cause: Envelope, failed_steps: tuple[str, ...] = ()) -> Envelope:
        answer = ResponseReady(
            run_id=self.run_id,
            response_type="answer",
            answer="강남구 아파트 전세가율은 62%로 ...",
            insights=["전세가율 안정"],
            failed_steps=list(failed_steps),
        )
        return self.add(answer, cause)


def multi_team_with_retry(run_id: str, session_id: str) -> Script:
    s = Script(run_id, session_id)
    query = s.asked("강남구 아파트 전세 시세와 위험도 분석해줘")
    s.llm("intent_analysis", query)
    plan = s.planned(query, SEARCH, ANALYSIS)
    search = s.started(SEARCH, plan)
    s.add(
        ToolDecisionRecorded(
            run_id=run_id,
            step_id="search",
            available_tools=["legal_search", "market_data", "listing_search", "loan_data"],
            selected_tools=["market_data", "listing_search"],
            reasoning="시세와 매물이 필요",
            confidence=0.82,
        ),
        search,
    )
    failure = s.failed(SEARCH, search)
    retry = s.add(
        StepRetried(run_id=run_id, step_id="search", next_attempt=2, delay_s=1.0, reason="retryable"), failure
    )
    search_again = s.started(SEARCH, retry, attempt=2)
    found = s.completed(SEARCH, search_again, attempt=2)
    analysis = s.started(ANALYSIS, found)
    s.llm("market_insight", analysis, fallback=True)
    analysed = s.completed(ANALYSIS, analysis)
    s.llm("response_synthesis", analysed)
    s.answered(analysed)
    return s


def guidance(run_id: str, session_id: str) -> Script:
    s = Script(run_id, session_id)
    query = s.asked("안녕")
    plan = s.add(
        PlanReady(run_id=run_id, intent=Intent(type=IntentType.IRRELEVANT, confidence=0.99), mode="rules"),
        query,
    )
    s.add(ResponseReady(run_id=run_id, response_type="guidance", answer="부동산 질문을 해주세요"), plan)
    return s


def approved_with_edits_and_a_skip(run_id: str, session_id: str) -> Script:
    s = Script(run_id, session_id)
    query = s.asked("전세금 5% 인상 가능한가요? 계약서도 써줘", require_approval=True)
    plan = s.planned(query, LEGAL, CONTRACT, strategy="parallel")
    asked = s.add(PlanApprovalRequested(run_id=run_id, steps=[LEGAL, CONTRACT]), plan)
    edited = LEGAL.model_copy(update={"task": "주택임대차보호법 제7조 증액 제한 검색"})
    approved = s.add(PlanApproved(run_id=run_id, modified_steps=[edited, CONTRACT]), asked)
    legal = s.started(edited, approved)
    s.add(StepSkipped(run_id=run_id, step_id="contract", reason="사용자가 건너뜀"), approved)
    done = s.completed(edited, legal)
    s.answered(done)
    return s


def rejected(run_id: str, session_id: str) -> Script:
    s = Script(run_id, session_id)
    query = s.asked("임대차계약서 작성해줘", require_approval=True)
    plan = s.planned(query, CONTRACT)
    asked = s.add(PlanApprovalRequested(run_id=run_id, steps=[CONTRACT]), plan)
    s.add(PlanRejected(run_id=run_id, reason="나중에 할게요"), asked)
    return s


def cancelled_mid_step(run_id: str, session_id: str) -> Script:
    s = Script(run_id, session_id)
    query = s.asked("강남역 근처 30평대 아파트 매매 시세 알려줘")
    plan = s.planned(query, SEARCH)
    search = s.started(SEARCH, plan)
    s.add(RunCancelled(run_id=run_id, reason="사용자 취소"), search)
    s.completed(SEARCH, search)  # the team answers after all; the run stays cancelled
    return s


def recorded_by_the_first_step_wire(run_id: str, session_id: str) -> Script:
    """A run whose steps were recorded as v1: inputs and results as free dicts."""
    s = Script(run_id, session_id)
    query = s.asked("강남구 아파트 전세 시세 알려줘")
    plan = s.planned(query, SEARCH)
    inputs = {"query": "강남구 아파트 전세 시세 알려줘", "focus": ["market"], "entities": {"gu": ["강남구"]}}
    started = StepStartedV1(
        run_id=run_id, step_id="search", team=Team.SEARCH, task=SEARCH.task, inputs=inputs, timeout_s=30
    )
    search = s.add(started, plan)
    result = FOUND.model_dump(mode="json", exclude_defaults=True)
    done = StepCompletedV1(
        run_id=run_id, step_id="search", team=Team.SEARCH, summary="시세 조회", result=result, duration_ms=90
    )
    s.answered(s.add(done, search))
    return s


def failed_for_good_with_an_old_step_failed(run_id: str, session_id: str) -> Script:
    s = Script(run_id, session_id)
    query = s.asked("전세금 인상기준은?")
    plan = s.planned(query, LEGAL, SEARCH, strategy="parallel")
    legal, search = s.started(LEGAL, plan), s.started(SEARCH, plan)
    done = s.completed(LEGAL, legal)
    old = StepFailedV1(
        run_id=run_id,
        step_id="search",
        team=Team.SEARCH,
        error="시세 API 500",
        retryable=False,
        duration_ms=80,
    )
    s.add(old, search)
    s.answered(done, failed_steps=("search",))
    return s


SCRIPTS = [
    multi_team_with_retry,
    guidance,
    approved_with_edits_and_a_skip,
    rejected,
    cancelled_mid_step,
    failed_for_good_with_an_old_step_failed,
    recorded_by_the_first_step_wire,
]


def scripts(rounds: int = 2) -> list[Script]:
    return [make(f"{make.__name__}-{n}", f"session-{n}") for n in range(rounds) for make in SCRIPTS]


async def append_in_batches(store: EventStore, script: Script, size: int = 3) -> None:
    for start in range(0, len(script.events), size):
        await store.append(script.events[start : start + size])


async def append_concurrently(store: EventStore, runs: list[Script]) -> None:
    await asyncio.gather(*(append_in_batches(store, run) for run in runs))


def caught_up(store: EventStore) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        async with store.pool.connection() as conn:
            return await read_checkpoint(conn) == await store.head()

    return check


@asynccontextmanager
async def following(projector: Projector) -> AsyncIterator[None]:
    stop = asyncio.Event()
    task = asyncio.create_task(projector.run(stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def rows(pool: AsyncConnectionPool, sql: str, *params: object) -> list[dict]:
    async with pool.connection() as conn:
        return await (await conn.execute(sql, params)).fetchall()


async def live_digest(pool: AsyncConnectionPool) -> str:
    async with pool.connection() as conn:
        return await digest(conn)


async def test_live_build_equals_rebuild(store: EventStore, pool: AsyncConnectionPool) -> None:
    projector = Projector(store, batch_size=7, poll_interval_s=0.2)
    runs = scripts()
    async with following(projector):
        await append_concurrently(store, runs[: len(runs) // 2])
        await append_concurrently(store, runs[len(runs) // 2 :])
        await wait_until(caught_up(store), what="the projector at the head")
    live = await live_digest(pool)

    assert await projector.rebuild() == sum(len(r.events) for r in runs)
    assert await live_digest(pool) == live


async def test_a_rebuild_folds_on_runs_it_let_go(store: EventStore, pool: AsyncConnectionPool) -> None:
    """More runs in flight than a projector holds in memory, each run's events in batches apart: the
    rebuild reads the rows of the runs it let go (it wrote them, and knows where they stand) and folds
    on from them, as the live build does."""
    runs = [Script(f"wide-{i}", "s-wide") for i in range(RUNS_HELD + 12)]
    asked = [run.asked(f"질문 {i}") for i, run in enumerate(runs)]
    planned = [run.planned(cause, SEARCH) for run, cause in zip(runs, asked, strict=True)]
    started = [run.started(SEARCH, cause) for run, cause in zip(runs, planned, strict=True)]
    for run, cause in zip(runs, started, strict=True):
        run.completed(SEARCH, cause)
    for round_ in range(4):  # one event of every run, then the next of each: each run spans batches
        await store.append([run.events[round_] for run in runs])
    projector = Projector(store, batch_size=50)
    await projector.catch_up()
    live = await live_digest(pool)

    assert await Projector(store, batch_size=50).rebuild() == 4 * len(runs)
    assert await live_digest(pool) == live
    done = await rows(pool, "SELECT count(*) AS n FROM todo_steps WHERE status = 'completed'")
    asked_rows = await rows(pool, "SELECT count(*) AS n FROM final_states WHERE query LIKE '질문 %%'")
    assert done == [{"n": len(runs)}] and asked_rows == [{"n": len(runs)}]


async def test_rows_say_what_happened(store: EventStore, pool: AsyncConnectionPool) -> None:
    await append_concurrently(store, scripts(rounds=1))
    await Projector(store).catch_up()

    steps = await rows(
        pool,
        "SELECT step_id, status, attempt, summary, error FROM todo_steps WHERE run_id = %s ORDER BY ordinal",
        "multi_team_with_retry-0",
    )
    assert [(s["step_id"], s["status"], s["attempt"]) for s in steps] == [
        ("search", "completed", 2),
        ("analysis", "completed", 1),
    ]
    assert (steps[0]["summary"], steps[0]["error"]) == ("강남구 아파트 전세 시세 검색 완료", None)
    edited = await rows(
        pool,
        "SELECT step_id, task, status FROM todo_steps WHERE run_id = %s ORDER BY ordinal",
        "approved_with_edits_and_a_skip-0",
    )
    assert [(s["task"], s["status"]) for s in edited] == [
        ("주택임대차보호법 제7조 증액 제한 검색", "completed"),
        ("주택임대차 계약서 초안 작성", "skipped"),
    ]
    progress = await rows(pool, "SELECT run_id, progress_pct FROM todos ORDER BY run_id")
    assert {r["run_id"]: r["progress_pct"] for r in progress} == {
        "approved_with_edits_and_a_skip-0": 100,
        "cancelled_mid_step-0": 100,  # the team's late answer is a fact; the run itself stays cancelled
        "failed_for_good_with_an_old_step_failed-0": 100,
        "guidance-0": 100,
        "multi_team_with_retry-0": 100,
        "recorded_by_the_first_step_wire-0": 100,
        "rejected-0": 0,
    }
    finals = await rows(
        pool, "SELECT run_id, status, llm_calls, llm_fallbacks, tool_decisions, errors FROM final_states"
    )
    by_run = {f["run_id"]: f for f in finals}
    assert {run: f["status"] for run, f in by_run.items()} == {
        "approved_with_edits_and_a_skip-0": "completed",
        "cancelled_mid_step-0": "cancelled",
        "failed_for_good_with_an_old_step_failed-0": "completed_with_errors",
        "guidance-0": "completed",
        "multi_team_with_retry-0": "completed",
        "recorded_by_the_first_step_wire-0": "completed",
        "rejected-0": "rejected",
    }
    multi = by_run["multi_team_with_retry-0"]
    assert (multi["llm_calls"], multi["llm_fallbacks"], multi["tool_decisions"]) == (3, 1, 1)
    assert [e["code"] for e in by_run["failed_for_good_with_an_old_step_failed-0"]["errors"]] == ["error"]
    history = await rows(pool, "SELECT run_id, status FROM session_runs WHERE session_id = 'session-0'")
    assert len(history) == len(SCRIPTS)


async def test_an_edit_that_replaces_a_step_leaves_only_the_steps_of_the_edited_plan(
    store: EventStore, pool: AsyncConnectionPool
) -> None:
    """The plan is projected first; the person's edit then drops a step and adds another: the todo
    holds the edited plan's steps only, as a rebuild from the log does."""
    s = Script("replaced", "s1")
    query = s.asked("강남구 전세 시세와 계약서", require_approval=True)
    plan = s.planned(query, SEARCH, CONTRACT, strategy="parallel")
    asked = s.add(PlanApprovalRequested(run_id="replaced", steps=[SEARCH, CONTRACT]), plan)
    approved = s.add(PlanApproved(run_id="replaced", modified_steps=[SEARCH, LEGAL]), asked)
    done = s.completed(SEARCH, s.started(SEARCH, approved))
    s.completed(LEGAL, s.started(LEGAL, approved))
    s.answered(done)
    projector = Projector(store)
    cut = s.events.index(approved)
    await store.append(s.events[:cut])
    await projector.catch_up()
    await store.append(s.events[cut:])
    await projector.catch_up()

    sql = "SELECT step_id, status FROM todo_steps WHERE run_id = 'replaced' ORDER BY ordinal"
    live = await rows(pool, sql)
    assert [(r["step_id"], r["status"]) for r in live] == [("search", "completed"), ("legal", "completed")]
    await projector.rebuild()
    assert await rows(pool, sql) == live


async def test_a_run_recorded_with_v1_step_events_reads_and_projects_as_before(
    store: EventStore, pool: AsyncConnectionPool
) -> None:
    await store.append(recorded_by_the_first_step_wire("first-wire", "session-v1").events)
    await Projector(store).catch_up()

    events = [r.event() for r in await store.read_correlation("first-wire")]
    (started,) = [e for e in events if isinstance(e, StepStarted)]
    (completed,) = [e for e in events if isinstance(e, StepCompleted)]
    assert started.inputs.entities.gu == ["강남구"] and started.inputs.focus == [StepFocus.MARKET]
    assert completed.result == FOUND
    # The final state holds the result as v1 stored it: the rows a projection built before v2 had.
    stored = FOUND.model_dump(mode="json", exclude_defaults=True)
    final = await rows(pool, "SELECT status, step_results FROM final_states WHERE run_id = 'first-wire'")
    assert final == [{"status": "completed", "step_results": {"search": stored}}]


async def test_two_projectors_apply_each_event_once(store: EventStore, database_url: str) -> None:
    runs = scripts(rounds=3)
    await append_concurrently(store, runs)
    other_pool = await open_pool(database_url)
    try:
        one, other = Projector(store, batch_size=3), Projector(EventStore(other_pool), batch_size=3)
        applied = await asyncio.gather(one.catch_up(), other.catch_up(), one.catch_up())
    finally:
        await other_pool.close()

    assert sum(applied) == await store.head()  # every event applied by exactly one of them
    assert all(applied[:2])  # both replicas really took part
    calls = await rows(store.pool, "SELECT run_id, llm_calls FROM final_states")
    recorded = await rows(
        store.pool,
        "SELECT correlation_id AS run_id, count(*) AS n FROM events WHERE event_type = 'LlmCallRecorded' "
        "GROUP BY correlation_id",
    )
    assert {c["run_id"]: c["llm_calls"] for c in calls if c["llm_calls"]} == {
        r["run_id"]: r["n"] for r in recorded
    }
    live = await live_digest(store.pool)
    await one.rebuild()
    assert await live_digest(store.pool) == live


async def test_a_replica_folds_on_from_the_stored_row_after_the_other_moved_the_run(
    store: EventStore, pool: AsyncConnectionPool, database_url: str
) -> None:
    """A projector keeps the states it wrote; once another replica has applied a batch of the same run,
    what it kept is behind the row, and it must fold on from the row instead."""
    run = multi_team_with_retry("r1", "s1")
    thirds = len(run.events) // 3
    other_pool = await open_pool(database_url)
    try:
        one, other = Projector(store), Projector(EventStore(other_pool))
        for projector, events in (
            (one, run.events[:thirds]),
            (other, run.events[thirds : 2 * thirds]),
            (one, run.events[2 * thirds :]),
        ):
            await store.append(events)
            assert await projector.catch_up() == len(events)
    finally:
        await other_pool.close()

    (final,) = await rows(pool, "SELECT status, llm_calls, step_results FROM final_states")
    assert final["status"] == "completed" and set(final["step_results"]) == {"search", "analysis"}
    live = await live_digest(pool)
    await Projector(store).rebuild()
    assert await live_digest(pool) == live


async def test_replicas_following_live_while_events_arrive(store: EventStore, database_url: str) -> None:
    other_pool = await open_pool(database_url)
    try:
        one, other = Projector(store, batch_size=4), Projector(EventStore(other_pool), batch_size=4)
        async with following(one), following(other):
            await append_concurrently(store, scripts())
            await wait_until(caught_up(store), what="the projector at the head")
    finally:
        await other_pool.close()
    live = await live_digest(store.pool)
    await one.rebuild()
    assert await live_digest(store.pool) == live


async def test_catch_up_continues_from_the_checkpoint(store: EventStore, pool: AsyncConnectionPool) -> None:
    run = multi_team_with_retry("r1", "s1")
    first, rest = run.events[:6], run.events[6:]
    projector = Projector(store, batch_size=4)
    await store.append(first)
    assert await projector.catch_up() == len(first)
    (todo,) = await rows(pool, "SELECT progress_pct FROM todos WHERE run_id = 'r1'")
    assert todo["progress_pct"] == 50  # search failed, analysis pending

    await store.append(rest)
    await store.append(guidance("r2", "s1").events)
    assert await projector.catch_up() == len(rest) + 3
    assert await projector.catch_up() == 0
    statuses = await rows(pool, "SELECT run_id, status, last_position FROM final_states ORDER BY run_id")
    assert [(s["run_id"], s["status"]) for s in statuses] == [("r1", "completed"), ("r2", "completed")]
    assert statuses[-1]["last_position"] == await store.head()


async def test_following_survives_lost_connections(store: EventStore, pool: AsyncConnectionPool) -> None:
    projector = Projector(store, poll_interval_s=0.2, first_backoff_s=0.05)
    async with following(projector):
        await store.append(guidance("r1", "s1").events)
        await wait_until(caught_up(store), what="the projector at the head")
        async with pool.connection() as conn:
            await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        await store.append(multi_team_with_retry("r2", "s1").events)
        await wait_until(caught_up(store), what="the projector at the head")
    (final,) = await rows(pool, "SELECT status FROM final_states WHERE run_id = 'r2'")
    assert final["status"] == "completed"


async def test_audit_timeline_names_causes(store: EventStore) -> None:
    run = multi_team_with_retry("r1", "s1")
    await store.append(run.events)
    records = await store.read_correlation("r1")
    position = {r.envelope.event_id: r.position for r in records}

    lines = timeline(records)
    assert lines[0].cause is None  # the person's question
    by_event = {line.event: line for line in reversed(lines)}  # first of each type
    retried = by_event["StepRetried v1"]
    failure = next(r for r in records if r.envelope.event_type == "StepFailed")
    assert retried.cause == f"StepFailed @{position[failure.envelope.event_id]}"
    assert "upstream_unavailable: 실거래가 API 응답 없음" in by_event["StepFailed v2"].details
    fallback = next(line for line in lines if "market_insight" in line.details)
    assert "fallback used" in fallback.details and "not_configured" in fallback.details
    assert "selected [market_data, listing_search]" in by_event["ToolDecisionRecorded v1"].details
    assert "answer: 강남구" in by_event["ResponseReady v1"].details

    foreign = new_envelope(
        StepSkipped(run_id="r1", step_id="analysis", reason="x"),
        stream_id="run-r1",
        correlation_id="r1",
        causation=guidance("r9", "s1").events[0],
    )
    await store.append([foreign])
    assert timeline(await store.read_correlation("r1"))[-1].cause == OUTSIDE_RUN

    console = Console(record=True, width=400)
    print_timeline("r1", lines, console)
    printed = console.export_text()
    assert "StepRetried v1" in printed
    assert "selected [market_data, listing_search]" in printed  # brackets are content, not markup


def invoke(app: typer.Typer, args: list[str], database_url: str):
    return CliRunner().invoke(app, args, env={"DATABASE_URL": database_url})


async def test_cli_rebuild_status_and_audit(store: EventStore, database_url: str) -> None:
    runs = scripts(rounds=1)
    await append_concurrently(store, runs)
    await Projector(store).catch_up()
    total = sum(len(r.events) for r in runs)

    # The commands run their own event loop, so they run in a thread of their own.
    rebuilt = await asyncio.to_thread(invoke, projections_app, ["rebuild"], database_url)
    assert rebuilt.exit_code == 0, rebuilt.output
    assert f"folded {total} events" in rebuilt.output
    assert "unchanged: the live build equals the rebuild" in rebuilt.output

    status = await asyncio.to_thread(invoke, projections_app, ["status"], database_url)
    assert f"checkpoint {total} · store head {total} · behind by 0" in status.output

    audit_app = typer.Typer()
    audit_app.command()(audit)
    shown = await asyncio.to_thread(invoke, audit_app, ["multi_team_with_retry-0"], database_url)
    assert shown.exit_code == 0, shown.output
    assert "StepRetried" in shown.output
    missing = await asyncio.to_thread(invoke, audit_app, ["no-such-run"], database_url)
    assert missing.exit_code == 1
    assert "no events for run 'no-such-run'" in missing.output


async def test_module_runs_until_sigterm(store: EventStore, database_url: str) -> None:
    await store.append(guidance("r1", "s1").events)
    projector = subprocess.Popen(
        [sys.executable, "-m", "services.projector"],
        cwd=REPO_ROOT,
        env={**os.environ, "DATABASE_URL": database_url},
    )
    try:
        await wait_until(caught_up(store), what="the projector at the head")
        projector.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(projector.wait, 10) == 0
    finally:
        if projector.poll() is None:
            projector.kill()
