"""The supervisor against real NATS and Postgres, with teams that are real consumers running scripted work:
DAG order with results carried forward, retries, timeouts, skips, cancel and two replicas at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from contracts import new_envelope
from contracts.gateway import QueryOptions, QueryReceived, RunCancelRequested, StepSkipRequested
from contracts.planner import PlanReady
from contracts.results import StepResult
from contracts.teams import StepCompleted
from contracts.values import Intent, IntentType, PlanStep, Team
from services.platform.bus import ConsumerPolicy
from services.platform.eventstore import ConcurrencyError
from services.platform.service import Wiring
from services.platform.settings import InfraSettings
from services.platform.team import StepFailure, StepOutput, StepWork, team_subscription
from services.supervisor.bootstrap import SupervisorSettings, build_supervisor
from services.supervisor.handlers import Supervisor
from services.supervisor.timers import TimerLoop
from tests.integration.bus_helpers import relay, serving_all, wait_until

pytestmark = pytest.mark.integration
FAST = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], ack_wait_s=5)


class ScriptedTeams:
    """Team work that records what it was given and fails or hangs when a test says so."""

    def __init__(self) -> None:
        self.seen: list[StepWork] = []
        self.fail_first: set[str] = set()
        self.hang_first: set[str] = set()
        self.always_fail: set[str] = set()

    async def work(self, step: StepWork) -> StepOutput:
        self.seen.append(step)
        if step.step_id in self.always_fail:
            raise StepFailure("bad_input", "이 단계는 항상 실패합니다", retryable=False)
        if step.attempt == 1 and step.step_id in self.fail_first:
            raise StepFailure("upstream_unavailable", "잠시 응답 없음", retryable=True)
        if step.attempt == 1 and step.step_id in self.hang_first:
            await asyncio.sleep(3600)
        result = StepResult(headline=f"{step.task} 완료", data={"from_deps": sorted(step.dependency_results)})
        return StepOutput(summary=f"{step.task} 완료", result=result)


@contextlib.asynccontextmanager
async def pipeline(
    infra: InfraSettings, teams: ScriptedTeams, supervisors: int = 1, running: tuple[Team, ...] = tuple(Team)
) -> AsyncIterator[None]:
    """A publisher, N supervisor replicas (consumers + timer loops) and the teams, in-process."""
    settings = SupervisorSettings(retry_first_delay_s=0.2, retry_max_delay_s=0.5)

    async def supervisor(pool, _settings) -> Wiring:
        sup = build_supervisor(settings)
        return Wiring(sup.subscriptions(), loops=[TimerLoop(pool, sup, tick_s=0.05).run])

    async def all_teams(pool, _settings) -> Wiring:
        return Wiring([team_subscription(team, teams.work) for team in running])

    builds = [relay, all_teams, *[supervisor] * supervisors]
    async with serving_all(infra, builds, FAST):
        yield


async def start_run(store, run_id: str, steps: list[PlanStep], strategy: str, approval=False) -> None:
    query = QueryReceived(
        run_id=run_id, query="강남구 아파트 전세 위험도", options=QueryOptions(require_approval=approval)
    )
    plan = PlanReady(
        run_id=run_id,
        intent=Intent(type=IntentType.RISK_ANALYSIS, confidence=0.9),
        steps=steps,
        strategy=strategy,
        mode="rules",
    )
    await append(store, run_id, query, plan)


async def append(store, run_id: str, *events) -> None:
    await store.append(
        [new_envelope(e, stream_id=f"run-{run_id}", correlation_id=run_id, session_id="s1") for e in events]
    )


async def run_events(store, run_id: str) -> list:
    return [r.envelope for r in await store.read_stream(f"run-{run_id}")]


async def answered(store, run_id: str) -> bool:
    return any(e.event_type in ("ResponseReady", "RunCancelled") for e in await run_events(store, run_id))


def step(step_id: str, team: Team, depends_on=(), timeout_s=20.0) -> PlanStep:
    return PlanStep(
        step_id=step_id, team=team, task=f"{step_id} 작업", depends_on=list(depends_on), timeout_s=timeout_s
    )


async def test_a_dag_runs_in_dependency_order_and_feeds_results_forward(store, infra) -> None:
    teams = ScriptedTeams()
    steps = [
        step("market", Team.SEARCH),
        step("legal", Team.SEARCH),
        step("risk", Team.ANALYSIS, ["market", "legal"]),
        step("lease", Team.DOCUMENT, ["risk"]),
    ]
    async with pipeline(infra, teams):
        await start_run(store, "dag1", steps, "dag")
        await wait_until(lambda: answered(store, "dag1"), what="the run's response")
    order = [w.step_id for w in teams.seen]
    assert set(order[:2]) == {"market", "legal"} and order[2:] == ["risk", "lease"]
    risk = next(w for w in teams.seen if w.step_id == "risk")
    assert sorted(risk.dependency_results) == ["legal", "market"]
    # Read from the store, where the StepStarted only names them: each as its step produced it.
    assert risk.dependency_results["market"].headline == "market 작업 완료"
    assert risk.dependency_results["legal"].data == {"from_deps": []}
    events = await run_events(store, "dag1")
    response = next(e for e in events if e.event_type == "ResponseReady")
    assert response.data["response_type"] == "answer" and response.data["failed_steps"] == []
    assert "risk 작업 완료" in response.data["answer"]


async def test_a_failing_step_is_retried_and_a_hanging_one_times_out(store, infra) -> None:
    teams = ScriptedTeams()
    teams.fail_first, teams.hang_first = {"flaky"}, {"slow"}
    steps = [step("flaky", Team.SEARCH), step("slow", Team.ANALYSIS, timeout_s=0.5)]
    async with pipeline(infra, teams):
        await start_run(store, "retry1", steps, "parallel")
        await wait_until(lambda: answered(store, "retry1"), what="the run's response")
    events = await run_events(store, "retry1")
    failures = [e.data["error"]["code"] for e in events if e.event_type == "StepFailed"]
    assert sorted(failures) == ["timeout", "upstream_unavailable"]
    assert sum(e.event_type == "StepRetried" for e in events) == 2
    attempts = sorted((w.step_id, w.attempt) for w in teams.seen)
    assert attempts == [("flaky", 1), ("flaky", 2), ("slow", 1), ("slow", 2)]
    response = next(e for e in events if e.event_type == "ResponseReady")
    assert response.data["failed_steps"] == []


async def test_a_step_nobody_answers_is_timed_out_by_the_supervisor(store, infra) -> None:
    """The document team is down: the supervisor's own deadline fails each attempt, then the run answers."""
    teams = ScriptedTeams()
    steps = [step("search", Team.SEARCH), step("lease", Team.DOCUMENT, timeout_s=0.3)]
    async with pipeline(infra, teams, running=(Team.SEARCH,)):
        await start_run(store, "deaf1", steps, "parallel")
        await wait_until(lambda: answered(store, "deaf1"), what="the run's response")
    events = await run_events(store, "deaf1")
    timed_out = [e.data["attempt"] for e in events if e.event_type == "StepTimedOut"]
    assert timed_out == [1, 2, 3]  # PlanStep.max_attempts
    response = next(e for e in events if e.event_type == "ResponseReady").data
    assert response["failed_steps"] == ["lease"] and "search 작업 완료" in response["answer"]


async def test_a_run_with_a_failed_step_answers_with_what_it_has(store, infra) -> None:
    teams = ScriptedTeams()
    teams.always_fail = {"broken"}
    steps = [step("good", Team.SEARCH), step("broken", Team.SEARCH), step("after", Team.ANALYSIS, ["broken"])]
    async with pipeline(infra, teams):
        await start_run(store, "partial1", steps, "dag")
        await wait_until(lambda: answered(store, "partial1"), what="the run's response")
    events = await run_events(store, "partial1")
    response = next(e for e in events if e.event_type == "ResponseReady").data
    assert response["failed_steps"] == ["broken"]
    assert "good 작업 완료" in response["answer"] and "항상 실패" in response["answer"]
    skipped = [e.data for e in events if e.event_type == "StepSkipped"]
    assert [s["step_id"] for s in skipped] == ["after"]


async def test_two_supervisor_replicas_never_dispatch_a_step_twice(store, infra) -> None:
    teams = ScriptedTeams()
    runs = [f"rep{i}" for i in range(6)]
    steps = [step("a", Team.SEARCH), step("b", Team.SEARCH), step("c", Team.ANALYSIS, ["a", "b"])]
    async with pipeline(infra, teams, supervisors=2):
        for run_id in runs:
            await start_run(store, run_id, steps, "dag")
        for run_id in runs:
            await wait_until(lambda r=run_id: answered(store, r), what=f"{run_id}'s response")
    for run_id in runs:
        events = await run_events(store, run_id)
        started = Counter(
            (e.data["step_id"], e.data["attempt"]) for e in events if e.event_type == "StepStarted"
        )
        assert set(started.values()) == {1} and len(started) == 3
        assert sum(e.event_type == "ResponseReady" for e in events) == 1


async def test_skip_and_cancel_requests_from_the_person(store, infra) -> None:
    teams = ScriptedTeams()
    teams.hang_first = {"slow", "stuck"}
    async with pipeline(infra, teams):
        slow = [step("slow", Team.SEARCH, timeout_s=3), step("quick", Team.SEARCH)]
        await start_run(store, "skip1", slow, "parallel")
        await wait_until(lambda: _has(store, "skip1", "StepCompleted"), what="the quick step")
        await append(store, "skip1", StepSkipRequested(run_id="skip1", step_id="slow"))
        await start_run(store, "cancel1", [step("stuck", Team.SEARCH, timeout_s=3)], "sequential")
        await wait_until(lambda: _has(store, "cancel1", "StepStarted"), what="the stuck step")
        await append(store, "cancel1", RunCancelRequested(run_id="cancel1", reason="그만할게요"))
        await wait_until(lambda: answered(store, "skip1"), what="skip1's response")
        await wait_until(lambda: answered(store, "cancel1"), what="cancel1's end")
    skip_types = [e.event_type for e in await run_events(store, "skip1")]
    assert skip_types.index("StepSkipped") < skip_types.index("ResponseReady")  # answered without it
    cancel_types = [e.event_type for e in await run_events(store, "cancel1")]
    assert "RunCancelled" in cancel_types and "ResponseReady" not in cancel_types


async def _has(store, run_id: str, event_type: str) -> bool:
    return any(e.event_type == event_type for e in await run_events(store, run_id))


async def test_a_replica_decides_from_the_events_another_appended_since_it_last_folded_the_run(store) -> None:
    """Each replica keeps the runs it folded and reads only what came after; a decision must still see
    every event another replica (or a team) appended meanwhile, and one that lost its race decides again
    from the fresh stream."""
    answered_states = []

    async def respond(state):
        answered_states.append(state)
        return []

    one, other = Supervisor(respond=respond), Supervisor(respond=respond)
    await start_run(store, "r1", [step("a", Team.SEARCH), step("b", Team.SEARCH, ["a"])], "sequential")

    async def decided(supervisor: Supervisor) -> list[str]:
        async with store.pool.connection() as conn, conn.transaction():
            outcome = await supervisor.reconcile(conn, "r1")
        if outcome.events:
            await store.append(outcome.events, expected_version=outcome.expected_version)
        return [f"{e.event_type}:{e.data.get('step_id')}" for e in outcome.events]

    async def completed(step_id: str) -> None:
        result = StepResult(headline=f"{step_id} 완료")
        await append(
            store,
            "r1",
            StepCompleted(
                run_id="r1", step_id=step_id, team=Team.SEARCH, summary="완료", result=result, duration_ms=5
            ),
        )

    assert await decided(one) == ["StepStarted:a"]
    await completed("a")
    # `one` decides to start b, but `other` records the same decision first: one's loses its race.
    async with store.pool.connection() as conn, conn.transaction():
        stale = await one.reconcile(conn, "r1")
    assert await decided(other) == ["StepStarted:b"]
    with pytest.raises(ConcurrencyError):
        await store.append(stale.events, expected_version=stale.expected_version)
    await completed("b")
    assert await decided(one) == []  # both steps done: it answers, and dispatches nothing again
    (state,) = answered_states
    assert {s: state.steps[s].status for s in state.steps} == {"a": "completed", "b": "completed"}
    assert state.version == len(await run_events(store, "r1"))
