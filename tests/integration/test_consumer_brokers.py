"""A consumer's handling, the same on FastStream's in-memory TestNatsBroker as on a real JetStream.

The in-memory broker hands the message straight to the subscriber (no server, no redelivery), so it
tests what the handler wrapper decides; each such test also runs on NATS, where the message comes
through the durable pull consumer the services bind. Postgres is real in both: the inbox decides.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from faststream.nats import TestNatsBroker
from nats.aio.client import Client as NATS

from contracts import Envelope, subject_for
from services.platform.bus import Broker, ConsumerPolicy
from services.platform.consumer import Consumer, HandlerContext, Outcome, Subscription
from services.platform.deadletters import list_dead_letters
from tests.integration.bus_helpers import count_events, plan_once, query_event, running, wait_until

pytestmark = pytest.mark.integration
FAST = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], max_attempts=3, ack_wait_s=5)
Send = Callable[[str, bytes], Awaitable[None]]


def ack_subject(consumer: Consumer, delivery: int) -> str:
    """The reply subject JetStream gives the `delivery`th delivery: where nats-py reads its count from."""
    return f"$JS.ACK.{consumer.settings.stream_name}.{consumer.durable}.{delivery}.1.1.1700000000000000000.0"


@asynccontextmanager
async def in_memory(consumer: Consumer) -> AsyncIterator[Callable[[bytes, int], Awaitable[None]]]:
    """`deliver(data, delivery)` hands the consumer's subscriber a message as its `delivery`th delivery,
    through TestNatsBroker, and returns once it is handled."""
    broker = Broker()
    consumer.subscribe(broker)
    async with TestNatsBroker(broker) as test_broker:

        async def deliver(data: bytes, delivery: int) -> None:
            stream, reply = consumer.settings.stream_name, ack_subject(consumer, delivery)
            await test_broker.publish(data, consumer.subject, stream=stream, reply_to=reply)
            await consumer.settled()

        yield deliver


@asynccontextmanager
async def delivering(kind: str, consumer: Consumer, nc: NATS) -> AsyncIterator[Send]:
    """`send(message_id, data)` puts a message on the consumer's subject and returns once it is handled."""
    if kind == "in-memory":
        async with in_memory(consumer) as deliver:

            async def send(_: str, data: bytes) -> None:
                await deliver(data, 1)

            yield send
        return
    js = nc.jetstream()
    await consumer.ensure()
    sent = 0

    async def settled() -> bool:
        info = await js.consumer_info(consumer.settings.stream_name, consumer.durable)
        return info.delivered.stream_seq >= sent and info.num_ack_pending == 0 and info.num_pending == 0

    async with running(consumer):

        async def send(message_id: str, data: bytes) -> None:
            nonlocal sent
            headers = {"Nats-Msg-Id": message_id}
            ack = await js.publish(consumer.subject.replace("*", "v1"), data, headers=headers)
            sent = ack.seq
            await wait_until(settled, what=f"{message_id} handled")

        yield send


def consumer_of(store, nc, infra, handler) -> Consumer:
    return Consumer(Subscription("planner", "QueryReceived", handler), store.pool, nc, infra, FAST)


def as_bytes(envelope: Envelope) -> bytes:
    return envelope.model_dump_json().encode()


@pytest.mark.parametrize("kind", ["in-memory", "nats"])
async def test_a_question_delivered_twice_is_planned_once(kind, store, nc, infra) -> None:
    """The claim goes with the handler's first read: a handler that reads before it decides, as the
    planner reads the session's previous turn, stops there on a second delivery."""
    handled: list[str] = []

    async def plan(ctx: HandlerContext) -> Outcome:
        await (await ctx.conn.execute("SELECT count(*) FROM events")).fetchall()
        handled.append(ctx.envelope.correlation_id)
        return await plan_once(ctx)

    consumer = consumer_of(store, nc, infra, plan)
    question = query_event("twice")
    assert subject_for(question, infra.namespace) == consumer.subject.replace("*", "v1")
    async with delivering(kind, consumer, nc) as send:
        await send("first copy", as_bytes(question))
        await send("second copy", as_bytes(question))  # past the duplicate window: the inbox decides
    assert handled == ["twice"]
    assert await count_events(store, "PlanReady") == 1


@pytest.mark.parametrize("kind", ["in-memory", "nats"])
async def test_a_handler_that_reads_nothing_has_its_effects_once(kind, store, nc, infra) -> None:
    """Its claim, appends and COMMIT go in one round trip: on a second delivery the claim fails the
    transaction, and what the handler decided again is rolled back with it."""
    consumer = consumer_of(store, nc, infra, plan_once)
    question = query_event("unread")
    async with delivering(kind, consumer, nc) as send:
        await send("first copy", as_bytes(question))
        await send("second copy", as_bytes(question))  # settled as a duplicate: neither retried nor parked
    assert await count_events(store, "PlanReady") == 1
    assert not await list_dead_letters(store.pool)


@pytest.mark.parametrize("kind", ["in-memory", "nats"])
async def test_an_unreadable_message_is_parked_and_never_handled(kind, store, nc, infra) -> None:
    async def never(ctx: HandlerContext) -> Outcome:
        raise AssertionError("an unreadable message reached the handler")

    async with delivering(kind, consumer_of(store, nc, infra, never), nc) as send:
        await send("broken", b'{"event_type": "QueryReceived"')
    (letter,) = await list_dead_letters(store.pool)
    assert letter.consumer == "planner"
    assert letter.error.startswith("unreadable message: ValidationError")
    assert letter.payload == b'{"event_type": "QueryReceived"'


async def test_a_delivery_past_the_last_attempt_is_parked_without_being_handled(store, nc, infra) -> None:
    """The delivery after a handler that kills its process on every attempt: only the in-memory broker can
    hand over a chosen delivery count (JetStream's reply subject), so this one is not run on NATS."""

    async def crash(ctx: HandlerContext) -> Outcome:
        raise AssertionError("handled on a delivery past the last attempt")

    async with in_memory(consumer_of(store, nc, infra, crash)) as deliver:
        await deliver(as_bytes(query_event("crashes")), FAST.max_attempts + 1)
    (letter,) = await list_dead_letters(store.pool)
    assert letter.error == f"no attempt finished in {FAST.max_attempts} deliveries"
    assert letter.deliveries == FAST.max_attempts + 1
