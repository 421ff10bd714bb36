"""The follower reads the log ahead of the projections: a message that shows no todo (the question, the
plan, the answer) reaches the socket without waiting for the projector, and one that shows the todo waits
until the projection reflects its event, so the todo it carries is never behind it. A resume replays the
same way: up to the first todo-showing event not yet projected, the rest live, in order."""

from __future__ import annotations

import pytest
from psycopg_pool import AsyncConnectionPool

from services.platform.eventstore import EventStore, Recorded
from tests.integration.gateway_helpers import (
    SEARCH,
    Client,
    connected,
    event_positions,
    first_of_type,
    new_session,
    projecting,
    script_for,
    serving,
)
from tests.integration.test_projector import Script
from tests.servers import ServerUrls

pytestmark = pytest.mark.integration

QUIET_S = 1.0  # several of the follower's polls (0.2 s in tests): long enough for a message to show up


async def nothing_arrives(client: Client) -> None:
    with pytest.raises(TimeoutError):
        message = await client.next(timeout=QUIET_S)
        pytest.fail(f"arrived before its todo was projected: {message}")


async def planned_and_started(store: EventStore, client: Client) -> tuple[Script, Recorded, Recorded]:
    """A question asked through `client` and its one-step plan shown (no projector needed for either),
    then its step started: the script, the plan and the start as recorded."""
    await client.send({"type": "query", "query": "강남구 아파트 전세 시세"})
    run_id = (await client.until_type("planning_start"))["run_id"]
    script, query = script_for(await first_of_type(store, run_id, "QueryReceived"))
    (planned,) = await store.append([script.planned(query, SEARCH)])
    await client.until_type("plan_ready")
    (started,) = await store.append([script.started(SEARCH, planned.envelope)])
    return script, planned, started


async def test_the_question_plan_and_answer_do_not_wait_for_the_projector_and_the_todo_does(
    store: EventStore, pool: AsyncConnectionPool, server_urls: ServerUrls
) -> None:
    async with serving(pool, server_urls.nats_url) as gateway:  # no projector yet
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            script, _, started = await planned_and_started(store, client)
            await nothing_arrives(client)
            async with projecting(store):
                shown = await client.until_type("execution_start")
                assert [s["status"] for s in shown["execution_steps"]] == ["in_progress"]
                done = script.completed(SEARCH, started.envelope)
                await store.append([done, script.answered(done)])
                await client.until_type("final_response")
    positions = event_positions(client.received)
    assert positions == sorted(positions) and len(positions) == len(set(positions))


async def test_a_resume_replays_up_to_the_first_todo_not_yet_projected_and_the_rest_arrives_live(
    store: EventStore, pool: AsyncConnectionPool, server_urls: ServerUrls
) -> None:
    async with serving(pool, server_urls.nats_url) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as watcher:
            _, planned, _ = await planned_and_started(store, watcher)  # the start is not projected yet

            async with connected(gateway, session_id, token) as back:
                await back.send({"type": "resume", "after_position": 0})
                replayed = await back.until(lambda m: m.get("position") == planned.position)
                assert [m["type"] for m in replayed] == ["planning_start", "plan_ready"]
                await nothing_arrives(back)
                async with projecting(store):
                    shown = await back.until_type("execution_start")
                    assert [s["status"] for s in shown["execution_steps"]] == ["in_progress"]
                    await watcher.until_type("execution_start")
    assert event_positions(back.received) == event_positions(watcher.received)
