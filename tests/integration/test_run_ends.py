"""Every run ends, against real NATS and Postgres: each cause of RunFailed, the watchdog over the store, and
a run waiting for the person expiring. The supervisor is the real service (`python -m services.supervisor`'s
wiring, its limits set by environment as an operator would); the planner and the teams are stand-ins that
plan, fail, ask or park as each test needs."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from contracts import Event, caused_by, new_envelope
from contracts.gateway import InputProvided, QueryOptions, QueryReceived
from contracts.planner import PlanReady
from contracts.results import Question, StepResult
from contracts.supervisor import PlanApprovalRequested, ResponseReady, RunFailed, StepStarted
from contracts.teams import StepCompleted
from contracts.values import Intent, IntentType, PlanStep, Team
from services.platform.audit import timeline
from services.platform.bus import ConsumerPolicy
from services.platform.consumer import HandlerContext, Outcome, Poison, Subscription
from services.platform.deadletters import list_dead_letters
from services.platform.service import Build, Wiring
from services.platform.team import StepFailure, StepOutput, StepWork, team_subscription
from services.supervisor.bootstrap import SupervisorSettings, build_supervisor
from services.supervisor.bootstrap import build as supervisor_build
from services.supervisor.ending import RunLimits
from services.supervisor.synthesis import respond_by_rules
from services.supervisor.timers import TimerLoop
from services.supervisor.watchdog import PLANNER_CONSUMER, Watchdog
from tests.integration.bus_helpers import relay, serving_all, wait_until
from tests.integration.gateway_helpers import Gateway, awaits_approval, connected, new_session

pytestmark = pytest.mark.integration
FAST = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], ack_wait_s=5)
SEARCH = PlanStep(step_id="search", team=Team.SEARCH, task="강남구 전세 시세 조회", timeout_s=20)
LEGAL = PlanStep(step_id="legal", team=Team.SEARCH, task="주택임대차보호법 검색", timeout_s=20)
FAILED_SENTENCE = "죄송합니다. 요청을 처리하지 못했습니다: "


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch):
    """Set the supervisor's limits as an operator does, by environment; a quick watchdog for the tests."""
    monkeypatch.setenv("JIPSA_SUPERVISOR_WATCHDOG_EVERY_S", "0.1")

    def set_limits(**values: float) -> None:
        for name, value in values.items():
            monkeypatch.setenv(f"JIPSA_SUPERVISOR_{name.upper()}", str(value))

    return set_limits


def planner(*steps: PlanStep, parks: bool = False) -> Build:
    """A stand-in planner bound as the real one is (durable `planner`): it plans `steps`, or parks."""

    async def plan(ctx: HandlerContext) -> Outcome:
        if parks:
            raise Poison("the planner cannot plan this question")
        intent = Intent(type=IntentType.RISK_ANALYSIS, confidence=0.9)
        ready = PlanReady(
            run_id=ctx.event.run_id, intent=intent, steps=list(steps), strategy="parallel", mode="rules"
        )
        return Outcome([caused_by(ready, ctx.envelope)])

    async def build(pool, settings) -> Wiring:
        return Wiring([Subscription(PLANNER_CONSUMER, "QueryReceived", plan)])

    return build


def search_team(work) -> Build:
    async def build(pool, settings) -> Wiring:
        return Wiring([team_subscription(Team.SEARCH, work)])

    return build


async def always_fails(step: StepWork) -> StepOutput:
    raise StepFailure("upstream_unavailable", f"{step.step_id} 원천 응답 없음", retryable=False)


async def always_answers(step: StepWork) -> StepOutput:
    return StepOutput(summary="완료", result=StepResult(headline=f"{step.task} 완료"))


async def always_asks(step: StepWork) -> StepOutput:
    question = Question(field="deposit", label="보증금")
    asking = StepResult(headline="보증금을 알려 주세요", questions=[question], needs_input=True)
    return StepOutput(summary="입력 필요", result=asking)


async def ask(store, run_id: str, *, approval: bool = False) -> None:
    query = QueryReceived(
        run_id=run_id, query="강남구 전세 위험도", options=QueryOptions(require_approval=approval)
    )
    await append(store, run_id, query)


async def append(store, run_id: str, *events: Event, at: datetime | None = None) -> None:
    envelopes = [
        new_envelope(e, stream_id=f"run-{run_id}", correlation_id=run_id, session_id="s1", occurred_at=at)
        for e in events
    ]
    await store.append(envelopes)


async def events_of(store, run_id: str) -> list:
    return [r.envelope for r in await store.read_stream(f"run-{run_id}")]


async def ending(store, run_id: str) -> RunFailed:
    """The run's RunFailed, once it is recorded; the run must have no other ending."""

    async def ended() -> bool:
        return any(e.event_type == "RunFailed" for e in await events_of(store, run_id))

    await wait_until(ended, what=f"{run_id}'s RunFailed")
    kinds = [e.event_type for e in await events_of(store, run_id)]
    assert kinds.count("RunFailed") == 1 and "ResponseReady" not in kinds, kinds
    recorded = [r for r in await store.read_stream(f"run-{run_id}") if r.envelope.event_type == "RunFailed"]
    return recorded[0].event()


async def test_planning_parked_as_a_dead_letter_ends_the_run_and_the_person_is_told(
    store, infra, gateway: Gateway, limits
) -> None:
    async with serving_all(infra, [relay, planner(parks=True), supervisor_build], FAST):
        session, token = await new_session(gateway)
        async with connected(gateway, session, token) as client:
            await client.send({"type": "query", "query": "강남구 전세 시세 알려줘"})
            final = await client.until_type("final_response", timeout=30)
    run_id = final["run_id"]
    failed = await ending(store, run_id)
    assert failed.code == "planning_failed"
    assert final["response"]["type"] == "error"
    assert final["response"]["content"] == FAILED_SENTENCE + failed.reason
    assert "다시 질문해 주세요" in failed.reason
    assert [d.consumer for d in await list_dead_letters(store.pool)] == [PLANNER_CONSUMER]
    audit = [row.details for row in timeline(await store.read_correlation(run_id))]
    assert audit[-1] == f"planning_failed: {failed.reason}"  # what `jipsa audit RUN_ID` prints


async def test_every_step_failing_ends_the_run_with_steps_failed(store, infra, limits) -> None:
    builds = [relay, planner(SEARCH, LEGAL), search_team(always_fails), supervisor_build]
    async with serving_all(infra, builds, FAST):
        await ask(store, "allfail")
        failed = await ending(store, "allfail")
    assert failed.code == "steps_failed"
    assert "search 원천 응답 없음" in failed.reason and "legal 원천 응답 없음" in failed.reason


async def test_a_decision_that_keeps_failing_is_parked_and_ends_the_run(store, infra) -> None:
    """The supervisor can never compose this run's answer: its message is parked, the watchdog ends it."""

    async def broken_response(state) -> list[Event]:
        raise RuntimeError("the composer has a bug for this run")

    settings = SupervisorSettings(watchdog_every_s=0.1)

    async def supervisor(pool, _infra) -> Wiring:
        sup = dataclasses.replace(build_supervisor(settings), respond=broken_response)
        watchdog = Watchdog(pool, settings.limits(), sup.clock, every_s=settings.watchdog_every_s)
        return Wiring(sup.subscriptions(), loops=[TimerLoop(pool, sup, tick_s=0.05).run, watchdog.run])

    async with serving_all(infra, [relay, planner(SEARCH), search_team(always_answers), supervisor], FAST):
        await ask(store, "broken")
        failed = await ending(store, "broken")
    assert failed.code == "decision_failed"
    assert [d.consumer for d in await list_dead_letters(store.pool)] == ["supervisor-StepCompleted"]


async def test_a_step_that_keeps_asking_ends_the_run_past_the_input_rounds(store, infra, limits) -> None:
    limits(max_input_rounds=2)
    answered: set[str] = set()

    async def person_answers() -> bool:
        """Answer every question asked (as the gateway records a form); done once the run has ended."""
        kinds = await events_of(store, "asks")
        for asked in (e for e in kinds if e.event_type == "InputRequested"):
            if str(asked.event_id) not in answered:
                answered.add(str(asked.event_id))
                await append(
                    store, "asks", InputProvided(run_id="asks", step_id="search", answers={"deposit": "3억"})
                )
        return any(e.event_type == "RunFailed" for e in kinds)

    async with serving_all(infra, [relay, planner(SEARCH), search_team(always_asks), supervisor_build], FAST):
        await ask(store, "asks")
        await wait_until(person_answers, what="the run to end")
        failed = await ending(store, "asks")
    assert failed.code == "too_many_input_rounds"
    kinds = [e.event_type for e in await events_of(store, "asks")]
    assert kinds.count("InputRequested") == 2 and kinds.count("StepStarted") == 3


async def test_a_run_left_at_its_question_by_a_crash_is_ended_by_the_running_service(
    store, infra, limits
) -> None:
    """No planner runs (it crashed for good): the supervisor's watchdog ends the run from the store."""
    limits(stall_after_s=0.5)
    async with serving_all(infra, [relay, supervisor_build], FAST):
        await ask(store, "orphan")
        failed = await ending(store, "orphan")
    assert failed.code == "stalled" and failed.reason.startswith("계획을 세우는 중 0.5초 동안 진행이 없어")


async def test_the_watchdog_ends_silent_runs_once_across_replicas_and_spares_the_others(store) -> None:
    """Two watchdog replicas sweep at once over runs a crash left behind, on a clock the test moves."""
    t0 = datetime.now(UTC)
    now = [t0]
    limits = RunLimits(stall_after_s=60, person_wait_s=3600)
    replicas = [Watchdog(store.pool, limits, lambda: now[0]) for _ in range(2)]
    plan = PlanReady(
        run_id="x", intent=Intent(type=IntentType.RISK_ANALYSIS, confidence=0.9), steps=[SEARCH], mode="rules"
    )
    started = StepStarted(
        run_id="x", step_id="search", team=Team.SEARCH, task="t", timeout_s=SEARCH.timeout_s
    )
    await ask(store, "at_question")
    await ask(store, "mid_step")
    await append(store, "mid_step", plan.model_copy(update={"run_id": "mid_step"}), started, at=t0)
    await ask(store, "answered")
    answer = ResponseReady(run_id="answered", response_type="answer", answer="답")
    await append(store, "answered", plan.model_copy(update={"run_id": "answered"}), answer)
    await ask(store, "waiting", approval=True)
    waiting = PlanApprovalRequested(run_id="waiting", steps=[SEARCH])
    await append(store, "waiting", plan.model_copy(update={"run_id": "waiting"}), waiting, at=t0)

    async def sweep(after_s: float) -> list[str]:
        now[0] = t0 + timedelta(seconds=after_s)
        swept = await asyncio.gather(*(w.sweep() for w in replicas))
        ended = [run for runs in swept for run in runs]
        assert len(ended) == len(set(ended)), ended  # no run ended by both replicas
        return sorted(ended)

    assert await sweep(0) == []
    assert await sweep(61) == ["at_question"]
    assert await sweep(79) == []  # the step's 20 s timeout is the run's own deadline: 20 + 60
    assert await sweep(81) == ["mid_step"]
    assert await sweep(3599) == []  # waiting for the person is no stall
    await append(store, "at_question", plan.model_copy(update={"run_id": "at_question"}))  # a late plan
    assert await sweep(3601) == ["waiting"]
    assert await sweep(9999) == []
    codes = {}
    for run_id in ("at_question", "mid_step", "waiting", "answered"):
        codes[run_id] = [
            r.event().code
            for r in await store.read_stream(f"run-{run_id}")
            if r.envelope.event_type == "RunFailed"
        ]
    assert codes == {
        "at_question": ["stalled"],
        "mid_step": ["stalled"],
        "waiting": ["expired"],
        "answered": [],
    }
    assert replicas[0].horizon > 0  # ended runs are not grouped again


async def test_a_plan_waiting_for_approval_expires_and_the_person_is_told(
    store, infra, gateway: Gateway, limits
) -> None:
    limits(person_wait_s=1)
    async with serving_all(infra, [relay, planner(SEARCH), supervisor_build], FAST):
        session, token = await new_session(gateway)
        async with connected(gateway, session, token) as client:
            await client.send({"type": "query", "query": "강남구 전세 시세 알려줘", "require_approval": True})
            await client.until(awaits_approval)
            final = await client.until_type("final_response", timeout=30)
    failed = await ending(store, final["run_id"])
    assert failed.code == "expired"
    assert final["response"]["content"] == (
        FAILED_SENTENCE + "계획 승인을 1초 동안 기다렸지만 답이 없어 요청을 마감했습니다. "
        "이어서 진행하려면 질문을 다시 보내 주세요."
    )


async def test_a_timed_decision_that_raises_is_put_back_and_holds_no_other_run(store) -> None:
    """The timer loop path of a decision that keeps failing: the run waits its turn again (and the
    watchdog ends it if it never succeeds); the run due after it is decided in the same tick."""

    async def broken_for_bad(state) -> Sequence[Event]:
        if state.run_id == "bad":
            raise RuntimeError("the composer has a bug for this run")
        return await respond_by_rules(state)

    supervisor = dataclasses.replace(build_supervisor(SupervisorSettings()), respond=broken_for_bad)
    done = StepCompleted(run_id="x", step_id="search", team=Team.SEARCH, summary="완료", duration_ms=1)
    for run_id in ("bad", "good"):
        plan = PlanReady(run_id=run_id, intent=Intent(type=IntentType.UNCLEAR, confidence=0.5), mode="rules")
        await append(store, run_id, plan.model_copy(update={"steps": [SEARCH]}) if run_id == "bad" else plan)
    started = StepStarted(run_id="bad", step_id="search", team=Team.SEARCH, task="t", timeout_s=20)
    await append(store, "bad", started, done.model_copy(update={"run_id": "bad"}))
    now = supervisor.clock()
    async with store.pool.connection() as conn:
        for run_id, due in (("bad", now - timedelta(seconds=2)), ("good", now - timedelta(seconds=1))):
            await conn.execute(
                "INSERT INTO supervisor_timers (run_id, due_at) VALUES (%s, %s)", (run_id, due)
            )
    assert await TimerLoop(store.pool, supervisor).fire_due() == 2
    assert [e.event_type for e in await events_of(store, "good")][-1] == "ResponseReady"  # guidance
    assert [e.event_type for e in await events_of(store, "bad")][-1] == "StepCompleted"
    async with store.pool.connection() as conn:
        cur = await conn.execute("SELECT run_id, due_at FROM supervisor_timers")
        timers = {r["run_id"]: r["due_at"] for r in await cur.fetchall()}
    assert list(timers) == ["bad"] and timers["bad"] > now  # put back, not dropped
