"""Durable JetStream consumers whose effects happen once, however often a message arrives.

Error policy, stated once for every consumer:
- the message cannot be read (not JSON, not an envelope, unknown type/version,
  a payload its upcaster cannot move), or the handler raises `Poison`: parked
  in `dead_letters` at once, terminated;
- the store is unreachable under the handler (outages.is_outage: a lost or
  refused connection, a pool with no connection to give): not the message's
  fault, so it spends no attempt. The delivery keeps the message (the
  in-progress heartbeat stops JetStream from redelivering it), looks at the
  store with a backoff up to OUTAGE_MAX_WAIT_S, and handles the message again
  once the store answers, however long that takes. We hold rather than nak
  because JetStream's delivery count is our attempt counter and cannot be
  given back: a nak would spend an attempt per look, and the one place that
  could keep a separate count is the store that is down. Stopped meanwhile,
  the consumer lets the message go unacknowledged: it comes back after
  ack_wait, one delivery spent per stop;
- the handler raises anything else (a timeout, a bug): negative ack with the
  backoff from infra/nats/jetstream.json, then parked once the delivery count
  reaches `max_attempts`;
- a decision lost an optimistic-concurrency race (`ConcurrencyError`): decided
  again at once from the fresh stream, a few times, before counting as a failure.

Fetching is FastStream's: each consumer is a durable pull subscriber on a
`bus.Broker` of its own, which fetches one message at a time and hands it to
`_take`; the messages already waiting behind it come along
(together.waiting_behind), and what one fetch brought is handled in a task of
its own, so a slow fetch holds no other (at most max_ack_pending unacknowledged,
which the server holds to). Acknowledging stays ours (FastStream's manual
policy, through its message's ack, nack, reject and in_progress), since the
inbox, the attempts and the parking decide it. The bus going away, or losing
the consumer with its storage, is noticed by the lag sample and waited out by
binding again with a backoff (`run`); a message whose ack could not reach NATS
is redelivered after ack_wait and found in the inbox, at the cost of one delivery.

We set the server's max_deliver to unlimited and count attempts ourselves: a
message whose handling kills the process is redelivered, and on the delivery
after the last attempt it is parked without being handled again, so nothing is
ever dropped silently by the server.

Exactly-once effects: the handler runs inside one Postgres transaction that
first claims (consumer, event_id) in `inbox`. The claim goes with the
handler's first read, or with its appends and COMMIT if it reads nothing
(db.run_in_transaction: a hop that reads nothing is one round trip). A second
delivery, to this or another replica, fails on the claim (after waiting on its
row lock until the first commits), rolls back whatever its handler decided and
is acknowledged as a duplicate. The events the handler returns are appended in
that same transaction, so "handled" and "its effects" commit together or not
at all. Replicas bind to one durable pull consumer and share its messages. The
messages of one fetch handled together (together.py) go through the same code
(`transact`): their claims, each decision and every append in one transaction;
one that fails rolls all of them back, and each is then handled alone.

A subscription with slow work (a team's step) does it in `prepare`, before that
transaction (handed the store, to read what the work needs on a connection of its own for each read),
and the handler only records what it produced: the claim still
decides, so a duplicate that slips past the early inbox check redoes the work
but its events are discarded with the failed claim.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import psycopg
from faststream import AckPolicy as Settling
from faststream.nats import JStream, NatsMessage, PullSub
from faststream.nats.subscriber import LogicSubscriber
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from opentelemetry.trace import Span, SpanKind
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from contracts import REGISTRY, Envelope, Event
from contracts.subjects import filter_for
from services.platform import telemetry
from services.platform.bus import Broker, ConsumerPolicy, ensure_stream
from services.platform.db import Begun, read_rows, run_in_transaction
from services.platform.deadletters import park
from services.platform.eventstore import ConcurrencyError, EventStore, Recorded, append_each_in
from services.platform.outages import BusUnreachable, backoff, is_outage, store_answers, url_of
from services.platform.publisher import Announcer
from services.platform.sealing import KeyNotLoaded, KeysUnreadable, load_keys, open_envelope
from services.platform.settings import InfraSettings
from services.platform.storable import escaped
from services.platform.together import Prepared, Result, Taken, handle_together, waiting_behind

log = logging.getLogger("jipsa.consumer")
# A handler's claim on its event (Begun.queue: sent with its first statement). A claim made before fails the
# transaction (the inbox's key), so the appends and COMMIT may follow it in one round trip unanswered.
CLAIM_SQL = "INSERT INTO inbox (consumer, event_id) VALUES (%s, %s)"
DECISION_RACES = 5
LAG_SAMPLE_S = 5.0
FETCH_WAIT_S = 1.0  # how long one fetch waits for a message before FastStream asks again
OUTAGE_FIRST_WAIT_S, OUTAGE_MAX_WAIT_S = 0.5, 5.0


class Poison(Exception):
    """Raised by a handler for a message that no retry can ever make succeed."""


class _StoppedInOutage(Exception):
    """The consumer was stopped while a delivery waited for the store."""


@dataclass(frozen=True)
class Outcome:
    events: Sequence[Envelope] = ()
    expected_version: int | None = None  # of the single stream the events go to, when it is a decision


@dataclass(frozen=True)
class HandlerContext:
    conn: AsyncConnection  # the transaction the effects commit in
    store: EventStore
    envelope: Envelope
    event: Event
    delivery: int
    prepared: Any = None  # what the subscription's `prepare` made, outside the transaction


Handler = Callable[[HandlerContext], Awaitable[Outcome | None]]
# The slow work of a message, with the store to read what it needs from (a connection per read, none held
# across the work).
Prepare = Callable[[Envelope, Event, EventStore], Awaitable[Any]]


@dataclass(frozen=True)
class Subscription:
    consumer: str  # the durable name every replica binds to, and the inbox's name for it
    event_type: str
    handler: Handler
    routing: str | None = None
    # Slow work with connections of its own (a team's tools, an LLM call) runs here, before the
    # transaction, so no connection is held open across it: a batch of such messages holding every
    # pooled connection while their work waits for one more would deadlock the pool.
    prepare: Prepare | None = None


class Consumer:
    def __init__(
        self,
        subscription: Subscription,
        pool: AsyncConnectionPool,
        nc: NATS,
        settings: InfraSettings,
        policy: ConsumerPolicy | None = None,
    ) -> None:
        self.sub, self.pool, self.nc, self.settings = subscription, pool, nc, settings
        self.js = nc.jetstream()
        self.policy = policy or ConsumerPolicy.from_infra()
        self.store = EventStore(pool)
        self.announce = Announcer(nc, settings.namespace)
        self.durable = f"{settings.namespace}-{subscription.consumer}"
        self.subject = filter_for(subscription.event_type, settings.namespace, subscription.routing)
        self.stop = asyncio.Event()  # `run`'s; a message handled outside `run` waits out outages for ever
        self._handling: set[asyncio.Task[None]] = set()  # the fetches taken and not yet settled
        self.subscriber: LogicSubscriber[Any] | None = None  # the binding `_take` is handed messages by

    def config(self) -> ConsumerConfig:
        return ConsumerConfig(
            durable_name=self.durable,
            filter_subject=self.subject,
            deliver_policy=DeliverPolicy.ALL,
            ack_policy=AckPolicy.EXPLICIT,
            ack_wait=self.policy.ack_wait_s,
            max_deliver=-1,
            max_ack_pending=self.policy.max_ack_pending,
        )

    async def ensure(self) -> None:
        await ensure_stream(self.js, self.settings)
        await self.js.add_consumer(self.settings.stream_name, self.config())

    def subscribe(self, broker: Broker) -> LogicSubscriber[Any]:
        """Register this consumer on `broker`: FastStream binds the durable pull consumer and hands each
        message it fetches to `_take`, which starts its handling and returns, so the next fetch goes out
        while earlier messages are handled (`settled` waits for them); the server's max_ack_pending
        bounds how many are taken at once. FastStream's own concurrent subscriber (`max_workers`) passes
        each message through a memory stream, two task groups and two semaphores on its way, which
        costs more than the task does.

        FastStream fetches one at a time: a fetch of more than one that finds nothing waiting lingers
        until its batch is full or it expires, and nats-py returns the message that did arrive only
        then. What waits behind a message is taken apart (together.waiting_behind), without lingering.
        Both measured in docs/hot-path.md."""
        subscriber = broker.subscriber(
            self.subject,
            stream=JStream(self.settings.stream_name, declare=False),  # ensure_stream declares it
            durable=self.durable,
            config=self.config(),
            pull_sub=PullSub(batch_size=1, timeout=FETCH_WAIT_S),
            ack_policy=Settling.MANUAL,
            no_reply=True,
            title=f"{self.durable}:{self.sub.event_type}",
            description=f"{self.sub.consumer} handles {self.sub.event_type}",
        )
        subscriber(self._take)
        self.subscriber = subscriber
        return subscriber

    async def _take(self, message: NatsMessage) -> None:
        fetched = [message, *await waiting_behind(self, message)]
        task = asyncio.create_task(self._settle(fetched))
        self._handling.add(task)
        task.add_done_callback(self._handling.discard)

    async def _settle(self, fetched: list[NatsMessage]) -> None:
        try:
            if len(fetched) == 1:
                await self.handle_message(fetched[0])
            else:
                await handle_together(self, fetched)
        except Exception as e:  # its ack, nak or term could not reach NATS: it comes back after ack_wait
            log.warning("%s: delivery ended with %s: %s", self.durable, type(e).__name__, e)

    async def settled(self) -> None:
        """Once every message taken so far is handled and settled (acknowledged, retried or parked)."""
        while self._handling:
            await asyncio.wait(self._handling)

    async def run(self, stop: asyncio.Event) -> None:
        """Handle until `stop`; survive NATS restarts and a consumer lost with NATS's storage: any
        failure of the lag sample stops the subscriber (after what it fetched is handled) and binds again."""
        self.stop = stop
        waits = backoff(OUTAGE_FIRST_WAIT_S, OUTAGE_MAX_WAIT_S)
        while not stop.is_set():
            try:
                await self.ensure()
                broker = Broker(self._nats_url(), self.durable)
                subscriber, connection = self.subscribe(broker), None
                try:
                    connection = await broker.dial()
                    await broker.start()
                    waits = backoff(OUTAGE_FIRST_WAIT_S, OUTAGE_MAX_WAIT_S)
                    while True:
                        await self._sample_lag()
                        if await _wait(stop, LAG_SAMPLE_S):
                            break
                finally:
                    with contextlib.suppress(Exception):  # NATS away: its unsubscribe cannot be sent
                        await subscriber.stop()  # no more fetches; a rebind waits for what this one took
                    await self.settled()  # their acks go over the broker's connection, still open
                    await broker.hang_up(connection)
            except Exception as e:  # an outage: bind again once NATS answers
                delay = next(waits)
                log.warning("%s: %s: %s; binding again in %.1f s", self.durable, type(e).__name__, e, delay)
                await _wait(stop, delay)

    def _nats_url(self) -> str:
        """Where the broker connects: the settings' servers, else the server the process is connected to."""
        if self.settings.nats_url:
            return self.settings.nats_url
        if self.nc.connected_url is None:
            raise BusUnreachable("no NATS_URL and no connection")
        return self.nc.connected_url.geturl()

    async def _sample_lag(self) -> None:
        """One request every few seconds, busy or idle: it samples the consumer's lag, and it is how a
        consumer wiped with NATS's storage is noticed (fetching from it only ever times out, which
        FastStream waits out): it raises, and `run` binds again."""
        info = await self.js.consumer_info(self.settings.stream_name, self.durable)
        telemetry.record_consumer_lag(self.durable, info.num_pending or 0)

    async def handle_message(self, message: NatsMessage | Msg) -> Result:
        """Handle and settle one delivery alone: FastStream's message, or one fetched with nats-py itself."""
        if isinstance(message, Msg):
            message = NatsMessage(message, message.data)
        try:
            try:
                taken = self.read(message)
            except KeyNotLoaded as missing:  # sealed, its run's key not read by this process yet
                await load_keys(self.pool, [str(missing)])
                taken = self.read(message)
        except KeysUnreadable:  # the store is away: the message comes back after ack_wait, as a retry
            return "retry"
        # Reading is pure, so whatever fails here fails on every delivery: an upcaster meeting a payload
        # without the field it moves raises KeyError or TypeError, not a ValidationError.
        except Exception as e:
            delivery = message.raw_message.metadata.num_delivered
            return await self._park(message, f"unreadable message: {type(e).__name__}: {e}", delivery)
        return await self.settle(taken)

    @staticmethod
    def read(message: NatsMessage) -> Taken:
        """The delivery's envelope (opened: services/platform/sealing.py) and event (older versions
        upcast); raises if it cannot be read, KeyNotLoaded if it is sealed with a key not read yet."""
        msg = message.raw_message  # read only: its body, subject, headers and delivery count
        delivery = msg.metadata.num_delivered
        envelope = open_envelope(Envelope.model_validate_json(msg.data))
        event = REGISTRY.parse(envelope.event_type, envelope.schema_version, envelope.data)
        return Taken(message, envelope, event, delivery)

    async def settle(self, taken: Taken) -> Result:
        """Handle a delivery in a transaction of its own, and acknowledge, retry or park it."""
        with self.span(taken) as span, telemetry.log_context(taken.envelope):
            result = await self._deliver(taken)
            span.set_attribute("jipsa.outcome", result)
        return result

    def span(self, taken: Taken, together: int = 1) -> contextlib.AbstractContextManager[Span]:
        """The handler's span, a child of the span that appended the event (its envelope's traceparent);
        `together`: how many messages its transaction handles."""
        attributes = {
            "messaging.system": "nats",
            "messaging.destination.name": taken.message.raw_message.subject,
            "messaging.consumer.group.name": self.durable,
            "jipsa.delivery": taken.delivery,
        }
        if together > 1:
            attributes["jipsa.together"] = together
        name = f"{self.sub.consumer} {taken.envelope.event_type}"
        return telemetry.span_from(taken.envelope, name, kind=SpanKind.CONSUMER, attributes=attributes)

    async def _deliver(self, taken: Taken) -> Result:
        message, delivery = taken.message, taken.delivery
        if delivery > self.policy.max_attempts:
            return await self._park(
                message, f"no attempt finished in {self.policy.max_attempts} deliveries", delivery
            )
        try:
            with self.in_progress(message):
                result = await self._handle_through_outages(taken)
        except Poison as e:
            return await self._park(message, f"poison: {e}", delivery)
        except _StoppedInOutage:
            return "retry"
        except Exception as e:
            return await self._failed(message, e, delivery)
        await message.ack()
        return result

    async def _handle_through_outages(self, taken: Taken) -> Result:
        """Handle the message; a store outage under the handler is waited out and the message handled
        again, within this one delivery (see the error policy)."""
        while True:
            try:
                return await self._handle_once(taken)
            except Exception as e:
                if not is_outage(e):
                    raise
                await self._wait_for_store(e, taken.delivery)

    async def _wait_for_store(self, outage: Exception, delivery: int) -> None:
        log.warning(
            "%s: store unreachable (%s: %s); holding delivery %d until it answers, no attempt spent",
            self.durable,
            type(outage).__name__,
            outage,
            delivery,
        )
        clock, began = asyncio.get_running_loop().time, asyncio.get_running_loop().time()
        for delay in backoff(OUTAGE_FIRST_WAIT_S, OUTAGE_MAX_WAIT_S):
            if await _wait(self.stop, delay):
                raise _StoppedInOutage
            if await store_answers(url_of(self.pool)):
                log.info("%s: store answers after %.1f s; handling again", self.durable, clock() - began)
                return

    async def _handle_once(self, taken: Taken) -> Result:
        if self.sub.prepare is not None and taken.prepared is None:
            if await self._handled(taken.envelope):
                return "duplicate"
            taken = await self.prepared(taken)
        for race in range(DECISION_RACES):
            try:
                appended = await self.transact([taken])
            except ConcurrencyError:
                if race == DECISION_RACES - 1:
                    raise
                continue
            except psycopg.Error as e:
                # A claim made before fails the transaction wherever it surfaces (the handler's first read
                # or its COMMIT): the inbox then has it, committed by the delivery that made it.
                if not is_outage(e) and await self._handled(taken.envelope):
                    return "duplicate"
                raise
            if appended:  # committed: the next consumers hear of it now, not when the relay wakes
                await self.announce(appended)
            return "handled"
        raise AssertionError("unreachable")

    async def prepared(self, taken: Taken, together: int = 1) -> Taken:
        """`taken` with what the subscription's `prepare` made of it."""
        assert self.sub.prepare is not None
        with self._spanned(taken, together):
            made = await self.sub.prepare(taken.envelope, taken.event, self.store)
            return replace(taken, prepared=Prepared(made))

    async def transact(self, taken: Iterable[Taken], together: int = 1) -> list[Recorded]:
        """The messages' inbox claims, each handler's decision and every append, in one transaction that
        commits behind the last append or rolls back whole; what it appended. One message is `settle`'s;
        `together`, one fetch's (together.py), whose batch may stop handing them over midway: each is
        claimed as it is decided, its claim leaving with the decision's first statement. Each decision
        sees the store as it was before the transaction (the appends all go at its end), so they must be
        of different runs."""

        async def work(begun: Begun) -> list[Recorded]:
            decided = []
            for one in taken:
                await begun.queue(CLAIM_SQL, (self.sub.consumer, one.envelope.event_id))
                decided.append(await self._decide(begun.conn, one, together))
            return await append_each_in(begun.conn, decided, announced=True, then=begun.commit)

        return await run_in_transaction(self.pool, work)

    async def _decide(self, conn: AsyncConnection, taken: Taken, together: int) -> Outcome:
        """The handler's decision, its events re-parented on its span: the next consumer's span becomes
        their child."""
        prepared = taken.prepared.value if taken.prepared is not None else None
        context = HandlerContext(conn, self.store, taken.envelope, taken.event, taken.delivery, prepared)
        with self._spanned(taken, together):
            outcome = await self.sub.handler(context)
            return (
                replace(outcome, events=telemetry.with_current_trace(outcome.events))
                if outcome
                else Outcome()
            )

    @contextlib.contextmanager
    def _spanned(self, taken: Taken, together: int) -> Iterator[None]:
        """A message handled with others is given its span here; one alone is in its span (`settle`)."""
        if together == 1:
            yield
            return
        with self.span(taken, together), telemetry.log_context(taken.envelope):
            yield

    async def _handled(self, envelope: Envelope) -> bool:
        """Whether the inbox has it already: spares a redelivered message's work (the claim still decides)."""
        sql = "SELECT 1 FROM inbox WHERE consumer = %s AND event_id = %s"
        return bool(await read_rows(self.pool, sql, (self.sub.consumer, envelope.event_id)))

    async def _failed(self, message: NatsMessage, error: Exception, delivery: int) -> Result:
        reason = f"{type(error).__name__}: {error}"
        if delivery >= self.policy.max_attempts:
            return await self._park(message, f"failed {delivery} times, last: {reason}", delivery)
        log.warning("%s: delivery %d failed (%s); retrying", self.durable, delivery, reason)
        telemetry.mark_failed(reason, error)
        await message.nack(delay=self.policy.delay_after(delivery))
        return "retry"

    async def _park(self, message: NatsMessage, reason: str, delivery: int) -> Result:
        reason, msg = escaped(reason), message.raw_message
        try:
            await park(self.pool, consumer=self.sub.consumer, msg=msg, error=reason, deliveries=delivery)
        except Exception as e:  # the dead-letter place is down too: keep the message in NATS
            log.warning("%s: cannot park (%s); retrying later", self.durable, e)
            await message.nack(delay=self.policy.delay_after(min(delivery, len(self.policy.backoff_s))))
            return "retry"
        log.error("%s: parked %s: %s", self.durable, msg.subject, reason)
        telemetry.mark_failed(reason)
        telemetry.record_dead_letter(self.sub.consumer)
        await message.reject()  # JetStream's term: never delivered again
        return "parked"

    @contextlib.contextmanager
    def in_progress(self, message: NatsMessage) -> Iterator[None]:
        """Tell NATS a slow handler (an LLM call) is alive, so the message is not redelivered under it.
        A timer, not a task: most handlers end long before the first beat, and a timer costs nothing to
        arm and cancel, where a task took two turns of the loop per message."""
        loop = asyncio.get_running_loop()
        every = self.policy.ack_wait_s / 3
        beats: set[asyncio.Task[None]] = set()
        timer: asyncio.TimerHandle

        def beat() -> None:
            nonlocal timer
            told = loop.create_task(_tell_in_progress(message))
            beats.add(told)
            told.add_done_callback(beats.discard)
            timer = loop.call_later(every, beat)

        timer = loop.call_later(every, beat)
        try:
            yield
        finally:
            timer.cancel()
            for told in beats:
                told.cancel()


async def _tell_in_progress(message: NatsMessage) -> None:
    with contextlib.suppress(Exception):  # NATS away: the message may be redelivered; the inbox holds
        await message.in_progress()


async def _wait(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep `seconds` unless `stop` comes first; whether it did."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
    return stop.is_set()
