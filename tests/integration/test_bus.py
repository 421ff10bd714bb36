"""Publication and consumption against a real NATS JetStream and Postgres."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest
from nats.aio.client import Client as NATS

from contracts import new_envelope, subject_for
from contracts.gateway import RunCancelRequested
from services.platform.bus import ConsumerPolicy, ensure_stream
from services.platform.consumer import Consumer, HandlerContext, Outcome, Subscription
from services.platform.deadletters import list_dead_letters, replay
from services.platform.eventstore import EventStore, append_in, read_stream_in
from services.platform.publisher import Announcer, Publisher, StreamLost, headers_of
from services.platform.settings import InfraSettings
from services.platform.store_reads import Outgoing
from tests.integration.bus_helpers import count_events, plan_once, query_event, running, wait_until

pytestmark = pytest.mark.integration
FAST = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], max_attempts=3, ack_wait_s=5)


def planner(store: EventStore, nc: NATS, infra: InfraSettings, handler=plan_once, policy=FAST) -> Consumer:
    return Consumer(Subscription("planner", "QueryReceived", handler), store.pool, nc, infra, policy)


async def test_committed_events_reach_a_consumer_and_take_effect_once(store, nc, infra) -> None:
    await store.append([query_event(f"r{i}") for i in range(20)])
    async with running(Publisher(store.pool, nc, infra), planner(store, nc, infra)):
        await wait_until(lambda: _has(store, "PlanReady", 20), what="20 plans")
    assert await count_events(store, "PlanReady") == 20


async def test_rolled_back_events_are_never_published(store, nc, infra) -> None:
    with pytest.raises(RuntimeError):
        async with store.pool.connection() as conn, conn.transaction():
            await append_in(conn, [query_event("ghost")])
            raise RuntimeError("the caller's transaction fails after the append")
    await store.append([query_event("real")])
    publisher = Publisher(store.pool, nc, infra)
    await publisher.verify_stream()
    assert await publisher.publish_pending() == 1
    info = await nc.jetstream().stream_info(infra.stream_name)
    assert info.state.messages == 1


async def test_republishing_is_harmless(store, nc, infra) -> None:
    """A publisher that crashed before saving its checkpoint publishes the batch again: one copy lands."""
    await store.append([query_event(f"r{i}") for i in range(5)])
    publisher = Publisher(store.pool, nc, infra)
    await publisher.verify_stream()
    await publisher.publish_pending()
    async with store.pool.connection() as conn:
        await conn.execute("UPDATE checkpoints SET position = 0 WHERE name = 'publisher'")
    restarted = Publisher(store.pool, nc, infra)
    assert await restarted.publish_pending() == 5
    assert (await nc.jetstream().stream_info(infra.stream_name)).state.messages == 5


async def test_an_appender_publishes_at_commit_and_the_relay_copy_takes_no_effect(store, nc, infra) -> None:
    """With no relay running, a question appended with an Announcer is planned, and the plan (a
    consumer's append) reaches the next consumer. The relay started afterwards publishes both again:
    JetStream drops its copies, and nothing is handled twice."""
    handled: list[str] = []

    async def next_step(ctx: HandlerContext) -> None:
        handled.append(ctx.envelope.correlation_id)

    after_plan = Consumer(Subscription("next", "PlanReady", next_step), store.pool, nc, infra, FAST)
    announced = EventStore(store.pool, Announcer(nc, infra.namespace))
    planning = planner(store, nc, infra)
    for consumer in (planning, after_plan):  # the stream and consumers exist before the announcement
        await consumer.ensure()
    async with running(planning, after_plan):
        await announced.append([query_event("fast")])
        await wait_until(lambda: handled == ["fast"], what="the plan handled without the relay")
        publisher = Publisher(store.pool, nc, infra)
        await publisher.verify_stream()
        assert await publisher.publish_pending() == 2
        await wait_until(lambda: _consumer_idle(nc, infra, after_plan, delivered=1), what="nothing pending")
    assert handled == ["fast"] and await count_events(store, "PlanReady") == 1
    assert (await nc.jetstream().stream_info(infra.stream_name)).state.messages == 2


async def test_a_wiped_stream_refilled_past_the_relay_is_still_refed(store, nc, infra) -> None:
    """The appenders publish too, so a stream wiped and then written past the relay's last sequence
    would hide the wipe from sequence numbers alone: its creation time shows it."""
    await store.append([query_event(f"r{i}") for i in range(3)])
    publisher = Publisher(store.pool, nc, infra)
    await publisher.verify_stream()
    assert await publisher.publish_pending() == 3
    js = nc.jetstream()
    await js.delete_stream(infra.stream_name)
    await ensure_stream(js, infra)
    for i in range(5):  # an appender's fast publishes into the new stream: sequences 1..5, past 3
        await js.publish(f"{infra.namespace}.v1.Unrelated", b"{}", headers={"Nats-Msg-Id": f"new-{i}"})
    await publisher.verify_stream()
    assert await publisher.publish_pending() == 3
    assert (await js.stream_info(infra.stream_name)).state.messages == 8


async def test_a_pass_of_several_batches_publishes_every_event_once_in_position_order(
    store, nc, infra
) -> None:
    """Each full batch's successor is read while its acknowledgements come back: the stream still gets
    every event once, in the log's order, and the checkpoint ends at the last."""
    recorded = await store.append([query_event(f"r{i}") for i in range(10)])
    publisher = Publisher(store.pool, nc, infra, batch=4)
    await publisher.verify_stream()
    assert await publisher.publish_pending() == 10
    js = nc.jetstream()
    positions = [(await js.get_msg(infra.stream_name, seq)).headers["Jipsa-Position"] for seq in range(1, 11)]
    assert positions == [str(r.position) for r in recorded]
    assert (await publisher.checkpoint()).position == recorded[-1].position


async def test_a_stream_lost_in_the_middle_of_a_pass_is_refed_from_the_start(
    store, nc, infra, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch read ahead is dropped and the pass starts again from the first event; JetStream keeps
    one copy of each."""
    recorded = await store.append([query_event(f"r{i}") for i in range(10)])
    publisher = Publisher(store.pool, nc, infra, batch=4)
    await publisher.verify_stream()
    publish, calls = Publisher._publish_batch, []

    async def losing_the_second(self, events, checkpoint):
        calls.append(len(events))
        if len(calls) == 2:
            raise StreamLost
        return await publish(self, events, checkpoint)

    monkeypatch.setattr(Publisher, "_publish_batch", losing_the_second)
    assert await publisher.publish_pending() == 4 + 10
    assert calls == [4, 4, 4, 4, 2]
    assert (await nc.jetstream().stream_info(infra.stream_name)).state.messages == 10
    assert (await publisher.checkpoint()).position == recorded[-1].position


async def test_a_slow_message_holds_only_itself(store, nc, infra) -> None:
    """Messages fetched after a slow one are handled while it is still in its handler."""
    release, slow_started = asyncio.Event(), asyncio.Event()
    handled: list[str] = []

    async def handler(ctx: HandlerContext) -> Outcome:
        if ctx.envelope.correlation_id == "slow":
            slow_started.set()
            await release.wait()
        handled.append(ctx.envelope.correlation_id)
        return await plan_once(ctx)

    announced = EventStore(store.pool, Announcer(nc, infra.namespace))
    planning = planner(store, nc, infra, handler, ConsumerPolicy.from_infra(fetch_batch=1))
    await planning.ensure()  # the stream and consumer exist before the announcements (no relay runs)
    async with running(planning):
        try:
            await announced.append([query_event("slow")])
            await asyncio.wait_for(slow_started.wait(), 30)
            for i in range(3):
                await announced.append([query_event(f"quick{i}")])
            await wait_until(lambda: len(handled) == 3, what="the quick ones handled")
            assert sorted(handled) == ["quick0", "quick1", "quick2"]
        finally:
            release.set()  # else the stopping consumer would wait for the slow handler for ever
        await wait_until(lambda: _has(store, "PlanReady", 4), what="the slow one handled too")


async def test_a_handler_working_past_the_ack_wait_keeps_its_message(store, nc, infra) -> None:
    """A handler that takes three ack waits (an LLM call) tells NATS it is alive: the message is not
    delivered again under it."""
    deliveries: list[int] = []

    async def slow(ctx: HandlerContext) -> Outcome:
        deliveries.append(ctx.delivery)
        await asyncio.sleep(3.0)
        return await plan_once(ctx)

    announced = EventStore(store.pool, Announcer(nc, infra.namespace))
    planning = planner(store, nc, infra, slow, replace(FAST, ack_wait_s=1.0))
    await planning.ensure()
    async with running(planning):
        await announced.append([query_event("slow")])
        await wait_until(lambda: _has(store, "PlanReady", 1), what="the slow one handled")
        await wait_until(lambda: _consumer_idle(nc, infra, planning, delivered=1), what="its message acked")
    assert deliveries == [1]


async def test_a_message_delivered_twice_takes_effect_once(store, nc, infra) -> None:
    """Outside the duplicate window (forced here with a fresh Nats-Msg-Id) the inbox still holds."""
    (recorded,) = await store.append([query_event("twice")])
    consumer = planner(store, nc, infra)
    await consumer.ensure()
    for copy in range(3):
        headers = {**headers_of(Outgoing.of(recorded)), "Nats-Msg-Id": f"{recorded.envelope.event_id}-{copy}"}
        await nc.jetstream().publish(
            subject_for(recorded.envelope, infra.namespace),
            recorded.envelope.model_dump_json().encode(),
            headers=headers,
        )
    async with running(consumer):
        await wait_until(lambda: _consumer_idle(nc, infra, consumer), what="all copies acked")
    assert await count_events(store, "PlanReady") == 1


async def test_a_decision_that_lost_its_race_commits_nothing_and_is_made_again(store, nc, infra) -> None:
    """A consumer's append goes with its transaction's COMMIT. One whose stream moved after the
    decision read it fails, and so does the COMMIT behind it: the inbox claim is not kept, the decision
    is made again from the stream as it now is, and its event is stored once."""
    read_versions: list[int] = []

    async def racing(ctx: HandlerContext) -> Outcome:
        run = ctx.event.run_id
        version = len(await read_stream_in(ctx.conn, f"run-{run}"))
        read_versions.append(version)
        if len(read_versions) == 1:  # another writer moves the run's stream after this read
            moved = RunCancelRequested(run_id=run, reason="그 사이 다른 요청")
            await store.append([new_envelope(moved, stream_id=f"run-{run}", correlation_id=run)])
        return replace(await plan_once(ctx), expected_version=version)

    await store.append([query_event("raced")])
    async with running(Publisher(store.pool, nc, infra), planner(store, nc, infra, racing)):
        await wait_until(lambda: _has(store, "PlanReady", 1), what="decided again, then stored")
    assert read_versions == [1, 2]
    assert [r.envelope.event_type for r in await store.read_stream("run-raced")] == [
        "QueryReceived",
        "RunCancelRequested",
        "PlanReady",
    ]
    async with store.pool.connection() as conn:
        claims = await (await conn.execute("SELECT count(*) AS n FROM inbox")).fetchone()
    assert claims == {"n": 1}


async def test_replicas_share_one_durable_consumer(store, nc, infra) -> None:
    seen: dict[int, int] = {}

    def replica(n: int):
        async def handler(ctx: HandlerContext) -> Outcome:
            seen[n] = seen.get(n, 0) + 1
            await asyncio.sleep(0.01)  # long enough that one replica cannot take every message
            return await plan_once(ctx)

        return planner(store, nc, infra, handler, ConsumerPolicy.from_infra(fetch_batch=2))

    await store.append([query_event(f"r{i}") for i in range(60)])
    async with running(Publisher(store.pool, nc, infra), replica(1), replica(2)):
        await wait_until(lambda: _has(store, "PlanReady", 60), what="60 plans")
    assert await count_events(store, "PlanReady") == 60
    assert sum(seen.values()) >= 60 and len(seen) == 2, seen


async def test_malformed_and_unknown_messages_are_parked_and_the_consumer_goes_on(store, nc, infra) -> None:
    consumer = planner(store, nc, infra)
    await consumer.ensure()
    js = nc.jetstream()
    subject = f"{infra.namespace}.v1.QueryReceived"
    await js.publish(subject, b"\xff not json", headers={"Nats-Msg-Id": "garbage"})
    await js.publish(
        subject, json.dumps({"event_type": "QueryReceived"}).encode(), headers={"Nats-Msg-Id": "partial"}
    )
    unknown = query_event("u").model_copy(update={"schema_version": 9})
    await js.publish(f"{infra.namespace}.v9.QueryReceived", unknown.model_dump_json().encode())
    await store.append([query_event("good")])
    async with running(consumer, Publisher(store.pool, nc, infra)):
        await wait_until(lambda: _has(store, "PlanReady", 1), what="the good message handled")
        await wait_until(lambda: _parked(store, 3), what="three parked")
    errors = [d.error for d in await list_dead_letters(store.pool)]
    assert all(e.startswith("unreadable message") for e in errors), errors


async def test_failing_handler_is_retried_then_succeeds_once(store, nc, infra) -> None:
    attempts: list[int] = []

    async def flaky(ctx: HandlerContext) -> Outcome:
        attempts.append(ctx.delivery)
        if ctx.delivery < 3:
            raise ConnectionError("search backend unavailable")
        return await plan_once(ctx)

    await store.append([query_event("flaky")])
    async with running(Publisher(store.pool, nc, infra), planner(store, nc, infra, flaky)):
        await wait_until(lambda: _has(store, "PlanReady", 1), what="handled on the third delivery")
    assert attempts == [1, 2, 3]
    assert await list_dead_letters(store.pool) == []


async def test_exhausted_message_is_parked_and_an_operator_replays_it(store, nc, infra) -> None:
    broken = {"yes": True}

    async def until_fixed(ctx: HandlerContext) -> Outcome:
        if broken["yes"]:
            raise ValueError("tool bug")
        return await plan_once(ctx)

    await store.append([query_event("dlq")])
    consumer = planner(store, nc, infra, until_fixed)
    async with running(Publisher(store.pool, nc, infra), consumer):
        await wait_until(lambda: _parked(store, 1), what="parked after 3 attempts")
        (letter,) = await list_dead_letters(store.pool)
        assert letter.deliveries == 3 and "tool bug" in letter.error
        assert await count_events(store, "PlanReady") == 0
        broken["yes"] = False
        await replay(store.pool, nc.jetstream(), letter.id)
        await wait_until(lambda: _has(store, "PlanReady", 1), what="handled after replay")
    assert await list_dead_letters(store.pool) == []
    assert len(await list_dead_letters(store.pool, include_replayed=True)) == 1


async def _has(store: EventStore, event_type: str, n: int) -> bool:
    return await count_events(store, event_type) >= n


async def _parked(store: EventStore, n: int) -> bool:
    return len(await list_dead_letters(store.pool)) >= n


async def _consumer_idle(nc: NATS, infra: InfraSettings, consumer: Consumer, delivered: int = 3) -> bool:
    info = await nc.jetstream().consumer_info(infra.stream_name, consumer.durable)
    return info.num_pending == 0 and info.num_ack_pending == 0 and info.delivered.consumer_seq >= delivered
