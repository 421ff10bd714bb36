"""What one fetch brings, handled in one transaction: the inbox claims, each handler's decision, their
appends and one COMMIT, then the announcement of what committed and the acknowledgements.

A transaction per message paid, per message, a checkout, a pipeline's Sync, BEGIN and COMMIT with its
WAL flush, a commit notice waking every listener, an announcement and its acknowledgement; a batch pays
them once (the figures are in docs/hot-path.md). Nothing waits for a batch to fill: FastStream fetches
one message, and only the messages its num_pending says are already waiting behind it are taken with it
(`waiting_behind`), so a message that finds its consumer idle goes on alone, on the path every message
took before (Consumer.handle_message), as fast as it did.

Which messages go together: first deliveries, one per run. The others are handled alone (Consumer.settle:
a transaction of their own), beside the batch:
- a redelivery: it failed or was cut short once and may again; alone, it holds back no other;
- an unreadable message: parked, as `handle_message` decides;
- a second message of a run already in the batch: a decision reads its run's stream, and the batch's
  appends go at its end, so the second would decide without the first's events and lose its race on
  the run's version, failing the batch; alone, it loses the race (if at all) to the batch's commit and
  is decided again, as two messages of a run handled at once always were;
- with a subscription that has slow work (`prepare`): one the inbox holds already, one whose `prepare`
  raised (handled alone, its work is tried again under the error policy), and one whose work is not
  done within TOGETHER_WITHIN_S (handled alone once it is);
- one not yet decided when the batch has taken TOGETHER_WITHIN_S (a handler waiting on an LLM call):
  released from the batch, which commits what it decided; so a slow message holds the others of its
  fetch 20 ms at most, as it held none when each had a task of its own.
If the transaction fails (a handler raised, a claim made before, a lost race, an outage), it is rolled
back and each of its messages is handled alone, with what `prepare` made of it: a poison message is
retried and parked on its own, and the others commit as they would have. Exactly once still rests on
the inbox: the claims commit with the appends or not at all.

The batch is decided in the order of its runs' ids. Decisions take row locks as they go (the
supervisor's timer of its run), and two batches taking them in opposite orders (two of the supervisor's
consumers, each with a message of runs A and B) would deadlock until Postgres broke it a second later;
in one order, one waits for the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from faststream.nats import NatsMessage
from nats.js import JetStreamContext
from psycopg_pool import AsyncConnectionPool

from contracts import Envelope, Event
from services.platform.bus import ConsumerPolicy
from services.platform.db import read_rows
from services.platform.eventstore import Announce, Recorded

log = logging.getLogger("jipsa.consumer")
# How long the pull for the messages waiting behind a fetched one may take. They are there (the first
# one's num_pending said so) and the server sends what it has at once, in about a millisecond; the bound
# matters only when another replica took them meanwhile: the first message then waits this long.
WAITING_S = 0.01
# How long a message may wait for the others of its batch: for their slow work (`prepare`), and for the
# decisions before its own. Past it, what is not done goes alone: a handler that waits on an LLM call holds
# its batch-mates this long at most. Most decisions take a millisecond or two.
TOGETHER_WITHIN_S = 0.02
Numbered = tuple[int, "Taken"]  # a message of the fetch, by its place in it
Result = Literal["handled", "duplicate", "retry", "parked"]  # what a delivery came to


@dataclass(frozen=True)
class Prepared:
    """What the subscription's `prepare` made of a message (boxed: it may be None)."""

    value: Any


@dataclass(frozen=True)
class Taken:
    """A delivery as read, with what `prepare` made of it once that is done."""

    message: NatsMessage
    envelope: Envelope
    event: Event
    delivery: int
    prepared: Prepared | None = None


class Subscribed(Protocol):
    @property
    def consumer(self) -> str: ...  # its name in the inbox

    @property
    def prepare(self) -> object | None: ...


class Consumer(Protocol):
    """What handling a fetch's messages needs of their consumer (consumer.Consumer, which imports this
    module): the decision code is the consumer's, one piece for a message alone and for several."""

    @property
    def durable(self) -> str: ...

    @property
    def pool(self) -> AsyncConnectionPool: ...

    @property
    def policy(self) -> ConsumerPolicy: ...

    @property
    def subscriber(self) -> object: ...  # the FastStream subscriber that fetched them

    @property
    def sub(self) -> Subscribed: ...

    @property
    def announce(self) -> Announce: ...

    def read(self, message: NatsMessage) -> Taken: ...

    async def handle_message(self, message: NatsMessage) -> Result: ...

    async def settle(self, taken: Taken) -> Result: ...

    def in_progress(self, message: NatsMessage) -> contextlib.AbstractContextManager[None]: ...

    async def prepared(self, taken: Taken, together: int = 1) -> Taken: ...

    async def transact(self, taken: Iterable[Taken], together: int = 1) -> list[Recorded]: ...


async def waiting_behind(consumer: Consumer, first: NatsMessage) -> list[NatsMessage]:
    """The messages already waiting behind `first`, up to the policy's fetch_batch with it; none, at
    once, when its num_pending says none wait.

    Pulled on FastStream's own subscription while FastStream waits for the consumer to take `first`, so
    no fetch of its own is under way on it. nats-py's fetch of a batch asks the server with no_wait for
    what it has and returns as soon as that came; only when another replica took them all meanwhile does
    it wait, for WAITING_S. Messages that come after it gave up wait in the subscription's queue, where
    FastStream's next fetch takes them first."""
    wanted = min(_pending_behind(first), consumer.policy.fetch_batch - 1)
    pull = getattr(consumer.subscriber, "subscription", None)
    if wanted < 1 or not isinstance(pull, JetStreamContext.PullSubscription):
        return []
    try:
        waiting = await pull.fetch(batch=wanted, timeout=WAITING_S)
    except Exception as e:  # none came in time, or NATS went away: the first goes on alone
        log.debug("%s: none of %d waiting taken: %s: %s", consumer.durable, wanted, type(e).__name__, e)
        return []
    return [NatsMessage(m, m.data) for m in waiting]


def _pending_behind(message: NatsMessage) -> int:
    """How many messages the server held for the consumer when it delivered this one (its num_pending)."""
    try:
        return int(message.raw_message.metadata.num_pending)
    except Exception:  # not a JetStream delivery (a test's message): none
        return 0


async def handle_together(consumer: Consumer, fetched: Sequence[NatsMessage]) -> list[Result]:
    """Handle and settle the messages of one fetch, together where they may be and each alone where not;
    their results in the order they were fetched."""
    together, alone = _sorted_out(consumer, fetched)
    settling = {i: asyncio.create_task(consumer.handle_message(fetched[i])) for i in alone}
    with contextlib.ExitStack() as beats:  # NATS hears that the batch's messages are being handled
        for _, taken in together:
            beats.enter_context(consumer.in_progress(taken.message))
        if len(together) > 1 and consumer.sub.prepare is not None:
            together = await _prepared(consumer, fetched, together, settling)
        batch = Batch(together)
        committed = len(batch) > 1 and await _committed(consumer, batch, settling)
    if not committed:  # not tried (one message left) or rolled back: each alone, with what it prepared
        alone_now = batch.handed + batch.release()
        settling |= {i: asyncio.create_task(consumer.settle(taken)) for i, taken in alone_now}
    ended = await asyncio.gather(*settling.values(), return_exceptions=True)
    results: list[Result] = ["handled"] * len(fetched)
    for i, result in zip(settling, ended, strict=True):
        if isinstance(result, BaseException):  # its ack, nak or term could not reach NATS
            log.warning("%s: delivery ended with %s: %s", consumer.durable, type(result).__name__, result)
            result = "retry"  # it comes back after ack_wait
        results[i] = result
    return results


def _sorted_out(consumer: Consumer, fetched: Sequence[NatsMessage]) -> tuple[list[Numbered], list[int]]:
    """The messages that may go together, in the order of their runs, and the places of the others."""
    together: list[Numbered] = []
    alone: list[int] = []
    runs: set[str] = set()
    for i, message in enumerate(fetched):
        try:
            taken = consumer.read(message)
        except Exception:  # read again, and parked, by handle_message
            alone.append(i)
            continue
        run = taken.envelope.correlation_id
        if taken.delivery > 1 or run in runs:
            alone.append(i)
            continue
        runs.add(run)
        together.append((i, taken))
    together.sort(key=lambda numbered: numbered[1].envelope.correlation_id)
    return together, alone


async def _prepared(
    consumer: Consumer,
    fetched: Sequence[NatsMessage],
    together: list[Numbered],
    settling: dict[int, asyncio.Task[Result]],
) -> list[Numbered]:
    """Each message's slow work, all at once, before the transaction: those whose work is done within
    TOGETHER_WITHIN_S, ready to go together. The others are handled alone (into `settling`): one the
    inbox holds already, one whose work failed (tried again under the error policy), and one whose work
    takes longer, once it is done. The inbox is looked at once for all: a copy re-fed after a NATS
    wipe would otherwise be worked again only to lose its claim."""
    sql = "SELECT event_id FROM inbox WHERE consumer = %s AND event_id = ANY(%s)"
    ids = [taken.envelope.event_id for _, taken in together]
    try:
        handled = {r["event_id"] for r in await read_rows(consumer.pool, sql, (consumer.sub.consumer, ids))}
    except Exception:  # the store away: each alone waits for it
        handled = set(ids)
    working = {
        i: asyncio.create_task(consumer.prepared(taken, len(together)))
        for i, taken in together
        if taken.envelope.event_id not in handled
    }
    done_before = [i for i, _ in together if i not in working]
    settling |= {i: asyncio.create_task(consumer.handle_message(fetched[i])) for i in done_before}
    if working:
        await asyncio.wait(working.values(), timeout=TOGETHER_WITHIN_S)
    ready = [(i, work.result()) for i, work in working.items() if work.done() and not work.exception()]
    settling |= {
        i: asyncio.create_task(_alone_once_prepared(consumer, fetched[i], work))
        for i, work in working.items()
        if not work.done() or work.exception()
    }
    return ready


async def _alone_once_prepared(consumer: Consumer, message: NatsMessage, work: asyncio.Task[Taken]) -> Result:
    try:
        taken = await work
    except Exception:  # handled anew: its work is tried again, or it is parked, as the error policy says
        return await consumer.handle_message(message)
    return await consumer.settle(taken)


class Batch:
    """The messages of one transaction, handed to it one by one (Consumer.transact). `release`, once
    it has taken TOGETHER_WITHIN_S: the messages not handed over yet are taken back, to go alone, and
    the transaction commits what it has. A transaction run again (db.run_in_transaction, on a
    connection the server had closed) is handed the same messages again first."""

    def __init__(self, together: list[Numbered]) -> None:
        self.left, self.handed = list(together), list[Numbered]()

    def __len__(self) -> int:
        return len(self.left) + len(self.handed)

    def __iter__(self) -> Iterator[Taken]:
        yield from [taken for _, taken in self.handed]
        while self.left:
            self.handed.append(self.left.pop(0))
            yield self.handed[-1][1]

    def release(self) -> list[Numbered]:
        released, self.left = self.left, []
        return released


async def _committed(consumer: Consumer, batch: Batch, settling: dict[int, asyncio.Task[Result]]) -> bool:
    """The batch in one transaction, then announced and acknowledged; False if it was rolled back. A
    decision that holds it up (an LLM call in a handler) holds the messages behind it no longer than
    TOGETHER_WITHIN_S: they are released to go alone (into `settling`)."""

    def release() -> None:
        settling.update({i: asyncio.create_task(consumer.settle(t)) for i, t in batch.release()})

    holding = asyncio.get_running_loop().call_later(TOGETHER_WITHIN_S, release)
    try:
        appended = await consumer.transact(batch, len(batch))
    except Exception as e:
        log.info(
            "%s: %d messages together rolled back (%s: %s); each is handled alone",
            consumer.durable,
            len(batch.handed),
            type(e).__name__,
            e,
        )
        return False
    finally:
        holding.cancel()
    if appended:  # committed: the next consumers hear of it now, not when the relay wakes
        await consumer.announce(appended)
    for _, taken in batch.handed:
        try:
            await taken.message.ack()
        except Exception as e:  # it comes back after ack_wait and is found in the inbox
            log.warning("%s: ack failed: %s: %s", consumer.durable, type(e).__name__, e)
    return True
