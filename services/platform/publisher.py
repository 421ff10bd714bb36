"""The relay from the event store to JetStream (a transactional outbox whose outbox is the log itself).

Events reach NATS only after they are committed, because this process reads
them from the store. It publishes in position order with `Nats-Msg-Id` =
event_id and records, per batch, the last position published and the stream
sequence NATS acknowledged. After a crash it resumes from that checkpoint; a
batch published twice is de-duplicated by JetStream inside its duplicate window
and by every consumer's inbox outside it.

The relay is the guarantee, not the fast path: a process that appends publishes
what it committed right after the commit (`Announcer`), so a consumer hears of
an event one NATS hop after it, and the relay's later copy is dropped by the
same de-duplication.

Both publish through a `pipelined.Pipeline`, which sends a batch without waiting between messages and
collects the acknowledgements on one subscription, not through FastStream's broker (the consumers'
side, bus.Broker), which awaits each before the next: `make bench` prints FastStream's beside nats-py's
pipelined `publish_async`, and FastStream's was 0.17-0.23x of that in three runs (its row "FastStream
publish+ack").

If NATS loses its storage, the stream comes back empty: the next
acknowledgement carries a sequence at or below the one we recorded, or, when we
look (while idle, and once a second while busy), the stream was created after
the one we recorded or its last sequence is below ours. The store is then
re-fed from position 0, so nothing in NATS is ever the only copy.

The relay's first look at the stream also brings it to the settings (streams.reconcile_stream): a
stream created with one replica gets JIPSA_STREAM_REPLICAS once the servers are a cluster.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Sequence
from dataclasses import dataclass, replace

from nats.aio.client import Client as NATS
from nats.js.api import StreamInfo
from psycopg_pool import AsyncConnectionPool

from contracts.subjects import subject_of
from services.platform import heap, loop, telemetry
from services.platform.bus import ensure_stream
from services.platform.eventstore import Recorded, rows_of
from services.platform.outages import url_of
from services.platform.pipelined import Ack, Message, Pipeline
from services.platform.settings import InfraSettings
from services.platform.store_reads import Outgoing, outgoing_after
from services.platform.streams import reconcile_stream
from services.platform.wakeup import ANNOUNCED, StoreWakeup

log = logging.getLogger("jipsa.publisher")
CHECKPOINT = "publisher"
ACK_TIMEOUT_S = 10.0
ANNOUNCE_TIMEOUT_S = 2.0  # past it, the relay's copy is the one that counts


@dataclass(frozen=True)
class Checkpoint:
    position: int
    stream_seq: int
    stream_created: str | None = None  # when the stream we publish to was created: a newer one was wiped


def headers_of(event: Outgoing) -> dict[str, str]:
    headers = {
        "Nats-Msg-Id": event.event_id,
        "Jipsa-Event-Type": event.event_type,
        "Jipsa-Schema-Version": str(event.schema_version),
        "Jipsa-Position": str(event.position),
        "Jipsa-Correlation-Id": event.correlation_id,
    }
    if event.trace.traceparent:
        headers["traceparent"] = event.trace.traceparent
    return headers


def subject(event: Outgoing, namespace: str) -> str:
    return subject_of(event.event_type, event.schema_version, event.routing, namespace)


def messages_of(events: Sequence[Outgoing], namespace: str) -> list[Message]:
    """The events as they go onto the bus, in order."""
    return [Message(subject(e, namespace), e.body, headers_of(e)) for e in events]


def created_of(info: StreamInfo) -> str | None:
    return info.created.isoformat() if info.created else None


class Announcer:
    """Publishes what an append committed, right after the commit, from the process that appended it.

    The fast path: a consumer hears of an event a NATS hop after its commit, not after the relay woke,
    read the log and published. The relay still publishes every event (it is what guarantees one
    reaches NATS: this process may die between commit and publish, or NATS may be away); its copy is
    dropped by JetStream's `Nats-Msg-Id` window and, outside it, by the consumers' inboxes. A failed
    announcement is therefore only logged.
    """

    def __init__(self, nc: NATS, namespace: str) -> None:
        self.pipeline, self.namespace = Pipeline(nc), namespace

    async def __call__(self, records: Sequence[Recorded]) -> None:
        try:
            messages = messages_of([Outgoing.of(r) for r in records], self.namespace)
            await self.pipeline.publish(messages, ANNOUNCE_TIMEOUT_S)
        except Exception as e:  # NATS away or slow: the relay delivers these from the store
            log.info(
                "announcing %d events failed (%s: %s); the relay will publish them",
                len(records),
                type(e).__name__,
                e,
            )


class StreamLost(Exception):
    """NATS acknowledged a sequence that proves the stream was recreated empty."""


class Publisher:
    def __init__(self, pool: AsyncConnectionPool, nc: NATS, settings: InfraSettings, batch: int = 500):
        self.pool, self.settings, self.batch = pool, settings, batch
        self.js, self.pipeline = nc.jetstream(), Pipeline(nc)
        self._at: Checkpoint | None = None  # where this relay is; read from the store once
        self._reconciled = False  # the stream brought to the settings, once per start

    async def publish_pending(self) -> int:
        """Publish everything committed after the checkpoint; returns how many events went out.

        The position is carried in memory from one pass to the next and saved once per pass, after
        its publish: neither is on the way from a commit to NATS. A crash loses at most the last
        pass's save, and publishing those events again is harmless."""
        at = await self.position()
        total = 0
        events = await self._read(at.position)
        while events:
            # A full batch: the next is read while this one's acknowledgements come back. A short one
            # ends the pass (appends are serialised: nothing older can still appear).
            full = len(events) == self.batch
            ahead = asyncio.create_task(self._read(events[-1].position)) if full else None
            try:
                last_seq = await self._publish(events, at)
            except StreamLost:
                await _dropped(ahead)
                at = await self.refeed()
                events = await self._read(at.position)
                continue
            except BaseException:
                await _dropped(ahead)
                raise
            at = self._at = replace(at, position=events[-1].position, stream_seq=last_seq)
            total += len(events)
            events = await ahead if ahead is not None else []
        if total:
            await self._save(at)
        return total

    async def verify_stream(self) -> None:
        """Notice a stream that came back empty (NATS lost its storage) before any new event would show
        it: a stream created since we last looked, or one whose last sequence is below ours. The first
        look brings the stream's configuration to the settings."""
        if self._reconciled:
            info = await ensure_stream(self.js, self.settings)
        else:
            info = await reconcile_stream(self.js, self.settings)
            self._reconciled = True
        at, created = await self.position(), created_of(info)
        recreated = at.stream_created is not None and created != at.stream_created
        if recreated or info.state.last_seq < at.stream_seq:
            await self.refeed()
        elif at.stream_created != created:
            self._at = replace(at, stream_created=created)
            await self._save(self._at)

    async def refeed(self) -> Checkpoint:
        log.warning("stream %s lost its messages: re-feeding it from the store", self.settings.stream_name)
        info = await ensure_stream(self.js, self.settings)
        self._at = Checkpoint(0, 0, created_of(info))
        await self._save(self._at)
        return self._at

    async def position(self) -> Checkpoint:
        if self._at is None:
            self._at = await self.checkpoint()
        return self._at

    async def checkpoint(self) -> Checkpoint:
        """The saved checkpoint, as a relay starting now would resume from it."""
        async with self.pool.connection() as conn:
            rows = await rows_of(
                conn, "SELECT position, state FROM checkpoints WHERE name = %s", (CHECKPOINT,)
            )
        if not rows:
            return Checkpoint(0, 0)
        state = rows[0]["state"]
        return Checkpoint(rows[0]["position"], state["stream_seq"], state.get("stream_created"))

    async def run(
        self,
        stop: asyncio.Event,
        idle_check_s: float = 5.0,
        verify_every_s: float = 1.0,
        announced_delay_s: float = 0.25,
    ) -> None:
        """Publish on every commit notification (and at least every `idle_check_s`) until `stop` is set.
        When every append since the last pass was announced (published by its appender), the relay's
        copy is only the safety net: it waits `announced_delay_s` for more (an unannounced append cuts
        the wait short) and publishes them in one pass.

        The stream is verified (one request) when a wait ends without a notice, after a failure, and
        at most every `verify_every_s` while notices keep coming: the appenders publish too
        (Announcer), so the acknowledgements' sequences alone no longer show a stream that was wiped.
        """
        clock = asyncio.get_running_loop().time
        verified_at = -verify_every_s
        async with StoreWakeup(url_of(self.pool)) as wakeup:
            notified = False
            while not stop.is_set():
                try:
                    if not notified or clock() - verified_at >= verify_every_s:
                        await self.verify_stream()
                        verified_at = clock()
                    await self.publish_pending()
                except Exception as e:  # an outage of NATS or Postgres: wait, then catch up from the store
                    log.warning("publisher: %s: %s; retrying", type(e).__name__, e)
                    self._at, notified = None, False
                    await asyncio.sleep(1.0)
                    continue
                heard = await wakeup.wait(stop, idle_check_s)
                if heard == ANNOUNCED:
                    await wakeup.wait(stop, announced_delay_s, announced_too=False)
                notified = heard is not None

    async def _read(self, after: int) -> list[Outgoing]:
        async with self.pool.connection() as conn:
            return await outgoing_after(conn, after, self.batch)

    async def _publish(self, events: list[Outgoing], checkpoint: Checkpoint) -> int:
        # One batch carries events of many runs, so its span starts a trace of its own, linked to each
        # event's; the events' own traces go on to the consumers through the `traceparent` header.
        attributes = {
            "messaging.system": "nats",
            "messaging.operation.type": "send",
            "messaging.destination.name": self.settings.stream_name,
            "messaging.batch.message_count": len(events),
            "jipsa.position.first": events[0].position,
            "jipsa.position.last": events[-1].position,
        }
        links = telemetry.links_to((e.event_id, e.trace) for e in events)
        with telemetry.root_span(f"publish {self.settings.stream_name}", attributes, links):
            return await self._publish_batch(events, checkpoint)

    async def _publish_batch(self, events: list[Outgoing], checkpoint: Checkpoint) -> int:
        messages = messages_of(events, self.settings.namespace)
        acks: list[Ack] = await self.pipeline.publish(messages, ACK_TIMEOUT_S)
        last_seq = checkpoint.stream_seq
        for ack in acks:
            if not ack.duplicate:
                if ack.seq <= last_seq:
                    raise StreamLost
                last_seq = ack.seq
        return last_seq

    async def _save(self, checkpoint: Checkpoint) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(
                """
                INSERT INTO checkpoints (name, position, state, updated_at)
                VALUES (%s, %s, jsonb_build_object('stream_seq', %s::bigint, 'stream_created', %s::text),
                        now())
                ON CONFLICT (name) DO UPDATE SET position = excluded.position, state = excluded.state,
                                                 updated_at = now()
                """,
                (CHECKPOINT, checkpoint.position, checkpoint.stream_seq, checkpoint.stream_created),
            )


async def _dropped(task: asyncio.Task[list[Outgoing]] | None) -> None:
    """A read ahead no longer wanted: cancelled and its end waited for (asyncio.wait: a cancellation of
    the caller still propagates), its failure if any retrieved, since nobody wants its result."""
    if task is not None:
        task.cancel()
        await asyncio.wait([task])
        if not task.cancelled():
            task.exception()


async def main() -> None:
    from services.platform.bus import connect
    from services.platform.db import open_pool
    from services.platform.probes import ProbeSettings, Readiness, bus_answers, pool_answers, probes_served
    from services.platform.runtime import load_infra_settings
    from services.platform.telemetry import setup_telemetry

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s %(message)s")
    setup_telemetry("publisher")
    settings = load_infra_settings()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    pool = await open_pool(settings.database_url, max_size=2)
    nc = await connect(settings.nats_url, "publisher")
    readiness = Readiness({"postgres": pool_answers(pool), "nats": bus_answers(nc)}, waiting=None)
    try:
        async with probes_served(ProbeSettings(), readiness):
            heap.settle()
            await Publisher(pool, nc, settings).run(stop)
    finally:
        await nc.drain()
        await pool.close()


if __name__ == "__main__":
    loop.run(main())
