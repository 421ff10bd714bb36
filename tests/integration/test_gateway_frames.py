"""Frames that act on a run, against real Postgres and NATS: checked against the run before anything is
appended (a finished run, a question nobody asked, the same answer twice), safe when identical frames
race on several sockets, rationed per session, and validated strictly."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from psycopg_pool import AsyncConnectionPool

from contracts.results import Question
from contracts.supervisor import InputRequested, PlanApprovalRequested
from contracts.teams import StepCompleted
from contracts.values import PlanStep, Team
from services.platform.eventstore import EventStore
from tests.integration.gateway_helpers import (
    LEGAL,
    SEARCH,
    Client,
    Gateway,
    Message,
    connected,
    first_of_type,
    new_session,
    projecting,
    script_for,
    serving,
)
from tests.integration.test_projector import Script
from tests.servers import ServerUrls

pytestmark = pytest.mark.integration

LEASE = PlanStep(step_id="lease", team=Team.DOCUMENT, task="임대차계약서 작성")
ADDRESS = Question(field="address", label="주소")


@contextlib.asynccontextmanager
async def gateway_with(store: EventStore, pool: AsyncConnectionPool, urls: ServerUrls, **settings):
    async with projecting(store), serving(pool, urls.nats_url, **settings) as running:
        yield running


@pytest.fixture
async def unrationed(
    store: EventStore, pool: AsyncConnectionPool, server_urls: ServerUrls
) -> AsyncIterator[Gateway]:
    """A gateway that rations no frame, so every frame meets the run's check."""
    async with gateway_with(store, pool, server_urls, frames_per_minute=0) as running:
        yield running


async def planned(store: EventStore, client: Client, *steps: PlanStep, approval: bool = False) -> Script:
    """A run asked through `client` and planned with `steps` (waiting for approval if `approval`)."""
    await client.send({"type": "query", "query": "강남구 전세 계약서와 시세", "require_approval": approval})
    run_id = (await client.until_type("planning_start"))["run_id"]
    script, query = script_for(await first_of_type(store, run_id, "QueryReceived"))
    plan = script.planned(query, *steps, strategy="parallel")
    events = [plan]
    if approval:
        events.append(script.add(PlanApprovalRequested(run_id=run_id, steps=list(steps)), plan))
    await store.append(events)
    await client.until(lambda m: m["type"] == "plan_ready" and m["run_id"] == run_id)
    return script


async def asking_for_input(store: EventStore, client: Client) -> str:
    """A run whose lease step waits for the person's address (an `input_request` on the socket)."""
    script = await planned(store, client, LEASE)
    run_id = script.run_id
    started = script.started(LEASE, script.events[-1])
    result = {"needs_input": True, "questions": [ADDRESS.model_dump()]}
    done = StepCompleted(
        run_id=run_id, step_id="lease", team=Team.DOCUMENT, summary="주소 필요", result=result, duration_ms=9
    )
    completed = script.add(done, started)
    asked = InputRequested(run_id=run_id, step_id="lease", questions=[ADDRESS], message="주소를 알려주세요")
    await store.append([started, completed, script.add(asked, completed)])
    await client.until_type("input_request")
    return run_id


def address_answer(run_id: str) -> Message:
    return {
        "type": "input_response",
        "run_id": run_id,
        "step_id": "lease",
        "answers": {"address": "반포대로 58"},
    }


async def replies_to(client: Client) -> list[Message]:
    """What the socket answered to the frames sent before this ping: frames are handled one at a time,
    in order, so their replies are all queued before the pong."""
    await client.send({"type": "ping"})
    return await client.until(lambda m: m["type"] == "pong")


async def seen(client: Client, done: Callable[[Message], bool]) -> Message:
    """The first message received so far for which `done` is true, else the next such one."""
    return next((m for m in client.received if done(m)), None) or (await client.until(done))[-1]


async def count_of(store: EventStore, run_id: str, event_type: str) -> int:
    return sum(r.envelope.event_type == event_type for r in await store.read_correlation(run_id))


def codes(messages: list[Message]) -> list[str]:
    return [m["code"] for m in messages if m["type"] == "error"]


async def test_a_hundred_identical_answers_record_one(unrationed: Gateway, store: EventStore) -> None:
    session_id, token = await new_session(unrationed)
    async with connected(unrationed, session_id, token) as client:
        run_id = await asking_for_input(store, client)
        for _ in range(100):
            await client.send(address_answer(run_id))
        replies = await replies_to(client)
        told = await seen(client, lambda m: "input_received" in m)
    assert codes(replies) == ["already_answered"] * 99
    assert await count_of(store, run_id, "InputProvided") == 1
    # The answer is told in a todo_updated (a frame DESIGN.md section 6 names), with what was answered.
    assert told["type"] == "todo_updated" and told["run_id"] == run_id
    assert told["input_received"] == {
        "step_id": "lease",
        "answers": {"address": "반포대로 58"},
        "message": None,
    }


async def test_identical_answers_racing_on_several_sockets_record_one(
    unrationed: Gateway, store: EventStore
) -> None:
    """Six sockets of one session answer at the same moment: each read the run waiting, so only the
    append's expected version can keep the other five out."""
    session_id, token = await new_session(unrationed)
    async with contextlib.AsyncExitStack() as stack:
        sockets = [
            await stack.enter_async_context(connected(unrationed, session_id, token)) for _ in range(6)
        ]
        run_id = await asking_for_input(store, sockets[0])
        await asyncio.gather(*(s.send(address_answer(run_id)) for s in sockets))
        replies = await asyncio.gather(*(replies_to(s) for s in sockets))
    refusals = sorted(code for socket_replies in replies for code in codes(socket_replies))
    assert refusals == ["already_answered"] * 5
    assert await count_of(store, run_id, "InputProvided") == 1


async def test_frames_for_a_finished_run_are_refused_and_append_nothing(
    unrationed: Gateway, store: EventStore
) -> None:
    session_id, token = await new_session(unrationed)
    async with connected(unrationed, session_id, token) as client:
        script = await planned(store, client, SEARCH, LEGAL, approval=True)
        run_id = script.run_id
        await client.send({"type": "interrupt_response", "run_id": run_id, "action": "approve"})
        approved = await first_of_type(store, run_id, "PlanApproved")
        search, legal = script.started(SEARCH, approved.envelope), script.started(LEGAL, approved.envelope)
        found, cited = script.completed(SEARCH, search), script.completed(LEGAL, legal)
        await store.append([search, legal, found, cited, script.answered(cited)])
        await client.until_type("final_response")
        events_before = len(await store.read_correlation(run_id))
        for _ in range(50):
            for frame in (
                {"type": "interrupt_response", "run_id": run_id, "action": "approve"},
                {"type": "todo_skip", "run_id": run_id, "todo_id": "legal"},
                {"type": "cancel", "run_id": run_id},
            ):
                await client.send(frame)
        await client.send(address_answer(run_id))
        replies = await replies_to(client)
    assert codes(replies) == ["run_finished"] * 151
    assert all(m["run_id"] == run_id and "answered" in m["message"] for m in replies if m["type"] == "error")
    stored = await store.read_correlation(run_id)
    assert len(stored) == events_before and stored[-1].envelope.event_type == "ResponseReady"


async def test_a_frame_the_run_does_not_wait_for_is_refused(unrationed: Gateway, store: EventStore) -> None:
    session_id, token = await new_session(unrationed)
    async with connected(unrationed, session_id, token) as client:
        plain = (await planned(store, client, SEARCH, LEGAL)).run_id
        for frame in (
            {"type": "interrupt_response", "run_id": plain, "action": "approve"},
            address_answer(plain),
            {"type": "todo_skip", "run_id": plain, "todo_id": "nowhere"},
            {"type": "cancel", "run_id": "no-such-run"},
        ):
            await client.send(frame)
        refused = codes(await replies_to(client))
        assert refused == ["not_awaiting_approval", "not_awaiting_input", "unknown_todo", "unknown_run"]

        waiting = (await planned(store, client, SEARCH, LEGAL, approval=True)).run_id
        for twice in (
            {"type": "interrupt_response", "run_id": waiting, "action": "approve"},
            {"type": "todo_skip", "run_id": waiting, "todo_id": "legal"},
            {"type": "cancel", "run_id": waiting},
        ):
            await client.send(twice)
            await client.send(twice)
        again = codes(await replies_to(client))
    assert again == ["already_answered", "already_skipping", "already_cancelling"]
    requests = ("PlanApproved", "StepSkipRequested", "RunCancelRequested", "InputProvided")
    assert [await count_of(store, waiting, t) for t in requests] == [1, 1, 1, 0]
    assert [await count_of(store, plain, t) for t in requests] == [0, 0, 0, 0]


async def test_frames_about_runs_are_rationed_per_session(
    store: EventStore, pool: AsyncConnectionPool, server_urls: ServerUrls
) -> None:
    async with gateway_with(store, pool, server_urls, frames_per_minute=3) as gateway:
        session_id, token = await new_session(gateway)
        async with connected(gateway, session_id, token) as client:
            run_id = (await planned(store, client, SEARCH, LEGAL)).run_id
            await client.send({"type": "todo_skip", "run_id": run_id, "todo_id": "search"})
            await client.send({"type": "todo_skip", "run_id": run_id, "todo_id": "legal"})
            last = max(m["position"] for m in client.received if isinstance(m["position"], int))
            await client.send({"type": "resume", "after_position": last})
            await client.send({"type": "cancel", "run_id": run_id})  # the fourth: over the ration
            replies = await replies_to(client)
            async with httpx.AsyncClient(base_url=gateway.http_url) as http:
                rest = await http.post(
                    f"/api/sessions/{session_id}/runs/{run_id}/cancel",
                    headers={"Authorization": f"Bearer {token}"},
                )
            other_id, other_token = await new_session(gateway)
            async with connected(gateway, other_id, other_token) as other:
                await other.send({"type": "cancel", "run_id": run_id})
                elsewhere = codes(await replies_to(other))
    assert codes(replies) == ["rate_limited"]
    assert (rest.status_code, int(rest.headers["Retry-After"]) >= 1) == (429, True)
    assert elsewhere == ["unknown_run"], "another session's ration is its own"
    assert await count_of(store, run_id, "StepSkipRequested") == 2
    assert await count_of(store, run_id, "RunCancelRequested") == 0


@pytest.mark.parametrize(
    ("frame", "field"),
    [
        ({"type": "query", "query": "강남구 전세", "require_approval": "yes"}, "require_approval"),
        ({"type": "query", "query": "강남구 전세", "require_approval": 1}, "require_approval"),
        ({"type": "resume", "after_position": "10"}, "after_position"),
        ({"type": "resume", "after_position": True}, "after_position"),
        ({"type": "resume", "after_position": 10.0}, "after_position"),
        ({"type": "input_response", "run_id": "r", "step_id": "s", "answers": {"a": 3}}, "answers.a"),
        ({"type": "todo_skip", "todo_id": 7}, "todo_id"),
    ],
)
async def test_frames_are_validated_strictly(
    gateway: Gateway, store: EventStore, frame: Message, field: str
) -> None:
    """No coercion: "yes" is no boolean, "10" or true no position. The refusal names the field."""
    session_id, token = await new_session(gateway)
    async with connected(gateway, session_id, token) as client:
        await client.send(frame)
        (refused,) = [m for m in await replies_to(client) if m["type"] == "error"]
    assert refused["code"] == "invalid_frame" and refused["message"].startswith(f"{field}:")
    assert await store.head() == 0
