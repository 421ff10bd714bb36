"""Disconnect mid-run, resume: exactly the missed messages, no gap and no duplicate, compared position by
position with a client that never left, including when live events arrive while the replay runs."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
import websockets

from contracts.supervisor import PlanApprovalRequested
from contracts.values import PlanStep, Team
from services.gateway.feed.reads import Reads
from services.platform.eventstore import EventStore
from tests.integration.bus_helpers import wait_until
from tests.integration.gateway_helpers import (
    LEGAL,
    SEARCH,
    Client,
    Gateway,
    connected,
    event_positions,
    first_of_type,
    new_session,
    script_for,
)
from tests.integration.test_projector import Script

pytestmark = pytest.mark.integration


async def started_run(store: EventStore, client: Client) -> tuple[Script, object]:
    """A run asked through `client`, planned with two parallel steps."""
    await client.send({"type": "query", "query": "강남구 아파트 전세 시세와 관련 법"})
    run_id = (await client.until_type("planning_start"))["run_id"]
    script, query = script_for(await first_of_type(store, run_id, "QueryReceived"))
    plan = script.planned(query, SEARCH, LEGAL, strategy="parallel")
    await store.append([plan])
    return script, plan


def offered_up_to(gateway: Gateway, position: int):
    """True once the gateway's follower has offered every event up to `position` to the sockets."""

    async def check() -> bool:
        cursor = gateway.app.state.ports.follower.cursor
        return cursor is not None and cursor >= position

    return check


def assert_same_messages(resumed: list[dict], watched: list[dict]) -> None:
    positions = event_positions(resumed)
    assert len(positions) == len(set(positions)), "a position was sent twice"
    assert positions == sorted(positions), "positions went backwards"
    assert positions == event_positions(watched), "the resumed client missed or gained messages"
    assert [m["type"] for m in resumed if m["type"] != "connected"] == [
        m["type"] for m in watched if m["type"] != "connected"
    ]


async def test_resume_gets_exactly_what_was_missed_even_while_live_events_arrive(
    gateway: Gateway, store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay_reading, live_offered = asyncio.Event(), asyncio.Event()
    read_session_events = Reads.session_events

    async def replay_held_open(self: Reads, *args, **kwargs):
        """The replay reads its events, then waits while live events are projected and offered."""
        records = await read_session_events(self, *args, **kwargs)
        if not replay_reading.is_set():
            replay_reading.set()
            await asyncio.wait_for(live_offered.wait(), 15)
        return records

    monkeypatch.setattr(Reads, "session_events", replay_held_open)
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as watcher:
        async with connected(gateway, session_id, token) as leaver:
            script, plan = await started_run(store, watcher)
            search = script.started(SEARCH, plan)
            await store.append([search])
            await leaver.until_type("execution_start")
        seen_before = leaver.received
        last_seen = max(event_positions(seen_before))

        legal = script.started(LEGAL, plan)
        await store.append([legal, script.completed(SEARCH, search)])  # missed while away
        await watcher.until(lambda m: m["position"] == last_seen + 2)

        async with connected(gateway, session_id, token) as back:
            await back.send({"type": "resume", "after_position": last_seen})
            await asyncio.wait_for(replay_reading.wait(), 15)
            done = script.completed(LEGAL, legal)
            (arrived_during_replay,) = await store.append([done])  # live, while the replay is held open
            await wait_until(offered_up_to(gateway, arrived_during_replay.position), what="the live offer")
            live_offered.set()
            await store.append([script.answered(done)])
            await back.until_type("final_response")
        await watcher.until_type("final_response")

    assert_same_messages(seen_before + back.received, watcher.received)


async def test_reconnecting_with_after_position_while_events_stream(
    gateway: Gateway, store: EventStore
) -> None:
    steps = [PlanStep(step_id=f"s{n}", team=Team.SEARCH, task=f"검색 {n}") for n in range(12)]
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as watcher:
        leaving = connected(gateway, session_id, token)
        leaver = await leaving.__aenter__()
        await watcher.send({"type": "query", "query": "여러 단계가 있는 질문"})
        run_id = (await watcher.until_type("planning_start"))["run_id"]
        script, query = script_for(await first_of_type(store, run_id, "QueryReceived"))
        plan = script.planned(query, *steps, strategy="parallel")
        await store.append([plan])

        async def run_the_steps() -> None:
            last = plan
            for step in steps:
                started = script.started(step, plan)
                last = script.completed(step, started)
                await store.append([started])
                await store.append([last])
            await store.append([script.answered(last)])

        await leaver.until_type("plan_ready")
        streaming = asyncio.create_task(run_the_steps())
        await leaver.until(lambda m: m["type"] == "todo_updated")
        await leaving.__aexit__(None, None, None)  # gone mid-run, while the steps go on
        last_seen = max(event_positions(leaver.received))
        async with connected(gateway, session_id, token, after_position=last_seen) as back:
            await back.until_type("final_response")
        await streaming
        await watcher.until_type("final_response")

    assert_same_messages(leaver.received + back.received, watcher.received)


async def test_without_resume_a_socket_starts_live_from_the_head(gateway: Gateway, store: EventStore) -> None:
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as first:
        script, plan = await started_run(store, first)
        await first.until_type("plan_ready")
    async with connected(gateway, session_id, token) as later:
        head = later.received[0]["head"]
        assert head == plan_position(await store.read_correlation(script.run_id))
        await store.append([script.started(SEARCH, plan)])
        news = await later.next()
    assert (news["type"], news["position"]) == ("execution_start", head + 1)


def plan_position(records) -> int:
    return max(r.position for r in records)


async def test_a_resume_past_the_head_is_refused(gateway: Gateway) -> None:
    session_id, token = await new_session(gateway)
    with contextlib.suppress(websockets.ConnectionClosedOK):
        async with connected(gateway, session_id, token, after_position=10**9) as client:
            refused = await client.next()
    assert refused["code"] == "invalid_position"


async def test_a_client_gone_before_the_approval_request_learns_on_resume_that_the_run_waits(
    gateway: Gateway, store: EventStore
) -> None:
    """The plan of a run that waits is sent at the supervisor's request (its PlanApprovalRequested), with
    `requires_approval`: a client that left after the plan was written, before the request, is told on
    resume, and can answer there, naming no run."""
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as leaver:
        await leaver.send({"type": "query", "query": "강남구 전세 시세와 법 조항", "require_approval": True})
        run_id = (await leaver.until_type("planning_start"))["run_id"]
        script, query = script_for(await first_of_type(store, run_id, "QueryReceived"))
        plan = script.planned(query, SEARCH, LEGAL, strategy="parallel")
        (planned,) = await store.append([plan])
        await wait_until(offered_up_to(gateway, planned.position), what="the plan offered to the socket")
    assert [m["type"] for m in leaver.received] == ["connected", "planning_start"]  # no plan shown yet

    request = script.add(PlanApprovalRequested(run_id=run_id, steps=[SEARCH, LEGAL]), plan)
    (asked,) = await store.append([request])
    async with connected(gateway, session_id, token, after_position=planned.position) as back:
        shown = await back.until_type("plan_ready")
        assert (shown["run_id"], shown["position"], shown["requires_approval"]) == (
            run_id,
            asked.position,
            True,
        )
        assert shown["approval"]["actions"] == ["approve", "modify", "reject"]
        assert (shown["intent"], [s["step_id"] for s in shown["execution_steps"]]) == (
            "RISK_ANALYSIS",
            ["search", "legal"],
        )
        await back.send({"type": "interrupt_response", "action": "approve"})
        approved = await first_of_type(store, run_id, "PlanApproved")
    assert approved.envelope.correlation_id == run_id
