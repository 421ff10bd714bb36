"""What one fetch brings is handled in one transaction (services/platform/together.py), against a real
JetStream and Postgres: the messages waiting when the consumer fetches go together, a failing one is
handled alone while the others commit, claims and appends commit whole or not at all, and two messages
of one run, or a redelivery, never share a transaction."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass

import pytest
from faststream.nats import NatsMessage
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from contracts import Envelope, new_envelope, subject_for
from contracts.planner import PlanReady
from contracts.values import Intent, IntentType
from services.platform import together
from services.platform.bus import ConsumerPolicy
from services.platform.consumer import Consumer, HandlerContext, Outcome, Poison, Subscription
from services.platform.db import Begun, read_rows
from services.platform.deadletters import list_dead_letters
from services.platform.eventstore import EventStore, rows_of
from services.platform.publisher import Publisher
from services.platform.settings import InfraSettings
from services.platform.together import _sorted_out
from tests.integration.bus_helpers import count_events, plan_once, query_event, running, wait_until

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def patient(monkeypatch) -> None:
    """Batches that wait for their members as long as they take: a slow machine would split them."""
    monkeypatch.setattr(together, "TOGETHER_WITHIN_S", 10.0)


FAST = ConsumerPolicy.from_infra(backoff_s=[0.05, 0.1, 0.2], max_attempts=3, ack_wait_s=5, fetch_batch=16)


@dataclass(frozen=True)
class Call:
    run: str
    delivery: int
    transaction: int  # txid_current(): the calls of one transaction share it


class Recording:
    """A planner handler that notes each call's run, delivery and transaction, then plans once; `fails`
    says what to raise for a call, if anything."""

    def __init__(self, fails=lambda call: None) -> None:
        self.calls: list[Call] = []
        self.fails = fails
        self.plan = plan_once

    async def __call__(self, ctx: HandlerContext) -> Outcome:
        (row,) = await rows_of(ctx.conn, "SELECT txid_current() AS tx", ())
        call = Call(ctx.envelope.correlation_id, ctx.delivery, row["tx"])
        self.calls.append(call)
        if (failure := self.fails(call)) is not None:
            raise failure
        return await self.plan(ctx)

    def transactions(self, delivery: int = 1) -> dict[int, list[str]]:
        """The runs decided in each transaction, on their `delivery`th delivery, in the order decided."""
        runs: dict[int, list[str]] = defaultdict(list)
        for call in self.calls:
            if call.delivery == delivery:
                runs[call.transaction].append(call.run)
        return dict(runs)


def planner(store: EventStore, nc: NATS, infra: InfraSettings, handler) -> Consumer:
    return Consumer(Subscription("planner", "QueryReceived", handler), store.pool, nc, infra, FAST)


async def waiting(store: EventStore, nc: NATS, infra: InfraSettings, runs: list[str]) -> list[Envelope]:
    """Questions stored and on the stream before the consumer binds: its first fetch finds them waiting."""
    envelopes = [query_event(run) for run in runs]
    await store.append(envelopes)
    publisher = Publisher(store.pool, nc, infra)
    await publisher.verify_stream()
    assert await publisher.publish_pending() == len(runs)
    return envelopes


async def plans_of(store: EventStore) -> dict[str, int]:
    sql = "SELECT correlation_id AS run, count(*) AS n FROM events WHERE event_type = 'PlanReady' GROUP BY 1"
    return {r["run"]: r["n"] for r in await read_rows(store.pool, sql)}


async def claims(store: EventStore) -> int:
    (row,) = await read_rows(store.pool, "SELECT count(*) AS n FROM inbox")
    return int(row["n"])


async def test_the_messages_waiting_when_a_consumer_fetches_are_handled_in_one_transaction(
    store, nc, infra
) -> None:
    handler = Recording()
    runs = [f"r{i}" for i in range(6)]
    await waiting(store, nc, infra, runs)
    consumer = planner(store, nc, infra, handler)
    async with running(consumer):
        await wait_until(lambda: _planned(store, len(runs)), what="every question planned")
        # Within the ack wait (5 s): acknowledged by the batch, not found in the inbox when redelivered.
        await wait_until(lambda: _acknowledged(nc, consumer, len(runs)), timeout=2, what="all acked")
    assert sorted(handler.transactions().values()) == [runs]  # one transaction, in the runs' order
    assert await plans_of(store) == dict.fromkeys(runs, 1)
    assert await claims(store) == len(runs)


async def test_a_poison_message_is_parked_alone_and_the_others_of_its_batch_commit(store, nc, infra) -> None:
    handler = Recording(lambda call: Poison("never plannable") if call.run == "p2" else None)
    runs = ["p0", "p1", "p2", "p3"]
    await waiting(store, nc, infra, runs)
    async with running(planner(store, nc, infra, handler)):
        await wait_until(lambda: _parked(store), what="the poison message parked")
        await wait_until(lambda: _planned(store, 3), what="the others planned")
    tried_together = [runs for runs in handler.transactions().values() if len(runs) > 1]
    assert tried_together == [["p0", "p1", "p2"]]  # decided in order until p2 raised; then each alone
    assert await plans_of(store) == {"p0": 1, "p1": 1, "p3": 1}
    assert await claims(store) == 3
    (letter,) = await list_dead_letters(store.pool)
    assert letter.error == "poison: never plannable"
    assert Envelope.model_validate_json(letter.payload).correlation_id == "p2"


async def test_a_failing_message_is_retried_alone_while_the_others_commit(store, nc, infra) -> None:
    def failing_once(call: Call) -> Exception | None:
        return ConnectionError("search backend away") if call.run == "f0" and call.delivery == 1 else None

    handler = Recording(failing_once)
    runs = ["f0", "f1", "f2"]
    await waiting(store, nc, infra, runs)
    async with running(planner(store, nc, infra, handler)):
        await wait_until(lambda: _planned(store, 3), what="every question planned, f0 on its retry")
    assert [(c.run, c.delivery) for c in handler.calls if c.run == "f0"] == [("f0", 1), ("f0", 1), ("f0", 2)]
    assert await plans_of(store) == dict.fromkeys(runs, 1)
    assert not await list_dead_letters(store.pool)


async def test_two_messages_of_one_run_never_share_a_transaction(store, nc, infra) -> None:
    """A decision reads its run's stream, and a batch's appends go at its end: the second message of a
    run goes alone, beside the batch."""
    handler = Recording()
    await waiting(store, nc, infra, ["a", "a", "b", "c"])
    async with running(planner(store, nc, infra, handler)):
        await wait_until(lambda: _planned(store, 4), what="all four handled")
    together = handler.transactions()
    assert sorted(map(sorted, together.values())) == [["a"], ["a", "b", "c"]]
    assert await plans_of(store) == {"a": 2, "b": 1, "c": 1}


async def test_a_batch_commits_its_claims_and_appends_whole_or_not_at_all(
    store, nc, infra, monkeypatch
) -> None:
    """A failure after the batch's appends, before its COMMIT: the appends were made in the transaction
    (it sees them), and the rollback takes them and every claim away."""
    consumer = planner(store, nc, infra, plan_once)
    batch = [consumer.read(delivered(consumer, query_event(f"t{i}"))) for i in range(3)]
    seen_inside: list[int] = []

    async def failing_commit(begun: Begun) -> None:
        (row,) = await rows_of(begun.conn, "SELECT count(*) AS n FROM events", ())
        seen_inside.append(row["n"])
        raise RuntimeError("injected after the appends")

    monkeypatch.setattr(Begun, "commit", failing_commit)
    with pytest.raises(RuntimeError, match="injected"):
        await consumer.transact(batch)
    assert seen_inside == [3]
    assert await claims(store) == 0
    assert await count_events(store, "PlanReady") == 0

    monkeypatch.undo()
    assert len(await consumer.transact(batch)) == 3
    assert await claims(store) == 3
    assert await plans_of(store) == {"t0": 1, "t1": 1, "t2": 1}


async def test_redeliveries_and_unreadable_messages_go_alone(store, nc, infra) -> None:
    consumer = planner(store, nc, infra, plan_once)
    fetched = [
        delivered(consumer, query_event("first")),
        delivered(consumer, query_event("again"), delivery=2),
        NatsMessage(
            Msg(nc, subject=consumer.subject, reply=ack_subject(consumer, 1), data=b"{not json"), b""
        ),
        delivered(consumer, query_event("other")),
    ]
    together, alone = _sorted_out(consumer, fetched)
    assert [taken.envelope.correlation_id for _, taken in together] == ["first", "other"]
    assert alone == [1, 2]


async def test_a_decision_holding_up_its_batch_releases_the_messages_behind_it(
    store, nc, infra, monkeypatch
) -> None:
    """A handler that waits (an LLM call) holds the messages behind it in its batch no longer than
    TOGETHER_WITHIN_S: they go alone. Here the first waits for the others to be planned, which only
    their release allows."""
    monkeypatch.setattr(together, "TOGETHER_WITHIN_S", 0.05)
    others_planned = asyncio.Event()

    async def slow_first(ctx: HandlerContext) -> Outcome:
        if ctx.envelope.correlation_id == "h0":
            await asyncio.wait_for(others_planned.wait(), 10)
        return await plan_once(ctx)

    handler = Recording()
    handler.plan = slow_first
    await waiting(store, nc, infra, ["h0", "h1", "h2"])
    async with running(planner(store, nc, infra, handler)):
        await wait_until(lambda: _planned(store, 2), what="the released two planned")
        others_planned.set()
        await wait_until(lambda: _planned(store, 3), what="the slow one planned too")
    assert sorted(map(sorted, handler.transactions().values())) == [["h0"], ["h1"], ["h2"]]
    assert await plans_of(store) == {"h0": 1, "h1": 1, "h2": 1}


async def test_slow_work_done_in_time_goes_together_and_the_rest_alone_once_done(
    store, nc, infra, monkeypatch
) -> None:
    """A team's step (`prepare`) that takes longer than TOGETHER_WITHIN_S does not hold the others: they
    commit together, and it is recorded alone once its work is done."""
    monkeypatch.setattr(together, "TOGETHER_WITHIN_S", 0.05)
    release = asyncio.Event()
    recorded_in: dict[str, int] = {}

    async def work(envelope: Envelope, event, store) -> list[Envelope]:
        if envelope.correlation_id == "w0":
            await asyncio.wait_for(release.wait(), 10)
        return [plan_for(envelope)]

    async def record(ctx: HandlerContext) -> Outcome:
        (row,) = await rows_of(ctx.conn, "SELECT txid_current() AS tx", ())
        recorded_in[ctx.envelope.correlation_id] = row["tx"]
        return Outcome(ctx.prepared)

    subscription = Subscription("team", "QueryReceived", record, prepare=work)
    await waiting(store, nc, infra, ["w0", "w1", "w2"])
    async with running(Consumer(subscription, store.pool, nc, infra, FAST)):
        await wait_until(lambda: _planned(store, 2), what="the quick two recorded")
        assert recorded_in["w1"] == recorded_in["w2"]
        release.set()
        await wait_until(lambda: _planned(store, 3), what="the slow one recorded once done")
    assert recorded_in["w0"] != recorded_in["w1"]
    assert await plans_of(store) == {"w0": 1, "w1": 1, "w2": 1}
    assert await claims(store) == 3


def ack_subject(consumer: Consumer, delivery: int) -> str:
    """The reply subject JetStream gives the `delivery`th delivery: where nats-py reads its count from."""
    return f"$JS.ACK.{consumer.settings.stream_name}.{consumer.durable}.{delivery}.1.1.1700000000000000000.0"


def delivered(consumer: Consumer, envelope: Envelope, delivery: int = 1) -> NatsMessage:
    data = envelope.model_dump_json().encode()
    subject = subject_for(envelope, consumer.settings.namespace)
    return NatsMessage(
        Msg(consumer.nc, subject=subject, reply=ack_subject(consumer, delivery), data=data), data
    )


def plan_for(question: Envelope) -> Envelope:
    run = question.correlation_id
    plan = PlanReady(run_id=run, intent=Intent(type=IntentType.UNCLEAR, confidence=0.5), mode="rules")
    return new_envelope(plan, stream_id=f"run-{run}", correlation_id=run, causation=question)


async def _planned(store: EventStore, n: int) -> bool:
    return await count_events(store, "PlanReady") >= n


async def _acknowledged(nc: NATS, consumer: Consumer, n: int) -> bool:
    info = await nc.jetstream().consumer_info(consumer.settings.stream_name, consumer.durable)
    return info.delivered.stream_seq >= n and not info.num_ack_pending and not info.num_pending


async def _parked(store: EventStore) -> bool:
    return bool(await list_dead_letters(store.pool))
